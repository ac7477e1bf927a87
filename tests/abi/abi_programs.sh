#!/bin/sh
# tests/mpi programs built against the MPI-5.0 standard ABI (mpi_abi.h,
# libmpi_abi.so.1; tests/abi/local.mk): point-to-point with wildcards and
# statuses (also on truncation and MPI_PROC_NULL), persistent requests,
# collectives with user ops and derived types, attribute copy/delete
# callbacks, user error handlers and generalized requests; the tool
# interface (mpit_api, mpit_counts: verbosity, bind, scope, pvar class,
# source order and callback safety are constants that differ between the
# ABIs, MPI_T_PVAR_ALL_HANDLES an object of libhcmpi's, event callbacks
# with their safety level); MPI-IO's external32 and a user data
# representation (io_ext32: conversion callbacks through the layer);
# MPI_Comm_spawn and _multiple (dyn_spawn parent: children that run
# through the layer too, and a missing program whose MPI_ERR_SPAWN codes
# every parent reads in the standard's value) and a spawn without a
# launcher (dyn_spawn nolauncher); MPI-4.1's buffers, request statuses and
# local calls.  Each binary must name libmpi_abi and not libhcmpi, so the checks ran through the
# translation layer.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
for p in pingpong_sizes probe proc_null truncation persistent \
    collectives_basic coll_full coll_derived_reduce attr_callbacks \
    success_paths grequest mpit_api mpit_counts io_ext32 dyn_spawn \
    bsend_buffers request_get_status_multi mpi41_local; do
    bin="$top_builddir/tests/abi/abi_$p"
    [ -x "$bin" ] || skip "$bin not built"
    needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    echo "$needed" | grep -qx 'libmpi_abi.so.1' ||
        fail "abi_$p does not link libmpi_abi.so.1: $needed"
    echo "$needed" | grep -q 'libhcmpi' && fail "abi_$p links libhcmpi itself"
done
for n in 2 3; do
    run_mpi_ok $n tests/abi/abi_pingpong_sizes
    run_mpi_ok $n tests/abi/abi_probe
    run_mpi_ok $n tests/abi/abi_proc_null
    run_mpi_ok $n tests/abi/abi_truncation
    run_mpi_ok $n tests/abi/abi_persistent
    run_mpi_ok $n tests/abi/abi_collectives_basic
    run_mpi_ok $n tests/abi/abi_coll_derived_reduce
    run_mpi_ok $n tests/abi/abi_attr_callbacks
    run_mpi_ok $n tests/abi/abi_success_paths
    run_mpi_ok $n tests/abi/abi_grequest
done
run_mpi_ok 2 tests/abi/abi_mpit_counts
# MPI-4.1's calls (MPI_BUFFER_AUTOMATIC is (void *)2 here, -2 in MPICH's).
run_mpi_ok 2 tests/abi/abi_bsend_buffers
run_mpi_ok 2 tests/abi/abi_request_get_status_multi
run_mpi_ok 1 tests/abi/abi_mpi41_local
run_mpi_ok 2 tests/abi/abi_io_ext32
# mpit_api.sh's settings, which its cvar checks read back (the profile
# named, as there: its thresholds read Intel's values on any processor).
HCMPI_SHM_CELLS=48 HCMPI_TCP_SENDQ=3m HCMPI_DEVICE_PATH=staging \
  HCMPI_ASYNC_PROGRESS=0 HCMPI_CPU_PROFILE=intel \
  run_mpi_ok 1 tests/abi/abi_mpit_api
run_mpi_ok 4 tests/abi/abi_coll_full big
run_mpi_ok 4 tests/abi/abi_collectives_basic
run_mpi_ok 2 tests/abi/abi_dyn_spawn parent
echo "+ abi_dyn_spawn nolauncher"
env -u PMI_FD -u PMI_PORT -u PMIX_RANK HCMPI_BOOTSTRAP=singleton \
  timeout 60 "$top_builddir/tests/abi/abi_dyn_spawn" nolauncher ||
  fail "abi_dyn_spawn nolauncher exited with status $?"
