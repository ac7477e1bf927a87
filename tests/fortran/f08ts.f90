! MPICH's mpi_f08 calling convention, with our own interfaces: the choice
! buffer arrives at mpi_x_f08ts_ as gfortran's descriptor of an assumed-rank
! array (what a program built with MPICH's `use mpi_f08` passes), the other
! arguments as in mpif.h's binding.  Arrays of rank 0 to 2 and a contiguous
! section arrive whole; a strided section travels (as a datatype) into a
! strided section; a count past the section's end is refused with
! MPI_ERR_BUFFER, raised through the error handler of the communicator the
! call names (a user handler on a duplicate sees it once); MPI_IN_PLACE
! passes through.  Run on 2 or more ranks; exits non-zero on a
! mismatch.
! What the user error handler saw.
module f08ts_handler
  use mpi_f08, only: MPI_Comm
  implicit none
  type(MPI_Comm) :: dupc
  integer :: handler_calls, handler_class
  logical :: handler_on_dupc
contains
  subroutine count_errors(comm, error_code)
    use mpi_f08, only: MPI_Comm_compare, MPI_IDENT, MPI_Error_class
    type(MPI_Comm) :: comm
    integer :: error_code, res
    handler_calls = handler_calls + 1
    call MPI_Error_class(error_code, handler_class)
    call MPI_Comm_compare(comm, dupc, res)
    handler_on_dupc = res == MPI_IDENT
  end subroutine
end module f08ts_handler

program f08ts
  use f08ts_handler
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Op, MPI_Status, MPI_COMM_WORLD, &
       MPI_INTEGER, MPI_SUM, MPI_SUCCESS, MPI_ERR_BUFFER, MPI_IN_PLACE, &
       MPI_Init, MPI_Finalize, MPI_Comm_set_errhandler, MPI_ERRORS_RETURN, &
       MPI_Error_class, MPI_Get_count, MPI_Comm_dup, MPI_Comm_free, &
       MPI_Errhandler, MPI_Comm_create_errhandler, MPI_Errhandler_free
  implicit none
  interface
    subroutine mpi_send_f08ts(buf, count, datatype, dest, tag, comm, ierror)
      import
      type(*), dimension(..), intent(in) :: buf
      integer, intent(in) :: count, dest, tag
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine
    subroutine mpi_recv_f08ts(buf, count, datatype, source, tag, comm, status, ierror)
      import
      type(*), dimension(..) :: buf
      integer, intent(in) :: count, source, tag
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Comm), intent(in) :: comm
      type(MPI_Status) :: status
      integer, optional, intent(out) :: ierror
    end subroutine
    subroutine mpi_allreduce_f08ts(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      import
      type(*), dimension(..), intent(in) :: sendbuf
      type(*), dimension(..) :: recvbuf
      integer, intent(in) :: count
      type(MPI_Datatype), intent(in) :: datatype
      type(MPI_Op), intent(in) :: op
      type(MPI_Comm), intent(in) :: comm
      integer, optional, intent(out) :: ierror
    end subroutine
    subroutine mpi_comm_rank_f08(comm, rank, ierror)
      import
      type(MPI_Comm), intent(in) :: comm
      integer, intent(out) :: rank
      integer, optional, intent(out) :: ierror
    end subroutine
  end interface
  integer :: rank, nbad, ierr, cls, i, j, n, one
  integer :: a(4, 3), b(12), x(5)
  type(MPI_Status) :: st
  type(MPI_Errhandler) :: counting

  nbad = 0
  call MPI_Init()
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call mpi_comm_rank_f08(MPI_COMM_WORLD, rank)
  a = reshape([(i, i = 1, 12)], [4, 3])
  if (rank == 0) then
    call mpi_send_f08ts(a, 12, MPI_INTEGER, 1, 1, MPI_COMM_WORLD)
    call mpi_send_f08ts(a(2:4, 2), 3, MPI_INTEGER, 1, 2, MPI_COMM_WORLD)
    one = 42
    call mpi_send_f08ts(one, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
    ! a(1, :) is every fourth element: not one run, sent as a datatype.
    call mpi_send_f08ts(a(1, :), 3, MPI_INTEGER, 1, 4, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) nbad = nbad + 1
    ! Four items where the section has three: refused.
    call mpi_send_f08ts(a(1, :), 4, MPI_INTEGER, 1, 4, MPI_COMM_WORLD, ierr)
    call MPI_Error_class(ierr, cls)
    if (cls /= MPI_ERR_BUFFER) nbad = nbad + 1
  end if
  ! The same refusal on a duplicate with a user handler: the handler of the
  ! communicator the call names runs once, with the class ierror gets.
  call MPI_Comm_dup(MPI_COMM_WORLD, dupc)
  call MPI_Comm_create_errhandler(count_errors, counting)
  call MPI_Comm_set_errhandler(dupc, counting)
  handler_calls = 0
  handler_class = MPI_SUCCESS
  handler_on_dupc = .false.
  if (rank == 0) then
    call mpi_send_f08ts(a(2, :), 4, MPI_INTEGER, 1, 5, dupc, ierr)
    call MPI_Error_class(ierr, cls)
    if (cls /= MPI_ERR_BUFFER .or. handler_calls /= 1 .or. &
        handler_class /= MPI_ERR_BUFFER .or. .not. handler_on_dupc) then
      print *, 'f08ts: strided section on a duplicate: class ', cls, &
           ' handler calls ', handler_calls, ' class ', handler_class
      nbad = nbad + 1
    end if
  end if
  call MPI_Errhandler_free(counting)
  if (rank == 1) then
    b = 0
    call mpi_recv_f08ts(b, 12, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, st)
    if (any(b /= [(i, i = 1, 12)]) .or. st%MPI_SOURCE /= 0) nbad = nbad + 1
    b = 0
    call mpi_recv_f08ts(b(5:7), 3, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, n)
    if (ierr /= MPI_SUCCESS .or. n /= 3 .or. any(b(5:7) /= [6, 7, 8])) nbad = nbad + 1
    if (any(b(1:4) /= 0) .or. any(b(8:) /= 0)) nbad = nbad + 1
    call mpi_recv_f08ts(one, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, st)
    if (one /= 42) nbad = nbad + 1
    ! Into every other element of b: b(2), b(4), b(6) get a(1, :).
    b = 0
    call mpi_recv_f08ts(b(2:6:2), 3, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, n)
    if (ierr /= MPI_SUCCESS .or. n /= 3 .or. any(b(2:6:2) /= [1, 5, 9]) .or. &
        any(b(1:7:2) /= 0)) then
      print *, 'f08ts: strided receive: ', b, ' count ', n
      nbad = nbad + 1
    end if
  end if
  ! MPI_IN_PLACE through a descriptor: every rank adds its rank + j.
  x = [(rank + j, j = 1, 5)]
  call mpi_allreduce_f08ts(MPI_IN_PLACE, x, 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call mpi_comm_size_check(x, nbad)
  call MPI_Comm_free(dupc)
  call MPI_Finalize()
  if (nbad /= 0) then
    print *, 'f08ts: rank ', rank, ': ', nbad, ' checks failed'
    stop 1
  end if
contains
  subroutine mpi_comm_size_check(x, nbad)
    use mpi_f08, only: MPI_Comm_size
    integer :: x(5), nbad, p, k
    call MPI_Comm_size(MPI_COMM_WORLD, p)
    do k = 1, 5
      if (x(k) /= p * (p - 1) / 2 + p * k) nbad = nbad + 1
    end do
  end subroutine
end program f08ts
