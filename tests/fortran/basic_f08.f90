! `use mpi_f08`: the same checks as basic.f90 with TYPE(MPI_Comm),
! TYPE(MPI_Status) and ierror left out, and MPI_Sizeof of each intrinsic
! type against MPI_Type_size of its datatype.
program basic_f08
  use mpi_f08
  implicit none
  integer, parameter :: maxn = 262144
  integer :: buf(maxn)
  type(MPI_Status) :: status
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: sub
  integer :: ierr, rank, nprocs, n, i, peer, cnt, nbad, left, right
  integer :: sval, rval, srank, ssize, v(2), rlen
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  integer :: sz, tsz
  real :: r4v(3)
  double precision :: d8
  complex :: c8v(2)
  integer(kind=8) :: i8

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nbad = 0
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  n = 1
  do while (n <= maxn)
    if (rank < 2) then
      peer = 1 - rank
      if (rank == 0) then
        buf(1:n) = [(i * 5 + n, i = 1, n)]
        call MPI_Send(buf, n, MPI_INTEGER, peer, n, MPI_COMM_WORLD)
        call MPI_Recv(buf, n, MPI_INTEGER, peer, n, MPI_COMM_WORLD, status)
        call MPI_Get_count(status, MPI_INTEGER, cnt)
        if (cnt /= n .or. status%MPI_SOURCE /= peer .or. status%MPI_TAG /= n) nbad = nbad + 1
        do i = 1, n
          if (buf(i) /= i * 5 + n + 1) nbad = nbad + 1
        end do
      else
        call MPI_Recv(buf, n, MPI_INTEGER, peer, n, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        do i = 1, n
          if (buf(i) /= i * 5 + n) nbad = nbad + 1
        end do
        buf(1:n) = buf(1:n) + 1
        call MPI_Send(buf, n, MPI_INTEGER, peer, n, MPI_COMM_WORLD)
      end if
    end if
    n = n * 4
  end do
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  sval = 100 + rank
  call MPI_Sendrecv(sval, 1, MPI_INTEGER, right, 5, rval, 1, MPI_INTEGER, left, 5, &
                    MPI_COMM_WORLD, status)
  if (rval /= 100 + left .or. status%MPI_SOURCE /= left) nbad = nbad + 1
  rval = -1
  call MPI_Irecv(rval, 1, MPI_INTEGER, left, 6, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sval, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (rval /= 100 + left .or. reqs(1) /= MPI_REQUEST_NULL) nbad = nbad + 1
  call MPI_Sizeof(r4v, sz)
  call MPI_Type_size(MPI_REAL, tsz)
  if (sz /= tsz) nbad = nbad + 1
  call MPI_Sizeof(d8, sz, ierr)
  call MPI_Type_size(MPI_DOUBLE_PRECISION, tsz)
  if (sz /= tsz .or. ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_Sizeof(c8v, sz)
  call MPI_Type_size(MPI_COMPLEX, tsz)
  if (sz /= tsz) nbad = nbad + 1
  call MPI_Sizeof(i8, sz)
  if (sz /= 8) nbad = nbad + 1
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call MPI_Comm_rank(sub, srank)
  call MPI_Comm_size(sub, ssize)
  if (srank /= rank / 2) nbad = nbad + 1
  v = [rank, 1]
  call MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INTEGER, MPI_SUM, sub)
  if (v(1) /= sum([(i, i = mod(rank, 2), nprocs - 1, 2)]) .or. v(2) /= ssize) nbad = nbad + 1
  call MPI_Comm_set_name(sub, 'f08 half')
  call MPI_Comm_get_name(sub, cname, rlen)
  if (cname /= 'f08 half' .or. rlen /= 8) nbad = nbad + 1
  call MPI_Comm_free(sub)
  if (sub /= MPI_COMM_NULL) nbad = nbad + 1
  v(1) = rank
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD)
    if (v(1) /= nprocs - 1) nbad = nbad + 1
  else
    call MPI_Reduce(v, v, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD)
  end if
  call MPI_Initialized(flag)
  if (.not. flag) nbad = nbad + 1
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print *, 'basic_f08.f90 errors:', nbad
  call MPI_Finalize()
  if (nbad /= 0) stop 1
end program basic_f08
