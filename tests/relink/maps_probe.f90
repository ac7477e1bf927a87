! Built with MPICH's mpif90 by tests/fortran/relink.sh (and linked the
! upstream way, against libmpifort.so.12 and libmpi.so.12, by
! tests/relink/soname.sh): an MPI_IN_PLACE Allreduce from MPICH-compiled
! code, then every mapped file whose name starts with libmpi or libhcmpi,
! so the test can prove which MPI libraries the running rank really uses.
program maps_probe
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, total, u, ios, slash
  character(len=4096) :: line
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  total = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
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
  call MPI_Finalize(ierr)
end program maps_probe
