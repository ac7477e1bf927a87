! The `use mpi` module: mpif.h's constants and COMMON blocks, plus
! explicit interfaces of every binding (choice buffers accept any type
! through gfortran's NO_ARG_CHECK).
module mpi
  implicit none
  include 'mpif.h'
  include 'mpi_ifaces.f90'
end module mpi
