! `use mpi`: generalized requests with Fortran callbacks (MPI_Grequest_start
! and MPICH's MPIX_Grequest_start / class_create / class_allocate, whose
! poll and wait procedures complete the requests), MPICH's GPU queries,
! MPIX_Delete_error_* and MPI_F_sync_reg.  Each rank checks the status its
! query procedure filled in, that each procedure ran as often as it should,
! with the extra_state given (by reference: what a procedure stores there
! the caller sees, as with MPICH and Open MPI), and exits non-zero on a
! mismatch.
module greq_state
  use mpi
  implicit none
  integer :: nquery = 0, nfree = 0, ncancel = 0, npoll = 0, nwait = 0
  logical :: cancel_saw_complete = .true.
  integer(kind=MPI_ADDRESS_KIND) :: freed_extra = -1
  integer :: reqs(4)
contains
  subroutine query_fn(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: status(MPI_STATUS_SIZE), ierror
    nquery = nquery + 1
    status(MPI_SOURCE) = int(extra_state)
    status(MPI_TAG) = 77
    call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierror)
    call MPI_Status_set_cancelled(status, .false., ierror)
    ierror = MPI_SUCCESS
  end subroutine

  subroutine free_fn(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    nfree = nfree + 1
    freed_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine

  subroutine cancel_fn(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ncancel = ncancel + 1
    cancel_saw_complete = complete
    ierror = MPI_SUCCESS
  end subroutine

  ! Takes one from the caller's extra_state variable.
  subroutine free_dec_fn(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    nfree = nfree + 1
    extra_state = extra_state - 1
    ierror = MPI_SUCCESS
  end subroutine

  ! Completes request 1 on its third poll, never request 2.
  subroutine poll_fn(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: status(MPI_STATUS_SIZE), ierror
    ierror = MPI_SUCCESS
    if (extra_state /= 1) return
    npoll = npoll + 1
    if (npoll == 3) call MPI_Grequest_complete(reqs(1), ierror)
  end subroutine

  subroutine wait_fn(count, states, timeout, status, ierror)
    integer :: count, ierror
    integer(kind=MPI_ADDRESS_KIND) :: states(*)
    double precision :: timeout
    integer :: status(MPI_STATUS_SIZE), i
    nwait = nwait + 1
    ierror = MPI_SUCCESS
    do i = 1, count
      call MPI_Grequest_complete(reqs(int(states(i))), ierror)
    end do
  end subroutine
end module greq_state

program greq
  use greq_state
  implicit none
  integer :: req, ierr, nbad, status(MPI_STATUS_SIZE), cnt, cls, i
  integer(kind=MPI_ADDRESS_KIND) :: counter
  integer :: cuda, hip, ze, ascend, eclass, ecode, slen
  logical :: flag, cuda_l
  double precision :: buf(4)
  character(len=MPI_MAX_ERROR_STRING) :: msg

  nbad = 0
  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  ! 1. Started, completed, waited: the query fills the status, free runs once.
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, 5_MPI_ADDRESS_KIND, req, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (status(MPI_SOURCE) /= 5 .or. status(MPI_TAG) /= 77 .or. cnt /= 3) nbad = nbad + 1
  if (nquery /= 1 .or. nfree /= 1 .or. freed_extra /= 5) nbad = nbad + 1
  if (req /= MPI_REQUEST_NULL) nbad = nbad + 1

  ! 2. Cancelled before completion: cancel_fn sees complete = .false.
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, 6_MPI_ADDRESS_KIND, req, ierr)
  call MPI_Cancel(req, ierr)
  if (ncancel /= 1 .or. cancel_saw_complete) nbad = nbad + 1
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  if (nfree /= 2 .or. freed_extra /= 6 .or. status(MPI_SOURCE) /= 6) nbad = nbad + 1

  ! 2b. The procedures get the caller's variable: free_dec_fn's store shows.
  counter = 1
  call MPI_Grequest_start(query_fn, free_dec_fn, cancel_fn, counter, req, ierr)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS .or. nfree /= 3 .or. counter /= 0) nbad = nbad + 1

  ! 3. A class; its poll procedure completes the request on the third Test.
  call MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, cls, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPIX_Grequest_class_allocate(cls, 1_MPI_ADDRESS_KIND, reqs(1), ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  req = reqs(1)
  flag = .false.
  do i = 1, 100
    call MPI_Test(req, flag, status, ierr)
    if (flag) exit
  end do
  if (.not. flag .or. npoll /= 3 .or. status(MPI_SOURCE) /= 1) nbad = nbad + 1
  if (nfree /= 4 .or. freed_extra /= 1) nbad = nbad + 1

  ! 4. MPIX_Grequest_start: the blocking wait hands it to wait_fn.
  call MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, &
       2_MPI_ADDRESS_KIND, reqs(2), ierr)
  req = reqs(2)
  call MPI_Wait(req, status, ierr)
  if (ierr /= MPI_SUCCESS .or. nwait /= 1 .or. status(MPI_SOURCE) /= 2) nbad = nbad + 1
  if (nfree /= 5 .or. freed_extra /= 2) nbad = nbad + 1

  ! 5. A handle that names no class is MPI_ERR_ARG.
  call MPIX_Grequest_class_allocate(cls + 12345, 3_MPI_ADDRESS_KIND, req, ierr)
  call MPI_Error_class(ierr, eclass, ierr)
  if (eclass /= MPI_ERR_ARG) nbad = nbad + 1

  ! 6. MPICH's GPU queries: the answer in the one INTEGER; CUDA's agrees
  !    with MPIX_GPU_query_support; no HIP or Level Zero backend exists.
  call MPIX_Query_cuda_support(cuda)
  call MPIX_Query_hip_support(hip)
  call MPIX_Query_ze_support(ze)
  call MPIX_Query_ascend_support(ascend)
  call MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, cuda_l, ierr)
  if (ierr /= MPI_SUCCESS .or. (cuda == 1) .neqv. cuda_l) nbad = nbad + 1
  if (hip /= 0 .or. ze /= 0 .or. (ascend /= 0 .and. ascend /= 1)) nbad = nbad + 1

  ! 7. Error classes, codes and strings added and removed again.
  call MPI_Add_error_class(eclass, ierr)
  call MPI_Add_error_code(eclass, ecode, ierr)
  call MPI_Add_error_string(ecode, 'a code of this test', ierr)
  call MPI_Error_string(ecode, msg, slen, ierr)
  if (msg(1:slen) /= 'a code of this test') nbad = nbad + 1
  call MPIX_Delete_error_string(ecode, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPIX_Delete_error_code(ecode, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPIX_Delete_error_class(eclass, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1

  ! 8. MPI_F_sync_reg takes any buffer and has no IERROR.
  buf = 1.0d0
  call MPI_F_sync_reg(buf)
  if (any(buf /= 1.0d0)) nbad = nbad + 1

  call MPI_Finalize(ierr)
  if (nbad /= 0) then
    print *, 'greq: ', nbad, ' checks failed'
    stop 1
  end if
end program greq
