// A C++ program on the C API, built with hcmpicxx: a ring of
// std::vector<double> messages and an Allreduce, data checked.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 100000; // past the eager size
  std::vector<double> out(n), in(n, -1.0);
  for (int i = 0; i < n; i++)
    out[i] = rank * 1000.0 + i;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Sendrecv(out.data(), n, MPI_DOUBLE, right, 1, in.data(), n, MPI_DOUBLE,
               left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int bad = 0;
  for (int i = 0; i < n; i++)
    bad += in[i] != left * 1000.0 + i;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("cxx_ring errors: %d\n", bad);
  MPI_Finalize();
  return bad != 0;
}
