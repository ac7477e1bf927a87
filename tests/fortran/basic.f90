! `use mpi`: the same checks as basic.f, plus strings, LOGICALs, the
! MPI_TAG_UB attribute, a datatype attribute copied by MPI_TYPE_DUP_FN on
! MPI_Type_dup, Waitall with MPI_STATUSES_IGNORE, and MPI_Info_get, which
! pads what it found and leaves the value alone for a key it did not find;
! MPI_Sizeof of a scalar and an array against MPI_Type_size.
program basic
  use mpi
  implicit none
  integer, parameter :: maxn = 262144
  integer :: buf(maxn), status(MPI_STATUS_SIZE), reqs(2)
  integer :: ierr, rank, nprocs, n, i, peer, cnt, nbad, left, right
  integer :: sval, rval, sub, srank, ssize, v(2), rlen
  integer(kind=MPI_ADDRESS_KIND) :: tagub, aval, extra
  integer :: tkey, ttype, tdup, info
  logical :: flag
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  character(len=MPI_MAX_ERROR_STRING) :: estr
  character(len=16) :: ival
  integer :: sz, tsz
  double precision :: dv(4)
  logical :: lv

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nbad = 0
  n = 1
  do while (n <= maxn)
    if (rank < 2) then
      peer = 1 - rank
      if (rank == 0) then
        buf(1:n) = [(i * 3 - n, i = 1, n)]
        call MPI_Send(buf, n, MPI_INTEGER, peer, n, MPI_COMM_WORLD, ierr)
        call MPI_Recv(buf, n, MPI_INTEGER, peer, n, MPI_COMM_WORLD, status, ierr)
        call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
        if (cnt /= n .or. status(MPI_SOURCE) /= peer .or. status(MPI_TAG) /= n) nbad = nbad + 1
        do i = 1, n
          if (buf(i) /= i * 3 - n + 1) nbad = nbad + 1
        end do
      else
        call MPI_Recv(buf, n, MPI_INTEGER, peer, n, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        do i = 1, n
          if (buf(i) /= i * 3 - n) nbad = nbad + 1
        end do
        buf(1:n) = buf(1:n) + 1
        call MPI_Send(buf, n, MPI_INTEGER, peer, n, MPI_COMM_WORLD, ierr)
      end if
    end if
    n = n * 4
  end do
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  sval = 100 + rank
  call MPI_Sendrecv(sval, 1, MPI_INTEGER, right, 5, rval, 1, MPI_INTEGER, left, 5, &
                    MPI_COMM_WORLD, status, ierr)
  if (rval /= 100 + left .or. status(MPI_SOURCE) /= left) nbad = nbad + 1
  ! Nonblocking ring with Waitall and MPI_STATUSES_IGNORE.
  rval = -1
  call MPI_Irecv(rval, 1, MPI_INTEGER, left, 6, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sval, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (rval /= 100 + left .or. reqs(1) /= MPI_REQUEST_NULL) nbad = nbad + 1
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_rank(sub, srank, ierr)
  call MPI_Comm_size(sub, ssize, ierr)
  if (srank /= rank / 2) nbad = nbad + 1
  v = [rank, 1]
  call MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INTEGER, MPI_SUM, sub, ierr)
  if (v(1) /= sum([(i, i = mod(rank, 2), nprocs - 1, 2)]) .or. v(2) /= ssize) nbad = nbad + 1
  ! Names: blank padding out, trailing blanks ignored in.
  call MPI_Comm_set_name(sub, 'half   ', ierr)
  cname = 'xxxxxxxx'
  call MPI_Comm_get_name(sub, cname, rlen, ierr)
  if (cname /= 'half' .or. rlen /= 4 .or. cname(5:5) /= ' ') nbad = nbad + 1
  call MPI_Comm_free(sub, ierr)
  if (sub /= MPI_COMM_NULL) nbad = nbad + 1
  call MPI_Get_processor_name(pname, rlen, ierr)
  if (rlen < 1 .or. len_trim(pname) /= rlen) nbad = nbad + 1
  call MPI_Error_string(MPI_ERR_TRUNCATE, estr, rlen, ierr)
  if (rlen < 1 .or. len_trim(estr) /= rlen) nbad = nbad + 1
  ! MPI_Aint_add and MPI_Aint_diff come with the module.
  aval = 4096
  if (MPI_Aint_add(aval, 24_MPI_ADDRESS_KIND) /= 4120 .or. &
      MPI_Aint_diff(aval, 96_MPI_ADDRESS_KIND) /= 4000) nbad = nbad + 1
  call MPI_Sizeof(dv, sz, ierr)
  call MPI_Type_size(MPI_DOUBLE_PRECISION, tsz, ierr)
  if (sz /= tsz .or. ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_Sizeof(lv, sz, ierr)
  call MPI_Type_size(MPI_LOGICAL, tsz, ierr)
  if (sz /= tsz) nbad = nbad + 1
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'colour', 'blue', ierr)
  ival = 'untouched'
  call MPI_Info_get(info, 'shape', len(ival), ival, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. flag .or. ival /= 'untouched') nbad = nbad + 1
  ival = 'xxxxxxxxxxxxxxxx'
  call MPI_Info_get(info, 'colour', len(ival), ival, flag, ierr)
  if (.not. flag .or. ival /= 'blue' .or. ival(5:5) /= ' ') nbad = nbad + 1
  call MPI_Info_free(info, ierr)
  call MPI_Initialized(flag, ierr)
  if (.not. flag) nbad = nbad + 1
  call MPI_Finalized(flag, ierr)
  if (flag) nbad = nbad + 1
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
  if (.not. flag .or. tagub < 32767) nbad = nbad + 1
  extra = 0
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, ttype, ierr)
  aval = 1234567
  call MPI_Type_set_attr(ttype, tkey, aval, ierr)
  call MPI_Type_dup(ttype, tdup, ierr)
  aval = 0
  call MPI_Type_get_attr(tdup, tkey, aval, flag, ierr)
  if (.not. flag .or. aval /= 1234567) nbad = nbad + 1
  call MPI_Type_free(tdup, ierr)
  call MPI_Type_free(ttype, ierr)
  call MPI_Type_free_keyval(tkey, ierr)
  if (tkey /= MPI_KEYVAL_INVALID) nbad = nbad + 1
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'basic.f90 errors:', nbad
  call MPI_Finalize(ierr)
  if (nbad /= 0) stop 1
end program basic
