! `use mpi`: MPI-4.1's calls on 2 or more ranks with INTEGER handles and
! statuses.  The process's MPI_BUFFER_AUTOMATIC buffer carries a ring of
! MPI_Bsend messages, MPI_Buffer_flush waits for them; MPI_Request_get_
! status_some reports the complete receive by its 1-based index without
! freeing it; MPI_Status_set_tag / _get_tag round-trip; an added code and
! its string are removed in the standard's order (the code first is an
! error, returned under MPI_ERRORS_RETURN).
program mpi41
  use mpi
  implicit none
  integer :: rank, nprocs, left, right, nbad, ierr, outcount, tag, got
  integer :: cls, code, bsize, sendv(4)
  integer :: reqs(2), indices(2)
  integer :: statuses(MPI_STATUS_SIZE, 2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  nbad = 0
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  call MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 9, MPI_COMM_WORLD, reqs(2), ierr)
  sendv = rank + 200
  call MPI_Bsend(sendv, 1, MPI_INTEGER, right, 9, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  outcount = 0
  do while (outcount == 0)
    call MPI_Request_get_status_some(2, reqs, outcount, indices, statuses, ierr)
  end do
  if (outcount /= 1 .or. indices(1) /= 2) nbad = nbad + 1
  if (statuses(MPI_SOURCE, 1) /= left) nbad = nbad + 1
  if (reqs(2) == MPI_REQUEST_NULL) nbad = nbad + 1
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
  if (got /= left + 200) nbad = nbad + 1
  call MPI_Buffer_flush(ierr)
  call MPI_Buffer_detach(sendv, bsize, ierr)
  if (ierr /= MPI_SUCCESS .or. bsize /= 0) nbad = nbad + 1
  call MPI_Status_set_tag(statuses(:, 1), 42, ierr)
  call MPI_Status_get_tag(statuses(:, 1), tag, ierr)
  if (tag /= 42) nbad = nbad + 1
  call MPI_Add_error_class(cls, ierr)
  call MPI_Add_error_code(cls, code, ierr)
  call MPI_Add_error_string(code, 'a Fortran code', ierr)
  call MPI_Remove_error_code(code, ierr)
  if (ierr == MPI_SUCCESS) nbad = nbad + 1
  call MPI_Remove_error_string(code, ierr)
  call MPI_Remove_error_code(code, ierr)
  call MPI_Remove_error_class(cls, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'mpi41.f90 errors:', nbad
  call MPI_Finalize(ierr)
  if (nbad /= 0) stop 1
end program mpi41
