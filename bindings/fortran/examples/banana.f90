! The 2-D banana of examples/quickstart.c from Fortran: ask-tell loop, seed 1, prints the ELBO.
program banana
  use, intrinsic :: iso_c_binding, only: c_double
  use vbmc
  implicit none
  type(vbmc_options_type) :: options
  type(vbmc_run_type) :: run
  type(vbmc_posterior_type) :: post
  real(c_double) :: x(2), mean(2), cov(2, 2)
  logical :: done

  call options%set("seed", 1)
  call options%set("display", "off")
  call run%create(plb=[-3.0_c_double, -3.0_c_double], pub=[3.0_c_double, 3.0_c_double], &
    options=options)
  do
    call run%ask(x, done)
    if (done) exit
    call run%tell(x, banana_log_joint(x))
  end do
  call run%posterior(post)
  call post%moments(mean, cov)
  write (*, '(a,es24.16e3)') "ELBO = ", post%elbo()
  write (*, '(a,es24.16e3)') "ELBO SD = ", post%elbo_sd()
  write (*, '(a,2f10.5)') "posterior mean = ", mean

contains

  ! -[(x1^2 - x2)^2 + (x1 - 1)^2 / 100] + log N(x; 0, 3^2 I), operations as in quickstart.c.
  real(c_double) function banana_log_joint(x) result(log_joint)
    real(c_double), intent(in) :: x(2)
    real(c_double), parameter :: pi = 3.14159265358979323846_c_double
    real(c_double) :: banana_term, log_prior
    banana_term = -((x(1) * x(1) - x(2)) * (x(1) * x(1) - x(2)) + (x(1) - 1) * (x(1) - 1) / 100)
    log_prior = -0.5_c_double * (x(1) * x(1) + x(2) * x(2)) / 9 - log(2 * pi * 9)
    log_joint = banana_term + log_prior
  end function
end program banana
