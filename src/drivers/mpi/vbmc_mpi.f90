! Fortran interface to the MPI driver of libvbmc (include/vbmc/vbmc_mpi.h). Compile this file with
! your program (mpif90) and link -lvbmc_mpi -lvbmc. The run handle is the C handle (type(c_ptr),
! e.g. from vbmc_create of module vbmc_c); comm is a Fortran MPI handle (integer, as from module
! mpi, or comm%MPI_VAL with mpi_f08). The log joint is a bind(c) function of the interface
! vbmc_mpi_log_joint, passed as c_funloc(f); it receives its group's communicator as a Fortran
! handle.
module vbmc_mpi
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_ptr, c_funptr, c_char, c_f_pointer, &
    c_null_char
  implicit none
  private
  public :: vbmc_mpi_log_joint, vbmc_mpi_run_f, vbmc_mpi_last_error

  abstract interface
    function vbmc_mpi_log_joint(x, log_joint_sd, group, userdata) bind(c)
      import :: c_double, c_int, c_ptr
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(inout) :: log_joint_sd
      integer(c_int), value :: group
      type(c_ptr), value :: userdata
      real(c_double) :: vbmc_mpi_log_joint
    end function
  end interface

  interface
    ! Collective over comm; returns a vbmc_status (VBMC_DONE when the run finished).
    function vbmc_mpi_run_f(run, f, userdata, comm, group_size, timeout) bind(c, name="vbmc_mpi_run_f")
      import :: c_ptr, c_funptr, c_int, c_double
      type(c_ptr), value :: run
      type(c_funptr), value :: f
      type(c_ptr), value :: userdata
      integer(c_int), value :: comm, group_size
      real(c_double), value :: timeout
      integer(c_int) :: vbmc_mpi_run_f
    end function

    function c_last_error() bind(c, name="vbmc_mpi_last_error")
      import :: c_ptr
      type(c_ptr) :: c_last_error
    end function
  end interface

contains

  ! The message of the last vbmc_mpi_run_f on this thread that did not return VBMC_DONE.
  function vbmc_mpi_last_error() result(text)
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: n
    call c_f_pointer(c_last_error(), chars, [512])
    n = 0
    do while (chars(n + 1) /= c_null_char)
      n = n + 1
    end do
    allocate(character(len=n) :: text)
    text = transfer(chars(1:n), text)
  end function

end module vbmc_mpi
