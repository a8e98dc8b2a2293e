% Tests of the MEX gateway and the VBMCRun / VBMCPosterior classes and vbmc() (run by meson with octave-cli).
failures = 0;
gaussian_log_joint = @(x) -0.5 * sum(x .* x);

c = vbmc_constants();
failures = failures + check(strcmp(VBMCRun.version(), sprintf('%d.%d.%d', c.VERSION_MAJOR, ...
  c.VERSION_MINOR, c.VERSION_PATCH)), 'version matches the header macros');
names = {VBMCRun.options().name};
failures = failures + check(any(strcmp(names, 'seed')) && any(strcmp(names, 'max_fun_evals')), ...
  'option introspection');
failures = failures + check(strcmp(vbmc_mex('status_name', c.E_NUMERIC), 'VBMC_E_NUMERIC'), ...
  'status names');

try
  VBMCRun([], [], [3 -3], [-3 3]);
  failures = failures + check(false, 'misordered box raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_ARG') && ...
    ~isempty(strfind(err.message, 'plb')), 'misordered box raises vbmc:E_ARG naming plb');
end

try
  VBMCRun([], [], -1, 1, [], struct('no_such_option', 1));
  failures = failures + check(false, 'unknown option raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_OPTION'), ...
    'unknown option raises vbmc:E_OPTION');
end

try
  VBMCRun([], [], -1, 1, [], struct('seed', [1 2]));
  failures = failures + check(false, 'a non-scalar option value raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_OPTION') && ...
    ~isempty(strfind(err.message, 'seed')), 'a non-scalar option value raises vbmc:E_OPTION');
end

camel = VBMCRun([], [], -1, 1, [], struct('MaxFunEvals', 12, 'Display', 'off'));
failures = failures + check(camel.stat('max_fun_evals') == 12, 'VBMCRun takes CamelCase option names');
run = VBMCRun([], [], -1, 1, [], struct('seed', 3, 'display', 'off'));
x = run.ask();
[y, done, waiting] = run.ask();  % max_pending = 1 and x is out
failures = failures + check(isempty(y) && ~done && waiting, 'with every allowed point out, ask says wait');
try
  run.tell(x + 0.25, 0);
  failures = failures + check(false, 'tell of a point not pending raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_STATE'), ...
    'tell of a point not pending raises vbmc:E_STATE');
end
run.tell(x, gaussian_log_joint(x));
failures = failures + check(run.stat('func_count') == 1, 'the run stays usable after an error');

try
  vbmc_mex('ask', 12345);
  failures = failures + check(false, 'a forged handle raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:handle'), 'a forged handle raises');
end

resumed = VBMCRun([], [], -1, 1, [], struct('display', 'off', 'max_fun_evals', 12));
try
  resumed.run(@(x) error('model:failed', 'model failed'));
catch err
end
left = resumed.pending();
resumed.run(gaussian_log_joint);
failures = failures + check(isequal(size(left), [1 1]) && resumed.stat('func_count') == 12 && ...
  resumed.stat('finished') == 1, 'after an error, run evaluates the pending point and finishes');

run = VBMCRun([], [], [-2 -2], [2 2], [], struct('seed', 5, 'display', 'off', 'max_fun_evals', 40));
post = run.run(gaussian_log_joint);
failures = failures + check(run.stat('finished') == 1 && isfinite(post.elbo), ...
  'run finishes with a finite ELBO');
reliable = run.stat('reliable');
failures = failures + check(strncmp(run.result_message(), 'Inference terminated: ', 22) && ...
  (reliable == 0 || reliable == 1), ...
  'a finished run says why it stopped and gives a 0/1 reliability verdict');
fresh = VBMCRun([], [], [-2 -2], [2 2], [], struct('display', 'off'));
failures = failures + check(ischar(fresh.result_message()) && isempty(fresh.result_message()) && ...
  isnan(fresh.stat('reliable')), 'a fresh run has no result message and a NaN reliability verdict');
failures = failures + check(~isequal(post.sample(4), post.sample(4)), 'draws are fresh by default');
rand('state', 3); first = post.sample(4);
rand('state', 3);
failures = failures + check(isequal(first, post.sample(4)), 'the rand state makes default draws reproducible');
[X, I] = post.sample(50, 3);
failures = failures + check(isequal(X, post.sample(50, 3)) && all(I >= 1 & I <= post.components), ...
  'sample labels its draws with 1-based components');
X = post.sample(7, 11);
failures = failures + check(isequal(size(X), [7 2]) && isequal(X, post.sample(7, 11)), ...
  'sample gives n x dim, reproducibly');
