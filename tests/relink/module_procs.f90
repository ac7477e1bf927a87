! Built by MPICH's mpif90 against its own `use mpi` module: MPI_Sizeof of
! each kind (scalars and arrays, the module's mpi_sizeofs procedures) and
! == between its TYPE(MPI_Comm) handles run on hcmpi with MPICH's answers.
! Prints "mismatch" on a failed check, then "use mpi procedures ok <rank>".
program module_procs
  use mpi
  implicit none
  integer :: rank, sz, ierr, iv(2)
  integer(1) :: i1
  integer(2) :: i2
  integer(8) :: i8
  real :: r4, rv(3)
  double precision :: r8
  complex :: c8
  character(len=5) :: ch
  logical :: lg
  type(MPI_Comm) :: a, b
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Sizeof(i1, sz, ierr); call expect('sizeof integer(1)', sz, 1)
  call MPI_Sizeof(i2, sz, ierr); call expect('sizeof integer(2)', sz, 2)
  call MPI_Sizeof(rank, sz, ierr); call expect('sizeof integer', sz, 4)
  call MPI_Sizeof(iv, sz, ierr); call expect('sizeof integer array', sz, 4)
  call MPI_Sizeof(i8, sz, ierr); call expect('sizeof integer(8)', sz, 8)
  call MPI_Sizeof(r4, sz, ierr); call expect('sizeof real', sz, 4)
  call MPI_Sizeof(rv, sz, ierr); call expect('sizeof real array', sz, 4)
  call MPI_Sizeof(r8, sz, ierr); call expect('sizeof double precision', sz, 8)
  call MPI_Sizeof(c8, sz, ierr); call expect('sizeof complex', sz, 8)
  call MPI_Sizeof(ch, sz, ierr); call expect('sizeof character', sz, 1)
  call MPI_Sizeof(lg, sz, ierr); call expect('sizeof logical', sz, 4)
  call expect('sizeof ierror', ierr, MPI_SUCCESS)
  a%MPI_VAL = MPI_COMM_WORLD
  b%MPI_VAL = MPI_COMM_SELF
  if (.not. (a == a) .or. a == b) print *, 'mismatch: == of TYPE(MPI_Comm)'
  print '(a,i0)', 'use mpi procedures ok ', rank
  call MPI_Finalize(ierr)
contains
  include 'expect_int.inc'
end program
