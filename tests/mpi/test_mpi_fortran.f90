! The MPI driver from Fortran (module vbmc_mpi): rank 0 creates a run through the C interfaces of
! module vbmc_c, every rank calls vbmc_mpi_run_f with MPI_COMM_WORLD's Fortran handle, and the
! log joint, a bind(c) function, receives its group's communicator as a Fortran handle.
module mpi_fortran_target
  use, intrinsic :: iso_c_binding, only: c_double, c_int, c_ptr
  use mpi
  implicit none
  integer :: group_size_seen = -1
contains
  function log_joint(x, log_joint_sd, group, userdata) bind(c)
    real(c_double), intent(in) :: x(*)
    real(c_double), intent(inout) :: log_joint_sd
    integer(c_int), value :: group
    type(c_ptr), value :: userdata
    real(c_double) :: log_joint
    integer :: ierr
    call MPI_Comm_size(group, group_size_seen, ierr)
    log_joint_sd = 0
    log_joint = -0.5d0 * (x(1)**2 + 2 * x(2)**2 - x(1) * x(2))
  end function
end module mpi_fortran_target

program test_mpi_fortran
  use, intrinsic :: iso_c_binding
  use mpi
  use vbmc_constants
  use vbmc_c
  use vbmc_mpi
  use mpi_fortran_target
  implicit none
  type(c_ptr) :: run = c_null_ptr, opts = c_null_ptr, post = c_null_ptr
  real(c_double) :: plb(2) = [-3d0, -3d0], pub(2) = [3d0, 3d0], elbo = 0, elbo_sd = 0
  integer(c_int) :: status
  integer :: ierr, rank, failures = 0, all_failures = 0

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    status = vbmc_opts_create(opts)
    status = vbmc_opts_set(opts, "display" // c_null_char, "off" // c_null_char)
    status = vbmc_opts_set(opts, "max_pending" // c_null_char, "3" // c_null_char)
    status = vbmc_opts_set(opts, "max_fun_evals" // c_null_char, "30" // c_null_char)
    status = vbmc_opts_set(opts, "ns_search" // c_null_char, "256" // c_null_char)
    status = vbmc_opts_set(opts, "ns_gp_max" // c_null_char, "4" // c_null_char)
    status = vbmc_create(run, 2, c_null_ptr, c_null_ptr, c_null_ptr, plb, pub, opts)
    call vbmc_opts_destroy(opts)
    if (status /= VBMC_OK) failures = failures + 1
  end if
  status = vbmc_mpi_run_f(run, c_funloc(log_joint), c_null_ptr, MPI_COMM_WORLD, 1, 0d0)
  if (status /= VBMC_DONE) then
    print '(a, i0, a, i0, 2a)', 'rank ', rank, ': status ', status, ': ', vbmc_mpi_last_error()
    failures = failures + 1
  end if
  if (rank /= 0 .and. group_size_seen /= 1) failures = failures + 1
  if (rank == 0) then
    if (vbmc_posterior(run, post) /= VBMC_OK) failures = failures + 1
    if (vbmc_post_elbo(post, elbo, elbo_sd) /= VBMC_OK) failures = failures + 1
    if (.not. (abs(elbo) < 100)) failures = failures + 1
    call vbmc_post_destroy(post)
    call vbmc_destroy(run)
  end if
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, a)', 'fortran: ', merge('FAILED', 'ok    ', all_failures > 0)
  call MPI_Finalize(ierr)
  if (all_failures > 0) error stop 1
end program test_mpi_fortran
