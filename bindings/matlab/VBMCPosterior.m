classdef VBMCPosterior < handle
%VBMCPOSTERIOR A variational posterior snapshot of libvbmc, independent of its run.
%   post.elbo, post.elbo_sd, post.dim, post.components
%   X = post.sample(n, seed)   n draws, one per row (the same seed gives the same draws)
%   X = post.sample_refined(n, seed)   n draws refined against the run's surrogate
%   [elbo, elbo_sd] = post.refined_elbo(n, seed)   the auxiliary ELBO of n refined draws
%   post.set_refinement(aux_count, variance_ratio)  the tuning of refined draws
%   lp = post.log_pdf(X)       log density at the rows of X (n x 1)
%   [mu, Sigma] = post.moments()
%   post.save(path); post = VBMCPosterior.load(path)

  properties (SetAccess = private)
    dim = 0
    components = 0
    elbo = NaN
    elbo_sd = NaN
  end
  properties (Access = private)
    id = 0
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
      if obj.id ~= 0
        vbmc_mex('post_destroy', obj.id);
        obj.id = 0;
      end
    end

    function X = sample(obj, n, seed)
      if nargin < 3, seed = 0; end
      X = vbmc_mex('post_sample', obj.id, n, seed);
    end

    function X = sample_refined(obj, n, seed)
      if nargin < 3, seed = 0; end
      X = vbmc_mex('post_sample_refined', obj.id, n, seed);
    end

    function [elbo, elbo_sd] = refined_elbo(obj, n, seed)
      if nargin < 3, seed = 0; end
      [elbo, elbo_sd] = vbmc_mex('post_refined_elbo', obj.id, n, seed);
    end

    function set_refinement(obj, aux_count, variance_ratio)
      vbmc_mex('post_set_refinement', obj.id, aux_count, variance_ratio);
    end

    function lp = log_pdf(obj, X)
      lp = vbmc_mex('post_log_pdf', obj.id, reshape(X, [], obj.dim));
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
  end
end
