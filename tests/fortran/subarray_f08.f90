! Array sections as buffers of `use mpi_f08` (MPI_SUBARRAYS_SUPPORTED):
! strided, two-dimensional and reversed sections sent and received by
! blocking and nonblocking point-to-point calls, a count shorter than the
! section, persistent and partitioned requests, Sendrecv, Bcast, Allreduce
! (alike and unlike shapes, in place), Gather and Alltoall with one block
! per rank in a section, Gatherv and Igatherv into a row and a 2-d section,
! Ireduce_scatter_block, Pack, a datatype with holes, one-sided Put and
! Get, a file written and read back, and the large-count form.  Each check
! compares every element, including those the section skips, which must
! stay untouched.  What no datatype can describe in a nonblocking call, and
! a count past a section's end, fail with MPI_ERR_BUFFER.  Runs on 2 or
! more ranks; exits non-zero on a mismatch.
program subarray_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, nbad, ierr, cls, i, j, n, k, pos
  ! ASYNCHRONOUS: nonblocking and persistent calls change them behind the
  ! compiler's back (MPI-4.0 19.1.17).
  integer, asynchronous :: a(9, 9), b(9, 9), v(20), w(20)
  integer, allocatable, asynchronous :: g(:, :), t(:, :), gv(:, :)
  real(8), asynchronous :: d(6), e(6)
  character :: packed(64)
  type(MPI_Status) :: st
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Datatype) :: holes
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  integer(kind=MPI_ADDRESS_KIND) :: winsize

  nbad = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  if (.not. MPI_SUBARRAYS_SUPPORTED) call fail('MPI_SUBARRAYS_SUPPORTED')
  call fill(a)

  ! ---- point to point, rank 0 to rank 1 ----
  if (rank == 0) then
    call MPI_Send(a(:, 2:6:2), 27, MPI_INTEGER, 1, 1, MPI_COMM_WORLD)
    call MPI_Send(a(1:7:3, 2:6:2), 9, MPI_INTEGER, 1, 2, MPI_COMM_WORLD)
    call MPI_Send(a(9:1:-2, 3), 5, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
    call MPI_Isend(a(4, :), 9, MPI_INTEGER, 1, 4, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    ! Four of the row's nine elements.
    call MPI_Send(a(5, :), 4, MPI_INTEGER, 1, 5, MPI_COMM_WORLD)
    call MPI_Send(a(6, 1:9:4), 3_MPI_COUNT_KIND, MPI_INTEGER, 1, 6, MPI_COMM_WORLD)
    ! Real(8) elements sent as bytes.
    d = [(1.5d0 * i, i = 1, 6)]
    call MPI_Send(d(1:6:2), 24, MPI_BYTE, 1, 7, MPI_COMM_WORLD)
  else if (rank == 1) then
    b = 0
    call MPI_Recv(b(:, 2:6:2), 27, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, st)
    call expect_count(st, 27, 'Recv 2-d')
    call expect_only(b, a, mask_cols([2, 4, 6]), 'Recv a(:, 2:6:2)')
    b = 0
    call MPI_Recv(b(1:7:3, 2:6:2), 9, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, st)
    call expect_only(b, a, mask_rc([1, 4, 7], [2, 4, 6]), 'Recv a(1:7:3, 2:6:2)')
    b = 0
    call MPI_Recv(b(9:1:-2, 3), 5, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, st)
    call expect_only(b, a, mask_rc([1, 3, 5, 7, 9], [3]), 'Recv reversed')
    b = 0
    call MPI_Irecv(b(4, :), 9, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, req)
    call MPI_Wait(req, st)
    call expect_count(st, 9, 'Irecv row')
    call expect_only(b, a, mask_rc([4], [(j, j = 1, 9)]), 'Irecv a(4, :)')
    b = 0
    ! Room for nine, four arrive.
    call MPI_Recv(b(5, :), 9, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, st)
    call expect_count(st, 4, 'Recv short')
    call expect_only(b, a, mask_rc([5], [1, 2, 3, 4]), 'Recv 4 of a(5, :)')
    b = 0
    call MPI_Recv(b(6, 1:9:4), 3_MPI_COUNT_KIND, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, st)
    call expect_only(b, a, mask_rc([6], [1, 5, 9]), 'Recv large count a(6, 1:9:4)')
    e = 0
    call MPI_Recv(e(2:6:2), 24, MPI_BYTE, 0, 7, MPI_COMM_WORLD, st)
    if (any(e /= [0d0, 1.5d0, 0d0, 4.5d0, 0d0, 7.5d0])) call fail('Recv bytes into real(8)')
  end if

  ! Both ways at once: Sendrecv and a nonblocking pair on sections.
  if (rank < 2) then
    b = 0
    call MPI_Sendrecv(a(2, :), 9, MPI_INTEGER, 1 - rank, 8, b(:, 7), 9, MPI_INTEGER, &
         1 - rank, 8, MPI_COMM_WORLD, st)
    if (any(b(:, 7) /= a(2, :)) .or. count(b /= 0) /= 9) call fail('Sendrecv')
    b = 0
    call MPI_Irecv(b(2:8:3, 1:9:4), 9, MPI_INTEGER, 1 - rank, 9, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(a(1:3, 7:9), 9, MPI_INTEGER, 1 - rank, 9, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    if (any(b(2:8:3, 1:9:4) /= a(1:3, 7:9)) .or. count(b /= 0) /= 9) &
         call fail('Isend/Irecv 2-d both ways')
  end if

  ! Persistent requests started twice, the data changed in between.
  if (rank < 2) then
    call MPI_Send_init(a(1:9:4, 2:3), 6, MPI_INTEGER, 1 - rank, 12, MPI_COMM_WORLD, reqs(1))
    call MPI_Recv_init(b(3, 1:6), 6, MPI_INTEGER, 1 - rank, 12, MPI_COMM_WORLD, reqs(2))
    do k = 1, 2
      b = 0
      call MPI_Startall(2, reqs)
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
      if (any(b(3, 1:6) /= reshape(a(1:9:4, 2:3), [6])) .or. count(b /= 0) /= 6) &
           call fail('Send_init/Recv_init')
      a(1:9:4, 2:3) = a(1:9:4, 2:3) + 1000
    end do
    call MPI_Request_free(reqs(1))
    call MPI_Request_free(reqs(2))
    call fill(a)
  end if

  ! Partitioned: a row of a in three partitions into a row of b.
  if (rank < 2) then
    b = 0
    if (rank == 0) then
      call MPI_Psend_init(a(7, :), 3, 3_MPI_COUNT_KIND, MPI_INTEGER, 1, 13, MPI_COMM_WORLD, &
           MPI_INFO_NULL, req)
    else
      call MPI_Precv_init(b(8, :), 3, 3_MPI_COUNT_KIND, MPI_INTEGER, 0, 13, MPI_COMM_WORLD, &
           MPI_INFO_NULL, req)
    end if
    call MPI_Start(req)
    if (rank == 0) then
      do k = 2, 0, -1
        call MPI_Pready(k, req)
      end do
    end if
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_Request_free(req)
    if (rank == 1 .and. (any(b(8, :) /= a(7, :)) .or. count(b /= 0) /= 9)) &
         call fail('Psend_init/Precv_init rows')
  end if

  ! Nothing to move: a count of 0 on sections, nonblocking, to itself.
  call MPI_Irecv(b(2, :), 0, MPI_INTEGER, rank, 14, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a(3, 1:9:2), 0, MPI_INTEGER, rank, 14, MPI_COMM_WORLD, reqs(2), ierr)
  if (ierr /= MPI_SUCCESS) call fail('Isend of 0 items from a section')
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)

  ! ---- collectives ----
  b = 0
  if (rank == 0) b(2:8:2, 3:5) = a(2:8:2, 3:5)
  call MPI_Bcast(b(2:8:2, 3:5), 12, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call expect_only(b, a, mask_rc([2, 4, 6, 8], [3, 4, 5]), 'Bcast')

  ! Alike shapes: one datatype for both; unlike: a copy (blocking only).
  v = [(rank * 100 + i, i = 1, 20)]
  w = -1
  call MPI_Allreduce(v(1:20:2), w(1:20:2), 10, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do i = 1, 20
    if (mod(i, 2) == 1 .and. w(i) /= sum_over_ranks(i)) call fail('Allreduce alike')
    if (mod(i, 2) == 0 .and. w(i) /= -1) call fail('Allreduce alike: gap written')
  end do
  w = -1
  call MPI_Allreduce(v(1:20:4), w(11:15), 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (any(w(11:15) /= [(sum_over_ranks(i), i = 1, 20, 4)]) .or. count(w /= -1) /= 5) &
       call fail('Allreduce unlike')
  w = [(rank * 100 + i, i = 1, 20)]
  call MPI_Iallreduce(MPI_IN_PLACE, w(20:1:-3), 7, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  do i = 1, 20
    if (mod(20 - i, 3) == 0) then
      if (w(i) /= (nranks - 1) * 100 + i) call fail('Iallreduce in place')
    else if (w(i) /= rank * 100 + i) then
      call fail('Iallreduce in place: gap written')
    end if
  end do
  ! Unlike shapes in a nonblocking call: refused before anything starts.
  call MPI_Iallreduce(v(1:20:4), w(11:15), 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_BUFFER) call fail('Iallreduce unlike: not MPI_ERR_BUFFER')

  ! One block per rank: rank r's row 2:4 lands in column r+1 of rows 1:5:2.
  allocate(g(6, nranks + 1), t(9, nranks))
  v(1:9) = [(rank * 10 + i, i = 1, 9)]
  do k = 1, 2
    g = -1
    if (k == 1) then
      call MPI_Gather(v(2:4), 3, MPI_INTEGER, g(1:5:2, 1:nranks), 3, MPI_INTEGER, 0, &
           MPI_COMM_WORLD)
    else
      call MPI_Igather(v(2:4), 3, MPI_INTEGER, g(1:5:2, 1:nranks), 3, MPI_INTEGER, 0, &
           MPI_COMM_WORLD, req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
    end if
    if (rank == 0) then
      do j = 1, nranks
        if (any(g(1:5:2, j) /= [((j - 1) * 10 + i, i = 2, 4)]) .or. any(g(2:6:2, j) /= -1)) &
             call fail('Gather into sections')
      end do
      if (any(g(:, nranks + 1) /= -1)) call fail('Gather: past the blocks')
    end if
  end do
  ! Alltoall: column j of t gets from rank j-1 the element it sent to us.
  g = -1
  do j = 1, nranks
    g(2, j) = rank * 1000 + j
    g(5, j) = rank * 1000 + 100 + j
  end do
  t = 0
  call MPI_Alltoall(g(2:5:3, 1:nranks), 2, MPI_INTEGER, t(1:9:8, :), 2, MPI_INTEGER, &
       MPI_COMM_WORLD)
  do j = 1, nranks
    if (t(1, j) /= (j - 1) * 1000 + rank + 1 .or. t(9, j) /= (j - 1) * 1000 + 100 + rank + 1 &
         .or. any(t(2:8, j) /= 0)) call fail('Alltoall sections')
  end do

  ! Counts in arrays: a row of gv (equally spaced) passes as a resized
  ! datatype, blocking or not; gv(2:3, :) is not equally spaced, so the
  ! blocking call copies and the nonblocking one refuses (on every rank:
  ! the receive buffer is a section everywhere).
  allocate(gv(3, nranks * (nranks + 1) / 2))
  gv = 0
  call MPI_Gatherv(v(1:rank + 1), rank + 1, MPI_INTEGER, gv(2, :), [(i, i = 1, nranks)], &
       [(i * (i - 1) / 2, i = 1, nranks)], MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    pos = 1
    do j = 1, nranks
      do i = 1, j
        if (gv(2, pos) /= (j - 1) * 10 + i) call fail('Gatherv into a row')
        pos = pos + 1
      end do
    end do
    if (any(gv(1, :) /= 0) .or. any(gv(3, :) /= 0)) call fail('Gatherv: gaps written')
  end if
  gv = 0
  call MPI_Igatherv(v(1:1), 1, MPI_INTEGER, gv(2, :), [(1, i = 1, nranks)], &
       [(2 * (i - 1), i = 1, nranks)], MPI_INTEGER, 0, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (rank == 0) then
    do j = 1, nranks
      if (gv(2, 2 * j - 1) /= (j - 1) * 10 + 1) call fail('Igatherv into a row')
    end do
    if (count(gv /= 0) /= nranks) call fail('Igatherv: gaps written')
  end if
  gv = 0
  call MPI_Gatherv(v(1:2), 2, MPI_INTEGER, gv(2:3, :), [(2, i = 1, nranks)], &
       [(2 * (i - 1), i = 1, nranks)], MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    do j = 1, nranks
      if (gv(2, j) /= (j - 1) * 10 + 1 .or. gv(3, j) /= (j - 1) * 10 + 2) &
           call fail('Gatherv into a 2-d section')
    end do
    if (count(gv /= 0) /= 2 * nranks) call fail('Gatherv 2-d: gaps written')
  end if
  call MPI_Igatherv(v(1:2), 2, MPI_INTEGER, gv(2:3, :), [(2, i = 1, nranks)], &
       [(2 * (i - 1), i = 1, nranks)], MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_BUFFER) call fail('Igatherv 2-d: not MPI_ERR_BUFFER')

  ! Reduce_scatter_block, nonblocking, both buffers every other element:
  ! rank r gets the sums of items 2r+1 and 2r+2.
  v = [(rank * 100 + i, i = 1, 20)]
  w = -1
  if (2 * nranks <= 10) then
    call MPI_Ireduce_scatter_block(v(1:4 * nranks:2), w(1:4:2), 2, MPI_INTEGER, MPI_SUM, &
         MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    if (w(1) /= sum_over_ranks(4 * rank + 1) .or. w(3) /= sum_over_ranks(4 * rank + 3) &
         .or. count(w /= -1) /= 2) call fail('Ireduce_scatter_block')
  end if

  ! ---- datatypes, Pack ----
  ! A type with holes (every other integer) over a section: a blocking call
  ! copies, a nonblocking one refuses.
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, holes)
  call MPI_Type_commit(holes)
  if (rank < 2) then
    w = 0
    call MPI_Sendrecv(a(1:9:2, 1), 1, holes, 1 - rank, 10, w(1:20:4), 1, holes, 1 - rank, &
         10, MPI_COMM_WORLD, st)
    ! Items 1, 3, 5 of the sections: a(1,1), a(5,1), a(9,1) into w(1), w(9), w(17).
    if (w(1) /= a(1, 1) .or. w(9) /= a(5, 1) .or. w(17) /= a(9, 1) .or. count(w /= 0) /= 3) &
         call fail('Sendrecv with holes')
    call MPI_Isend(a(1:9:2, 1), 1, holes, 1 - rank, 11, MPI_COMM_WORLD, req, ierr)
    call MPI_Error_class(ierr, cls)
    if (cls /= MPI_ERR_BUFFER) call fail('Isend with holes: not MPI_ERR_BUFFER')
  end if
  call MPI_Type_free(holes)
  pos = 0
  call MPI_Pack(a(3, 2:8:3), 3, MPI_INTEGER, packed, size(packed), pos, MPI_COMM_WORLD)
  w = 0
  n = 0
  call MPI_Unpack(packed, size(packed), n, w(20:16:-2), 3, MPI_INTEGER, MPI_COMM_WORLD)
  if (pos /= 12 .or. n /= 12 .or. any(w(20:16:-2) /= a(3, 2:8:3)) .or. count(w /= 0) /= 3) &
       call fail('Pack/Unpack')

  ! A count past the section's end.
  call MPI_Bcast(b(1:9:2, 1), 6, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_BUFFER) call fail('Bcast past the end: not MPI_ERR_BUFFER')

  ! ---- one-sided: the window is b; rank 0 puts a section, gets one ----
  b = 0
  winsize = 81 * 4
  call MPI_Win_create(b, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  if (rank == 0) then
    call MPI_Put(a(2:9:3, 5), 3, MPI_INTEGER, 1, 10_MPI_ADDRESS_KIND, 3, MPI_INTEGER, win)
  end if
  call MPI_Win_fence(0, win)
  if (rank == 1) then
    if (any(b(2:4, 2) /= a(2:9:3, 5)) .or. count(b /= 0) /= 3) call fail('Put from a section')
    b(:, 9) = [(900 + i, i = 1, 9)]
  end if
  call MPI_Win_fence(0, win)
  w = 0
  if (rank == 0) then
    call MPI_Get(w(18:2:-4), 5, MPI_INTEGER, 1, 72_MPI_ADDRESS_KIND, 5, MPI_INTEGER, win)
  end if
  call MPI_Win_fence(0, win)
  if (rank == 0) then
    if (any(w(18:2:-4) /= [(900 + i, i = 1, 5)]) .or. count(w /= 0) /= 5) &
         call fail('Get into a section')
  end if
  call MPI_Win_free(win)

  ! ---- a file: each rank writes a strided row at its own offset ----
  call MPI_File_open(MPI_COMM_WORLD, 'subarray_f08.dat', ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
       MPI_INFO_NULL, fh)
  call MPI_File_write_at(fh, int(rank * 20, MPI_OFFSET_KIND), a(rank + 1, 1:9:2), 5, &
       MPI_INTEGER, st)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  w = 0
  call MPI_File_iread_at(fh, int(rank * 20, MPI_OFFSET_KIND), w(2:10:2), 5, MPI_INTEGER, req)
  call MPI_Wait(req, st)
  if (any(w(2:10:2) /= a(rank + 1, 1:9:2)) .or. count(w /= 0) /= 5) call fail('File row')
  call MPI_File_close(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call MPI_File_delete('subarray_f08.dat', MPI_INFO_NULL)

  call MPI_Finalize()
  if (nbad /= 0) then
    print *, 'subarray_f08: rank ', rank, ': ', nbad, ' checks failed'
    stop 1
  end if

contains
  subroutine fill(x)
    integer :: x(9, 9), p, q
    do q = 1, 9
      do p = 1, 9
        x(p, q) = p * 10 + q
      end do
    end do
  end subroutine

  subroutine fail(what)
    character(len=*) :: what
    print *, 'subarray_f08: rank ', rank, ': ', what
    nbad = nbad + 1
  end subroutine

  integer function sum_over_ranks(i)
    integer :: i
    sum_over_ranks = 100 * nranks * (nranks - 1) / 2 + nranks * i
  end function

  subroutine expect_count(s, want, what)
    type(MPI_Status) :: s
    integer :: want, got
    character(len=*) :: what
    call MPI_Get_count(s, MPI_INTEGER, got)
    if (got /= want) call fail(what // ': count')
  end subroutine

  ! x equals ref where mask is set and is 0 elsewhere.
  subroutine expect_only(x, ref, mask, what)
    integer :: x(9, 9), ref(9, 9)
    logical :: mask(9, 9)
    character(len=*) :: what
    if (any(mask .and. x /= ref) .or. any(.not. mask .and. x /= 0)) call fail(what)
  end subroutine

  function mask_cols(cols) result(m)
    integer :: cols(:)
    logical :: m(9, 9)
    m = .false.
    m(:, cols) = .true.
  end function

  function mask_rc(rows, cols) result(m)
    integer :: rows(:), cols(:)
    logical :: m(9, 9)
    m = .false.
    m(rows, cols) = .true.
  end function
end program subarray_f08
