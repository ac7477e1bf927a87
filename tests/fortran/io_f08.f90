! MPI-IO through `use mpi_f08`: TYPE(MPI_File), the individual file pointer
! (write_all, seek, get_position, read_all) and MPI_File_get_amode; with
! counts of MPI_COUNT_KIND the generic names resolve to the _c forms
! (write_at, read_at_all, get_count of the status).  MPI_Register_datarep_c
! with conversion procedures whose count is of MPI_COUNT_KIND: a view in
! representation "hcmpi_f08_times3" stores each integer times 3 (checked
! through a native view), reads divide back; MPI_CONVERSION_FN_NULL_C
! stores the native bytes.  The conversion procedures have the standard's
! mpi_f08 prototype (MPI_Datarep_conversion_function_c: buffers as
! TYPE(C_PTR), VALUE), which the module's interface checks.
module io_f08_rep
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: conversions = 0
contains
  subroutine times3_write(userbuf_p, datatype, count, filebuf_p, position, extra_state, ierror)
    type(c_ptr), value :: userbuf_p, filebuf_p
    integer, pointer :: userbuf(:), filebuf(:)
    integer :: ierror
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count, i
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    ierror = MPI_ERR_TYPE
    if (datatype /= MPI_INTEGER .or. extra_state /= 3) return
    call c_f_pointer(userbuf_p, userbuf, [position + count])
    call c_f_pointer(filebuf_p, filebuf, [count])
    do i = 1, count
      filebuf(i) = 3 * userbuf(position + i)
    end do
    conversions = conversions + 1
    ierror = MPI_SUCCESS
  end subroutine
  subroutine times3_read(userbuf_p, datatype, count, filebuf_p, position, extra_state, ierror)
    type(c_ptr), value :: userbuf_p, filebuf_p
    integer, pointer :: userbuf(:), filebuf(:)
    integer :: ierror
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count, i
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    ierror = MPI_ERR_TYPE
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(userbuf_p, userbuf, [position + count])
    call c_f_pointer(filebuf_p, filebuf, [count])
    do i = 1, count
      userbuf(position + i) = filebuf(i) / int(extra_state)
    end do
    conversions = conversions + 1
    ierror = MPI_SUCCESS
  end subroutine
  subroutine int_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state, lb
    integer :: ierror
    call MPI_Type_get_extent(datatype, lb, extent, ierror)
  end subroutine
end module io_f08_rep

program io_f08
  use mpi_f08
  use io_f08_rep
  implicit none
  integer, parameter :: n = 64
  integer :: buf(n), got(n), rank, nprocs, i, nbad, amode
  type(MPI_File) :: fh
  type(MPI_Status) :: status
  integer(kind=MPI_OFFSET_KIND) :: pos
  integer(kind=MPI_COUNT_KIND) :: cn, ccnt
  integer(kind=MPI_ADDRESS_KIND) :: three
  type(MPI_File) :: rfh
  character(len=64) :: rname

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

  three = 3
  call MPI_Register_datarep_c('hcmpi_f08_times3', times3_read, times3_write, &
       int_extent, three)
  call MPI_Register_datarep_c('hcmpi_f08_same', MPI_CONVERSION_FN_NULL_C, &
       MPI_CONVERSION_FN_NULL_C, int_extent, three)
  write (rname, '(a,i0,a)') 'hcmpi_fortran_rep_f08_', rank, '.dat'
  call MPI_File_open(MPI_COMM_SELF, rname, MPI_MODE_CREATE + MPI_MODE_RDWR + &
       MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, rfh)
  buf = [(rank * 100 + i, i = 1, n)]
  call MPI_File_set_view(rfh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
       'hcmpi_f08_times3', MPI_INFO_NULL)
  call MPI_File_write_at(rfh, 0_MPI_OFFSET_KIND, buf, n, MPI_INTEGER, status)
  got = 0
  call MPI_File_read_at(rfh, 0_MPI_OFFSET_KIND, got, n, MPI_INTEGER, status)
  if (any(got /= buf) .or. conversions < 2) nbad = nbad + 1
  call MPI_File_set_view(rfh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
       'native', MPI_INFO_NULL)
  call MPI_File_read_at(rfh, 0_MPI_OFFSET_KIND, got, n, MPI_INTEGER, status)
  if (any(got /= 3 * buf)) nbad = nbad + 1
  call MPI_File_set_view(rfh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
       'hcmpi_f08_same', MPI_INFO_NULL)
  call MPI_File_write_at(rfh, 0_MPI_OFFSET_KIND, buf, n, MPI_INTEGER, status)
  call MPI_File_set_view(rfh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
       'native', MPI_INFO_NULL)
  call MPI_File_read_at(rfh, 0_MPI_OFFSET_KIND, got, n, MPI_INTEGER, status)
  if (any(got /= buf)) nbad = nbad + 1
  call MPI_File_close(rfh)

  if (nbad /= 0) then
    print *, 'io_f08.f90: rank', rank, nbad, 'mismatches'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  if (rank == 0) print *, 'io_f08.f90: ok'
  call MPI_Finalize()
end program io_f08
