#!/bin/sh
# tests/mpi/gpu_query.c: the MPIX GPU queries answer what the device layer
# loaded: nothing (HCMPI_DEVICE=none), the CANN test double (Ascend), the
# CUDA test double.  A double that was not built skips its case.
. "${top_srcdir:-.}/tests/mpi/lib.sh"
export EXPECT_CUDA EXPECT_ASCEND HCMPI_DEVICE
HCMPI_DEVICE=none EXPECT_CUDA=0 EXPECT_ASCEND=0
run_mpi_ok 2 gpu_query
acl=$PWD/tests/fake-cann/.libs/libascendcl.so
if [ -r "$acl" ]; then
    HCMPI_DEVICE=acl HCMPI_ACL_LIB=$acl EXPECT_CUDA=0 EXPECT_ASCEND=1
    FAKE_CANN_DIR=/dev/shm/fake-cann-gpu-query-$$
    export HCMPI_ACL_LIB FAKE_CANN_DIR
    run_mpi_ok 2 gpu_query
    rm -rf "$FAKE_CANN_DIR"
fi
cuda=$PWD/tests/fake-cuda/.libs/libcuda.so
if [ -r "$cuda" ]; then
    HCMPI_DEVICE=cuda HCMPI_CUDA_LIB=$cuda EXPECT_CUDA=1 EXPECT_ASCEND=0
    export HCMPI_CUDA_LIB
    run_mpi_ok 1 gpu_query
fi
