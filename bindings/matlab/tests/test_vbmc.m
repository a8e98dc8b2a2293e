% Tests of the MEX gateway and the VBMC / VBMCPosterior classes (run by meson with octave-cli).
failures = 0;
gaussian_log_joint = @(x) -0.5 * sum(x .* x);

c = vbmc_constants();
failures = failures + check(strcmp(VBMC.version(), sprintf('%d.%d.%d', c.VERSION_MAJOR, ...
  c.VERSION_MINOR, c.VERSION_PATCH)), 'version matches the header macros');
names = {VBMC.options().name};
failures = failures + check(any(strcmp(names, 'seed')) && any(strcmp(names, 'max_fun_evals')), ...
  'option introspection');
failures = failures + check(strcmp(vbmc_mex('status_name', c.E_NUMERIC), 'VBMC_E_NUMERIC'), ...
  'status names');

try
  VBMC([], [], [3 -3], [-3 3]);
  failures = failures + check(false, 'misordered box raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_ARG') && ...
    ~isempty(strfind(err.message, 'plb')), 'misordered box raises vbmc:E_ARG naming plb');
end

try
  VBMC([], [], -1, 1, [], struct('no_such_option', 1));
  failures = failures + check(false, 'unknown option raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_OPTION'), ...
    'unknown option raises vbmc:E_OPTION');
end

try
  VBMC([], [], -1, 1, [], struct('seed', [1 2]));
  failures = failures + check(false, 'a non-scalar option value raises');
catch err
  failures = failures + check(strcmp(err.identifier, 'vbmc:E_OPTION') && ...
    ~isempty(strfind(err.message, 'seed')), 'a non-scalar option value raises vbmc:E_OPTION');
end

run = VBMC([], [], -1, 1, [], struct('seed', 3, 'display', 'off'));
x = run.ask();
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

resumed = VBMC([], [], -1, 1, [], struct('display', 'off', 'max_fun_evals', 12));
try
  resumed.run(@(x) error('model:failed', 'model failed'));
catch err
end
left = resumed.pending();
resumed.run(gaussian_log_joint);
failures = failures + check(isequal(size(left), [1 1]) && resumed.stat('func_count') == 12 && ...
  resumed.stat('finished') == 1, 'after an error, run evaluates the pending point and finishes');

run = VBMC([], [], [-2 -2], [2 2], [], struct('seed', 5, 'display', 'off', 'max_fun_evals', 40));
post = run.run(gaussian_log_joint);
failures = failures + check(run.stat('finished') == 1 && isfinite(post.elbo), ...
  'run finishes with a finite ELBO');
reliable = run.stat('reliable');
failures = failures + check(strncmp(run.result_message(), 'Inference terminated: ', 22) && ...
  (reliable == 0 || reliable == 1), ...
  'a finished run says why it stopped and gives a 0/1 reliability verdict');
fresh = VBMC([], [], [-2 -2], [2 2], [], struct('display', 'off'));
failures = failures + check(ischar(fresh.result_message()) && isempty(fresh.result_message()) && ...
  isnan(fresh.stat('reliable')), 'a fresh run has no result message and a NaN reliability verdict');
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

if failures > 0
  error('test_vbmc: %d checks failed', failures);
end
disp('all Octave checks passed');
