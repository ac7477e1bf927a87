#!/bin/sh
# Two more Debian binaries linked against libmpich.so.12, run on hcmpi with
# small inputs and their output checked:
#  - mpy.mpich2 (yorick-mpy-mpich2): a ring pass of a double array and a
#    sum of ranks on 3 ranks (Probe, Iprobe, Testsome, Comm_dup, ...);
#  - tachyon-nox with libtachyon-mpich (libtachyon-mpich-0, tachyon-bin-nox):
#    renders a small scene on 2 ranks (persistent requests, Allgather) and
#    the image must equal, byte for byte, the one real MPICH renders.
# Each part skips (77) only when its package cannot be installed.
. "${top_srcdir:-.}/tests/relink/lib.sh"
need_built
cd "$T" || exit 1
ran=0

mpy_part() {
    cat >tasks.i <<'YORICK'
func ring_task
{
  if (mp_rank == 0) {
    mp_send, 1, [1.5, 2.5, 3.5];
    v = mp_recv(mp_size - 1);
    write, format="ring done: %g %g %g\n", v(1), v(2), v(3);
  } else {
    v = mp_recv(mp_rank - 1);
    mp_send, (mp_rank + 1) % mp_size, v + mp_rank;
  }
}
func sum_task
{
  if (mp_rank == 0) {
    s = mp_rank;
    for (i = 1; i < mp_size; i++) s += mp_recv(i);
    write, format="sum of ranks: %d of %d\n", s, mp_size;
  } else {
    mp_send, 0, mp_rank;
  }
}
YORICK
    printf 'mp_exec, "ring_task;";\nmp_exec, "sum_task;";\n' >run.i
    relink_run 3 mpy.mpich2 -j tasks.i -i run.i </dev/null >mpy.log 2>&1 ||
        { cat mpy.log; fail "mpy.mpich2 on 3 ranks"; }
    cat mpy.log
    grep -q "^mpy initialized MPI on 3 processes" mpy.log || fail "mpy: wrong start-up line"
    # Rank 1 adds 1, rank 2 adds 2 to each element.
    grep -q "^ring done: 4.5 5.5 6.5$" mpy.log || fail "mpy: wrong ring result"
    grep -q "^sum of ranks: 3 of 3$" mpy.log || fail "mpy: wrong sum of ranks"
    echo "ok: mpy.mpich2"
    ran=$((ran + 1))
}

tachyon_part() {
    cat >scene.dat <<'SCENE'
BEGIN_SCENE
RESOLUTION 96 64
CAMERA
  ZOOM 1.0
  ASPECTRATIO 1.0
  ANTIALIASING 0
  RAYDEPTH 4
  CENTER 0.0 0.0 -5.0
  VIEWDIR 0.0 0.0 1.0
  UPDIR 0.0 1.0 0.0
END_CAMERA
BACKGROUND 0.1 0.1 0.2
LIGHT CENTER 4.0 5.0 -6.0 RAD 0.1 COLOR 1.0 1.0 1.0
SPHERE CENTER 0.0 0.0 0.0 RAD 1.5
  TEXTURE AMBIENT 0.1 DIFFUSE 0.8 SPECULAR 0.2 OPACITY 1.0
  COLOR 0.9 0.2 0.1
  TEXFUNC 0
PLANE CENTER 0.0 -1.5 0.0 NORMAL 0.0 1.0 0.0
  TEXTURE AMBIENT 0.1 DIFFUSE 0.7 SPECULAR 0.0 OPACITY 1.0
  COLOR 0.3 0.8 0.3
  TEXFUNC 0
END_SCENE
SCENE
    # tachyon-nox needs libtachyon.so.0 (a Debian alternative); this
    # directory makes it the MPICH flavour whatever the alternative says.
    mkdir -p tlib
    ln -sf "$tlib" tlib/libtachyon.so.0
    args="scene.dat -format PPM -nobounding"
    LD_LIBRARY_PATH=$T/tlib relink_run 2 tachyon-nox $args -o hc.ppm >tachyon.log 2>&1 ||
        { cat tachyon.log; fail "tachyon on 2 ranks"; }
    cat tachyon.log
    grep -q "Ray Tracing Time" tachyon.log || fail "tachyon: no 'Ray Tracing Time' line"
    head -c 2 hc.ppm | grep -q P6 || fail "tachyon: hc.ppm is not a PPM image"
    [ "$(wc -c <hc.ppm)" -gt $((96 * 64 * 3)) ] || fail "tachyon: image too small"
    if command -v mpiexec.mpich >/dev/null 2>&1; then
        LD_LIBRARY_PATH=$T/tlib timeout 120 mpiexec.mpich -n 2 tachyon-nox $args \
            -o ref.ppm >ref.log 2>&1 || { cat ref.log; fail "tachyon under MPICH"; }
        cmp hc.ppm ref.ppm || fail "tachyon: image differs from MPICH's"
        echo "ok: tachyon image equals MPICH's"
    fi
    ran=$((ran + 1))
}

try_pkg mpy.mpich2 yorick-mpy-mpich2 && mpy_part
tlib=/usr/lib/$(gcc -print-multiarch 2>/dev/null)/libtachyon-mpich.so.0
try_pkg "$tlib" libtachyon-mpich-0 && try_pkg tachyon-nox tachyon-bin-nox && tachyon_part
[ $ran -eq 2 ] || skip "only $ran of 2 Debian programs could be installed"
