classdef VBMCRun < handle
%VBMCRUN One ask-tell Variational Bayesian Monte Carlo run of the libvbmc C library (vbmc_mex).
%   (For MATLAB VBMC's interface, [vp, elbo, elbo_sd] = vbmc(fun, x0, LB, UB, PLB, PUB), see vbmc.)
%   run = VBMCRun(lb, ub, plb, pub) creates a run in dimension numel(plb). lb/ub are the hard
%   bounds ([] or -Inf/Inf for unbounded), plb/pub the finite plausible box.
%   run = VBMCRun(lb, ub, plb, pub, x0, options) also sets the start ([]: centre of the box) and
%   options, a struct of PyVBMC option names (see VBMCRun.options()), e.g. struct('seed', 1),
%   or of MATLAB VBMC's CamelCase names (struct('MaxFunEvals', 100)).
%
%   [x, done, wait] = run.ask() next point (1 x dim); done is true (x = []) when finished, wait
%                              is true (x = []) when every point it may hand out is pending
%   run.tell(x, log_joint, sd) report the log joint at x (sd > 0 for a noisy estimate)
%   post = run.posterior()     a VBMCPosterior snapshot: elbo, sample, log_pdf, moments
%   post = run.run(fn)         ask-tell loop with fn(x) -> log_joint or [log_joint, sd]
%   run.stat(name)             a scalar fact: 'func_count', 'finished', 'reliable', ...
%   run.result_message()       how the run ended ('' while it runs)
%   run.history()              struct of per-iteration series (elbo, elbo_sd, func_count, ...)
%   run.evaluations()          struct: X (one told point per row), log_joint, log_joint_sd, in_training
%   run.plot_elbo()            figure of the ELBO +- SD over the iterations
%   run.set_prior(i, kind, params)  the prior of parameter i ('gaussian', [mu, sigma], ...): the
%                              values told are then log likelihoods (see vbmc_set_prior in vbmc.h)
%   run.set_prior_fn(fn)       the whole prior as a function handle x -> log prior density
%   run.log_prior(x)           the log prior the run adds
%   post = run.history_posterior(k)  the posterior of completed iteration k
%   run2 = VBMCRun.warm_start(run, options, reuse)  a new run from run's posterior, re-using its
%                              evaluations (reuse, default true) for the same model
%   d = VBMCRun.diagnose({run1, run2, ...}, seed)  do several runs agree, which is best
%
%   Errors are raised with identifiers vbmc:E_ARG, vbmc:E_STATE, ... and the library's message.

  properties (SetAccess = private)
    dim = 0  % dimension of the run
  end
  properties (Access = private)
    id = 0   % handle id in vbmc_mex's registry
    prior_fn = []  % set_prior_fn's function, evaluated here before each tell
  end

  methods
    function obj = VBMCRun(lb, ub, plb, pub, x0, options)
      if nargin == 0
        return;  % an empty object, filled by VBMCRun.load
      end
      if nargin < 5, x0 = []; end
      if nargin < 6, options = struct(); end
      [settings, here] = translate_options(options);  % CamelCase names too
      if here.plot || here.noisy
        warning('vbmc:ignoredOption', 'Plot and SpecifyTargetNoise concern vbmc() only: ignored');
      end
      obj.id = vbmc_mex('create', lb, ub, plb, pub, x0, settings);
      obj.dim = vbmc_mex('dim', obj.id);
    end

    function delete(obj)
      if obj.id ~= 0
        vbmc_mex('destroy', obj.id);
        obj.id = 0;
      end
    end

    function [x, done, wait] = ask(obj)
      % x = [] when done (the run has finished) or wait (every point it may hand out now is
      % pending: tell one, then ask again).
      [x, status] = vbmc_mex('ask', obj.id);
      done = status == VBMCRun.status().DONE;
      wait = status == VBMCRun.status().WAIT;
    end

    function tell(obj, x, log_joint, sd)
      if nargin < 4, sd = 0; end
      obj.tell_as('tell', x, log_joint, sd);
    end

    function tell_extra(obj, x, log_joint, sd)
      if nargin < 4, sd = 0; end
      obj.tell_as('tell_extra', x, log_joint, sd);
    end

    function abandon(obj, x)
      vbmc_mex('abandon', obj.id, x);
    end

    function X = pending(obj)
      % Points asked for and not yet told, one per row.
      X = vbmc_mex('pending', obj.id);
    end

    function value = stat(obj, name)
      % A scalar fact: 'iteration', 'func_count', 'elbo', 'finished', ...
      value = vbmc_mex('stat', obj.id, name);
    end

    function text = result_message(obj)
      % How the run ended: why it stopped and, if its result is unreliable, why ('' while it runs).
      text = vbmc_mex('result_message', obj.id);
    end

    function post = posterior(obj)
      post = VBMCPosterior(vbmc_mex('posterior', obj.id));
    end

    function save(obj, path)
      vbmc_mex('save', obj.id, path);
    end

    function h = history(obj)
      % Per-iteration record: iteration and the series of vbmc_history, each n x 1.
      names = {'func_count', 'elbo', 'elbo_sd', 'skl', 'r_index', 'components', ...
               'train_count', 'gp_samples', 'stable', 'warmup', 'gp_output_scale', ...
               'gp_length_scale', 'gp_noise_sd'};
      h = struct('iteration', (1:obj.stat('iteration')).');
      for i = 1:numel(names)
        h.(names{i}) = vbmc_mex('history', obj.id, names{i});
      end
      h.action = arrayfun(@(k) vbmc_mex('history_action', obj.id, k), h.iteration, ...
                          'UniformOutput', false);
    end

    function set_prior(obj, coord, kind, params)
      vbmc_mex('set_prior', obj.id, coord, kind, params);
    end

    function set_prior_fn(obj, fn)
      % The whole prior as a function of x returning the log prior density (instead of
      % set_prior); evaluated at each point told. A run loaded from a checkpoint needs it again.
      if ~isa(fn, 'function_handle')
        error('vbmc:E_ARG', 'fn must be a function handle: x -> log prior density');
      end
      vbmc_mex('set_prior_fn', obj.id);
      obj.prior_fn = fn;
    end

    function value = log_prior(obj, x)
      if isempty(obj.prior_fn)
        value = vbmc_mex('log_prior', obj.id, x);
      else
        value = vbmc_mex('log_prior', obj.id, x, obj.prior_fn(x));
      end
    end

    function post = history_posterior(obj, iteration)
      post = VBMCPosterior(vbmc_mex('history_posterior', obj.id, iteration));
    end

    function e = evaluations(obj)
      % Every told evaluation: X (n x dim), log_joint, log_joint_sd, in_training (n x 1); for a
      % run given a prior also log_likelihood (as told) and log_prior.
      e = vbmc_mex('evaluations', obj.id);
      if obj.stat('has_prior') == 1
        [e.log_likelihood, e.log_prior] = vbmc_mex('evaluations_prior', obj.id);
      end
    end

    function fig = plot_elbo(obj)
      % The ELBO +- SD over the iterations (with the returned ELBO once finished).
      final = [];
      if obj.stat('finished') == 1
        final = [obj.stat('elbo'), obj.stat('elbo_sd')];
      end
      fig = plot_elbo(obj.history(), final);
    end

    function post = run(obj, fn)
      % Ask-tell until the run finishes; fn(x) returns log_joint or [log_joint, sd] (anything
      % else raises vbmc:fnvalue, its point left pending). The loop
      % runs here (a MATLAB error must not unwind through the C library), so an error in fn
      % leaves the run usable with its point pending; the next run evaluates pending points
      % before asking for new ones.
      while true
        waiting = obj.pending();
        if ~isempty(waiting)
          x = waiting(1, :);
        else
          [x, done] = obj.ask();
          if done
            break;
          end
        end
        value = told_value(fn(x), x);
        obj.tell(x, value(1), value(2));
      end
      post = obj.posterior();
    end
  end

  methods (Static)
    function obj = load(path)
      % Resume a run from a checkpoint written by save.
      obj = VBMCRun();
      obj.id = vbmc_mex('load', path);
      obj.dim = vbmc_mex('dim', obj.id);
    end

    function obj = warm_start(previous, options, reuse)
      % A new run from previous's posterior; reuse (default true) re-uses its evaluations.
      if nargin < 2, options = struct(); end
      if nargin < 3, reuse = true; end
      obj = VBMCRun();
      obj.id = vbmc_mex('create_warm', previous.id, logical(reuse), translate_options(options));
      obj.dim = vbmc_mex('dim', obj.id);
      obj.prior_fn = previous.prior_fn;  % the library keeps previous's prior callback too
    end

    function d = diagnose(runs, seed)
      % struct: agree, best (index into runs), converged_count, elbo_spread, max_skl, max_mtv,
      % skl and mtv (pairwise), message.
      % runs: a cell array of VBMCRun (or, under MATLAB, an array of them).
      if nargin < 2 || isempty(seed), seed = random_seed(); end
      ids = zeros(1, numel(runs));
      for i = 1:numel(runs)
        if iscell(runs), run = runs{i}; else, run = runs(i); end
        ids(i) = run.id;
      end
      d = vbmc_mex('diagnose', ids, seed);
      d.agree = d.agree == 1;
    end

    function table = options()
      % Every option of the library: struct array with name, type, default, help.
      table = vbmc_mex('options');
    end

    function text = version()
      text = vbmc_mex('version');
    end

    function codes = status()
      % Status codes and constants of the C header (generated into vbmc_constants.m).
      codes = vbmc_constants();
    end
  end

  methods (Access = private)
    function tell_as(obj, command, x, log_joint, sd)
      % tell or tell_extra, with the prior function's value at x when the run has one.
      if isempty(obj.prior_fn)
        vbmc_mex(command, obj.id, x, log_joint, sd);
      else
        vbmc_mex(command, obj.id, x, log_joint, sd, obj.prior_fn(x));
      end
    end
  end
end
