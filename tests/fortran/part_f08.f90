! `use mpi_f08`: partitioned point-to-point on a ring (4 send partitions,
! 2 receive partitions, two rounds, MPI_Pready_range and MPI_Pready,
! MPI_Parrived), and MPI_Type_create_f90_integer / _real: sizes of the
! kinds and the same handle twice.  Exits 1 on any mismatch.
program part_f08
  use mpi_f08
  implicit none
  integer, parameter :: per = 8, parts = 4
  integer :: sbuf(per * parts), rbuf(per * parts)
  type(MPI_Request) :: reqs(2)
  type(MPI_Datatype) :: t1, t2
  integer :: rank, nprocs, nextr, prevr, i, round, nbad, sz
  integer(kind=MPI_COUNT_KIND) :: cnt
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  nextr = mod(rank + 1, nprocs)
  prevr = mod(rank + nprocs - 1, nprocs)
  nbad = 0
  cnt = per
  call MPI_Psend_init(sbuf, parts, cnt, MPI_INTEGER, nextr, 3, MPI_COMM_WORLD, &
                      MPI_INFO_NULL, reqs(1))
  cnt = 2 * per
  call MPI_Precv_init(rbuf, parts / 2, cnt, MPI_INTEGER, prevr, 3, MPI_COMM_WORLD, &
                      MPI_INFO_NULL, reqs(2))
  do round = 1, 2
    sbuf = [(rank * 1000 + round * 100 + i, i = 1, per * parts)]
    rbuf = -1
    call MPI_Startall(2, reqs)
    call MPI_Pready_range(2, 3, reqs(1))
    call MPI_Pready(1, reqs(1))
    call MPI_Pready(0, reqs(1))
    flag = .false.
    do while (.not. flag)
      call MPI_Parrived(reqs(2), 1, flag)
    end do
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    do i = 1, per * parts
      if (rbuf(i) /= prevr * 1000 + round * 100 + i) nbad = nbad + 1
    end do
  end do
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))

  call MPI_Type_create_f90_integer(9, t1)
  call MPI_Type_create_f90_integer(9, t2)
  call MPI_Type_size(t1, sz)
  if (sz /= 4 .or. t1 /= t2) nbad = nbad + 1
  call MPI_Type_create_f90_real(15, MPI_UNDEFINED, t1)
  call MPI_Type_size(t1, sz)
  if (sz /= 8) nbad = nbad + 1

  if (nbad /= 0) then
    print *, 'rank', rank, ':', nbad, 'mismatches'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Finalize()
end program part_f08
