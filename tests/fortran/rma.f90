! One-sided communication through `use mpi`: a window over an array,
! MPI_PUT to the right neighbour and MPI_ACCUMULATE onto rank 0 under
! fences, MPI_GET back under a lock, and the window's predefined
! attributes (size, displacement unit, flavor) and name.
program rma
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, win, right, left, i
  logical :: flag
  integer :: buf(4), vals(4), back(4), one
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp, attr
  character(len=MPI_MAX_OBJECT_NAME) :: wname
  integer :: nlen

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  buf = 0
  wsize = 16
  call MPI_WIN_CREATE(buf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  if (ierr /= MPI_SUCCESS) stop 1
  call MPI_WIN_GET_ATTR(win, MPI_WIN_SIZE, attr, flag, ierr)
  if (.not. flag .or. attr /= 16) stop 2
  call MPI_WIN_GET_ATTR(win, MPI_WIN_DISP_UNIT, attr, flag, ierr)
  if (.not. flag .or. attr /= 4) stop 4
  call MPI_WIN_GET_ATTR(win, MPI_WIN_CREATE_FLAVOR, attr, flag, ierr)
  if (attr /= MPI_WIN_FLAVOR_CREATE) stop 5
  call MPI_WIN_SET_NAME(win, 'ftn', ierr)
  call MPI_WIN_GET_NAME(win, wname, nlen, ierr)
  if (nlen /= 3 .or. wname(1:3) /= 'ftn') stop 6

  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  do i = 1, 4
    vals(i) = 100 * rank + i
  end do
  one = 1
  disp = 0
  call MPI_WIN_FENCE(0, win, ierr)
  call MPI_PUT(vals, 3, MPI_INTEGER, right, disp, 3, MPI_INTEGER, win, ierr)
  disp = 3
  call MPI_ACCUMULATE(one, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, &
                      win, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  do i = 1, 3
    if (buf(i) /= 100 * left + i) stop 7
  end do
  if (rank == 0 .and. buf(4) /= nprocs) stop 8

  disp = 0
  back = -1
  call MPI_WIN_LOCK(MPI_LOCK_SHARED, right, 0, win, ierr)
  call MPI_GET(back, 3, MPI_INTEGER, right, disp, 3, MPI_INTEGER, win, ierr)
  call MPI_WIN_UNLOCK(right, win, ierr)
  do i = 1, 3
    if (back(i) /= 100 * rank + i) stop 9
  end do
  call MPI_WIN_FREE(win, ierr)
  if (win /= MPI_WIN_NULL) stop 10
  if (rank == 0) print *, 'rma.f90: put, accumulate, get and attributes passed'
  call MPI_FINALIZE(ierr)
end program rma
