! Tests of the Fortran plots (gnuplot): post%plot and run%plot_elbo write PNG files into
! $VBMC_PLOT_DIR (default: the current folder), for a person to look at, for a run driven by
! run%run and for one driven by ask/tell and stopped early; errors come back through stat/errmsg:
! an unwritable file, a missing gnuplot, a run without iterations, labels and a run that do not fit.
program test_plot
  use, intrinsic :: iso_c_binding, only: c_double, c_int, c_char, c_null_char, c_ptr, c_loc, &
    c_f_pointer
  use vbmc
  implicit none
  interface
    function setenv(name, value, overwrite) bind(c, name="setenv")
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*), value(*)
      integer(c_int), value :: overwrite
      integer(c_int) :: setenv
    end function

    function unsetenv(name) bind(c, name="unsetenv")
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: unsetenv
    end function
  end interface
  type(vbmc_options_type) :: options
  type(vbmc_run_type) :: driven, asked, fresh, line
  type(vbmc_posterior_type) :: post, early
  character(len=:), allocatable :: folder
  character(len=1024) :: message
  real(c_double) :: x(2)
  integer :: status, failures, i, finished, iterations
  integer(c_int), target :: calls
  logical :: done, left

  failures = 0
  folder = plot_folder()

  call options%set("display", "off")
  call options%set("seed", 3)
  call options%set("max_fun_evals", 40)

  ! ---- a run driven by run%run ----
  call driven%create(plb=[-2.0_c_double, -2.0_c_double], pub=[2.0_c_double, 2.0_c_double], &
    options=options)
  calls = 0
  call driven%run(gaussian_log_joint, c_loc(calls))
  call expect(calls == nint(driven%stat("func_count")), "run%run evaluates through the callback", &
    "")
  call driven%posterior(post)
  call expect_png(folder//"/fortran_corner.png", "corner plot of a run%run run", &
    corner_plot_of(post, driven, folder//"/fortran_corner.png", "run%run: 2-D Gaussian"))
  call expect_png(folder//"/fortran_elbo.png", "ELBO trace of a finished run", &
    elbo_plot_of(driven, folder//"/fortran_elbo.png", "run%run: 2-D Gaussian"))

  ! ---- an ask/tell run, not finished ----
  call asked%create(plb=[-2.0_c_double, -2.0_c_double], pub=[2.0_c_double, 2.0_c_double], &
    options=options)
  do i = 1, 20
    call asked%ask(x, done)
    call asked%tell(x, gaussian(x))
  end do
  finished = nint(asked%stat("finished"))
  iterations = nint(asked%stat("iteration"))
  call expect(finished == 0 .and. iterations > 0, &
    "the ask/tell run has iterations and is not finished", "")
  call asked%posterior(early)
  call expect_png(folder//"/fortran_asktell_corner.png", "corner plot of an ask/tell run", &
    corner_plot_of(early, asked, folder//"/fortran_asktell_corner.png", "ask/tell, 20 evaluations"))
  call expect_png(folder//"/fortran_asktell_elbo.png", "ELBO trace of an unfinished run", &
    elbo_plot_of(asked, folder//"/fortran_asktell_elbo.png", "ask/tell, 20 evaluations"))

  ! ---- dimension 1: the evaluations on the histogram's baseline ----
  call line%create(plb=[-2.0_c_double], pub=[2.0_c_double], options=options)
  do while (nint(line%stat("iteration")) == 0)
    call line%ask(x(1:1), done)
    call line%tell(x(1:1), -0.5_c_double * x(1) * x(1))
  end do
  call line%posterior(early)
  call remove_file(folder//"/fortran_1d_corner.png")
  call early%plot(folder//"/fortran_1d_corner.png", run=line, n_samples=20000, stat=status, &
    errmsg=message)
  call expect_png(folder//"/fortran_1d_corner.png", "corner plot in dimension 1", status)

  ! ---- errors ----
  call post%plot("/nonexistent-folder/corner.png", n_samples=1000, stat=status, errmsg=message)
  call expect(status == VBMC_E_IO .and. index(message, "/nonexistent-folder/corner.png") > 0, &
    "an unwritable corner plot file: VBMC_E_IO naming the file", message)
  call driven%plot_elbo("/nonexistent-folder/elbo.png", stat=status, errmsg=message)
  call expect(status == VBMC_E_IO .and. index(message, "/nonexistent-folder/elbo.png") > 0, &
    "an unwritable ELBO plot file: VBMC_E_IO naming the file", message)

  if (setenv("VBMC_GNUPLOT"//c_null_char, "/nonexistent/gnuplot"//c_null_char, 1_c_int) /= 0) &
    error stop "setenv failed"
  call remove_file(folder//"/fortran_no_gnuplot.png")
  call post%plot(folder//"/fortran_no_gnuplot.png", n_samples=1000, stat=status, errmsg=message)
  left = exists(folder//"/fortran_no_gnuplot.png")
  call expect(status == VBMC_E_IO .and. index(message, "apt-get install gnuplot-nox") > 0 .and. &
    .not. left, &
    "without gnuplot: VBMC_E_IO saying how to install it, and no file left", message)
  if (unsetenv("VBMC_GNUPLOT"//c_null_char) /= 0) error stop "unsetenv failed"

  call fresh%create(plb=[-2.0_c_double, -2.0_c_double], pub=[2.0_c_double, 2.0_c_double], &
    options=options)
  call fresh%plot_elbo(folder//"/fortran_fresh_elbo.png", stat=status, errmsg=message)
  call expect(status == VBMC_E_STATE .and. index(message, "no completed iteration") > 0, &
    "the ELBO trace of a run without iterations", message)
  call post%plot(folder//"/fortran_labels.png", labels=["a", "b", "c"], stat=status, errmsg=message)
  call expect(status == VBMC_E_ARG .and. index(message, "labels") > 0, &
    "labels must name each coordinate", message)
  call post%plot(folder//"/fortran_mismatch.png", run=line, n_samples=1000, stat=status, &
    errmsg=message)
  call expect(status == VBMC_E_ARG .and. index(message, "dimension") > 0, &
    "a run of another dimension is refused", message)

  if (failures > 0) error stop "test_plot: failures"
  print '(a)', "test_plot: all checks passed; plots in "//folder

contains

  ! Where the plots go: $VBMC_PLOT_DIR (created if needed), else the current folder.
  function plot_folder() result(path)
    character(len=:), allocatable :: path
    integer :: length, env_status
    call get_environment_variable("VBMC_PLOT_DIR", length=length, status=env_status)
    if (env_status /= 0 .or. length == 0) then
      path = "."
      return
    end if
    allocate (character(len=length) :: path)
    call get_environment_variable("VBMC_PLOT_DIR", path)
    call execute_command_line("mkdir -p '"//path//"'")
  end function

  ! The status of post%plot of 20000 draws with run's evaluations into path (removed first).
  integer function corner_plot_of(post, run, path, title) result(status)
    type(vbmc_posterior_type), intent(in) :: post
    type(vbmc_run_type), intent(in) :: run
    character(len=*), intent(in) :: path, title
    call remove_file(path)
    call post%plot(path, run=run, n_samples=20000, labels=["x_1", "x_2"], title=title, &
      stat=status, errmsg=message)
  end function

  ! The status of run%plot_elbo into path (removed first).
  integer function elbo_plot_of(run, path, title) result(status)
    type(vbmc_run_type), intent(in) :: run
    character(len=*), intent(in) :: path, title
    call remove_file(path)
    call run%plot_elbo(path, title=title, stat=status, errmsg=message)
  end function

  ! The plot succeeded and path holds a non-empty file starting with the PNG signature.
  subroutine expect_png(path, what, status)
    character(len=*), intent(in) :: path, what
    integer, intent(in) :: status
    character(len=8), parameter :: png_signature = char(137)//"PNG"//char(13)//char(10)// &
      char(26)//char(10)
    character(len=8) :: head
    integer :: unit, io_status, bytes
    head = ""
    bytes = 0
    if (status == VBMC_OK) then
      inquire (file=path, size=bytes)
      open (newunit=unit, file=path, access="stream", form="unformatted", action="read", &
        status="old", iostat=io_status)
      if (io_status == 0) then
        read (unit, iostat=io_status) head
        close (unit)
      end if
    end if
    call expect(status == VBMC_OK .and. bytes > 0 .and. head == png_signature, &
      what//": a PNG file "//path, message)
  end subroutine

  logical function exists(path)
    character(len=*), intent(in) :: path
    inquire (file=path, exist=exists)
  end function

  subroutine remove_file(path)
    character(len=*), intent(in) :: path
    integer :: unit, io_status
    open (newunit=unit, file=path, status="old", iostat=io_status)
    if (io_status == 0) close (unit, status="delete")
  end subroutine

  ! A standard normal log density (up to a constant).
  real(c_double) function gaussian(point)
    real(c_double), intent(in) :: point(2)
    gaussian = -0.5_c_double * (point(1) * point(1) + point(2) * point(2))
  end function

  ! gaussian for run%run; userdata points at a call counter.
  function gaussian_log_joint(point, log_joint_sd, userdata) bind(c) result(log_joint)
    real(c_double), intent(in) :: point(*)
    real(c_double), intent(inout) :: log_joint_sd
    type(c_ptr), value :: userdata
    real(c_double) :: log_joint
    integer(c_int), pointer :: counter
    call c_f_pointer(userdata, counter)
    counter = counter + 1
    log_joint_sd = 0
    log_joint = gaussian(point(1:2))
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
end program test_plot
