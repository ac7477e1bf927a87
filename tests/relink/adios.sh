#!/bin/sh
# ADIOS 1 from Debian (libadios-mpich-dev, built for MPICH) on hcmpi by
# relinking: tests/relink/adios_rw.c, compiled with mpicc.mpich against
# the MPICH flavour of libadios.a, writes three steps of a global array in
# blocks of different sizes, under hcmpirun --relink and under MPICH, with
# ADIOS's write methods
#   MPI            one shared file, offsets by MPI collectives, MPI-IO;
#   MPI_AGGREGATE  2 aggregators gathering the blocks into 2 subfiles;
#   POSIX          a file per rank, the index gathered over MPI;
#   MPI_AGGREGATE  1 aggregator, over tcp;
#   PHDF5          parallel HDF5 (when h5dump is there to compare);
# for each, bpls's listing (every value, min/max, the blocks' placement)
# and bpdump's index (every offset in the file; values masked, as ADIOS
# records creation times and, with MPI_AGGREGATE, timings) equal MPICH's,
# and adios_rw reads hcmpi's file back on another number of ranks,
# checking every value.  Skips (77) when the packages cannot be installed.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
need_pkg bpls.mpich libadios-bin
need_pkg /usr/lib/x86_64-linux-gnu/adios/mpich/libadios.a libadios-mpich-dev
command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich not installed"
cd "$T" || exit 1

# libadios.a needs the libraries ADIOS was built with.  Its pkg-config
# file names them for -l, which needs their -dev packages; the runtime
# libraries libadios-bin pulls in are enough when named by file (netCDF:
# the serial one, as its -lnetcdf would find; the MPI one Debian ships is
# Open MPI's).  ADIOS calls netCDF only in its NC4 method.
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
adios_libs="-L/usr/lib/x86_64-linux-gnu/adios/mpich -ladios"
for lib in netcdf hdf5_mpich_hl hdf5_mpich ibverbs glib-2.0 z bz2 sz lz4 blosc; do
    so=$("$LDCONFIG" -p | awk -v want="lib$lib.so." 'index($1, want) == 1 { print $1; exit }')
    [ -n "$so" ] || fail "no lib$lib.so.N for libadios.a"
    adios_libs="$adios_libs -l:$so"
done
# In a sanitized build adios_rw is built with ASan too.  Preloaded (as
# hcmpirun --relink does), the ASan runtime initialises at the first
# malloc, which here is inside p11-kit's constructor (p11-kit comes with
# HDF5's and netCDF's libcurl) while glibc holds its locale lock; ASan's
# start-up takes that lock's reader side too and leaves it broken, and the
# ranks hang at exit, on MPICH as on hcmpi.  A program linked with ASan
# initialises it before any library's constructor.
sanitize=
[ "${HCMPI_TEST_SANITIZED:-0}" = 1 ] && sanitize=-fsanitize=address
mpich_cc adios_rw "$top_srcdir/tests/relink/adios_rw.c" $sanitize $adios_libs -lm -lpthread
# MPICH's runs: MPICH's own leaks are not this test's business.
mpich() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        timeout -k 10 120 mpiexec.mpich "$@"
}

# bp_views DIR: bpls's and bpdump's views of DIR/out.bp (run in DIR, so
# the file name they print is the same for both runs).
bp_views() {
    (cd "$1" && bpls.mpich -la -D -d out.bp width total_rows rows first_row \
        nranks rank field marker description row_width) >"$1.bpls" 2>&1 ||
        { cat "$1.bpls"; fail "bpls $1/out.bp"; }
    (cd "$1" && bpdump.mpich out.bp) >"$1.dump.raw" 2>&1 ||
        { tail "$1.dump.raw"; fail "bpdump $1/out.bp"; }
    sed -E -e 's/(Value|Min|Max)\([^)]*\)/\1()/g' -e 's/Value: .*/Value:/' \
        "$1.dump.raw" >"$1.dump"
}

# case NAME WRITERS READERS METHOD PARAMS [ENV]
case_bp() {
    name=$1 writers=$2 readers=$3 method=$4 params=$5 env=${6:-}
    mkdir "hc_$name" "mpich_$name" || fail "mkdir"
    relink_run "$writers" ${env:+--env "$env"} ./adios_rw write "$method" "$params" \
        "hc_$name/out.bp" 3 >"hc_$name.log" 2>&1 ||
        { cat "hc_$name.log"; fail "$name: adios_rw write on hcmpi"; }
    grep -q "^adios_rw: MPI library hcmpi" "hc_$name.log" ||
        { cat "hc_$name.log"; fail "$name: the writer did not run on hcmpi"; }
    mpich -n "$writers" ./adios_rw write "$method" "$params" \
        "mpich_$name/out.bp" 3 >"mpich_$name.log" 2>&1 ||
        { cat "mpich_$name.log"; fail "$name: adios_rw write on MPICH"; }
    bp_views "hc_$name"
    bp_views "mpich_$name"
    [ "$(grep -c '^    (' "hc_$name.bpls")" -gt 1000 ] ||
        { head -20 "hc_$name.bpls"; fail "$name: bpls printed too little"; }
    cmp "hc_$name.bpls" "mpich_$name.bpls" ||
        { diff "hc_$name.bpls" "mpich_$name.bpls" | head; fail "$name: bpls differs from MPICH's"; }
    cmp "hc_$name.dump" "mpich_$name.dump" ||
        { diff "hc_$name.dump" "mpich_$name.dump" | head; fail "$name: bpdump differs from MPICH's"; }
    relink_run "$readers" ${env:+--env "$env"} ./adios_rw read "hc_$name/out.bp" 3 \
        >"read_$name.log" 2>&1 || { cat "read_$name.log"; fail "$name: adios_rw read on hcmpi"; }
    grep -q "on $readers ranks: [0-9]* values, 0 wrong$" "read_$name.log" ||
        { cat "read_$name.log"; fail "$name: wrong values read back"; }
    echo "PASS: $method ($params${env:+, $env}) on $writers ranks equals MPICH's;" \
        "read back on $readers"
}

case_bp mpi 4 3 MPI ""
case_bp aggregate 4 3 MPI_AGGREGATE "num_aggregators=2;num_ost=2"
case_bp posix 3 2 POSIX ""
case_bp aggregate_tcp 3 2 MPI_AGGREGATE "num_aggregators=1;num_ost=1" HCMPI_TRANSPORTS=tcp

command -v h5dump >/dev/null 2>&1 || { echo "adios: h5dump absent, PHDF5 not compared"; exit 0; }
relink_run 3 ./adios_rw write PHDF5 "" hc.h5 2 >hc_h5.log 2>&1 ||
    { cat hc_h5.log; fail "PHDF5: adios_rw write on hcmpi"; }
mpich -n 3 ./adios_rw write PHDF5 "" mpich.h5 2 >mpich_h5.log 2>&1 ||
    { cat mpich_h5.log; fail "PHDF5: adios_rw write on MPICH"; }
# The first line of a dump names the file.
h5dump hc.h5 | tail -n +2 >hc.h5dump || fail "h5dump hc.h5"
h5dump mpich.h5 | tail -n +2 >mpich.h5dump || fail "h5dump mpich.h5"
[ "$(wc -l <hc.h5dump)" -gt 1000 ] || fail "PHDF5: h5dump of hcmpi's file is too short"
cmp hc.h5dump mpich.h5dump || { diff hc.h5dump mpich.h5dump | head; fail "PHDF5: h5dump differs from MPICH's"; }
echo "PASS: PHDF5 on 3 ranks equals MPICH's"
