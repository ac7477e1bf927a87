! Attributes across languages (with attrlang_c.c): a value set in Fortran
! with MPI_COMM_SET_ATTR (address-sized) or MPI_ATTR_PUT (INTEGER) is read
! in C through a pointer to that integer, and in Fortran as the integer;
! a pointer set in C is read in Fortran as its address.
program attrlang
  use mpi
  implicit none
  integer :: ierr, key2, key1, keyc, found, nbad, fval
  integer(kind=MPI_ADDRESS_KIND) :: val, got, addr, extra
  logical :: flag

  call MPI_Init(ierr)
  nbad = 0
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &
       key2, extra, ierr)
  val = 5555
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key2, val, ierr)
  got = 0
  call c_get_aint(key2, got, found)
  if (found == 0 .or. got /= 5555) nbad = nbad + 1
  got = 0
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key2, got, flag, ierr)
  if (.not. flag .or. got /= 5555) nbad = nbad + 1

  call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, key1, 77, ierr)
  fval = 0
  call c_get_fint(key1, fval, found)
  if (found == 0 .or. fval /= 77) nbad = nbad + 1
  fval = 0
  call MPI_Attr_get(MPI_COMM_WORLD, key1, fval, flag, ierr)
  if (.not. flag .or. fval /= 77) nbad = nbad + 1

  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &
       keyc, extra, ierr)
  call c_set_pointer(keyc, addr)
  got = 0
  call MPI_Comm_get_attr(MPI_COMM_WORLD, keyc, got, flag, ierr)
  if (.not. flag .or. got /= addr) nbad = nbad + 1

  call MPI_Comm_free_keyval(key2, ierr)
  call MPI_Comm_free_keyval(keyc, ierr)
  call MPI_Keyval_free(key1, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (nbad /= 0) then
    print *, 'attrlang.f90: ', nbad, ' checks failed'
    stop 1
  end if
end program attrlang
