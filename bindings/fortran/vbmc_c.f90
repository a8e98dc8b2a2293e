! Raw interfaces to the C API of include/vbmc/vbmc.h, one per function, with the C names.
! Handles are type(c_ptr); an optional array (NULL in C) is passed as type(c_ptr), value.
! Most programs use the wrappers of module vbmc instead.
module vbmc_c
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_char, c_ptr, c_funptr, c_size_t, &
    c_int64_t, c_long_long
  implicit none
  private :: c_int, c_double, c_char, c_ptr, c_funptr, c_size_t, c_int64_t, c_long_long

  interface
    function vbmc_version() bind(c, name="vbmc_version")
      import :: c_ptr
      type(c_ptr) :: vbmc_version
    end function

    function vbmc_status_name(status) bind(c, name="vbmc_status_name")
      import :: c_ptr, c_int
      integer(c_int), value :: status
      type(c_ptr) :: vbmc_status_name
    end function

    function vbmc_opts_create(out) bind(c, name="vbmc_opts_create")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: out
      integer(c_int) :: vbmc_opts_create
    end function

    subroutine vbmc_opts_destroy(opts) bind(c, name="vbmc_opts_destroy")
      import :: c_ptr
      type(c_ptr), value :: opts
    end subroutine

    function vbmc_opts_set(opts, name, value) bind(c, name="vbmc_opts_set")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: opts
      character(kind=c_char), intent(in) :: name(*), value(*)
      integer(c_int) :: vbmc_opts_set
    end function

    function vbmc_opts_set_int(opts, name, value) bind(c, name="vbmc_opts_set_int")
      import :: c_ptr, c_int, c_char, c_long_long
      type(c_ptr), value :: opts
      character(kind=c_char), intent(in) :: name(*)
      integer(c_long_long), value :: value
      integer(c_int) :: vbmc_opts_set_int
    end function

    function vbmc_opts_set_double(opts, name, value) bind(c, name="vbmc_opts_set_double")
      import :: c_ptr, c_int, c_char, c_double
      type(c_ptr), value :: opts
      character(kind=c_char), intent(in) :: name(*)
      real(c_double), value :: value
      integer(c_int) :: vbmc_opts_set_double
    end function

    function vbmc_opts_get(opts, name, buf, size) bind(c, name="vbmc_opts_get")
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: opts
      character(kind=c_char), intent(in) :: name(*)
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_size_t), value :: size
      integer(c_int) :: vbmc_opts_get
    end function

    function vbmc_opts_error(opts) bind(c, name="vbmc_opts_error")
      import :: c_ptr
      type(c_ptr), value :: opts
      type(c_ptr) :: vbmc_opts_error
    end function

    function vbmc_opts_count() bind(c, name="vbmc_opts_count")
      import :: c_int
      integer(c_int) :: vbmc_opts_count
    end function

    function vbmc_opts_name(index) bind(c, name="vbmc_opts_name")
      import :: c_ptr, c_int
      integer(c_int), value :: index
      type(c_ptr) :: vbmc_opts_name
    end function

    function vbmc_opts_type(index) bind(c, name="vbmc_opts_type")
      import :: c_ptr, c_int
      integer(c_int), value :: index
      type(c_ptr) :: vbmc_opts_type
    end function

    function vbmc_opts_default(index) bind(c, name="vbmc_opts_default")
      import :: c_ptr, c_int
      integer(c_int), value :: index
      type(c_ptr) :: vbmc_opts_default
    end function

    function vbmc_opts_help(index) bind(c, name="vbmc_opts_help")
      import :: c_ptr, c_int
      integer(c_int), value :: index
      type(c_ptr) :: vbmc_opts_help
    end function

    function vbmc_create(out, dim, x0, lb, ub, plb, pub, opts) bind(c, name="vbmc_create")
      import :: c_ptr, c_int, c_double
      type(c_ptr), intent(out) :: out
      integer(c_int), value :: dim
      type(c_ptr), value :: x0, lb, ub
      real(c_double), intent(in) :: plb(*), pub(*)
      type(c_ptr), value :: opts
      integer(c_int) :: vbmc_create
    end function

    subroutine vbmc_destroy(run) bind(c, name="vbmc_destroy")
      import :: c_ptr
      type(c_ptr), value :: run
    end subroutine

    function vbmc_last_error(run) bind(c, name="vbmc_last_error")
      import :: c_ptr
      type(c_ptr), value :: run
      type(c_ptr) :: vbmc_last_error
    end function

    function vbmc_dim(run) bind(c, name="vbmc_dim")
      import :: c_ptr, c_int
      type(c_ptr), value :: run
      integer(c_int) :: vbmc_dim
    end function

    function vbmc_ask(run, x) bind(c, name="vbmc_ask")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: run
      real(c_double), intent(out) :: x(*)
      integer(c_int) :: vbmc_ask
    end function

    function vbmc_tell(run, x, log_joint, log_joint_sd) bind(c, name="vbmc_tell")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: run
      real(c_double), intent(in) :: x(*)
      real(c_double), value :: log_joint, log_joint_sd
      integer(c_int) :: vbmc_tell
    end function

    function vbmc_tell_extra(run, x, log_joint, log_joint_sd) bind(c, name="vbmc_tell_extra")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: run
      real(c_double), intent(in) :: x(*)
      real(c_double), value :: log_joint, log_joint_sd
      integer(c_int) :: vbmc_tell_extra
    end function

    function vbmc_abandon(run, x) bind(c, name="vbmc_abandon")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: run
      real(c_double), intent(in) :: x(*)
      integer(c_int) :: vbmc_abandon
    end function

    function vbmc_pending_point(run, i, x) bind(c, name="vbmc_pending_point")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: run
      integer(c_int), value :: i
      real(c_double), intent(out) :: x(*)
      integer(c_int) :: vbmc_pending_point
    end function

    function vbmc_stat(run, name, value) bind(c, name="vbmc_stat")
      import :: c_ptr, c_int, c_char, c_double
      type(c_ptr), value :: run
      character(kind=c_char), intent(in) :: name(*)
      real(c_double), intent(out) :: value
      integer(c_int) :: vbmc_stat
    end function

    function vbmc_result_message(run) bind(c, name="vbmc_result_message")
      import :: c_ptr
      type(c_ptr), value :: run
      type(c_ptr) :: vbmc_result_message
    end function

    function vbmc_run(run, f, userdata) bind(c, name="vbmc_run")
      import :: c_ptr, c_int, c_funptr
      type(c_ptr), value :: run
      type(c_funptr), value :: f
      type(c_ptr), value :: userdata
      integer(c_int) :: vbmc_run
    end function

    function vbmc_history(run, name, n, values) bind(c, name="vbmc_history")
      import :: c_ptr, c_int, c_char, c_size_t, c_double
      type(c_ptr), value :: run
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), value :: n
      real(c_double), intent(out) :: values(*)
      integer(c_int) :: vbmc_history
    end function

    function vbmc_evaluations(run, n, x, log_joint, log_joint_sd, in_training) &
        bind(c, name="vbmc_evaluations")
      import :: c_ptr, c_int, c_size_t, c_double
      type(c_ptr), value :: run
      integer(c_size_t), value :: n
      real(c_double), intent(out) :: x(*), log_joint(*), log_joint_sd(*)
      integer(c_int), intent(out) :: in_training(*)
      integer(c_int) :: vbmc_evaluations
    end function

    function vbmc_run_threads(run, f, userdata, threads, timeout) bind(c, name="vbmc_run_threads")
      import :: c_ptr, c_int, c_funptr, c_double
      type(c_ptr), value :: run
      type(c_funptr), value :: f
      type(c_ptr), value :: userdata
      integer(c_int), value :: threads
      real(c_double), value :: timeout
      integer(c_int) :: vbmc_run_threads
    end function

    function vbmc_set_logger(run, fn, userdata) bind(c, name="vbmc_set_logger")
      import :: c_ptr, c_int, c_funptr
      type(c_ptr), value :: run
      type(c_funptr), value :: fn
      type(c_ptr), value :: userdata
      integer(c_int) :: vbmc_set_logger
    end function

    function vbmc_save(run, path) bind(c, name="vbmc_save")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: run
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: vbmc_save
    end function

    function vbmc_load(out, path) bind(c, name="vbmc_load")
      import :: c_ptr, c_int, c_char
      type(c_ptr), intent(out) :: out
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: vbmc_load
    end function

    function vbmc_posterior(run, out) bind(c, name="vbmc_posterior")
      import :: c_ptr, c_int
      type(c_ptr), value :: run
      type(c_ptr), intent(out) :: out
      integer(c_int) :: vbmc_posterior
    end function

    subroutine vbmc_post_destroy(post) bind(c, name="vbmc_post_destroy")
      import :: c_ptr
      type(c_ptr), value :: post
    end subroutine

    function vbmc_post_dim(post) bind(c, name="vbmc_post_dim")
      import :: c_ptr, c_int
      type(c_ptr), value :: post
      integer(c_int) :: vbmc_post_dim
    end function

    function vbmc_post_components(post) bind(c, name="vbmc_post_components")
      import :: c_ptr, c_int
      type(c_ptr), value :: post
      integer(c_int) :: vbmc_post_components
    end function

    function vbmc_post_elbo(post, elbo, elbo_sd) bind(c, name="vbmc_post_elbo")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: post
      real(c_double), intent(out) :: elbo, elbo_sd
      integer(c_int) :: vbmc_post_elbo
    end function

    function vbmc_post_sample(post, n, seed, x) bind(c, name="vbmc_post_sample")
      import :: c_ptr, c_int, c_double, c_size_t, c_int64_t
      type(c_ptr), value :: post
      integer(c_size_t), value :: n
      integer(c_int64_t), value :: seed
      real(c_double), intent(out) :: x(*)
      integer(c_int) :: vbmc_post_sample
    end function

    function vbmc_post_sample_components(post, n, seed, x, component) &
        bind(c, name="vbmc_post_sample_components")
      import :: c_ptr, c_int, c_double, c_size_t, c_int64_t
      type(c_ptr), value :: post
      integer(c_size_t), value :: n
      integer(c_int64_t), value :: seed
      real(c_double), intent(out) :: x(*)
      integer(c_int), intent(out) :: component(*)
      integer(c_int) :: vbmc_post_sample_components
    end function

    function vbmc_post_sample_refined(post, n, seed, x) bind(c, name="vbmc_post_sample_refined")
      import :: c_ptr, c_int, c_double, c_size_t, c_int64_t
      type(c_ptr), value :: post
      integer(c_size_t), value :: n
      integer(c_int64_t), value :: seed
      real(c_double), intent(out) :: x(*)
      integer(c_int) :: vbmc_post_sample_refined
    end function

    function vbmc_post_refined_elbo(post, n, seed, elbo, elbo_sd) bind(c, name="vbmc_post_refined_elbo")
      import :: c_ptr, c_int, c_double, c_size_t, c_int64_t
      type(c_ptr), value :: post
      integer(c_size_t), value :: n
      integer(c_int64_t), value :: seed
      real(c_double), intent(out) :: elbo, elbo_sd
      integer(c_int) :: vbmc_post_refined_elbo
    end function

    function vbmc_post_set_refinement(post, aux_count, variance_ratio) &
        bind(c, name="vbmc_post_set_refinement")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: post
      integer(c_int), value :: aux_count
      real(c_double), value :: variance_ratio
      integer(c_int) :: vbmc_post_set_refinement
    end function

    function vbmc_post_log_pdf(post, n, x, log_pdf) bind(c, name="vbmc_post_log_pdf")
      import :: c_ptr, c_int, c_double, c_size_t
      type(c_ptr), value :: post
      integer(c_size_t), value :: n
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(out) :: log_pdf(*)
      integer(c_int) :: vbmc_post_log_pdf
    end function

    function vbmc_post_moments(post, mean, cov) bind(c, name="vbmc_post_moments")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: post
      real(c_double), intent(out) :: mean(*)
      type(c_ptr), value :: cov
      integer(c_int) :: vbmc_post_moments
    end function

    function vbmc_post_save(post, path) bind(c, name="vbmc_post_save")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: post
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: vbmc_post_save
    end function

    function vbmc_post_load(out, path) bind(c, name="vbmc_post_load")
      import :: c_ptr, c_int, c_char
      type(c_ptr), intent(out) :: out
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: vbmc_post_load
    end function
    function vbmc_set_prior(run, coord, kind, params, n_params) bind(c, name="vbmc_set_prior")
      import :: c_ptr, c_int, c_char, c_double
      type(c_ptr), value :: run
      integer(c_int), value :: coord
      character(kind=c_char), intent(in) :: kind(*)
      real(c_double), intent(in) :: params(*)
      integer(c_int), value :: n_params
      integer(c_int) :: vbmc_set_prior
    end function

    function vbmc_set_prior_fn(run, fn, userdata) bind(c, name="vbmc_set_prior_fn")
      import :: c_ptr, c_int, c_funptr
      type(c_ptr), value :: run
      type(c_funptr), value :: fn
      type(c_ptr), value :: userdata
      integer(c_int) :: vbmc_set_prior_fn
    end function

    function vbmc_log_prior(run, x, log_prior) bind(c, name="vbmc_log_prior")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: run
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(out) :: log_prior
      integer(c_int) :: vbmc_log_prior
    end function

    function vbmc_evaluations_prior(run, n, log_likelihood, log_prior) bind(c, name="vbmc_evaluations_prior")
      import :: c_ptr, c_int, c_size_t, c_double
      type(c_ptr), value :: run
      integer(c_size_t), value :: n
      real(c_double), intent(out) :: log_likelihood(*), log_prior(*)
      integer(c_int) :: vbmc_evaluations_prior
    end function

    function vbmc_create_warm(out, previous, opts, reuse_evaluations) bind(c, name="vbmc_create_warm")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: out
      type(c_ptr), value :: previous, opts
      integer(c_int), value :: reuse_evaluations
      integer(c_int) :: vbmc_create_warm
    end function

    function vbmc_history_posterior(run, iteration, out) bind(c, name="vbmc_history_posterior")
      import :: c_ptr, c_int
      type(c_ptr), value :: run
      integer(c_int), value :: iteration
      type(c_ptr), intent(out) :: out
      integer(c_int) :: vbmc_history_posterior
    end function

    function vbmc_history_action(run, iteration, buf, size) bind(c, name="vbmc_history_action")
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: run
      integer(c_int), value :: iteration
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_size_t), value :: size
      integer(c_int) :: vbmc_history_action
    end function

    function vbmc_post_log_evidence(post, log_z, log_z_sd) bind(c, name="vbmc_post_log_evidence")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: post
      real(c_double), intent(out) :: log_z, log_z_sd
      integer(c_int) :: vbmc_post_log_evidence
    end function

    function vbmc_post_mode(post, x) bind(c, name="vbmc_post_mode")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: post
      real(c_double), intent(out) :: x(*)
      integer(c_int) :: vbmc_post_mode
    end function

    function vbmc_post_marginal_pdf(post, coord, n, values, pdf) bind(c, name="vbmc_post_marginal_pdf")
      import :: c_ptr, c_int, c_size_t, c_double
      type(c_ptr), value :: post
      integer(c_int), value :: coord
      integer(c_size_t), value :: n
      real(c_double), intent(in) :: values(*)
      real(c_double), intent(out) :: pdf(*)
      integer(c_int) :: vbmc_post_marginal_pdf
    end function

    function vbmc_post_kl(p, q, n, seed, kl, kl_sd) bind(c, name="vbmc_post_kl")
      import :: c_ptr, c_int, c_size_t, c_int64_t, c_double
      type(c_ptr), value :: p, q
      integer(c_size_t), value :: n
      integer(c_int64_t), value :: seed
      real(c_double), intent(out) :: kl(2), kl_sd(2)
      integer(c_int) :: vbmc_post_kl
    end function

    function vbmc_post_mtv(p, q, n, seed, mtv, mean_mtv) bind(c, name="vbmc_post_mtv")
      import :: c_ptr, c_int, c_size_t, c_int64_t, c_double
      type(c_ptr), value :: p, q
      integer(c_size_t), value :: n
      integer(c_int64_t), value :: seed
      real(c_double), intent(out) :: mtv(*), mean_mtv
      integer(c_int) :: vbmc_post_mtv
    end function

    function vbmc_diagnose(runs, n, seed, out) bind(c, name="vbmc_diagnose")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), intent(in) :: runs(*)
      integer(c_int), value :: n
      integer(c_int64_t), value :: seed
      type(c_ptr), intent(out) :: out
      integer(c_int) :: vbmc_diagnose
    end function

    subroutine vbmc_diag_destroy(diag) bind(c, name="vbmc_diag_destroy")
      import :: c_ptr
      type(c_ptr), value :: diag
    end subroutine

    function vbmc_diag_stat(diag, name, value) bind(c, name="vbmc_diag_stat")
      import :: c_ptr, c_int, c_char, c_double
      type(c_ptr), value :: diag
      character(kind=c_char), intent(in) :: name(*)
      real(c_double), intent(out) :: value
      integer(c_int) :: vbmc_diag_stat
    end function

    function vbmc_diag_pairwise(diag, name, n, values) bind(c, name="vbmc_diag_pairwise")
      import :: c_ptr, c_int, c_char, c_size_t, c_double
      type(c_ptr), value :: diag
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), value :: n
      real(c_double), intent(out) :: values(*)
      integer(c_int) :: vbmc_diag_pairwise
    end function

    function vbmc_diag_message(diag) bind(c, name="vbmc_diag_message")
      import :: c_ptr
      type(c_ptr), value :: diag
      type(c_ptr) :: vbmc_diag_message
    end function
  end interface
end module vbmc_c
