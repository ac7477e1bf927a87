! The large-count (_c) forms in `use mpi_f08`: MPI_Send, MPI_Recv,
! MPI_Get_count, MPI_Bcast, MPI_Allreduce and MPI_Type_contiguous called
! with INTEGER(KIND=MPI_COUNT_KIND) counts resolve to the _c specifics
! and move what the INTEGER forms move; MPI_Buffer_detach with a count
! of that kind gives the attached size back; MPI_Type_get_extent_c keeps
! its own name; MPI_Status_set_elements with a count of that kind
! (MPI_Status_set_elements_c) sets 3e9 elements that MPI_Get_elements
! reads back in that kind and as MPI_UNDEFINED in an INTEGER.  Exits
! non-zero on any mismatch.
program large_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, i, ierr, n
  integer(kind=MPI_COUNT_KIND) :: cnt, got, lb, extent, sz
  integer :: sendbuf(10), recvbuf(10), sums(4), csums(4), bbuf(1024)
  type(MPI_Status) :: st
  type(MPI_Datatype) :: t

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  do i = 1, 10
    sendbuf(i) = rank * 100 + i
  end do
  cnt = 7
  recvbuf = -1
  if (rank == 0) then
    call MPI_Send(sendbuf, cnt, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Recv(recvbuf, 10_MPI_COUNT_KIND, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER, got)
    if (got /= 7) call fail('MPI_Get_count_c')
    call MPI_Get_count(st, MPI_INTEGER, n)
    if (n /= 7) call fail('MPI_Get_count')
    do i = 1, 7
      if (recvbuf(i) /= i) call fail('MPI_Recv_c data')
    end do
    if (recvbuf(8) /= -1) call fail('MPI_Recv_c wrote past the message')
  end if
  if (rank == 0) recvbuf(1:5) = 42
  call MPI_Bcast(recvbuf, 5_MPI_COUNT_KIND, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (any(recvbuf(1:5) /= 42)) call fail('MPI_Bcast_c')
  call MPI_Allreduce(sendbuf, sums, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(sendbuf, csums, 4_MPI_COUNT_KIND, MPI_INTEGER, MPI_SUM, &
      MPI_COMM_WORLD)
  if (any(sums /= csums)) call fail('MPI_Allreduce_c')
  if (sums(1) /= nprocs * (nprocs - 1) * 50 + nprocs) call fail('MPI_Allreduce sum')
  call MPI_Type_contiguous(3000000000_MPI_COUNT_KIND, MPI_BYTE, t)
  call MPI_Type_size(t, sz)
  if (sz /= 3000000000_MPI_COUNT_KIND) call fail('MPI_Type_size_c')
  call MPI_Type_get_extent_c(t, lb, extent)
  if (lb /= 0 .or. extent /= 3000000000_MPI_COUNT_KIND) call fail('MPI_Type_get_extent_c')
  call MPI_Type_free(t)
  call MPI_Status_set_elements(st, MPI_INTEGER, 3000000000_MPI_COUNT_KIND)
  call MPI_Get_elements(st, MPI_INTEGER, got)
  if (got /= 3000000000_MPI_COUNT_KIND) call fail('MPI_Status_set_elements_c')
  call MPI_Get_elements(st, MPI_INTEGER, n)
  if (n /= MPI_UNDEFINED) call fail('MPI_Get_elements of 3e9 elements')
  call MPI_Buffer_attach(bbuf, 4096_MPI_COUNT_KIND)
  sz = -1
  call MPI_Buffer_detach(bbuf, sz)
  if (sz /= 4096_MPI_COUNT_KIND) call fail('MPI_Buffer_detach_c size')
  call MPI_Finalize()
contains
  subroutine fail(what)
    character(len=*) :: what
    print *, 'FAIL rank', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
