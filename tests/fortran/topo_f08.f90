! `use mpi_f08`: a periodic ring built with MPI_Dims_create and MPI_Cart_create
! (LOGICAL periods and reorder), MPI_Cart_shift and MPI_Sendrecv; the same
! ring as a distributed graph with MPI_UNWEIGHTED (weighted comes back
! .false.) and with weights (they come back); MPI_Isendrecv around it.
program topo_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nprocs, nbad, src, dst, got
  type(MPI_Comm) :: ring, g
  type(MPI_Request) :: req
  integer :: dims(1), periods_out(1), coords(1), indeg, outdeg, sw(1), dw(1)
  type(MPI_Status) :: status
  integer :: s(1), d(1)
  logical :: periods(1), weighted, lp(1)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nbad = 0
  dims(1) = 0
  call MPI_Dims_create(nprocs, 1, dims, ierr)
  if (dims(1) /= nprocs) nbad = nbad + 1
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  call MPI_Cart_get(ring, 1, dims, lp, coords, ierr)
  if (.not. lp(1) .or. coords(1) /= rank) nbad = nbad + 1
  call MPI_Cart_shift(ring, 0, 1, src, dst, ierr)
  if (src /= mod(rank + nprocs - 1, nprocs) .or. dst /= mod(rank + 1, nprocs)) nbad = nbad + 1
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, dst, 1, got, 1, MPI_INTEGER, src, 1, ring, status, ierr)
  if (got /= src) nbad = nbad + 1
  s(1) = src
  d(1) = dst
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, s, MPI_UNWEIGHTED, 1, d, &
      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., g, ierr)
  if (ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
  if (indeg /= 1 .or. outdeg /= 1 .or. weighted) nbad = nbad + 1
  call MPI_Comm_free(g, ierr)
  sw(1) = 10 + src
  dw(1) = 10 + rank
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, s, sw, 1, d, dw, &
      MPI_INFO_NULL, .true., g, ierr)
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
  if (.not. weighted) nbad = nbad + 1
  sw(1) = -1
  dw(1) = -1
  call MPI_Dist_graph_neighbors(g, 1, s, sw, 1, d, dw, ierr)
  if (s(1) /= src .or. d(1) /= dst .or. sw(1) /= 10 + src .or. dw(1) /= 10 + rank) nbad = nbad + 1
  call MPI_Comm_free(g, ierr)
  got = -1
  call MPI_Isendrecv(rank, 1, MPI_INTEGER, dst, 2, got, 1, MPI_INTEGER, src, 2, &
      MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, status, ierr)
  if (got /= src .or. status%MPI_SOURCE /= src) nbad = nbad + 1
  call MPI_Comm_free(ring, ierr)
  periods_out(1) = 0
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'topo_f08.f90 errors:', nbad
  call MPI_Finalize(ierr)
  if (nbad /= 0) stop 1
end program topo_f08
