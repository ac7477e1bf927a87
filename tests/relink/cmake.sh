#!/bin/sh
# CMake: a tiny project found MPI through FindMPI with MPI_C_COMPILER set to
# hcmpicc (the build-tree wrapper), and the same project through hcmpi's
# own package (find_package(hcmpi), target hcmpi::hcmpi; the build-tree
# copy in cmake-build/).  Both programs must run on 2 ranks on hcmpi.
# Skips (77) without cmake.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
command -v cmake >/dev/null 2>&1 || skip "cmake not installed"
[ -f "$top_builddir/cmake-build/hcmpi-config.cmake" ] || fail "cmake-build/hcmpi-config.cmake not built"
mkdir -p "$T/src"
cat >"$T/src/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#ifdef HCMPI
  printf("rank %d of %d on hcmpi, sum %d\n", rank, size, sum);
#else
  printf("rank %d of %d NOT on hcmpi's mpi.h\n", rank, size);
#endif
  MPI_Finalize();
  return 0;
}
C
cat >"$T/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.10)
project(hello C)
if(USE_HCMPI_PACKAGE)
  find_package(hcmpi 0.1 REQUIRED)
  add_executable(hello hello.c)
  target_link_libraries(hello PRIVATE hcmpi::hcmpi)
else()
  find_package(MPI REQUIRED COMPONENTS C)
  add_executable(hello hello.c)
  target_link_libraries(hello PRIVATE MPI::MPI_C)
endif()
CM

# build NAME CMAKE-ARGS...: configures, builds, runs on 2 ranks.
build() {
    name=$1
    shift
    cmake -S "$T/src" -B "$T/$name" "$@" >"$T/$name.log" 2>&1 ||
        { cat "$T/$name.log"; fail "$name: cmake configure"; }
    cmake --build "$T/$name" >>"$T/$name.log" 2>&1 || { cat "$T/$name.log"; fail "$name: build"; }
    readelf -d "$T/$name/hello" | grep -q "NEEDED.*libhcmpi" || fail "$name: hello is not linked with libhcmpi"
    timeout 60 "$HCMPIRUN" -n 2 "$T/$name/hello" >"$T/$name.out" 2>&1 ||
        { cat "$T/$name.out"; fail "$name: run"; }
    cat "$T/$name.out"
    [ "$(grep -c "^rank [01] of 2 on hcmpi, sum 1$" "$T/$name.out")" -eq 2 ] || fail "$name: wrong output"
    echo "ok: $name"
}

build findmpi -DMPI_C_COMPILER="$top_builddir/tools/hcmpicc-build" -DMPI_SKIP_GUESSING=ON
build package -DUSE_HCMPI_PACKAGE=ON -Dhcmpi_DIR="$top_builddir/cmake-build"
