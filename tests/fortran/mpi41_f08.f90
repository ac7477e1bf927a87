! `use mpi_f08`: MPI-4.1's calls on 2 or more ranks.  A communicator's
! MPI_BUFFER_AUTOMATIC buffer carries a ring of MPI_Bsend messages, and
! MPI_Comm_iflush_buffer completes once they left; detach gives size 0.
! MPI_Request_get_status_any reports the complete receive by its 1-based
! index without freeing it (MPI_Wait still completes it), and
! MPI_Status_get_source / _tag read its status.  MPI_Type_get_value_index
! of two REALs is MPI_2REAL; an added error class is removed, and
! MPI_Get_hw_resource_info names the resource type.  MPI_Status_f082f and
! MPI_Status_f2f08 (MPI-4.0) carry the receive's status both ways, its
! words named by mpi_f08's MPI_SOURCE, MPI_TAG and MPI_ERROR.
program mpi41_f08
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm
  type(MPI_Request) :: reqs(2), flush
  type(MPI_Status) :: status, back
  integer :: fstatus(MPI_STATUS_SIZE), ierr
  type(MPI_Datatype) :: pair
  type(MPI_Info) :: hw
  integer :: rank, nprocs, left, right, nbad, idx, src, tag, got, cls, vlen
  integer :: bsize, sendv(4)
  logical :: flag
  character(len=64) :: value

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  nbad = 0
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_attach_buffer(comm, MPI_BUFFER_AUTOMATIC, 0)
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 7, comm, reqs(2))
  sendv = rank + 100
  call MPI_Bsend(sendv, 1, MPI_INTEGER, right, 7, comm)
  call MPI_Comm_iflush_buffer(comm, flush)
  flag = .false.
  do while (.not. flag)
    call MPI_Request_get_status_any(2, reqs, idx, flag, status)
  end do
  if (idx /= 2) nbad = nbad + 1
  if (reqs(2) == MPI_REQUEST_NULL) nbad = nbad + 1
  call MPI_Status_get_source(status, src)
  call MPI_Status_get_tag(status, tag)
  if (src /= left .or. tag /= 7) nbad = nbad + 1
  call MPI_Status_f082f(status, fstatus, ierr)
  ! mpi_f08 names the words of an INTEGER status as mpif.h does.
  if (MPI_SOURCE /= 3 .or. MPI_TAG /= 4 .or. MPI_ERROR /= 5) nbad = nbad + 1
  if (ierr /= MPI_SUCCESS .or. fstatus(MPI_SOURCE) /= left .or. &
      fstatus(MPI_TAG) /= 7) nbad = nbad + 1
  fstatus(MPI_ERROR) = MPI_ERR_TRUNCATE
  call MPI_Status_f2f08(fstatus, back)
  if (back%MPI_SOURCE /= left .or. back%MPI_TAG /= 7 .or. &
      back%MPI_ERROR /= MPI_ERR_TRUNCATE) nbad = nbad + 1
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
  if (got /= left + 100) nbad = nbad + 1
  call MPI_Wait(flush, MPI_STATUS_IGNORE)
  call MPI_Comm_detach_buffer(comm, sendv, bsize)
  if (bsize /= 0) nbad = nbad + 1
  call MPI_Comm_free(comm)
  call MPI_Type_get_value_index(MPI_REAL, MPI_REAL, pair)
  if (pair /= MPI_2REAL) nbad = nbad + 1
  call MPI_Type_get_value_index(MPI_REAL, MPI_CHARACTER, pair)
  if (pair /= MPI_DATATYPE_NULL) nbad = nbad + 1
  call MPI_Add_error_class(cls)
  call MPI_Remove_error_class(cls)
  call MPI_Get_hw_resource_info(hw)
  call MPI_Info_get_string(hw, 'mpi_hw_resource_type', vlen, value, flag)
  vlen = len(value)
  call MPI_Info_get_string(hw, 'mpi_hw_resource_type', vlen, value, flag)
  if (.not. flag .or. trim(value) /= 'mpi_shared_memory') nbad = nbad + 1
  call MPI_Info_free(hw)
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print *, 'mpi41_f08.f90 errors:', nbad
  call MPI_Finalize()
  if (nbad /= 0) stop 1
end program mpi41_f08