lp = post.log_pdf(X);
failures = failures + check(isequal(size(lp), [7 1]) && ...
  abs(post.log_pdf(X(4, :)) - lp(4)) <= 1e-12 * abs(lp(4)), 'log_pdf of rows and of one point');
[mu, Sigma] = post.moments();
failures = failures + check(isequal(size(mu), [1 2]) && isequal(size(Sigma), [2 2]) && ...
  max(max(abs(Sigma - Sigma.'))) <= 1e-12 * max(abs(Sigma(:))), 'moments');
R = post.sample_refined(7, 11);
failures = failures + check(isequal(size(R), [7 2]) && all(isfinite(R(:))) && ...
  isequal(R, post.sample_refined(7, 11)), 'refined draws are n x dim, finite and reproducible');
[aux, aux_sd] = post.refined_elbo(50, 3);
failures = failures + check(aux >= post.elbo && aux_sd >= post.elbo_sd, ...
  'the auxiliary ELBO is not below the mixture''s');
try
  post.set_refinement(0, 0.7);
  refused = false;
catch err
  refused = strcmp(err.identifier, 'vbmc:E_ARG');
end
failures = failures + check(refused, 'a refinement setting out of range');
path = [tempname() '.vbmc'];
post.save(path);
loaded = VBMCPosterior.load(path);
failures = failures + check(loaded.elbo == post.elbo && isequal(loaded.log_pdf(X), lp), ...
  'posterior save/load round-trips');
delete(path);

% ---- validation at the boundary ---------------------------------------------------------------
run3 = VBMCRun([], [], [-2 -2 -2], [2 2 2], [], struct('seed', 2, 'display', 'off', 'max_fun_evals', 30));
post3 = run3.run(gaussian_log_joint);
try
  post3.log_pdf(zeros(3, 2));
  failures = failures + check(false, 'log_pdf refuses a 3 x 2 matrix in 3-D');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_ARG') && ~isempty(strfind(err.message, '3 columns')), ...
    'log_pdf refuses a 3 x 2 matrix in 3-D (never reshaped)');
end
try
  post3.log_pdf([0 NaN 0]);
  failures = failures + check(false, 'a NaN point raises');
catch err
  failures = failures + check(~isempty(strfind(err.message, 'NaN')) && isempty(strfind(err.message, 'rejected')), ...
    'posterior errors carry the library''s message');
end
refused = VBMCRun([], [], -1, 1, [], struct('display', 'off'));
returns = {[], 'text', [1 2 3], struct('a', 1), 1i};
for i = 1:numel(returns)
  bad = returns{i};
  try
    refused.run(@(x) bad);
    failures = failures + check(false, 'a bad return raises');
  catch err
    failures = failures + check(strcmp(err.identifier, 'vbmc:fnvalue') && refused.stat('pending') == 1 && ...
      refused.stat('func_count') == 0, sprintf('a target returning %s is refused, its point pending', class(bad)));
  end
end
failed = VBMCRun([], [], -1, 1, [], struct('display', 'off', 'max_fun_evals', 12));
try
  failed.run(@(x) NaN);
  failures = failures + check(false, 'an all-failed run raises');
catch err
  failures = failures + check(~isempty(strfind(err.message, 'without a single finite')), ...
    'a run whose every evaluation failed says why');
end

% ---- output through mexPrintf, records --------------------------------------------------------
loud = VBMCRun([], [], -1, 1, [], struct('display', 'iter', 'max_fun_evals', 15, 'seed', 1));
shown = evalc('loud.run(@(x) -0.5 * x^2);');
failures = failures + check(~isempty(strfind(shown, 'Iteration')) && ~isempty(strfind(shown, 'Inference terminated')), ...
  'the iteration table is printed through mexPrintf');
h = loud.history();
e = loud.evaluations();
failures = failures + check(numel(h.elbo) == loud.stat('iteration') && all(diff(h.func_count) > 0) && ...
  isequal(size(e.X), [15 1]) && sum(e.in_training) == loud.stat('train_count'), 'history and evaluations');

% ---- MATLAB VBMC's interface --------------------------------------------------------------------
rand('seed', 7);
target = @(x) log(5) - 0.5 * sum(((x - [1 -1]) ./ [0.5 2]).^2) - log(2 * pi * 0.5 * 2);
opts = struct('Display', 'off', 'MaxFunEvals', 80, 'TolStableCount', 40);
[vp, elbo, elbo_sd, exitflag, output] = vbmc(target, [0 0], -Inf, Inf, [-3 -5], [3 5], opts);
failures = failures + check(abs(elbo - log(5)) < 0.05 && elbo_sd < 0.05 && any(exitflag == [0 1]) && ...
  output.funccount <= 80 && ischar(output.message), 'vbmc finds the log evidence of a Gaussian (log 5)');
[mu, Sigma] = vbmc_moments(vp);
failures = failures + check(max(abs(mu - [1 -1])) < 0.1 && max(abs(diag(Sigma).' ./ [0.25 4] - 1)) < 0.1, ...
  'vbmc_moments: mean and covariance');
[Xs, Is] = vbmc_rnd(vp, 1000);
failures = failures + check(isequal(size(Xs), [1000 2]) && isequal(size(Is), [1000 1]), 'vbmc_rnd shapes');
y = vbmc_pdf(vp, Xs(1:5, :));
failures = failures + check(isequal(size(y), [5 1]) && max(abs(log(y) - vbmc_pdf(vp, Xs(1:5, :), 1, 1))) < 1e-12, ...
  'vbmc_pdf: density and log density');
matfile = [tempname() '.mat'];
save(matfile, 'vp');
kept = load(matfile);
delete(matfile);
failures = failures + check(isequal(vbmc_pdf(kept.vp, Xs(1:5, :)), y), 'a vp survives save / load');
defaults = vbmc('defaults');
failures = failures + check(isfield(defaults, 'MaxFunEvals') && isfield(defaults, 'TolStableCount'), ...
  'vbmc(''defaults'') lists options under CamelCase names');
try
  vbmc(target, [0 0], [], [], [-3 -5], [3 5], struct('MaxFunEval', 10));
  failures = failures + check(false, 'an unknown option raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_OPTION') && ~isempty(strfind(err.message, 'MaxFunEval')), ...
    'an unknown option name raises vbmc:E_OPTION naming it');
end
lastwarn('');
[~, ~, ~, ~, noisy_output] = vbmc(@(x) deal(target(x), 0.5), [], [], [], [-3 -5], [3 5], ...
  struct('Display', 'off', 'MaxFunEvals', 30, 'SpecifyTargetNoise', true, 'UncertaintyHandling', [], ...
         'RepeatedAcqDiscount', 1));
[message, id] = lastwarn();
failures = failures + check(strcmp(id, 'vbmc:ignoredOption') && noisy_output.funccount <= 30 && ...
  ~isempty(strfind(message, 'RepeatedAcqDiscount')) && isempty(strfind(message, 'UncertaintyHandling')), ...
  'SpecifyTargetNoise takes [f, sd]; [] leaves UncertaintyHandling unset; options libvbmc lacks are ignored with a warning');

% ---- plots (PNG files for a person to look at) -------------------------------------------------
plot_dir = getenv('VBMC_PLOT_DIR');
if isempty(plot_dir), plot_dir = tempdir(); end
if ~exist(plot_dir, 'dir'), mkdir(plot_dir); end
graphics_toolkit('gnuplot');
names = {'corner', 'elbo'};
for i = 1:2
  fig = figure('visible', 'off');
  vbmc_plot(vp, names{i});
  path = fullfile(plot_dir, ['octave_' names{i} '.png']);
  print(fig, path, '-dpngcairo', '-S640,560');
  close(fig);
  info = dir(path);
  failures = failures + check(~isempty(info) && info.bytes > 5000, ['vbmc_plot draws the ' names{i} ' plot']);
end

% ---- the workflow after a first run ----
shifted = @(x) -0.5 * sum(((x - [1 -1]) ./ [0.5 1]).^2);
first = VBMCRun([], [], [-3 -3], [3 3], [-0.5 0], struct('seed', 1, 'display', 'off', 'max_fun_evals', 60));
second = VBMCRun([], [], [-3 -3], [3 3], [0.5 0], struct('seed', 2, 'display', 'off', 'max_fun_evals', 60));
p1 = first.run(shifted);
p2 = second.run(shifted);
[log_z, log_z_sd] = p1.log_evidence();
failures = failures + check(abs(log_z - log(2 * pi * 0.5)) < 0.2 && log_z_sd > 0, 'the log evidence of the Gaussian');
failures = failures + check(max(abs(p1.mode() - [1 -1])) < 0.2, 'the mode is near the Gaussian mean');
grid = linspace(-2, 4, 601);
density = p1.marginal_pdf(1, grid);
failures = failures + check(isequal(size(density), size(grid)) && ...
  abs(sum(density) * (grid(2) - grid(1)) - 1) < 0.01, 'a marginal density integrates to 1');
[kl, kl_sd] = p1.kl_div(p1, 2000, 4);
failures = failures + check(all(abs(kl) < 1e-12) && numel(kl_sd) == 2, 'KL of a posterior with itself is 0');
m = p1.mtv(p2, 2000, 4);
failures = failures + check(numel(m) == 2 && all(m >= 0 & m <= 1), 'MTV per parameter in [0, 1]');
d = VBMCRun.diagnose({first, second}, 2);
failures = failures + check(islogical(d.agree) && any(d.best == [1 2]) && isequal(size(d.skl), [2 2]) && ...
  ischar(d.message), 'diagnose two runs');
warm = VBMCRun.warm_start(first, struct('seed', 3, 'display', 'off', 'max_fun_evals', 80));
e1 = first.evaluations();
e3 = warm.evaluations();
failures = failures + check(isequal(e3.X(1, :), e1.X(1, :)), 'a warm start re-uses the evaluations');
warm.run(shifted);
failures = failures + check(warm.stat('finished') == 1, 'a warm-started run finishes');
h = first.history();
failures = failures + check(iscell(h.action) && numel(h.action) == numel(h.iteration), 'history has the actions');
past = first.history_posterior(1);
failures = failures + check(past.dim == 2, 'the posterior of the first iteration');
with_prior = VBMCRun([], [], [-3 -3], [3 3], [], struct('seed', 1, 'display', 'off'));
with_prior.set_prior(1, 'gaussian', [0 2]);
with_prior.set_prior(2, 'gaussian', [0 2]);
failures = failures + check(abs(with_prior.log_prior([0 0]) - 2 * (-log(2) - 0.5 * log(2 * pi))) < 1e-12, ...
  'the log prior of two Gaussian priors');
try
  with_prior.set_prior(1, 'gaussian', [0 -1]);
  failures = failures + check(false, 'a negative sigma raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_ARG'), 'a negative sigma raises vbmc:E_ARG');
end
x = with_prior.ask();
with_prior.tell(x, -0.5 * sum(x .^ 2));
e = with_prior.evaluations();
failures = failures + check(e.log_likelihood == -0.5 * sum(x .^ 2) && e.log_joint == e.log_likelihood + e.log_prior, ...
  'a run with a prior records the told log likelihood and the log prior');
% The prior as a function handle: the same asks and parts as the ready-made Gaussian priors.
gauss_prior = @(x) sum(-0.5 * (x / 2) .^ 2 - log(2) - 0.5 * log(2 * pi));
fn_prior = VBMCRun([], [], [-3 -3], [3 3], [], struct('seed', 1, 'display', 'off'));
fn_prior.set_prior_fn(gauss_prior);
failures = failures + check(abs(fn_prior.log_prior([0.5 -1]) - gauss_prior([0.5 -1])) < 1e-15, ...
  'the log prior of a prior function');
x_fn = fn_prior.ask();
failures = failures + check(isequal(x_fn, x), 'a run with a prior function asks what the run with priors asked');
fn_prior.tell(x_fn, -0.5 * sum(x_fn .^ 2));
e_fn = fn_prior.evaluations();
failures = failures + check(abs(e_fn.log_prior - e.log_prior) < 1e-12 && e_fn.log_likelihood == e.log_likelihood, ...
  'a prior function records the same two parts');
try
  fn_prior.set_prior_fn(gauss_prior);
  failures = failures + check(false, 'a prior function after a tell raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_STATE'), 'a prior function only before the first tell');
end
bad_prior = VBMCRun([], [], [-3 -3], [3 3], [], struct('seed', 1, 'display', 'off'));
bad_prior.set_prior_fn(@(x) error('test:noprior', 'no prior here'));
x_bad = bad_prior.ask();
try
  bad_prior.tell(x_bad, 0);
  failures = failures + check(false, 'an error in the prior function raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'test:noprior') && size(bad_prior.pending(), 1) == 1, ...
    'an error in the prior function fails the tell and leaves the point pending');
end
fn_run = VBMCRun([], [], [-3 -3], [3 3], [], struct('seed', 2, 'display', 'off', 'max_fun_evals', 30));
fn_run.set_prior_fn(gauss_prior);
fn_run.run(@(x) -0.5 * sum(x .^ 2));
warm_fn = VBMCRun.warm_start(fn_run, struct('seed', 3, 'display', 'off', 'max_fun_evals', 40));
clear fn_run;  % the prior cell outlives the first run
x_warm = warm_fn.ask();
warm_fn.tell(x_warm, -0.5 * sum(x_warm .^ 2));
e_warm = warm_fn.evaluations();
failures = failures + check(abs(e_warm.log_prior(end) - gauss_prior(x_warm)) < 1e-12, ...
  'a warm start keeps the prior function after the first run is gone');

if failures > 0
  error('test_vbmc: %d checks failed', failures);
end
disp('all Octave checks passed');
