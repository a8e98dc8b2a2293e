! Tests of the Fortran binding: errors reach Fortran as stat/errmsg carrying the library's status
! and sentence, size mismatches are caught before the C call, run%run drives a bind(c) callback
! through vbmc_run, and the posterior's arrays come back with the right shapes.
program test_vbmc
  use, intrinsic :: iso_c_binding, only: c_double, c_int, c_int64_t, c_ptr, c_loc, &
    c_f_pointer
  use, intrinsic :: ieee_arithmetic, only: ieee_is_finite, ieee_is_nan
  use vbmc
  implicit none
  type(vbmc_options_type) :: options, small
  type(vbmc_run_type) :: run, driven, fresh, second, warm, with_prior
  type(vbmc_posterior_type) :: post, post2, past
  type(vbmc_diagnosis_type) :: diagnosis
  real(c_double) :: x2(2), told_ll(1), told_lp(1)
  real(c_double) :: mode(2), kl(2), kl_sd(2), mtv(2), mean_mtv, grid(601), density(601), log_z, log_z_sd
  integer :: i
  real(c_double) :: x(1), wrong(3), draws(2, 7), again(2, 7), log_pdf(7), mean(2), cov(2, 2)
  real(c_double), allocatable :: elbos(:), told(:, :), values(:), sds(:)
  integer(c_int), allocatable :: used(:)
  integer(c_int) :: labels(7)
  character(len=256) :: message
  character(len=:), allocatable :: ended
  real(c_double) :: elbo, reliable, refined_elbo, refined_elbo_sd
  integer :: status, failures, finished
  integer(c_int), target :: calls
  logical :: done, waiting

  failures = 0

  call run%create(plb=[3.0_c_double, -3.0_c_double], pub=[-3.0_c_double, 3.0_c_double], &
    stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG .and. index(message, "plb") > 0, "misordered box", message)

  call options%set("no_such_option", 1, stat=status, errmsg=message)
  call expect(status == VBMC_E_OPTION .and. index(message, "no_such_option") > 0, &
    "unknown option", message)

  call options%set("display", "off")
  call options%set("seed", 4)
  call run%create(plb=[-1.0_c_double], pub=[1.0_c_double], options=options)
  call run%tell(wrong, 0.0_c_double, stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG .and. index(message, "x has 3 elements") > 0, &
    "size of x", message)

  call run%ask(x, done, stat=status)
  call expect(status == VBMC_OK .and. .not. done, "first ask", "")
  ! max_pending = 1 and x is out: the run waits for its value, x stays as it is.
  call run%ask(x, done, stat=status, wait=waiting)
  call expect(status == VBMC_OK .and. waiting .and. .not. done, "ask with wait= says wait", "")
  call run%ask(x, done, stat=status, errmsg=message)
  call expect(status == VBMC_WAIT .and. index(message, "VBMC_WAIT") > 0, &
    "ask without wait= reports the wait through stat", message)
  call run%tell(x + 0.25_c_double, 0.0_c_double, stat=status, errmsg=message)
  call expect(status == VBMC_E_STATE .and. len_trim(message) > 0, "tell of a point not pending", &
    message)

  call run%posterior(post, stat=status, errmsg=message)
  call expect(status == VBMC_E_STATE, "posterior before the first iteration", message)

  call post%load("/nonexistent/post.vbmc", stat=status, errmsg=message)
  call expect(status == VBMC_E_IO, "load of a missing file", message)

  call expect(vbmc_status_text(VBMC_E_NUMERIC) == "VBMC_E_NUMERIC", "status names", "")
  call expect(vbmc_option_count() > 0, "option introspection", "")

  call small%set("display", "off")
  call small%set("seed", 5)
  call small%set("max_fun_evals", 40)
  call driven%create(plb=[-2.0_c_double, -2.0_c_double], pub=[2.0_c_double, 2.0_c_double], &
    options=small)
  calls = 0
  call driven%run(gaussian_log_joint, c_loc(calls), stat=status, errmsg=message)
  finished = nint(driven%stat("finished"))
  call expect(status == VBMC_DONE .and. finished == 1, "run%run finishes", message)
  call expect(calls == nint(driven%stat("func_count")), "userdata reaches the callback", "")
  ended = driven%result_message()
  reliable = driven%stat("reliable")
  ! exactly 0 or 1, compared bitwise (as the draws below)
  call expect(index(ended, "Inference terminated: ") == 1 .and. &
    any(transfer(reliable, 0_c_int64_t) == transfer([0.0_c_double, 1.0_c_double], [0_c_int64_t])), &
    "a finished run says why it stopped and gives a 0/1 reliability verdict", ended)
  call fresh%create(plb=[-2.0_c_double, -2.0_c_double], pub=[2.0_c_double, 2.0_c_double], &
    options=small)
  ended = fresh%result_message()
  reliable = fresh%stat("reliable")
  call expect(len(ended) == 0 .and. ieee_is_nan(reliable), &
    "a fresh run has no result message and a NaN reliability verdict", ended)
  call driven%posterior(post)
  elbo = post%elbo()
  call expect(post%dim() == 2 .and. ieee_is_finite(elbo), "posterior with a finite ELBO", "")
  call post%sample(draws, 11)
  call post%sample(again, 11)
  call expect(all(transfer(draws, [0_c_int64_t]) == transfer(again, [0_c_int64_t])), &
    "sampling is reproducible bitwise", "")
  call post%sample_components(again, labels, 11)
  call expect(all(transfer(draws, [0_c_int64_t]) == transfer(again, [0_c_int64_t])) .and. &
    all(labels >= 1 .and. labels <= post%components()), &
    "sample_components labels the same draws with 1-based components", "")
  call post%log_pdf(reshape([0.0_c_double, transfer(-2251799813685248_c_int64_t, 1.0_c_double)], &
    [2, 1]), log_pdf(1:1), stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG .and. index(message, "NaN") > 0, &
    "posterior errors carry the library's message", message)
  allocate (elbos(nint(driven%stat("iteration"))))
  call driven%history("elbo", elbos)
  call expect(abs(elbos(size(elbos)) - post%elbo()) < 1.0_c_double, "history of the ELBO", "")
  call driven%history("elbo", elbos(1:size(elbos) - 1), stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG .and. index(message, "n = ") > 0, "history checks its size", &
    message)
  allocate (told(2, 40), values(40), sds(40), used(40))
  call driven%evaluations(told, values, sds, used)
  call expect(count(used == 1) == nint(driven%stat("train_count")) .and. all(sds == 0), &
    "evaluations: the told points and which train the surrogate", "")
  call post%log_pdf(draws, log_pdf)
  call expect(all(log_pdf > -huge(1.0_c_double)), "log_pdf of the draws is finite", "")
  call post%moments(mean, cov)
  call expect(abs(cov(1, 2) - cov(2, 1)) <= 1e-12_c_double * maxval(abs(cov)) .and. &
    cov(1, 1) > 0 .and. cov(2, 2) > 0, "covariance is symmetric positive on the diagonal", "")

  call post%sample_refined(draws, 11)
  call post%sample_refined(again, 11)
  call expect(all(transfer(draws, [0_c_int64_t]) == transfer(again, [0_c_int64_t])) .and. &
    all(ieee_is_finite(draws)), "refined draws are finite and reproducible bitwise", "")
  call post%refined_elbo(50, 3, refined_elbo, refined_elbo_sd)
  call expect(refined_elbo >= elbo .and. refined_elbo_sd >= post%elbo_sd(), &
    "the auxiliary ELBO is not below the mixture's", "")
  call post%set_refinement(0, 0.7_c_double, stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG, "a refinement setting out of range", message)

  ! ---- the workflow after a first run ----
  call second%create(plb=[-2.0_c_double, -2.0_c_double], pub=[2.0_c_double, 2.0_c_double], &
    x0=[0.5_c_double, -0.5_c_double], options=small)
  call second%run(gaussian_log_joint, c_loc(calls))
  call second%posterior(post2)
  call post%log_evidence(log_z, log_z_sd)
  call expect(abs(log_z - log(8 * atan(1.0_c_double))) < 0.2_c_double .and. log_z_sd > 0, &
    "the log evidence of the unnormalised standard normal is log(2 pi)", "")
  call post%mode(mode)
  call expect(maxval(abs(mode)) < 0.3_c_double, "the mode of a standard normal posterior", "")
  grid = [(-5.0_c_double + i / 60.0_c_double, i = 0, 600)]
  call post%marginal_pdf(1, grid, density)
  call expect(abs(sum(density) / 60.0_c_double - 1) < 0.01_c_double, "a marginal density integrates to 1", "")
  call post%kl(post, 2000, 4, kl, kl_sd)
  call expect(all(abs(kl) < 1e-12_c_double), "KL of a posterior with itself is 0", "")
  call post%mtv(post2, 2000, 4, mtv, mean_mtv)
  call expect(all(mtv >= 0 .and. mtv <= 1) .and. abs(mean_mtv - sum(mtv) / 2) < 1e-12_c_double, &
    "MTV per parameter in [0, 1] and its mean", "")
  call vbmc_diagnose_runs([driven, second], 2, diagnosis, stat=status, errmsg=message)
  call expect(status == VBMC_OK .and. (diagnosis%best == 1 .or. diagnosis%best == 2) .and. &
    size(diagnosis%skl, 1) == 2 .and. len(diagnosis%message) > 0, "diagnose two runs", message)
  call vbmc_diagnose_runs([driven], 2, diagnosis, stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG, "diagnose needs two runs", message)
  call warm%warm_start(driven, small)
  call expect(nint(warm%stat("func_count")) > 0, "a warm start re-uses the evaluations", "")
  call driven%history_posterior(1, past)
  call expect(past%dim() == 2, "the posterior of the first iteration", "")
  call expect(len(driven%history_action(1)) >= 0, "the action of the first iteration", "")
  call driven%history_posterior(0, past, stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG, "iteration 0 does not exist", message)
  call with_prior%create(plb=[-2.0_c_double, -2.0_c_double], pub=[2.0_c_double, 2.0_c_double], &
    options=small)
  call with_prior%set_prior(1, "gaussian", [0.0_c_double, 2.0_c_double])
  call with_prior%set_prior(2, "gaussian", [0.0_c_double, 2.0_c_double])
  call expect(abs(with_prior%log_prior([0.0_c_double, 0.0_c_double]) + 2 * (log(2.0_c_double) + &
    0.5_c_double * log(8 * atan(1.0_c_double)))) < 1e-12_c_double, "the log prior of two Gaussian priors", "")
  call with_prior%set_prior(1, "gaussian", [0.0_c_double, -1.0_c_double], stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG, "a negative sigma is refused", message)
  call with_prior%ask(x2, done)
  call with_prior%tell(x2, -0.5_c_double * sum(x2 ** 2))
  call with_prior%evaluations_prior(told_ll, told_lp)
  call expect(told_ll(1) == -0.5_c_double * sum(x2 ** 2) .and. told_lp(1) < 0, &
    "a run with a prior records the told log likelihood and the log prior", "")

  if (failures > 0) error stop "test_vbmc: failures"
  print '(a)', "test_vbmc: all checks passed"

contains

  ! A standard normal log density (up to a constant), called by the library through vbmc_run;
  ! userdata points at a call counter.
  function gaussian_log_joint(point, log_joint_sd, userdata) bind(c) result(log_joint)
    real(c_double), intent(in) :: point(*)
    real(c_double), intent(inout) :: log_joint_sd
    type(c_ptr), value :: userdata
    real(c_double) :: log_joint
    integer(c_int), pointer :: counter
    call c_f_pointer(userdata, counter)
    counter = counter + 1
    log_joint_sd = 0
    log_joint = -0.5_c_double * (point(1) * point(1) + point(2) * point(2))
  end function

  subroutine expect(condition, what, detail)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what, detail
    if (condition) then
      print '(a)', "ok: "//what
    else
      print '(a)', "FAILED: "//what//" ("//trim(detail)//")"
      failures = failures + 1
    end if
  end subroutine
end program test_vbmc
