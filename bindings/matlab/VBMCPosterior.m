classdef VBMCPosterior < handle
%VBMCPOSTERIOR A variational posterior snapshot of libvbmc, independent of its run.
%   post.elbo, post.elbo_sd, post.dim, post.components
%   [X, I] = post.sample(n, seed)  n draws, one per row, and each one's mixture component
%                              (the same seed gives the same draws; without one, a fresh seed
%                              from rand, so rng(...) makes the draws reproducible)
%   X = post.sample_refined(n, seed)   n draws refined against the run's surrogate (seed as above)
%   [elbo, elbo_sd] = post.refined_elbo(n, seed)   the auxiliary ELBO of n refined draws
%   post.set_refinement(aux_count, variance_ratio)  the tuning of refined draws
%   lp = post.log_pdf(X)       log density at the rows of X (n x dim, or one 1 x dim point)
%   bytes = post.bytes()       the snapshot as uint8 (VBMCPosterior.from_bytes reads it back)
%   [mu, Sigma] = post.moments()
%   [log_z, log_z_sd] = post.log_evidence()  the log evidence, not a bound, with an error bar
%   x = post.mode()            the highest point of the density (1 x dim)
%   p = post.marginal_pdf(i, v)  the marginal density of parameter i at the values v
%   [kl, kl_sd] = post.kl_div(other, n, seed)  [KL(post||other), KL(other||post)] by Monte Carlo
%   m = post.mtv(other, n, seed)  marginal total variation of each parameter (1 x dim)
%   post.save(path); post = VBMCPosterior.load(path)

  properties (SetAccess = private)
    dim = 0
    components = 0
    elbo = NaN
    elbo_sd = NaN
    id = 0   % handle id in vbmc_mex's registry (readable: Octave's exit-time delete needs it)
  end

  methods
    function obj = VBMCPosterior(id)
      % Wraps a posterior handle id of vbmc_mex; use VBMC.posterior or VBMCPosterior.load.
      obj.id = id;
      info = vbmc_mex('post_info', id);
      obj.dim = info(1);
      obj.components = info(2);
      obj.elbo = info(3);
      obj.elbo_sd = info(4);
    end

    function delete(obj)
      % Releasing an id twice is harmless (the registry ignores dead ids), so nothing is set
      % here: Octave refuses property writes in delete methods run at exit.
      if obj.id ~= 0
        vbmc_mex('post_destroy', obj.id);
      end
    end

    function [X, I] = sample(obj, n, seed)
      if nargin < 3 || isempty(seed), seed = random_seed(); end
      if nargout > 1
        [X, I] = vbmc_mex('post_sample', obj.id, n, seed);
      else
        X = vbmc_mex('post_sample', obj.id, n, seed);
      end
    end

    function X = sample_refined(obj, n, seed)
      if nargin < 3 || isempty(seed), seed = random_seed(); end
      X = vbmc_mex('post_sample_refined', obj.id, n, seed);
    end

    function [elbo, elbo_sd] = refined_elbo(obj, n, seed)
      if nargin < 3 || isempty(seed), seed = random_seed(); end
      [elbo, elbo_sd] = vbmc_mex('post_refined_elbo', obj.id, n, seed);
    end

    function set_refinement(obj, aux_count, variance_ratio)
      vbmc_mex('post_set_refinement', obj.id, aux_count, variance_ratio);
    end

    function lp = log_pdf(obj, X)
      if isvector(X) && numel(X) == obj.dim
        X = reshape(X, 1, []);  % one point, as a row or a column
      end
      lp = vbmc_mex('post_log_pdf', obj.id, X);
    end

    function s = saveobj(obj)
      % MATLAB's save stores the snapshot's bytes (Octave cannot save classdef objects: use
      % post.save(path), or the vp struct that vbmc returns).
      s = struct('bytes', obj.bytes());
    end

    function data = bytes(obj)
      path = [tempname() '.vbmcpost'];
      vbmc_mex('post_save', obj.id, path);
      file = fopen(path, 'r');
      data = fread(file, Inf, '*uint8');
      fclose(file);
      delete(path);
    end

    function [log_z, log_z_sd] = log_evidence(obj)
      [log_z, log_z_sd] = vbmc_mex('post_log_evidence', obj.id);
    end

    function x = mode(obj)
      x = vbmc_mex('post_mode', obj.id);
    end

    function p = marginal_pdf(obj, coord, values)
      p = vbmc_mex('post_marginal_pdf', obj.id, coord, values);
    end

    function [kl, kl_sd] = kl_div(obj, other, n, seed)
      if nargin < 3 || isempty(n), n = 1e5; end
      if nargin < 4 || isempty(seed), seed = random_seed(); end
      [kl, kl_sd] = vbmc_mex('post_kl', obj.id, other.id, n, seed);
    end

    function m = mtv(obj, other, n, seed)
      if nargin < 3 || isempty(n), n = 1e5; end
      if nargin < 4 || isempty(seed), seed = random_seed(); end
      m = vbmc_mex('post_mtv', obj.id, other.id, n, seed);
    end

    function [mu, Sigma] = moments(obj)
      [mu, Sigma] = vbmc_mex('post_moments', obj.id);
    end

    function save(obj, path)
      vbmc_mex('post_save', obj.id, path);
    end
  end

  methods (Static)
    function obj = load(path)
      obj = VBMCPosterior(vbmc_mex('post_load', path));
    end

    function obj = loadobj(s)
      obj = VBMCPosterior.from_bytes(s.bytes);
    end

    function obj = from_bytes(data)
      path = [tempname() '.vbmcpost'];
      file = fopen(path, 'w');
      fwrite(file, data, 'uint8');
      fclose(file);
      obj = VBMCPosterior(vbmc_mex('post_load', path));
      delete(path);
    end
  end
end
