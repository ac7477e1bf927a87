! What `use mpi_f08` gives beyond the calls: procedures written to the
! standard's callback prototypes (a user op as MPI_User_function, with
! TYPE(C_PTR), VALUE buffers; an error handler as
! MPI_Comm_errhandler_function), the predefined MPI_COMM_DUP_FN /
! MPI_COMM_NULL_COPY_FN / MPI_COMM_NULL_DELETE_FN as actual arguments,
! == and /= on every handle type (MPI_Errhandler, MPI_Message, MPI_Win,
! MPI_File, MPI_Session among them), and the PMPI_ names of the profiling
! interface.  Each check counts a mismatch; the program exits non-zero on any.
module callbacks_f08_procs
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: handler_calls = 0, handler_code = 0
contains
  ! inoutvec(i) = 10 * inoutvec(i) + invec(i): not commutative, so the
  ! order the op is applied in shows in the result.
  subroutine shift_add(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = 10 * b + a
  end subroutine
  subroutine count_errors(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    if (comm == MPI_COMM_WORLD) handler_calls = handler_calls + 1
    handler_code = error_code
  end subroutine
end module callbacks_f08_procs

program callbacks_f08
  use mpi_f08
  use callbacks_f08_procs
  implicit none
  procedure(MPI_User_function), pointer :: op_fn
  type(MPI_Op) :: op
  type(MPI_Comm) :: dup1, dup2
  type(MPI_Errhandler) :: eh, cur
  type(MPI_Message) :: msg
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  integer :: rank, nprocs, nbad, i, expect, got, keep, drop, val
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra
  logical :: flag
  double precision :: t

  call MPI_Init()
  call PMPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  nbad = 0

  ! A user op through a procedure pointer of the abstract interface.
  op_fn => shift_add
  call MPI_Op_create(op_fn, .false., op)
  call MPI_Reduce(rank + 1, got, 1, MPI_INTEGER, op, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    ! Ranks in order, x_r = r + 1: the sum of 10**r * (r + 1).
    expect = 0
    do i = nprocs, 1, -1
      expect = 10 * expect + i
    end do
    if (got /= expect) then
      print *, 'user op: got', got, 'want', expect
      nbad = nbad + 1
    end if
  end if
  call MPI_Op_free(op)
  if (op /= MPI_OP_NULL) nbad = nbad + 1

  ! The predefined copy and delete callbacks: DUP_FN copies the attribute
  ! into a duplicate, NULL_COPY_FN does not.
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keep, extra)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, drop, extra)
  aval = 4242
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keep, aval)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, drop, aval)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup1)
  aval = 0
  call MPI_Comm_get_attr(dup1, keep, aval, flag)
  if (.not. flag .or. aval /= 4242) nbad = nbad + 1
  call MPI_Comm_get_attr(dup1, drop, aval, flag)
  if (flag) nbad = nbad + 1
  call MPI_Comm_dup(dup1, dup2)
  if (dup2 == dup1 .or. dup2 == MPI_COMM_NULL) nbad = nbad + 1
  call MPI_Comm_free(dup2)
  call MPI_Comm_free(dup1)
  if (dup1 /= MPI_COMM_NULL) nbad = nbad + 1
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keep)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, drop)
  call MPI_Comm_free_keyval(keep)
  call MPI_Comm_free_keyval(drop)

  ! Error handlers: comparison and a handler of the standard's prototype.
  call MPI_Comm_get_errhandler(MPI_COMM_WORLD, cur)
  if (cur /= MPI_ERRORS_ARE_FATAL) nbad = nbad + 1
  call MPI_Errhandler_free(cur)
  call MPI_Comm_create_errhandler(count_errors, eh)
  if (eh == MPI_ERRHANDLER_NULL .or. eh == MPI_ERRORS_RETURN) nbad = nbad + 1
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
  call MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER)
  if (handler_calls /= 1 .or. handler_code /= MPI_ERR_OTHER) nbad = nbad + 1
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  call MPI_Errhandler_free(eh)
  if (eh /= MPI_ERRHANDLER_NULL) nbad = nbad + 1

  ! A matched message: not null until it is received.
  call MPI_Isend(rank, 1, MPI_INTEGER, 0, 7, MPI_COMM_SELF, req)
  call MPI_Mprobe(0, 7, MPI_COMM_SELF, msg, status)
  if (msg == MPI_MESSAGE_NULL) nbad = nbad + 1
  call MPI_Mrecv(val, 1, MPI_INTEGER, msg, status)
  if (msg /= MPI_MESSAGE_NULL .or. val /= rank) nbad = nbad + 1
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (req /= MPI_REQUEST_NULL) nbad = nbad + 1

  ! Windows and files compare against their null handles.
  call MPI_Win_create(val, 4_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  if (win == MPI_WIN_NULL) nbad = nbad + 1
  call MPI_Win_free(win)
  if (win /= MPI_WIN_NULL) nbad = nbad + 1
  fh = MPI_FILE_NULL
  if (fh /= MPI_FILE_NULL) nbad = nbad + 1

  ! The profiling names resolve to the same bindings.
  t = PMPI_Wtime()
  if (t < 0.0d0 .or. PMPI_Wtick() <= 0.0d0) nbad = nbad + 1
  call PMPI_Comm_size(MPI_COMM_WORLD, i)
  if (i /= nprocs) nbad = nbad + 1

  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print *, 'callbacks_f08.f90 errors:', nbad
  call MPI_Finalize()
  if (nbad /= 0) stop 1
end program callbacks_f08
