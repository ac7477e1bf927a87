! `use mpi`: a session without the world model.  The pset names and their
! lengths (PSET_LEN 0 asks; Fortran counts no NUL), the WORLD pset's group,
! a communicator made from it by MPI_Comm_create_from_group, and a checked
! allreduce and ring exchange on that communicator.
program sessions
  use mpi
  implicit none
  integer :: session, group, comm, ierr, nbad, npsets, i, plen
  integer :: rank, nprocs, gsize, total, left, right, got
  integer :: status(MPI_STATUS_SIZE)
  character(len=32) :: pname
  character(len=12), parameter :: expect(3) = &
       [character(len=12) :: 'mpi://WORLD', 'mpi://SELF', 'hcmpi://node']

  nbad = 0
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
  if (ierr /= MPI_SUCCESS) stop 2
  call MPI_Session_get_num_psets(session, MPI_INFO_NULL, npsets, ierr)
  if (npsets /= 3) nbad = nbad + 1
  do i = 1, npsets
    plen = 0
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i - 1, plen, pname, ierr)
    if (ierr /= MPI_SUCCESS .or. plen /= len_trim(expect(i))) nbad = nbad + 1
    plen = len(pname)
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i - 1, plen, pname, ierr)
    if (ierr /= MPI_SUCCESS .or. trim(pname) /= trim(expect(i))) nbad = nbad + 1
  end do
  call MPI_Group_from_session_pset(session, 'mpi://WORLD', group, ierr)
  call MPI_Comm_create_from_group(group, 'org.hcmpi.test.fortran', &
       MPI_INFO_NULL, MPI_ERRORS_RETURN, comm, ierr)
  if (ierr /= MPI_SUCCESS) stop 3
  call MPI_Group_size(group, gsize, ierr)
  call MPI_Group_free(group, ierr)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  if (nprocs /= gsize) nbad = nbad + 1
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (total /= nprocs * (nprocs + 1) / 2) nbad = nbad + 1
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  call MPI_Sendrecv(rank * 7, 1, MPI_INTEGER, right, 4, got, 1, MPI_INTEGER, &
       left, 4, comm, status, ierr)
  if (got /= left * 7 .or. status(MPI_SOURCE) /= left) nbad = nbad + 1
  call MPI_Comm_free(comm, ierr)
  call MPI_Session_finalize(session, ierr)
  if (ierr /= MPI_SUCCESS .or. session /= MPI_SESSION_NULL) nbad = nbad + 1
  if (nbad /= 0) then
    print *, 'FAIL sessions.f90: ', nbad, ' errors on rank ', rank
    stop 1
  end if
end program sessions
