% The 2-D banana of examples/quickstart.c from MATLAB/Octave: ask-tell loop, seed 1, prints the ELBO.
run = VBMCRun([], [], [-3 -3], [3 3], [], struct('seed', 1, 'display', 'off'));
while true
  [x, done] = run.ask();
  if done
    break;
  end
  run.tell(x, banana_log_joint(x));
end
post = run.posterior();
fprintf('ELBO = %.17g\n', post.elbo);
fprintf('ELBO SD = %.17g\n', post.elbo_sd);
[mu, Sigma] = post.moments();
fprintf('posterior mean = %g %g\n', mu);
