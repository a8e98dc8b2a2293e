function post = posterior_of(vp)
%POSTERIOR_OF The VBMCPosterior behind a vp struct returned by vbmc: rebuilt from vp.bytes once
%   per session and cached (a vp is plain data, so save/load and copies of it keep working).
persistent cache
if ~isstruct(vp) || ~isfield(vp, 'bytes')
  error('vbmc:E_ARG', 'vp must be a variational posterior returned by vbmc');
end
if isempty(cache)
  cache = {};
end
for i = 1:numel(cache)
  if isequal(cache{i}.bytes, vp.bytes)
    post = cache{i}.post;
    return;
  end
end
post = VBMCPosterior.from_bytes(vp.bytes);
cache{end + 1} = struct('bytes', vp.bytes, 'post', post);
end
