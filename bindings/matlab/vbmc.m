function [vp, elbo, elbo_sd, exitflag, output] = vbmc(fun, x0, LB, UB, PLB, PUB, options, varargin)
%VBMC Variational Bayesian Monte Carlo with MATLAB VBMC's interface, computed by libvbmc.
%   [VP, ELBO, ELBO_SD, EXITFLAG, OUTPUT] = VBMC(FUN, X0, LB, UB, PLB, PUB, OPTIONS, ...) fits
%   a variational posterior VP and a lower bound ELBO (+- ELBO_SD) on the log evidence of the
%   log joint FUN(X, ...) (X a 1 x D row; extra arguments are passed on). X0 is the start (or
%   [], the centre of the plausible box; extra rows are evaluated and added to the training
%   set); LB, UB the hard bounds ([] or -Inf/Inf where unbounded; a scalar applies to every
%   coordinate); PLB, PUB the finite plausible box. OPTIONS is a struct with MATLAB VBMC's
%   CamelCase names (MaxFunEvals, Display, SpecifyTargetNoise, Plot, ...) or libvbmc's
%   snake_case ones (VBMCRun.options()). With SpecifyTargetNoise, [F, SD] = FUN(X, ...).
%   Without a Seed option the seed comes from rand, so rng(...) makes a run reproducible.
%
%   VP is a struct (D, K, stats.elbo, stats.elbo_sd, history, evaluations, bytes) to use with
%   vbmc_rnd, vbmc_pdf, vbmc_moments and vbmc_plot; it can be saved with save/load. EXITFLAG is 1
%   when the run converged (stable and reliable), 0 otherwise. OUTPUT holds function,
%   iterations, funccount, trainsetsize, components, rindex, convergencestatus, reliable,
%   algorithm, message, elbo and elbo_sd. OPTIONS = VBMC('defaults') lists the options.
%
%   See also VBMC_RND, VBMC_PDF, VBMC_MOMENTS, VBMC_PLOT, VBMCRUN.
if nargin == 1 && ischar(fun) && strcmpi(fun, 'defaults')
  vp = defaults();
  return;
end
if nargin < 6
  error('vbmc:E_ARG', 'vbmc needs FUN, X0, LB, UB, PLB and PUB');
end
if nargin < 7, options = struct(); end
if ischar(fun), fun = str2func(fun); end
D = numel(PLB);
[LB, UB, PLB, PUB] = deal(full_row(LB, D), full_row(UB, D), full_row(PLB, D), full_row(PUB, D));
[settings, here] = translate_options(options);
if ~isfield(settings, 'seed'), settings.seed = random_seed(); end
start = [];
if ~isempty(x0), start = x0(1, :); end
run = VBMCRun(LB, UB, PLB, PUB, start, settings);
evaluate = @(x) target_value(fun, x, here.noisy, varargin);
for i = 2:size(x0, 1)
  value = told_value(evaluate(x0(i, :)), x0(i, :));
  run.tell_extra(x0(i, :), value(1), value(2));
end
post = run.run(evaluate);
vp = struct('D', D, 'K', post.components, ...
            'stats', struct('elbo', post.elbo, 'elbo_sd', post.elbo_sd), ...
            'history', run.history(), 'evaluations', run.evaluations(), 'bytes', post.bytes());
elbo = post.elbo;
elbo_sd = post.elbo_sd;
exitflag = double(run.stat('converged') == 1);
output = struct('function', func2str(fun), 'iterations', run.stat('iteration'), ...
                'funccount', run.stat('func_count'), 'trainsetsize', run.stat('train_count'), ...
                'components', post.components, 'rindex', run.stat('r_index'), ...
                'convergencestatus', ternary(exitflag == 1, 'probable', 'no'), ...
                'reliable', run.stat('reliable') == 1, ...
                'algorithm', 'Variational Bayesian Monte Carlo (libvbmc)', ...
                'message', run.result_message(), 'elbo', elbo, 'elbo_sd', elbo_sd);
if here.plot
  figure(); vbmc_plot(vp);
  figure(); vbmc_plot(vp, 'elbo');
end
end

function value = target_value(fun, x, noisy, extra)
if noisy
  [f, sd] = fun(x, extra{:});
  value = [f, sd];
else
  value = fun(x, extra{:});
end
end

function v = full_row(v, D)
% A 1 x D row from [] (kept empty), a scalar (replicated) or D values.
if isscalar(v) && D > 1
  v = repmat(v, 1, D);
end
v = reshape(v, 1, []);
end

function out = ternary(condition, yes, no)
if condition, out = yes; else, out = no; end
end

function options = defaults()
% libvbmc's options and defaults, under MATLAB VBMC's CamelCase spelling of their names.
options = struct();
table = VBMCRun.options();
for i = 1:numel(table)
  words = strsplit(table(i).name, '_');
  for w = 1:numel(words)
    words{w}(1) = upper(words{w}(1));
  end
  options.(strjoin(words, '')) = table(i).default;
end
end
