! Fortran wrappers of libvbmc: derived types that own the C handles (released by their final
! procedures), character arguments, assumed-shape arrays.
!
! A set of n points in dimension dim is an array x(dim, n): column-major x(dim, n) has exactly the
! memory layout of the C API's row-major x[n*dim], so no copy or transpose happens.
!
! Errors follow the convention of allocate(stat=, errmsg=): every procedure takes optional `stat`
! (receives the vbmc_status code) and `errmsg` (receives the library's sentence). Without `stat`,
! an error stops the program with the library's message.
!
! The types hold C handles: pass them by reference and never assign one to another (a defined
! assignment stops the program if you try, instead of freeing a handle twice).
module vbmc
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use vbmc_constants
  use vbmc_c, only: vbmc_version, vbmc_status_name, vbmc_opts_create, vbmc_opts_destroy, &
    vbmc_opts_set, vbmc_opts_set_int, vbmc_opts_set_double, vbmc_opts_error, vbmc_opts_count, &
    vbmc_opts_name, vbmc_opts_type, vbmc_opts_default, vbmc_opts_help, vbmc_create, &
    vbmc_destroy, vbmc_last_error, vbmc_dim, vbmc_ask, vbmc_tell, vbmc_tell_extra, &
    vbmc_abandon, vbmc_pending_point, vbmc_stat, vbmc_result_message, vbmc_history, &
    vbmc_evaluations, vbmc_post_sample_components, &
    c_vbmc_run => vbmc_run, vbmc_save, vbmc_load, &
    vbmc_posterior, vbmc_post_destroy, vbmc_post_dim, vbmc_post_components, vbmc_post_elbo, &
    vbmc_post_sample, vbmc_post_log_pdf, vbmc_post_moments, vbmc_post_save, vbmc_post_load, &
    vbmc_post_sample_refined, vbmc_post_refined_elbo, vbmc_post_set_refinement, &
    vbmc_set_prior, vbmc_set_prior_fn, vbmc_log_prior, vbmc_evaluations_prior, vbmc_create_warm, vbmc_history_posterior, &
    vbmc_history_action, vbmc_post_log_evidence, vbmc_post_mode, vbmc_post_marginal_pdf, vbmc_post_kl, vbmc_post_mtv, &
    vbmc_diagnose, vbmc_diag_destroy, vbmc_diag_stat, vbmc_diag_pairwise, vbmc_diag_message
  implicit none
  private

  public :: vbmc_options_type, vbmc_run_type, vbmc_posterior_type, vbmc_log_joint
  public :: vbmc_library_version, vbmc_status_text, vbmc_option_count, vbmc_option_info
  public :: vbmc_log_prior_fn, vbmc_diagnosis_type, vbmc_diagnose_runs
  public :: VBMC_OK, VBMC_DONE, VBMC_WAIT, VBMC_E_ARG, VBMC_E_STATE, VBMC_E_OPTION, VBMC_E_NOMEM, &
    VBMC_E_NUMERIC, VBMC_E_IO, VBMC_E_FORMAT, VBMC_E_INTERNAL, VBMC_MAX_DIM, &
    VBMC_VERSION_MAJOR, VBMC_VERSION_MINOR, VBMC_VERSION_PATCH

  ! The log-joint callback of run%run: returns the log joint at x(1:dim) and may set
  ! log_joint_sd (0 on entry) to the noise SD of its estimate. bind(c), since the C library calls it.
  abstract interface
    function vbmc_log_joint(x, log_joint_sd, userdata) bind(c) result(log_joint)
      import :: c_double, c_ptr
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(inout) :: log_joint_sd
      type(c_ptr), value :: userdata
      real(c_double) :: log_joint
    end function

    ! The prior callback of run%set_prior_fn: the log prior density at x(1:dim).
    function vbmc_log_prior_fn(x, userdata) bind(c) result(log_prior)
      import :: c_double, c_ptr
      real(c_double), intent(in) :: x(*)
      type(c_ptr), value :: userdata
      real(c_double) :: log_prior
    end function
  end interface

  ! What vbmc_diagnose_runs says about several runs of one problem (vbmc_diagnose).
  type :: vbmc_diagnosis_type
    logical :: agree = .false.
    integer :: best = 0                      ! index of the best run (1-based)
    integer :: converged_count = 0
    real(c_double) :: elbo_spread = 0, max_skl = 0, max_mtv = 0
    real(c_double), allocatable :: skl(:, :), mtv(:, :)  ! pairwise, n x n
    character(len=:), allocatable :: message
  end type

  ! Options, set by name with PyVBMC's snake_case names: call opts%set("seed", 1).
  type :: vbmc_options_type
    type(c_ptr), private :: handle = c_null_ptr
  contains
    procedure, private :: set_text, set_int, set_long, set_double, set_logical
    generic :: set => set_text, set_int, set_long, set_double, set_logical
    procedure, private :: refuse_options_copy
    generic :: assignment(=) => refuse_options_copy
    final :: options_final
  end type

  ! One inference run.
  type :: vbmc_run_type
    type(c_ptr), private :: handle = c_null_ptr
  contains
    procedure :: create => run_create
    procedure :: load => run_load
    procedure :: dim => run_dim
    procedure :: ask => run_ask
    procedure :: tell => run_tell
    procedure :: tell_extra => run_tell_extra
    procedure :: abandon => run_abandon
    procedure :: pending_point => run_pending_point
    procedure :: stat => run_stat
    procedure :: result_message => run_result_message
    procedure :: history => run_history
    procedure :: evaluations => run_evaluations
    procedure :: run => run_run
    procedure :: posterior => run_posterior
    procedure :: save => run_save
    procedure :: warm_start => run_warm_start
    procedure :: set_prior => run_set_prior
    procedure :: set_prior_fn => run_set_prior_fn
    procedure :: log_prior => run_log_prior
    procedure :: evaluations_prior => run_evaluations_prior
    procedure :: history_posterior => run_history_posterior
    procedure :: history_action => run_history_action
    procedure :: plot_elbo => run_plot_elbo
    procedure :: last_error => run_last_error
    procedure :: destroy => run_destroy
    procedure, private :: refuse_run_copy
    generic :: assignment(=) => refuse_run_copy
    final :: run_final
  end type

  ! A variational posterior snapshot, independent of its run.
  type :: vbmc_posterior_type
    type(c_ptr), private :: handle = c_null_ptr
  contains
    procedure :: load => post_load
    procedure :: dim => post_dim
    procedure :: components => post_components
    procedure :: elbo => post_elbo
    procedure :: elbo_sd => post_elbo_sd
    procedure :: sample => post_sample
    procedure :: sample_components => post_sample_components
    procedure :: sample_refined => post_sample_refined
    procedure :: refined_elbo => post_refined_elbo
    procedure :: set_refinement => post_set_refinement
    procedure :: log_pdf => post_log_pdf
    procedure :: moments => post_moments
    procedure :: log_evidence => post_log_evidence
    procedure :: mode => post_mode
    procedure :: marginal_pdf => post_marginal_pdf
    procedure :: kl => post_kl
    procedure :: mtv => post_mtv
    procedure :: save => post_save
    procedure :: plot => post_plot
    procedure :: destroy => post_destroy
    procedure, private :: refuse_post_copy
    generic :: assignment(=) => refuse_post_copy
    final :: post_final
  end type

  ! The plots, drawn with gnuplot in submodule vbmc_plot (vbmc_plot.f90); the type-bound
  ! procedures post%plot and run%plot_elbo report their status and message.
  interface
    module subroutine plot_corner(post, file, run, n_samples, seed, labels, title, status, message)
      class(vbmc_posterior_type), intent(in) :: post
      character(len=*), intent(in) :: file
      type(vbmc_run_type), intent(in), optional :: run
      integer, intent(in), optional :: n_samples, seed
      character(len=*), intent(in), optional :: labels(:), title
      integer, intent(out) :: status
      character(len=*), intent(out) :: message
    end subroutine

    module subroutine plot_elbo_trace(run, file, title, status, message)
      class(vbmc_run_type), intent(in) :: run
      character(len=*), intent(in) :: file
      character(len=*), intent(in), optional :: title
      integer, intent(out) :: status
      character(len=*), intent(out) :: message
    end subroutine
  end interface

contains

  ! ---- helpers ----------------------------------------------------------------------------

  ! A Fortran copy of a NUL-terminated C string ('' for NULL).
  function f_string(text_ptr) result(text)
    type(c_ptr), intent(in) :: text_ptr
    character(len=:), allocatable :: text
    interface
      function c_strlen(s) bind(c, name="strlen")
        import :: c_ptr, c_size_t
        type(c_ptr), value :: s
        integer(c_size_t) :: c_strlen
      end function
    end interface
    character(kind=c_char), pointer :: chars(:)
    integer :: i, length
    if (.not. c_associated(text_ptr)) then
      text = ''
      return
    end if
    length = int(c_strlen(text_ptr))
    call c_f_pointer(text_ptr, chars, [length])
    allocate (character(len=length) :: text)
    do i = 1, length
      text(i:i) = chars(i)
    end do
  end function

  ! A NUL-terminated copy of a Fortran string, trailing blanks removed.
  pure function c_string(text) result(chars)
    character(len=*), intent(in) :: text
    character(kind=c_char, len=len_trim(text) + 1) :: chars
    chars = trim(text)//c_null_char
  end function

  ! Report status as allocate(stat=, errmsg=) does; stop on an error when stat is absent.
  subroutine report(status, message, stat, errmsg)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: message
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (present(stat)) stat = status
    if (status < 0) then
      if (present(errmsg)) errmsg = message
      if (.not. present(stat)) error stop "libvbmc: "//f_string(vbmc_status_name(status))// &
        ": "//message
    end if
  end subroutine

  ! Check that an array has the expected number of elements before handing it to C.
  logical function size_ok(actual, expected, what, stat, errmsg)
    integer, intent(in) :: actual, expected
    character(len=*), intent(in) :: what
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=160) :: message
    size_ok = actual == expected
    if (.not. size_ok) then
      write (message, '(a,a,i0,a,i0)') what, " has ", actual, " elements; expected ", expected
      call report(VBMC_E_ARG, trim(message), stat, errmsg)
    end if
  end function

  function vbmc_library_version() result(text)
    character(len=:), allocatable :: text
    text = f_string(vbmc_version())
  end function

  ! The name of a status code ("VBMC_E_ARG", ...).
  function vbmc_status_text(status) result(text)
    integer, intent(in) :: status
    character(len=:), allocatable :: text
    text = f_string(vbmc_status_name(int(status, c_int)))
  end function

  integer function vbmc_option_count()
    vbmc_option_count = int(vbmc_opts_count())
  end function

  ! Name, type ("int", "double", "text", "bool"), default and help of option index (1-based).
  subroutine vbmc_option_info(index, name, type, default, help)
    integer, intent(in) :: index
    character(len=:), allocatable, intent(out) :: name, type, default, help
    name = f_string(vbmc_opts_name(int(index - 1, c_int)))
    type = f_string(vbmc_opts_type(int(index - 1, c_int)))
    default = f_string(vbmc_opts_default(int(index - 1, c_int)))
    help = f_string(vbmc_opts_help(int(index - 1, c_int)))
  end subroutine

  ! ---- options ----------------------------------------------------------------------------

  subroutine ensure_options(self)
    class(vbmc_options_type), intent(inout) :: self
    integer(c_int) :: status
    if (c_associated(self%handle)) return
    status = vbmc_opts_create(self%handle)
    if (status /= VBMC_OK) error stop "libvbmc: vbmc_opts_create failed"
  end subroutine

  subroutine set_text(self, name, value, stat, errmsg)
    class(vbmc_options_type), intent(inout) :: self
    character(len=*), intent(in) :: name, value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call ensure_options(self)
    call report(vbmc_opts_set(self%handle, c_string(name), c_string(value)), &
      f_string(vbmc_opts_error(self%handle)), stat, errmsg)
  end subroutine

  subroutine set_long(self, name, value, stat, errmsg)
    class(vbmc_options_type), intent(inout) :: self
    character(len=*), intent(in) :: name
    integer(c_long_long), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call ensure_options(self)
    call report(vbmc_opts_set_int(self%handle, c_string(name), value), &
      f_string(vbmc_opts_error(self%handle)), stat, errmsg)
  end subroutine

  subroutine set_int(self, name, value, stat, errmsg)
    class(vbmc_options_type), intent(inout) :: self
    character(len=*), intent(in) :: name
    integer, intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call set_long(self, name, int(value, c_long_long), stat, errmsg)
  end subroutine

  subroutine set_double(self, name, value, stat, errmsg)
    class(vbmc_options_type), intent(inout) :: self
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call ensure_options(self)
    call report(vbmc_opts_set_double(self%handle, c_string(name), value), &
      f_string(vbmc_opts_error(self%handle)), stat, errmsg)
  end subroutine

  subroutine set_logical(self, name, value, stat, errmsg)
    class(vbmc_options_type), intent(inout) :: self
    character(len=*), intent(in) :: name
    logical, intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (value) then
      call set_text(self, name, "true", stat, errmsg)
    else
      call set_text(self, name, "false", stat, errmsg)
    end if
  end subroutine

  subroutine refuse_options_copy(lhs, rhs)
    class(vbmc_options_type), intent(inout) :: lhs
    type(vbmc_options_type), intent(in) :: rhs
    if (c_associated(lhs%handle) .or. c_associated(rhs%handle)) &
      error stop "libvbmc: a vbmc_options_type owns a C handle and cannot be assigned"
  end subroutine

  subroutine options_final(self)
    type(vbmc_options_type), intent(inout) :: self
    call vbmc_opts_destroy(self%handle)
    self%handle = c_null_ptr
  end subroutine

  ! ---- runs -------------------------------------------------------------------------------

  ! Create a run in dimension size(plb). lb/ub absent: unbounded (or pass +-huge/ieee infinities);
  ! x0 absent: the centre of the plausible box; options absent: the defaults.
  subroutine run_create(self, plb, pub, lb, ub, x0, options, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    real(c_double), intent(in) :: plb(:), pub(:)
    real(c_double), intent(in), optional, target, contiguous :: lb(:), ub(:), x0(:)
    type(vbmc_options_type), intent(in), optional :: options
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: lb_ptr, ub_ptr, x0_ptr, opts_ptr
    integer :: dim
    call self%destroy()
    dim = size(plb)
    if (.not. size_ok(size(pub), dim, "pub", stat, errmsg)) return
    lb_ptr = c_null_ptr
    ub_ptr = c_null_ptr
    x0_ptr = c_null_ptr
    opts_ptr = c_null_ptr
    if (present(lb)) then
      if (.not. size_ok(size(lb), dim, "lb", stat, errmsg)) return
      lb_ptr = c_loc(lb)
    end if
    if (present(ub)) then
      if (.not. size_ok(size(ub), dim, "ub", stat, errmsg)) return
      ub_ptr = c_loc(ub)
    end if
    if (present(x0)) then
      if (.not. size_ok(size(x0), dim, "x0", stat, errmsg)) return
      x0_ptr = c_loc(x0)
    end if
    if (present(options)) opts_ptr = options%handle
    call report(vbmc_create(self%handle, int(dim, c_int), x0_ptr, lb_ptr, ub_ptr, plb, pub, &
      opts_ptr), f_string(vbmc_last_error(c_null_ptr)), stat, errmsg)
  end subroutine

  ! Resume a run from a checkpoint written by run%save.
  subroutine run_load(self, path, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    character(len=*), intent(in) :: path
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call self%destroy()
    call report(vbmc_load(self%handle, c_string(path)), f_string(vbmc_last_error(c_null_ptr)), &
      stat, errmsg)
  end subroutine

  integer function run_dim(self)
    class(vbmc_run_type), intent(in) :: self
    run_dim = int(vbmc_dim(self%handle))
  end function

  ! The library's sentence about the last failed call on this run ('' after a success).
  function run_last_error(self) result(text)
    class(vbmc_run_type), intent(in) :: self
    character(len=:), allocatable :: text
    text = f_string(vbmc_last_error(self%handle))
  end function

  ! Next point to evaluate into x(1:dim); done = .true. (x untouched) when the run has finished.
  ! wait = .true. (x untouched) when every point the run may hand out now is pending (VBMC_WAIT:
  ! tell one, then ask again); without wait, that answer is reported as an error (stat =
  ! VBMC_WAIT), since x holds no new point.
  subroutine run_ask(self, x, done, stat, errmsg, wait)
    class(vbmc_run_type), intent(inout) :: self
    real(c_double), intent(inout) :: x(:)
    logical, intent(out) :: done
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    logical, intent(out), optional :: wait
    real(c_double) :: point(max(self%dim(), 1))
    integer(c_int) :: status
    done = .false.
    if (present(wait)) wait = .false.
    if (.not. size_ok(size(x), self%dim(), "x", stat, errmsg)) return
    status = vbmc_ask(self%handle, point)
    if (status == VBMC_OK) x = point(1:size(x))
    done = status == VBMC_DONE
    if (status == VBMC_WAIT .and. present(wait)) then
      wait = .true.
      status = VBMC_OK
    else if (status == VBMC_WAIT) then
      call report(VBMC_E_STATE, "every point the run may hand out is pending (VBMC_WAIT): tell one " // &
        "first, or pass wait= to ask", stat, errmsg)
      if (present(stat)) stat = VBMC_WAIT
      return
    end if
    call report(status, f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! Tell the log joint at a point returned by ask; log_joint_sd > 0 for a noisy estimate.
  subroutine run_tell(self, x, log_joint, log_joint_sd, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    real(c_double), intent(in) :: x(:), log_joint
    real(c_double), intent(in), optional :: log_joint_sd
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double) :: sd
    sd = 0
    if (present(log_joint_sd)) sd = log_joint_sd
    if (.not. size_ok(size(x), self%dim(), "x", stat, errmsg)) return
    call report(vbmc_tell(self%handle, x, log_joint, sd), f_string(vbmc_last_error(self%handle)), &
      stat, errmsg)
  end subroutine

  ! Add an evaluation that was not asked for to the training set.
  subroutine run_tell_extra(self, x, log_joint, log_joint_sd, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    real(c_double), intent(in) :: x(:), log_joint
    real(c_double), intent(in), optional :: log_joint_sd
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double) :: sd
    sd = 0
    if (present(log_joint_sd)) sd = log_joint_sd
    if (.not. size_ok(size(x), self%dim(), "x", stat, errmsg)) return
    call report(vbmc_tell_extra(self%handle, x, log_joint, sd), &
      f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! Give up a pending point without a value; the run will ask again.
  subroutine run_abandon(self, x, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    real(c_double), intent(in) :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(x), self%dim(), "x", stat, errmsg)) return
    call report(vbmc_abandon(self%handle, x), f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! The i-th pending point (1-based, 1 <= i <= run%stat("pending")) into x(1:dim).
  subroutine run_pending_point(self, i, x, stat, errmsg)
    class(vbmc_run_type), intent(in) :: self
    integer, intent(in) :: i
    real(c_double), intent(out) :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(x), self%dim(), "x", stat, errmsg)) return
    call report(vbmc_pending_point(self%handle, int(i - 1, c_int), x), &
      f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! A scalar fact about the run by name ("iteration", "func_count", "elbo", "finished", ...).
  function run_stat(self, name, stat, errmsg) result(value)
    class(vbmc_run_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double) :: value
    value = ieee_value(value, ieee_quiet_nan)
    call report(vbmc_stat(self%handle, c_string(name), value), &
      f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end function

  ! How the run ended: why it stopped and, if its result is unreliable, why ('' while it runs).
  function run_result_message(self) result(text)
    class(vbmc_run_type), intent(in) :: self
    character(len=:), allocatable :: text
    text = f_string(vbmc_result_message(self%handle))
  end function

  ! Series `name` of vbmc_history ("elbo", "elbo_sd", "func_count", ...) over the completed
  ! iterations: size(values) must be nint(run%stat("iteration")).
  subroutine run_history(self, name, values, stat, errmsg)
    class(vbmc_run_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_double), intent(out) :: values(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report(vbmc_history(self%handle, c_string(name), int(size(values), c_size_t), values), &
      f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! Every evaluation told, in order: points x(dim, n), log_joint(n), log_joint_sd(n) and
  ! in_training(n) (1: in the surrogate's training set), n = nint(run%stat("func_count")).
  subroutine run_evaluations(self, x, log_joint, log_joint_sd, in_training, stat, errmsg)
    class(vbmc_run_type), intent(in) :: self
    real(c_double), intent(out) :: x(:, :), log_joint(:), log_joint_sd(:)
    integer(c_int), intent(out) :: in_training(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(x, 1), self%dim(), "size(x, 1)", stat, errmsg)) return
    if (.not. size_ok(size(log_joint), size(x, 2), "log_joint", stat, errmsg)) return
    if (.not. size_ok(size(log_joint_sd), size(x, 2), "log_joint_sd", stat, errmsg)) return
    if (.not. size_ok(size(in_training), size(x, 2), "in_training", stat, errmsg)) return
    call report(vbmc_evaluations(self%handle, int(size(x, 2), c_size_t), x, log_joint, &
      log_joint_sd, in_training), f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! Loop ask / fn / tell in the library (vbmc_run) until the run finishes; stat is VBMC_DONE then.
  subroutine run_run(self, fn, userdata, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    procedure(vbmc_log_joint) :: fn
    type(c_ptr), intent(in), optional :: userdata
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: data
    data = c_null_ptr
    if (present(userdata)) data = userdata
    call report(c_vbmc_run(self%handle, c_funloc(fn), data), &
      f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! Snapshot the current (or, once finished, the final) variational posterior into post.
  subroutine run_posterior(self, post, stat, errmsg)
    class(vbmc_run_type), intent(in) :: self
    type(vbmc_posterior_type), intent(inout) :: post
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call post%destroy()
    call report(vbmc_posterior(self%handle, post%handle), f_string(vbmc_last_error(self%handle)), &
      stat, errmsg)
  end subroutine

  ! Checkpoint the whole run to a file (atomically).
  subroutine run_save(self, path, stat, errmsg)
    class(vbmc_run_type), intent(in) :: self
    character(len=*), intent(in) :: path
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report(vbmc_save(self%handle, c_string(path)), f_string(vbmc_last_error(self%handle)), &
      stat, errmsg)
  end subroutine

  ! A new run in self from previous's posterior (vbmc_create_warm); reuse (default .true.)
  ! re-uses previous's evaluations for the same model.
  subroutine run_warm_start(self, previous, options, reuse, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    type(vbmc_run_type), intent(in) :: previous
    type(vbmc_options_type), intent(in), optional :: options
    logical, intent(in), optional :: reuse
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: opts_ptr
    integer(c_int) :: reuse_flag
    call self%destroy()
    opts_ptr = c_null_ptr
    if (present(options)) opts_ptr = options%handle
    reuse_flag = 1
    if (present(reuse)) then
      if (.not. reuse) reuse_flag = 0
    end if
    call report(vbmc_create_warm(self%handle, previous%handle, opts_ptr, reuse_flag), &
      f_string(vbmc_last_error(c_null_ptr)), stat, errmsg)
  end subroutine

  ! The prior of parameter coord (1-based): kind "gaussian", "student_t", "uniform", "smoothbox",
  ! "trapezoidal", "spline_trapezoidal" or "lognormal" and its parameters (vbmc_set_prior).
  subroutine run_set_prior(self, coord, kind, params, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    integer, intent(in) :: coord
    character(len=*), intent(in) :: kind
    real(c_double), intent(in) :: params(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report(vbmc_set_prior(self%handle, int(coord - 1, c_int), c_string(kind), params, &
      int(size(params), c_int)), f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! The whole prior as a callback (vbmc_set_prior_fn).
  subroutine run_set_prior_fn(self, fn, userdata, stat, errmsg)
    class(vbmc_run_type), intent(inout) :: self
    procedure(vbmc_log_prior_fn) :: fn
    type(c_ptr), intent(in), optional :: userdata
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: data
    data = c_null_ptr
    if (present(userdata)) data = userdata
    call report(vbmc_set_prior_fn(self%handle, c_funloc(fn), data), &
      f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! The log prior the run adds to each told log likelihood, at x(1:dim).
  function run_log_prior(self, x, stat, errmsg) result(value)
    class(vbmc_run_type), intent(in) :: self
    real(c_double), intent(in) :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double) :: value
    value = ieee_value(value, ieee_quiet_nan)
    if (.not. size_ok(size(x), self%dim(), "x", stat, errmsg)) return
    call report(vbmc_log_prior(self%handle, x, value), f_string(vbmc_last_error(self%handle)), &
      stat, errmsg)
  end function

  ! The two parts of every evaluation of a run with a prior: log_likelihood(n) as told and
  ! log_prior(n), n = nint(run%stat("func_count")) (vbmc_evaluations_prior).
  subroutine run_evaluations_prior(self, log_likelihood, log_prior, stat, errmsg)
    class(vbmc_run_type), intent(in) :: self
    real(c_double), intent(out) :: log_likelihood(:), log_prior(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(log_prior), size(log_likelihood), "log_prior", stat, errmsg)) return
    call report(vbmc_evaluations_prior(self%handle, int(size(log_likelihood), c_size_t), log_likelihood, &
      log_prior), f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! The posterior of completed iteration `iteration` (1-based) into post.
  subroutine run_history_posterior(self, iteration, post, stat, errmsg)
    class(vbmc_run_type), intent(in) :: self
    integer, intent(in) :: iteration
    type(vbmc_posterior_type), intent(inout) :: post
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call post%destroy()
    call report(vbmc_history_posterior(self%handle, int(iteration - 1, c_int), post%handle), &
      f_string(vbmc_last_error(self%handle)), stat, errmsg)
  end subroutine

  ! The action of completed iteration `iteration` (1-based), as in the iteration table.
  function run_history_action(self, iteration, stat, errmsg) result(text)
    class(vbmc_run_type), intent(in) :: self
    integer, intent(in) :: iteration
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=:), allocatable :: text
    character(kind=c_char), target :: buffer(1024)
    buffer = c_null_char
    call report(vbmc_history_action(self%handle, int(iteration - 1, c_int), buffer, &
      int(size(buffer), c_size_t)), f_string(vbmc_last_error(self%handle)), stat, errmsg)
    text = f_string(c_loc(buffer))
  end function

  ! The ELBO +- SD of each completed iteration against the evaluations told (warm-up hollow)
  ! into the PNG file `file`, with the returned posterior's ELBO +- SD once the run has finished.
  ! Drawn by gnuplot ($VBMC_GNUPLOT, else gnuplot on the PATH); its absence or failure gives
  ! VBMC_E_IO with gnuplot's message.
  subroutine run_plot_elbo(self, file, title, stat, errmsg)
    class(vbmc_run_type), intent(in) :: self
    character(len=*), intent(in) :: file
    character(len=*), intent(in), optional :: title
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=1024) :: message
    integer :: status
    call plot_elbo_trace(self, file, title, status, message)
    call report(int(status, c_int), trim(message), stat, errmsg)
  end subroutine

  ! Whether several runs of one problem agree, and which is best (vbmc_diagnose).
  subroutine vbmc_diagnose_runs(runs, seed, diagnosis, stat, errmsg)
    type(vbmc_run_type), intent(in) :: runs(:)
    integer, intent(in) :: seed
    type(vbmc_diagnosis_type), intent(out) :: diagnosis
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: handles(size(runs)), diag
    integer(c_int) :: status
    real(c_double) :: values(6)
    character(len=15), parameter :: names(6) = [character(len=15) :: "agree", "best", &
      "converged_count", "elbo_spread", "max_skl", "max_mtv"]
    integer :: i, n
    n = size(runs)
    do i = 1, n
      handles(i) = runs(i)%handle
    end do
    status = vbmc_diagnose(handles, int(n, c_int), int(seed, c_int64_t), diag)
    if (status == VBMC_OK) then
      allocate (diagnosis%skl(n, n), diagnosis%mtv(n, n))
      do i = 1, 6
        if (status == VBMC_OK) status = vbmc_diag_stat(diag, c_string(names(i)), values(i))
      end do
      if (status == VBMC_OK) status = vbmc_diag_pairwise(diag, c_string("skl"), int(n, c_size_t), diagnosis%skl)
      if (status == VBMC_OK) status = vbmc_diag_pairwise(diag, c_string("mtv"), int(n, c_size_t), diagnosis%mtv)
      diagnosis%message = f_string(vbmc_diag_message(diag))
      call vbmc_diag_destroy(diag)
      diagnosis%agree = values(1) == 1
      diagnosis%best = nint(values(2)) + 1
      diagnosis%converged_count = nint(values(3))
      diagnosis%elbo_spread = values(4)
      diagnosis%max_skl = values(5)
      diagnosis%max_mtv = values(6)
    end if
    call report_post(status, "vbmc_diagnose", stat, errmsg)
  end subroutine

  subroutine run_destroy(self)
    class(vbmc_run_type), intent(inout) :: self
    call vbmc_destroy(self%handle)
    self%handle = c_null_ptr
  end subroutine

  subroutine refuse_run_copy(lhs, rhs)
    class(vbmc_run_type), intent(inout) :: lhs
    type(vbmc_run_type), intent(in) :: rhs
    if (c_associated(lhs%handle) .or. c_associated(rhs%handle)) &
      error stop "libvbmc: a vbmc_run_type owns a C handle and cannot be assigned"
  end subroutine

  subroutine run_final(self)
    type(vbmc_run_type), intent(inout) :: self
    call vbmc_destroy(self%handle)
    self%handle = c_null_ptr
  end subroutine

  ! ---- posteriors -------------------------------------------------------------------------

  ! Status of a posterior call; snapshots keep no message, so the sentence names the call.
  subroutine report_post(status, call_name, stat, errmsg)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: call_name
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report(status, call_name//": "//f_string(vbmc_last_error(c_null_ptr)), stat, errmsg)
  end subroutine

  ! Read a snapshot written by post%save.
  subroutine post_load(self, path, stat, errmsg)
    class(vbmc_posterior_type), intent(inout) :: self
    character(len=*), intent(in) :: path
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call self%destroy()
    call report(vbmc_post_load(self%handle, c_string(path)), &
      f_string(vbmc_last_error(c_null_ptr)), stat, errmsg)
  end subroutine

  integer function post_dim(self)
    class(vbmc_posterior_type), intent(in) :: self
    post_dim = int(vbmc_post_dim(self%handle))
  end function

  integer function post_components(self)
    class(vbmc_posterior_type), intent(in) :: self
    post_components = int(vbmc_post_components(self%handle))
  end function

  ! The ELBO of the snapshot (NaN for an empty snapshot).
  function post_elbo(self) result(elbo)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double) :: elbo, elbo_sd
    if (vbmc_post_elbo(self%handle, elbo, elbo_sd) /= VBMC_OK) elbo = ieee_value(elbo, ieee_quiet_nan)
  end function

  ! The SD of the ELBO estimate (NaN for an empty snapshot).
  function post_elbo_sd(self) result(elbo_sd)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double) :: elbo, elbo_sd
    if (vbmc_post_elbo(self%handle, elbo, elbo_sd) /= VBMC_OK) &
      elbo_sd = ieee_value(elbo_sd, ieee_quiet_nan)
  end function

  ! size(x, 2) draws into the columns of x(dim, n); the same seed gives the same draws.
  subroutine post_sample(self, x, seed, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double), intent(out) :: x(:, :)
    integer, intent(in) :: seed
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(x, 1), self%dim(), "size(x, 1)", stat, errmsg)) return
    call report_post(vbmc_post_sample(self%handle, int(size(x, 2), c_size_t), &
      int(seed, c_int64_t), x), "vbmc_post_sample", stat, errmsg)
  end subroutine

  ! The draws of post%sample(x, seed) and component(n): each one's mixture component (1-based).
  subroutine post_sample_components(self, x, component, seed, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double), intent(out) :: x(:, :)
    integer(c_int), intent(out) :: component(:)
    integer, intent(in) :: seed
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer :: status
    if (.not. size_ok(size(x, 1), self%dim(), "size(x, 1)", stat, errmsg)) return
    if (.not. size_ok(size(component), size(x, 2), "component", stat, errmsg)) return
    status = vbmc_post_sample_components(self%handle, int(size(x, 2), c_size_t), &
      int(seed, c_int64_t), x, component)
    if (status == VBMC_OK) component = component + 1
    call report_post(status, "vbmc_post_sample_components", stat, errmsg)
  end subroutine

  ! size(x, 2) refined draws (vbmc_post_sample_refined) into the columns of x(dim, n).
  subroutine post_sample_refined(self, x, seed, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double), intent(out) :: x(:, :)
    integer, intent(in) :: seed
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(x, 1), self%dim(), "size(x, 1)", stat, errmsg)) return
    call report_post(vbmc_post_sample_refined(self%handle, int(size(x, 2), c_size_t), &
      int(seed, c_int64_t), x), "vbmc_post_sample_refined", stat, errmsg)
  end subroutine

  ! The auxiliary ELBO of the refined draws and its SD, from n of them (vbmc_post_refined_elbo).
  subroutine post_refined_elbo(self, n, seed, elbo, elbo_sd, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    integer, intent(in) :: n, seed
    real(c_double), intent(out) :: elbo, elbo_sd
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report_post(vbmc_post_refined_elbo(self%handle, int(n, c_size_t), int(seed, c_int64_t), &
      elbo, elbo_sd), "vbmc_post_refined_elbo", stat, errmsg)
  end subroutine

  ! The tuning of refined draws (vbmc_post_set_refinement).
  subroutine post_set_refinement(self, aux_count, variance_ratio, stat, errmsg)
    class(vbmc_posterior_type), intent(inout) :: self
    integer, intent(in) :: aux_count
    real(c_double), intent(in) :: variance_ratio
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report_post(vbmc_post_set_refinement(self%handle, int(aux_count, c_int), variance_ratio), &
      "vbmc_post_set_refinement", stat, errmsg)
  end subroutine

  ! Log density at the columns of x(dim, n) into log_pdf(n).
  subroutine post_log_pdf(self, x, log_pdf, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double), intent(in) :: x(:, :)
    real(c_double), intent(out) :: log_pdf(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(x, 1), self%dim(), "size(x, 1)", stat, errmsg)) return
    if (.not. size_ok(size(log_pdf), size(x, 2), "log_pdf", stat, errmsg)) return
    call report_post(vbmc_post_log_pdf(self%handle, int(size(x, 2), c_size_t), x, log_pdf), &
      "vbmc_post_log_pdf", stat, errmsg)
  end subroutine

  ! Posterior mean(dim) and, if present, covariance cov(dim, dim).
  subroutine post_moments(self, mean, cov, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double), intent(out) :: mean(:)
    real(c_double), intent(out), optional, target, contiguous :: cov(:, :)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: cov_ptr
    if (.not. size_ok(size(mean), self%dim(), "mean", stat, errmsg)) return
    cov_ptr = c_null_ptr
    if (present(cov)) then
      if (.not. size_ok(size(cov, 1), self%dim(), "size(cov, 1)", stat, errmsg)) return
      if (.not. size_ok(size(cov, 2), self%dim(), "size(cov, 2)", stat, errmsg)) return
      cov_ptr = c_loc(cov)
    end if
    call report_post(vbmc_post_moments(self%handle, mean, cov_ptr), "vbmc_post_moments", &
      stat, errmsg)
    ! The C API writes cov row-major: transpose into Fortran's column-major order.
    if (present(cov)) cov = transpose(cov)
  end subroutine

  ! Write the snapshot to a file (atomically).
  subroutine post_save(self, path, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    character(len=*), intent(in) :: path
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report_post(vbmc_post_save(self%handle, c_string(path)), "vbmc_post_save", stat, errmsg)
  end subroutine

  ! Corner plot of n_samples (default 100000) draws (seed default 1) into the PNG file `file`:
  ! each coordinate's histogram on the diagonal, each pair's 2-D histogram below it and, with run,
  ! its evaluations over them (circles: training points of the surrogate; crosses: failed, trimmed
  ! or penalty values). labels(dim) name the coordinates (default x1, x2, ...). Drawn by gnuplot
  ! ($VBMC_GNUPLOT, else gnuplot on the PATH); its absence or failure gives VBMC_E_IO.
  subroutine post_plot(self, file, run, n_samples, seed, labels, title, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    character(len=*), intent(in) :: file
    type(vbmc_run_type), intent(in), optional :: run
    integer, intent(in), optional :: n_samples, seed
    character(len=*), intent(in), optional :: labels(:), title
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=1024) :: message
    integer :: status
    if (present(labels)) then
      if (.not. size_ok(size(labels), self%dim(), "labels", stat, errmsg)) return
    end if
    call plot_corner(self, file, run, n_samples, seed, labels, title, status, message)
    call report(int(status, c_int), trim(message), stat, errmsg)
  end subroutine

  ! The log evidence estimate that is not a bound and its SD (vbmc_post_log_evidence).
  subroutine post_log_evidence(self, log_z, log_z_sd, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double), intent(out) :: log_z, log_z_sd
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report_post(vbmc_post_log_evidence(self%handle, log_z, log_z_sd), "vbmc_post_log_evidence", &
      stat, errmsg)
  end subroutine

  ! The highest point of the density into x(1:dim).
  subroutine post_mode(self, x, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    real(c_double), intent(out) :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(x), self%dim(), "x", stat, errmsg)) return
    call report_post(vbmc_post_mode(self%handle, x), "vbmc_post_mode", stat, errmsg)
  end subroutine

  ! The marginal density of parameter coord (1-based) at values(:) into pdf(:).
  subroutine post_marginal_pdf(self, coord, values, pdf, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    integer, intent(in) :: coord
    real(c_double), intent(in) :: values(:)
    real(c_double), intent(out) :: pdf(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(pdf), size(values), "pdf", stat, errmsg)) return
    call report_post(vbmc_post_marginal_pdf(self%handle, int(coord - 1, c_int), &
      int(size(values), c_size_t), values, pdf), "vbmc_post_marginal_pdf", stat, errmsg)
  end subroutine

  ! kl = [KL(self||other), KL(other||self)] by Monte Carlo with n draws each, kl_sd their SDs.
  subroutine post_kl(self, other, n, seed, kl, kl_sd, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    type(vbmc_posterior_type), intent(in) :: other
    integer, intent(in) :: n, seed
    real(c_double), intent(out) :: kl(2), kl_sd(2)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call report_post(vbmc_post_kl(self%handle, other%handle, int(n, c_size_t), &
      int(seed, c_int64_t), kl, kl_sd), "vbmc_post_kl", stat, errmsg)
  end subroutine

  ! The marginal total variation of each parameter into mtv(1:dim), and their mean.
  subroutine post_mtv(self, other, n, seed, mtv, mean_mtv, stat, errmsg)
    class(vbmc_posterior_type), intent(in) :: self
    type(vbmc_posterior_type), intent(in) :: other
    integer, intent(in) :: n, seed
    real(c_double), intent(out) :: mtv(:), mean_mtv
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. size_ok(size(mtv), self%dim(), "mtv", stat, errmsg)) return
    call report_post(vbmc_post_mtv(self%handle, other%handle, int(n, c_size_t), &
      int(seed, c_int64_t), mtv, mean_mtv), "vbmc_post_mtv", stat, errmsg)
  end subroutine

  subroutine post_destroy(self)
    class(vbmc_posterior_type), intent(inout) :: self
    call vbmc_post_destroy(self%handle)
    self%handle = c_null_ptr
  end subroutine

  subroutine refuse_post_copy(lhs, rhs)
    class(vbmc_posterior_type), intent(inout) :: lhs
    type(vbmc_posterior_type), intent(in) :: rhs
    if (c_associated(lhs%handle) .or. c_associated(rhs%handle)) &
      error stop "libvbmc: a vbmc_posterior_type owns a C handle and cannot be assigned"
  end subroutine

  subroutine post_final(self)
    type(vbmc_posterior_type), intent(inout) :: self
    call vbmc_post_destroy(self%handle)
    self%handle = c_null_ptr
  end subroutine
end module vbmc
