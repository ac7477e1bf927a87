#!/bin/sh
# Parallel HDF5 from Debian (libhdf5-mpich-dev, built against MPICH) on
# hcmpi by relinking: tests/relink/hdf5_rw.c, compiled with h5pcc.mpich,
# writes a contiguous and a chunked dataset collectively from 4 ranks
# under hcmpirun --relink; h5dump of that file must equal h5dump of the
# same run on MPICH; hcmpi then reads both files back on 3 and 4 ranks,
# and MPICH reads hcmpi's.  Skips (77) when the packages cannot be
# installed.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
need_pkg h5pcc.mpich libhdf5-mpich-dev
need_pkg h5dump hdf5-tools
command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
cd "$T" || exit 1
h5pcc.mpich -O1 -Wall -Werror -o hdf5_rw "$top_srcdir/tests/relink/hdf5_rw.c" ||
    fail "h5pcc.mpich"
relink_run 4 ./hdf5_rw write hc.h5 || fail "hdf5_rw write on hcmpi"
timeout -k 10 150 mpiexec.mpich -n 4 ./hdf5_rw write mpich.h5 >mpich.log 2>&1 ||
    { cat mpich.log; fail "hdf5_rw write on MPICH"; }
# The first line of a dump names the file.
h5dump hc.h5 | tail -n +2 >hc.dump || fail "h5dump hc.h5"
h5dump mpich.h5 | tail -n +2 >mpich.dump || fail "h5dump mpich.h5"
[ "$(wc -l <hc.dump)" -gt 100 ] || fail "h5dump of hcmpi's file is too short"
cmp hc.dump mpich.dump || { diff hc.dump mpich.dump | head -20; fail "h5dump differs from MPICH's"; }
echo "ok: h5dump of hcmpi's file equals MPICH's"
relink_run 4 ./hdf5_rw read hc.h5 || fail "hcmpi reading its own file"
relink_run 3 ./hdf5_rw read mpich.h5 || fail "hcmpi reading MPICH's file"
timeout -k 10 150 mpiexec.mpich -n 2 ./hdf5_rw read hc.h5 >mpich.log 2>&1 ||
    { cat mpich.log; fail "MPICH reading hcmpi's file"; }
echo "hdf5: parallel HDF5 on hcmpi: ok"
