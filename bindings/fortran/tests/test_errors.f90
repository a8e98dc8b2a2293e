! Errors reach Fortran as stat/errmsg carrying the library's status and sentence, and a
! size mismatch is caught by the wrappers before the C call.
program test_errors
  use, intrinsic :: iso_c_binding, only: c_double
  use vbmc
  implicit none
  type(vbmc_options_type) :: options
  type(vbmc_run_type) :: run
  type(vbmc_posterior_type) :: post
  real(c_double) :: x(1), wrong(3)
  character(len=256) :: message
  integer :: status, failures
  logical :: done

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
  call run%tell(x + 0.25_c_double, 0.0_c_double, stat=status, errmsg=message)
  call expect(status == VBMC_E_STATE .and. len_trim(message) > 0, "tell of a point not pending", &
    message)

  call run%posterior(post, stat=status, errmsg=message)
  call expect(status == VBMC_E_STATE, "posterior before the first iteration", message)

  call post%load("/nonexistent/post.vbmc", stat=status, errmsg=message)
  call expect(status == VBMC_E_IO, "load of a missing file", message)

  call expect(vbmc_status_text(VBMC_E_NUMERIC) == "VBMC_E_NUMERIC", "status names", "")
  call expect(vbmc_option_count() > 0, "option introspection", "")

  if (failures > 0) error stop "test_errors: failures"
  print '(a)', "test_errors: all checks passed"

contains

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
end program test_errors
