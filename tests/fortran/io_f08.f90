! MPI-IO through `use mpi_f08`: TYPE(MPI_File), the individual file pointer
! (write_all, seek, get_position, read_all) and MPI_File_get_amode; with
! counts of MPI_COUNT_KIND the generic names resolve to the _c forms
! (write_at, read_at_all, get_count of the status).
program io_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 64
  integer :: buf(n), got(n), rank, nprocs, i, nbad, amode
  type(MPI_File) :: fh
  type(MPI_Status) :: status
  integer(kind=MPI_OFFSET_KIND) :: pos
  integer(kind=MPI_COUNT_KIND) :: cn, ccnt

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  nbad = 0
  call MPI_File_open(MPI_COMM_WORLD, 'hcmpi_fortran_io_f08.dat', &
       MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh)
  call MPI_File_get_amode(fh, amode)
  if (amode /= MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE) nbad = nbad + 1
  call MPI_File_set_view(fh, int(rank, MPI_OFFSET_KIND) * n * 4, MPI_INTEGER, &
       MPI_INTEGER, 'native', MPI_INFO_NULL)
  buf = [(rank * 100 + i, i = 1, n)]
  call MPI_File_write_all(fh, buf, n, MPI_INTEGER, status)
  call MPI_File_get_position(fh, pos)
  if (pos /= n) nbad = nbad + 1
  call MPI_File_seek(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET)
  call MPI_File_read_all(fh, got, n, MPI_INTEGER, status)
  if (any(got /= buf)) nbad = nbad + 1
  ! The same through the large-count forms, at the second half.
  cn = n
  buf = [(rank * 100 + 5000 + i, i = 1, n)]
  call MPI_File_write_at(fh, int(n, MPI_OFFSET_KIND) * nprocs, buf, cn, MPI_INTEGER, status)
  call MPI_Get_count(status, MPI_INTEGER, ccnt)
  if (ccnt /= cn) nbad = nbad + 1
  got = 0
  call MPI_File_read_at_all(fh, int(n, MPI_OFFSET_KIND) * nprocs, got, cn, MPI_INTEGER, status)
  if (any(got /= buf)) nbad = nbad + 1
  call MPI_File_close(fh)
  if (nbad /= 0) then
    print *, 'io_f08.f90: rank', rank, nbad, 'mismatches'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  if (rank == 0) print *, 'io_f08.f90: ok'
  call MPI_Finalize()
end program io_f08
