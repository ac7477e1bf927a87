! The `use mpi` module: mpif.h's constants and COMMON blocks, plus
! explicit interfaces of every binding (choice buffers accept any type
! through gfortran's NO_ARG_CHECK), and MPI_SIZEOF, which only Fortran has.
module mpi
  implicit none
  include 'mpif.h'
  include 'mpi_ifaces.f90'

contains
  ! MPI_SIZEOF: the bytes of one element of x, of any type and kind,
  ! scalar or array (storage_size of the actual's dynamic type).
  subroutine MPI_Sizeof(x, size, ierror)
    class(*), dimension(..), intent(in) :: x
    integer, intent(out) :: size, ierror
    size = storage_size(x) / 8
    ierror = MPI_SUCCESS
  end subroutine
end module mpi
