! The Fortran side of tests/relink/eztrace.sh: the calls of
! eztrace_calls.c through mpif.h, which EZTrace's MPI module intercepts
! as mpi_send_, mpi_wait_, ... (its Fortran wrappers, distinct from the
! C ones).  Compiled with mpif90.mpich; needs an even number of ranks.
program eztrace_calls
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nproc, partner, total, received_count
  integer :: requests(2), status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
  integer :: mine(3), blocking(3), waited(3), waited_all(3), length
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
  partner = ieor(rank, 1)
  mine = [10 * rank + 1, 10 * rank + 2, 10 * rank + 3]
  blocking = 0
  waited = 0
  waited_all = 0
  received_count = -1

  if (mod(rank, 2) == 0) then
    call mpi_send(mine, 3, MPI_INTEGER, partner, 5, MPI_COMM_WORLD, ierr)
  else
    call mpi_recv(blocking, 3, MPI_INTEGER, partner, 5, MPI_COMM_WORLD, status, ierr)
    call mpi_get_count(status, MPI_INTEGER, received_count, ierr)
  end if
  call mpi_allreduce(mine(1), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

  call mpi_irecv(waited, 3, MPI_INTEGER, partner, 6, MPI_COMM_WORLD, requests(1), ierr)
  call mpi_isend(mine, 2, MPI_INTEGER, partner, 6, MPI_COMM_WORLD, requests(2), ierr)
  call mpi_wait(requests(1), status, ierr)
  call mpi_wait(requests(2), MPI_STATUS_IGNORE, ierr)
  call mpi_irecv(waited_all, 3, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, requests(1), ierr)
  call mpi_isend(mine, 3, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, requests(2), ierr)
  call mpi_waitall(2, requests, statuses, ierr)
  call mpi_bcast(total, 1, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  call mpi_barrier(MPI_COMM_WORLD, ierr)

  if (rank == 0) then
    call mpi_get_library_version(version, length, ierr)
    print '(2a)', 'library ', version(1:scan(version(1:length), ' ' // achar(10)) - 1)
  end if
  print '(a,i0,a,3(1x,i0),a,i0,a,2(1x,i0),a,3(1x,i0),a,i0,a,i0,a,i0)', &
    'rank ', rank, ': recv', blocking, ' count ', received_count, '; wait', waited(1:2), &
    '; waitall', waited_all, ' source ', statuses(MPI_SOURCE, 1), ' tag ', &
    statuses(MPI_TAG, 1), '; sum ', total
  call mpi_finalize(ierr)
end program eztrace_calls
