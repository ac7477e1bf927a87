! `use mpi_f08`: MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran,
! with blank-padded argument arrays each ended by a blank string (argument
! j of command i is array_of_argv(i, j)), MPI_ARGV_NULL, MPI_ARGVS_NULL
! and MPI_ERRCODES_IGNORE.  Each child checks the arguments it was started
! with (its first one says which spawn made it) and reports to the
! parents' rank 0, which checks every report and the error codes.
program spawn_f08
  use mpi_f08
  implicit none
  type(MPI_Comm) :: parent, inter
  type(MPI_Info) :: infos(2)
  integer :: rank, nbad, errs(3), maxprocs(2), nremote
  character(len=256) :: exe
  character(len=16) :: argv(3)
  character(len=64) :: cmds(2)
  character(len=16) :: argvs(2, 3)

  call MPI_Init()
  call MPI_Comm_get_parent(parent)
  if (parent /= MPI_COMM_NULL) then
    call child_report(parent)
    call MPI_Finalize()
    stop
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call get_command_argument(0, exe)
  nbad = 0

  ! 1. Two children, two arguments (the leading blank is not part of one).
  argv(1) = 'one'
  argv(2) = ' two words'
  argv(3) = ' '
  errs = -1
  call MPI_Comm_spawn(exe, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errs)
  if (any(errs(1:2) /= MPI_SUCCESS)) nbad = nbad + 1
  call collect(inter, 2, nbad)

  ! 2. Two commands: 'm1' with one more argument, 'm2' with none.
  cmds = exe
  argvs = ' '
  argvs(1, 1) = 'm1'
  argvs(1, 2) = 'x'
  argvs(2, 1) = 'm2'
  maxprocs = [1, 1]
  infos = MPI_INFO_NULL
  errs = -1
  call MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, &
       MPI_COMM_WORLD, inter, errs)
  if (any(errs(1:2) /= MPI_SUCCESS)) nbad = nbad + 1
  call collect(inter, 2, nbad)

  ! 3. No arguments, no error codes wanted.
  call MPI_Comm_spawn(exe, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &
       inter, MPI_ERRCODES_IGNORE)
  call collect(inter, 1, nbad)

  ! 4. Two commands without arguments (MPI_ARGVS_NULL).
  call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, &
       MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE)
  call collect(inter, 2, nbad)

  call MPI_Finalize()
  if (nbad /= 0) then
    print *, 'spawn_f08: rank ', rank, ': ', nbad, ' checks failed'
    stop 1
  end if

contains
  ! Rank 0 receives one verdict from each of n children (1: arguments as
  ! expected); every parent checks the remote group's size.
  subroutine collect(inter, n, nbad)
    type(MPI_Comm) :: inter
    integer :: n, nbad, i, ok
    call MPI_Comm_remote_size(inter, nremote)
    if (nremote /= n) nbad = nbad + 1
    if (rank == 0) then
      do i = 1, n
        call MPI_Recv(ok, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, inter, MPI_STATUS_IGNORE)
        if (ok /= 1) nbad = nbad + 1
      end do
    end if
    call MPI_Comm_disconnect(inter)
  end subroutine

  subroutine child_report(parent)
    type(MPI_Comm) :: parent
    integer :: ok, nargs
    character(len=32) :: a1, a2
    nargs = command_argument_count()
    a1 = ' '
    a2 = ' '
    if (nargs >= 1) call get_command_argument(1, a1)
    if (nargs >= 2) call get_command_argument(2, a2)
    select case (trim(a1))
    case ('one')
      ok = merge(1, 0, nargs == 2 .and. a2 == 'two words')
    case ('m1')
      ok = merge(1, 0, nargs == 2 .and. a2 == 'x')
    case ('m2')
      ok = merge(1, 0, nargs == 1)
    case default
      ok = merge(1, 0, nargs == 0)
    end select
    call MPI_Send(ok, 1, MPI_INTEGER, 0, 5, parent)
    call MPI_Comm_disconnect(parent)
  end subroutine
end program spawn_f08
