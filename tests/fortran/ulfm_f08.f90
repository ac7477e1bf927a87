! `use mpi_f08`: the ULFM calls with nothing failed: MPIX_Comm_agree ANDs an
! INTEGER mask (in and out), MPIX_Comm_iagree the same through a request,
! MPIX_Comm_revoke makes a Barrier fail with MPIX_ERR_REVOKED and
! MPIX_Comm_is_revoked say .true., MPIX_Comm_shrink of the revoked one has
! every rank and carries an Allreduce, no failure is acknowledged.
program ulfm_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nprocs, nbad, flag, n, cls, rc, one
  type(MPI_Comm) :: dup, small
  type(MPI_Request) :: req
  type(MPI_Group) :: acked
  logical :: revoked

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nbad = 0
  flag = 7
  if (rank == 0) flag = 5
  call MPIX_Comm_agree(MPI_COMM_WORLD, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. flag /= 5) nbad = nbad + 1
  flag = 3
  if (rank == nprocs - 1) flag = 6
  call MPIX_Comm_iagree(MPI_COMM_WORLD, flag, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS .or. flag /= 2) nbad = nbad + 1
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  call MPIX_Comm_is_revoked(dup, revoked, ierr)
  if (revoked) nbad = nbad + 1
  call MPI_Barrier(dup, ierr)  ! every rank has looked before rank 0 revokes
  if (rank == 0) call MPIX_Comm_revoke(dup, ierr)
  call MPI_Barrier(dup, rc)
  call MPI_Error_class(rc, cls, ierr)
  if (cls /= MPIX_ERR_REVOKED) nbad = nbad + 1
  call MPIX_Comm_is_revoked(dup, revoked, ierr)
  if (.not. revoked) nbad = nbad + 1
  call MPIX_Comm_shrink(dup, small, ierr)
  call MPI_Comm_size(small, n, ierr)
  if (n /= nprocs) nbad = nbad + 1
  one = 1
  call MPI_Allreduce(one, n, 1, MPI_INTEGER, MPI_SUM, small, ierr)
  if (ierr /= MPI_SUCCESS .or. n /= nprocs) nbad = nbad + 1
  call MPIX_Comm_failure_get_acked(small, acked, ierr)
  call MPI_Group_size(acked, n, ierr)
  if (n /= 0) nbad = nbad + 1
  call MPI_Group_free(acked, ierr)
  call MPI_Comm_free(small, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'ulfm_f08.f90 errors:', nbad
  call MPI_Finalize(ierr)
  if (nbad /= 0) stop 1
end program ulfm_f08
