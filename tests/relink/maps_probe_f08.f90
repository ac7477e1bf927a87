! maps_probe.f90 through MPICH's `use mpi_f08` (built by MPICH's mpif90 in
! tests/fortran/relink.sh): an MPI_IN_PLACE Allreduce and a status read
! back from a message to itself, a strided derived type (MPI_Type_vector)
! sent to itself, then every mapped file whose name starts
! with libmpi or libhcmpi, so the test can prove which MPI libraries a rank
! running MPICH-compiled mpi_f08 code really uses.
program maps_probe_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, total, u, ios, slash, got, cnt, i
  integer :: a(6), b(3)
  type(MPI_Status) :: st
  type(MPI_Request) :: req
  type(MPI_Datatype) :: every_other
  character(len=4096) :: line
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  total = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Irecv(got, 1, MPI_INTEGER, rank, 9, MPI_COMM_WORLD, req)
  call MPI_Send(rank * 10, 1, MPI_INTEGER, rank, 9, MPI_COMM_WORLD)
  call MPI_Wait(req, st)
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  if (got /= rank * 10 .or. st%MPI_SOURCE /= rank .or. st%MPI_TAG /= 9 .or. cnt /= 1) &
    print '(A,I0,A)', 'rank ', rank, ' status mismatch'
  a = [(rank * 100 + i, i = 1, 6)]
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, every_other)
  call MPI_Type_commit(every_other)
  call MPI_Sendrecv(a, 1, every_other, rank, 8, b, 3, MPI_INTEGER, rank, 8, &
                    MPI_COMM_WORLD, st)
  if (any(b /= [a(1), a(3), a(5)])) print '(A,I0,A)', 'rank ', rank, ' vector mismatch'
  call MPI_Type_free(every_other)
  if (every_other /= MPI_DATATYPE_NULL) print '(A,I0,A)', 'rank ', rank, ' type not freed'
  if (rank == 0) print '(A,I0,A,I0,A)', 'sum ', total, ' (expect ', &
                       nranks * (nranks + 1) / 2, ')'
  open (newunit=u, file='/proc/self/maps', action='read', iostat=ios)
  do while (ios == 0)
    read (u, '(A)', iostat=ios) line
    if (ios /= 0) exit
    slash = index(line, '/')
    if (slash > 0 .and. (index(line, '/libmpi') > 0 .or. &
                         index(line, '/libhcmpi') > 0)) &
      print '(A,I0,A,A)', 'rank ', rank, ' maps ', trim(line(slash:))
  end do
  close (u)
  call MPI_Finalize()
end program maps_probe_f08
