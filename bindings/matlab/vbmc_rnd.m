function [X, I] = vbmc_rnd(vp, N, origflag, balanceflag, df)
%VBMC_RND Random draws from a variational posterior returned by vbmc.
%   X = VBMC_RND(VP, N) returns N draws, one per row (N x D), fresh each call (seeded from rand,
%   so rng(...) makes them reproducible). [X, I] = VBMC_RND(VP, N) also returns the mixture
%   component of each draw (N x 1). Draws are in the original space only (ORIGFLAG = 1); the
%   balanced and heavy-tailed variants (BALANCEFLAG, DF) of MATLAB VBMC are not supported.
if nargin >= 3 && ~isempty(origflag) && ~origflag
  error('vbmc:unsupported', 'vbmc_rnd: libvbmc draws in the original space only (ORIGFLAG = 1)');
end
if (nargin >= 4 && ~isempty(balanceflag) && balanceflag) || (nargin >= 5 && ~isempty(df) && df ~= Inf)
  error('vbmc:unsupported', 'vbmc_rnd: BALANCEFLAG and DF are not supported');
end
if nargout > 1
  post = posterior_of(vp);
  [X, I] = post.sample(N);
else
  post = posterior_of(vp);
  X = post.sample(N);
end
end
