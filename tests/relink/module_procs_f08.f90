! Built by MPICH's mpif90 against its own mpi_f08 module: the module's
! procedures and data a program links against run on hcmpi with MPICH's
! answers.  MPI_Sizeof of each kind, MPI_Status_f082f / MPI_Status_f2f08
! (a received status's source, tag, error and count survive both ways),
! the predefined attribute callbacks (MPI_COMM_DUP_FN copies the
! attribute into a duplicate, MPI_COMM_NULL_COPY_FN does not), and a
! TYPE(MPI_Status) passed as CLASS(*) (the type's vtab, copied into the
! program when it loads).  Prints "mismatch" on a failed check, then
! "module procedures ok <rank>".
module class_probe
  implicit none
contains
  integer function bits_of(x)
    class(*), intent(in) :: x
    bits_of = storage_size(x)
  end function
end module

program module_procs_f08
  use mpi_f08
  use class_probe
  implicit none
  type(MPI_Status) :: st, back
  type(MPI_Comm) :: dup
  integer :: fst(MPI_STATUS_SIZE)
  integer :: rank, nranks, sz, ierr, peer, cnt, key_dup, key_null
  integer :: ibuf(3), obuf(3)
  integer(1) :: i1
  integer(2) :: i2
  integer(8) :: i8
  real :: r4
  real(8) :: r8
  complex :: c8
  complex(8) :: c16
  character(len=7) :: ch
  logical :: lg, found
  integer(kind=MPI_ADDRESS_KIND) :: val
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)

  call MPI_Sizeof(i1, sz); call expect('sizeof integer(1)', sz, 1)
  call MPI_Sizeof(i2, sz); call expect('sizeof integer(2)', sz, 2)
  call MPI_Sizeof(rank, sz); call expect('sizeof integer', sz, 4)
  call MPI_Sizeof(i8, sz); call expect('sizeof integer(8)', sz, 8)
  call MPI_Sizeof(r4, sz); call expect('sizeof real', sz, 4)
  call MPI_Sizeof(r8, sz); call expect('sizeof real(8)', sz, 8)
  call MPI_Sizeof(c8, sz); call expect('sizeof complex', sz, 8)
  call MPI_Sizeof(c16, sz); call expect('sizeof complex(8)', sz, 16)
  call MPI_Sizeof(ch, sz); call expect('sizeof character', sz, 1)
  call MPI_Sizeof(lg, sz); call expect('sizeof logical', sz, 4)
  ierr = -1
  call MPI_Sizeof(ibuf, sz, ierr)
  call expect('sizeof integer array', sz, 4)
  call expect('sizeof ierror', ierr, MPI_SUCCESS)

  ! A status from a real receive: rank r gets 3 integers from r-1, tag 40+r.
  peer = modulo(rank - 1, nranks)
  obuf = [rank, rank * 10, rank * 100]
  call MPI_Sendrecv(obuf, 3, MPI_INTEGER, modulo(rank + 1, nranks), &
                    40 + modulo(rank + 1, nranks), ibuf, 3, MPI_INTEGER, &
                    peer, 40 + rank, MPI_COMM_WORLD, st)
  call expect('received data', ibuf(3), peer * 100)
  fst = -7
  call MPI_Status_f082f(st, fst, ierr)
  call expect('f082f ierror', ierr, MPI_SUCCESS)
  call expect('f082f MPI_SOURCE', fst(MPI_SOURCE), peer)
  call expect('f082f MPI_TAG', fst(MPI_TAG), 40 + rank)
  call expect('f082f MPI_ERROR', fst(MPI_ERROR), st%MPI_ERROR)
  back%MPI_SOURCE = -7
  back%MPI_TAG = -7
  call MPI_Status_f2f08(fst, back)
  call expect('f2f08 MPI_SOURCE', back%MPI_SOURCE, peer)
  call expect('f2f08 MPI_TAG', back%MPI_TAG, 40 + rank)
  call expect('f2f08 MPI_ERROR', back%MPI_ERROR, st%MPI_ERROR)
  call MPI_Get_count(back, MPI_INTEGER, cnt)
  call expect('count after the round trip', cnt, 3)

  ! Predefined copy callbacks of the module.
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &
                              key_dup, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &
                              key_null, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key_dup, 1234_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key_null, 5678_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, key_dup, val, found)
  if (.not. found .or. val /= 1234) print *, 'mismatch: MPI_COMM_DUP_FN', found, val
  call MPI_Comm_get_attr(dup, key_null, val, found)
  if (found) print *, 'mismatch: MPI_COMM_NULL_COPY_FN copied', val
  call MPI_Comm_free(dup)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key_dup)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key_null)
  call MPI_Comm_free_keyval(key_dup)
  call MPI_Comm_free_keyval(key_null)

  call expect('bits of a TYPE(MPI_Status) as CLASS(*)', bits_of(st), &
              MPI_STATUS_SIZE * 32)
  call expect('bits of a TYPE(MPI_Comm) as CLASS(*)', bits_of(MPI_COMM_WORLD), 32)

  print '(a,i0)', 'module procedures ok ', rank
  call MPI_Finalize()
contains
  include 'expect_int.inc'
end program
