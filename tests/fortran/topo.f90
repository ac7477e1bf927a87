! `use mpi`: a periodic ring built with MPI_Dims_create and MPI_Cart_create
! (LOGICAL periods and reorder), MPI_Cart_shift and MPI_Sendrecv; the same
! ring as a distributed graph with MPI_UNWEIGHTED (weighted comes back
! .false.) and with weights (they come back); MPI_Isendrecv around it;
! MPI_Neighbor_allgather, MPI_Ineighbor_alltoall and MPI_Neighbor_alltoallw
! (MPI_ADDRESS_KIND displacements) on the ring.
program topo
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, nbad, ring, g, src, dst, got, req
  integer :: dims(1), periods_out(1), coords(1), indeg, outdeg, sw(1), dw(1)
  integer :: status(MPI_STATUS_SIZE), s(1), d(1)
  logical :: periods(1), weighted, lp(1)
  integer :: nbr(2), sb(2), cnts(2), types(2)
  integer(kind=MPI_ADDRESS_KIND) :: adis(2)

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
  if (got /= src .or. status(MPI_SOURCE) /= src) nbad = nbad + 1
  ! Block 1 comes from the -1 side (what it sent to its +1 side), block 2
  ! from the +1 side; on 2 ranks both sides are one rank.
  call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, nbr, 1, MPI_INTEGER, ring, ierr)
  if (ierr /= MPI_SUCCESS .or. nbr(1) /= src .or. nbr(2) /= dst) nbad = nbad + 1
  sb(1) = 100 * rank + 1
  sb(2) = 100 * rank + 2
  nbr = -1
  call MPI_Ineighbor_alltoall(sb, 1, MPI_INTEGER, nbr, 1, MPI_INTEGER, ring, req, ierr)
  call MPI_Wait(req, status, ierr)
  if (nbr(1) /= 100 * src + 2 .or. nbr(2) /= 100 * dst + 1) nbad = nbad + 1
  cnts = 1
  types = MPI_INTEGER
  adis(1) = 0
  adis(2) = 4
  nbr = -1
  call MPI_Neighbor_alltoallw(sb, cnts, adis, types, nbr, cnts, adis, types, ring, ierr)
  if (ierr /= MPI_SUCCESS .or. nbr(1) /= 100 * src + 2 .or. nbr(2) /= 100 * dst + 1) &
      nbad = nbad + 1
  call MPI_Comm_free(ring, ierr)
  periods_out(1) = 0
  call MPI_Allreduce(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'topo.f90 errors:', nbad
  call MPI_Finalize(ierr)
  if (nbad /= 0) stop 1
end program topo
