! MPI-IO through `use mpi`: every rank writes its block of integers with
! MPI_File_write_at_all at an offset of kind MPI_OFFSET_KIND, the file's
! size is checked, and each rank reads its neighbour's block back with
! MPI_File_read_at and a view.  A Fortran file error handler (on
! MPI_FILE_NULL for a failed open, then on the file) is called with the
! INTEGER file and the error code.  MPI_Register_datarep with Fortran
! conversion procedures: a view in representation "hcmpi_f_plus" stores
! each integer plus the registration's extra state (checked through a
! native view), and reads convert back; one registered with
! MPI_CONVERSION_FN_NULL stores the native bytes.  A file opened with
! MPI_MODE_SEQUENTIAL takes a view at MPI_DISPLACEMENT_CURRENT (an
! INTEGER(KIND=MPI_OFFSET_KIND) constant): ordered writes before and after
! it land one after the other.
program io
  use mpi
  implicit none
  integer, parameter :: n = 100
  integer :: buf(n), got(n), ierr, rank, nprocs, fh, i, nbad, cnt, peer
  integer :: eh, calls, lastcls, lastfh, bad, rfh
  common /errcount/ calls, lastcls, lastfh
  external :: file_err, rep_plus_read, rep_plus_write, rep_extent
  integer(kind=MPI_ADDRESS_KIND) :: shift
  character(len=64) :: rname
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_OFFSET_KIND) :: off, fsize
  character(len=64) :: fname
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nbad = 0
  calls = 0
  call MPI_File_create_errhandler(file_err, eh, ierr)
  call MPI_File_set_errhandler(MPI_FILE_NULL, eh, ierr)
  call MPI_File_open(MPI_COMM_WORLD, 'hcmpi_no_such_dir/x', MPI_MODE_RDONLY, &
       MPI_INFO_NULL, bad, ierr)
  if (calls /= 1 .or. lastcls /= MPI_ERR_NO_SUCH_FILE .or. lastfh /= MPI_FILE_NULL) &
       nbad = nbad + 1
  call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN, ierr)
  fname = 'hcmpi_fortran_io.dat'
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR + &
       MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  buf = [(rank * 1000 + i, i = 1, n)]
  off = int(rank, MPI_OFFSET_KIND) * n * 4
  call MPI_File_write_at_all(fh, off, buf, n, MPI_INTEGER, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (ierr /= MPI_SUCCESS .or. cnt /= n) nbad = nbad + 1
  call MPI_File_sync(fh, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  if (fsize /= int(nprocs, MPI_OFFSET_KIND) * n * 4) nbad = nbad + 1
  peer = mod(rank + 1, nprocs)
  call MPI_File_set_view(fh, int(peer, MPI_OFFSET_KIND) * n * 4, MPI_INTEGER, &
       MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  off = 0
  call MPI_File_read_at(fh, off, got, n, MPI_INTEGER, status, ierr)
  do i = 1, n
    if (got(i) /= peer * 1000 + i) nbad = nbad + 1
  end do
  call MPI_File_set_errhandler(fh, eh, ierr)
  call MPI_File_call_errhandler(fh, MPI_ERR_IO, ierr)
  if (calls /= 2 .or. lastcls /= MPI_ERR_IO .or. lastfh /= fh) nbad = nbad + 1
  call MPI_Errhandler_free(eh, ierr)
  call MPI_File_close(fh, ierr)
  if (ierr /= MPI_SUCCESS .or. fh /= MPI_FILE_NULL) nbad = nbad + 1

  shift = 100000
  call MPI_Register_datarep('hcmpi_f_plus', rep_plus_read, rep_plus_write, &
       rep_extent, shift, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_Register_datarep('hcmpi_f_same', MPI_CONVERSION_FN_NULL, &
       MPI_CONVERSION_FN_NULL, rep_extent, shift, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  write (rname, '(a,i0,a)') 'hcmpi_fortran_rep', rank, '.dat'
  call MPI_File_open(MPI_COMM_SELF, rname, MPI_MODE_CREATE + MPI_MODE_RDWR + &
       MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, rfh, ierr)
  off = 0
  call MPI_File_set_view(rfh, off, MPI_INTEGER, MPI_INTEGER, 'hcmpi_f_plus', &
       MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_File_write_at(rfh, off, buf, n, MPI_INTEGER, status, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_File_read_at(rfh, off, got, n, MPI_INTEGER, status, ierr)
  do i = 1, n
    if (got(i) /= buf(i)) nbad = nbad + 1
  end do
  call MPI_File_set_view(rfh, off, MPI_INTEGER, MPI_INTEGER, 'native', &
       MPI_INFO_NULL, ierr)
  call MPI_File_read_at(rfh, off, got, n, MPI_INTEGER, status, ierr)
  do i = 1, n
    if (got(i) /= buf(i) + shift) nbad = nbad + 1
  end do
  call MPI_File_set_view(rfh, off, MPI_INTEGER, MPI_INTEGER, 'hcmpi_f_same', &
       MPI_INFO_NULL, ierr)
  call MPI_File_write_at(rfh, off, buf, n, MPI_INTEGER, status, ierr)
  call MPI_File_set_view(rfh, off, MPI_INTEGER, MPI_INTEGER, 'native', &
       MPI_INFO_NULL, ierr)
  call MPI_File_read_at(rfh, off, got, n, MPI_INTEGER, status, ierr)
  do i = 1, n
    if (got(i) /= buf(i)) nbad = nbad + 1
  end do
  call MPI_File_close(rfh, ierr)

  fname = 'hcmpi_fortran_io_seq.dat'
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_WRONLY + &
       MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_File_set_atomicity(fh, .true., ierr)
  call MPI_File_get_atomicity(fh, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. flag) nbad = nbad + 1
  call MPI_File_write_ordered(fh, rank, 1, MPI_INTEGER, status, ierr)
  call MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INTEGER, MPI_INTEGER, &
       'native', MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_File_write_ordered(fh, 100 + rank, 1, MPI_INTEGER, status, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY + &
       MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  off = 0
  got = -1
  call MPI_File_read_at_all(fh, off, got, 2 * nprocs, MPI_INTEGER, status, ierr)
  do i = 1, nprocs
    if (got(i) /= i - 1 .or. got(nprocs + i) /= 100 + i - 1) nbad = nbad + 1
  end do
  call MPI_File_close(fh, ierr)

  if (nbad /= 0) then
    print *, 'io.f90: rank', rank, nbad, 'mismatches'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) print *, 'io.f90: ok'
  call MPI_Finalize(ierr)
end program io

subroutine file_err(fh, code)
  use mpi
  implicit none
  integer :: fh, code, cls, ierr
  integer :: calls, lastcls, lastfh
  common /errcount/ calls, lastcls, lastfh
  calls = calls + 1
  call MPI_Error_class(code, cls, ierr)
  lastcls = cls
  lastfh = fh
end subroutine file_err

! Representation "hcmpi_f_plus": an integer is stored plus extra_state.
subroutine rep_plus_write(userbuf, datatype, count, filebuf, position, &
     extra_state, ierror)
  use mpi
  implicit none
  integer :: userbuf(*), filebuf(*), datatype, count, ierror, i
  integer(kind=MPI_OFFSET_KIND) :: position
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  if (datatype /= MPI_INTEGER) then
    ierror = MPI_ERR_TYPE
    return
  end if
  do i = 1, count
    filebuf(i) = userbuf(position + i) + int(extra_state)
  end do
  ierror = MPI_SUCCESS
end subroutine rep_plus_write

subroutine rep_plus_read(userbuf, datatype, count, filebuf, position, &
     extra_state, ierror)
  use mpi
  implicit none
  integer :: userbuf(*), filebuf(*), datatype, count, ierror, i
  integer(kind=MPI_OFFSET_KIND) :: position
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  do i = 1, count
    userbuf(position + i) = filebuf(i) - int(extra_state)
  end do
  ierror = MPI_SUCCESS
end subroutine rep_plus_read

subroutine rep_extent(datatype, extent, extra_state, ierror)
  use mpi
  implicit none
  integer :: datatype, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state, lb
  call MPI_Type_get_extent(datatype, lb, extent, ierror)
end subroutine rep_extent
