#!/usr/bin/env python3
"""Side-by-side benchmark of hcmpi, MPICH and Open MPI on one machine.

Builds bench/{latency,bandwidth,msgrate,overlap}.c once per MPI, runs them
interleaved in one session (round r runs every case for every MPI, and the
order of the MPIs rotates from round to round so no MPI always goes first),
and prints one table per benchmark with the median over rounds of each run's
median, plus the ratios hcmpi/MPICH and hcmpi/Open MPI.

Timings are never asserted; see docs/benchmarks.md for how to read them.
"""

import argparse
import datetime
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["latency", "bandwidth", "msgrate", "overlap", "collective",
           "fileio", "rma"]
# Built with the plain C compiler: no MPI in the physical floors.
FLOOR_SOURCE = "floor"
COMMON = ["common.c"]
# What one program needs beyond COMMON: rma's device buffers
# (examples/devbuf.c, which dlopen()s the runtimes).
PROG_EXTRA = {"rma": ["-I", os.path.join(HERE, "..", "examples"),
                      os.path.join(HERE, "..", "examples", "devbuf.c"),
                      "-ldl"]}

# One case per table.  "higher" says whether a larger value is better.
CASES = [
    {"name": "latency", "prog": "latency", "args": [], "unit": "us",
     "higher": False, "title": "latency (one way, us; lower is better)"},
    {"name": "bandwidth", "prog": "bandwidth", "args": [], "unit": "MB/s",
     "higher": True,
     "title": "bandwidth, unidirectional (MB/s = 10^6 B/s; higher is better)"},
    {"name": "bibw", "prog": "bandwidth", "args": ["-b"], "unit": "MB/s",
     "higher": True,
     "title": "bandwidth, bidirectional (MB/s, both directions summed; "
              "higher is better)"},
    {"name": "msgrate", "prog": "msgrate", "args": [], "unit": "msg/s",
     "higher": True, "title": "message rate (messages/s; higher is better)"},
    {"name": "overlap", "prog": "overlap", "args": [], "unit": "%",
     "higher": True,
     "title": "overlap of transfer with compute (%; higher is better)"},
    {"name": "allreduce", "prog": "collective", "args": [], "unit": "us",
     "higher": False,
     "title": "MPI_Allreduce (sum of doubles, us per call; lower is better)"},
    {"name": "alltoallv", "prog": "collective", "args": ["-c", "alltoallv"],
     "unit": "us", "higher": False,
     "title": "MPI_Alltoallv (bytes to each rank, us per call; lower is "
              "better)"},
]


def collective_case(call, what):
    return {"name": call, "prog": "collective", "args": ["-c", call],
            "unit": "us", "higher": False, "optional": True,
            "title": f"{what} (us per call; lower is better)"}


# Run when asked for by name or as the group "collectives" (--cases).
CASES += [
    collective_case("bcast", "MPI_Bcast (bytes from rank 0)"),
    collective_case("reduce", "MPI_Reduce (sum of doubles to rank 0)"),
    collective_case("allgather", "MPI_Allgather (bytes from each rank)"),
    collective_case("alltoall", "MPI_Alltoall (bytes to each rank)"),
    collective_case("reduce_scatter_block",
                    "MPI_Reduce_scatter_block (sum of doubles, bytes each "
                    "rank keeps)"),
    collective_case("barrier", "MPI_Barrier"),
    collective_case("allreduce_init",
                    "MPI_Allreduce_init + MPI_Start/MPI_Wait (persistent, "
                    "MPI-4; sum of doubles)"),
    collective_case("iallreduce",
                    "MPI_Iallreduce + MPI_Wait (sum of doubles)"),
    collective_case("ibcast", "MPI_Ibcast + MPI_Wait (bytes from rank 0)"),
    collective_case("bcast_init",
                    "MPI_Bcast_init + MPI_Start/MPI_Wait (persistent, MPI-4; "
                    "bytes from rank 0)"),
    collective_case("alltoall_init",
                    "MPI_Alltoall_init + MPI_Start/MPI_Wait (persistent, "
                    "MPI-4; bytes to each rank)"),
    collective_case("gather", "MPI_Gather (bytes from each rank to rank 0)"),
    collective_case("scatter", "MPI_Scatter (bytes to each rank from rank 0)"),
    collective_case("gatherv", "MPI_Gatherv (equal counts, as gather)"),
    collective_case("scatterv", "MPI_Scatterv (equal counts, as scatter)"),
    collective_case("allgatherv",
                    "MPI_Allgatherv (equal counts, as allgather)"),
    collective_case("reduce_scatter",
                    "MPI_Reduce_scatter (equal counts, sum of doubles, bytes "
                    "each rank keeps)"),
    collective_case("dup_allreduce",
                    "MPI_Comm_dup + MPI_Allreduce on it + MPI_Comm_free "
                    "(sum of doubles)"),
]


def fileio_case(call, what):
    return {"name": "io_" + call, "prog": "fileio", "args": ["-c", call],
            "unit": "MB/s", "higher": True, "optional": True,
            "title": f"MPI-IO {what} (MB/s of all ranks, open to close; "
                     "higher is better)"}


# Run when asked for by name or as the group "io" (--cases).
CASES += [
    fileio_case("cwrite", "collective write of an interleaved subarray "
                "(bytes per rank)"),
    fileio_case("cread", "collective read of an interleaved subarray "
                "(bytes per rank)"),
    fileio_case("write", "independent contiguous write_at (bytes per rank)"),
    fileio_case("read", "independent contiguous read_at (bytes per rank)"),
]
IO_GROUP = ["io_cwrite", "io_cread", "io_write", "io_read"]
def rma_case(call, what, bandwidth=False):
    if bandwidth:
        return {"name": call, "prog": "rma", "args": ["-c", call],
                "unit": "MB/s", "higher": True, "optional": True,
                "title": f"{what} (MB/s; higher is better)"}
    return {"name": call, "prog": "rma", "args": ["-c", call], "unit": "us",
            "higher": False, "optional": True,
            "title": f"{what} (us per operation; lower is better)"}


# One-sided communication (bench/rma.c), run as the group "rma" (--cases).
CASES += [
    rma_case("put_lock", "MPI_Put, lock/unlock around each"),
    rma_case("get_lock", "MPI_Get, lock/unlock around each"),
    rma_case("put_fence", "MPI_Put + MPI_Win_fence"),
    rma_case("get_fence", "MPI_Get + MPI_Win_fence"),
    rma_case("put_bw_lock", "MPI_Put bandwidth, 32 per lock/unlock", True),
    rma_case("get_bw_lock", "MPI_Get bandwidth, 32 per lock/unlock", True),
    rma_case("put_bw_fence", "MPI_Put bandwidth, 32 per fence", True),
    rma_case("get_bw_fence", "MPI_Get bandwidth, 32 per fence", True),
    rma_case("fetch_and_op", "MPI_Fetch_and_op (long, MPI_SUM) + flush"),
    rma_case("cas", "MPI_Compare_and_swap (long) + flush"),
    rma_case("accumulate", "MPI_Accumulate (long, MPI_SUM) + flush"),
    rma_case("put_pscw", "MPI_Put, post/start/complete/wait around each"),
    rma_case("get_pscw", "MPI_Get, post/start/complete/wait around each"),
    rma_case("put_bw_pscw", "MPI_Put bandwidth, 32 per post/start/complete/wait",
             True),
    rma_case("get_bw_pscw", "MPI_Get bandwidth, 32 per post/start/complete/wait",
             True),
]
RMA_GROUP = [c["name"] for c in CASES if c["prog"] == "rma"]


def rma_device_case(call, what, host_origin, bandwidth=False):
    """A one-sided case on a device window (bench/rma --device): origin
    buffers in device memory (NAME_dev) or in host memory (NAME_h2dev).
    The runtime is --rma-device's (npu by default); run it only with MPIs
    that take device memory (e.g. --impls hcmpi on the test doubles)."""
    c = rma_case(call, what, bandwidth)
    c["name"] = call + ("_h2dev" if host_origin else "_dev")
    c["args"] = ["-c", call, "--device", "npu"] + (
        ["--host-origin"] if host_origin else [])
    origin = "host" if host_origin else "device"
    c["title"] = c["title"].replace(
        " (", f", {origin} origin to a device window (", 1)
    return c


# Device windows (bench/rma --device), run as the group "rma_device".
for host_origin in (False, True):
    CASES += [
        rma_device_case("put_lock", "MPI_Put, lock/unlock around each",
                        host_origin),
        rma_device_case("get_lock", "MPI_Get, lock/unlock around each",
                        host_origin),
        rma_device_case("put_bw_lock", "MPI_Put bandwidth, 32 per lock/unlock",
                        host_origin, True),
        rma_device_case("get_bw_lock", "MPI_Get bandwidth, 32 per lock/unlock",
                        host_origin, True),
        rma_device_case("fetch_and_op",
                        "MPI_Fetch_and_op (long, MPI_SUM) + flush",
                        host_origin),
        rma_device_case("accumulate", "MPI_Accumulate (long, MPI_SUM) + flush",
                        host_origin),
    ]
RMA_DEVICE_GROUP = [c["name"] for c in CASES
                    if c["prog"] == "rma" and c["name"] not in RMA_GROUP]
RMA_LATENCY = [c for c in RMA_GROUP + RMA_DEVICE_GROUP if "_bw_" not in c]
RMA_BANDWIDTH = [c for c in RMA_GROUP + RMA_DEVICE_GROUP if "_bw_" in c]

COLLECTIVE_GROUP = ["allreduce", "bcast", "reduce", "allgather", "alltoall",
                    "alltoallv", "reduce_scatter_block", "barrier",
                    "allreduce_init", "iallreduce", "ibcast", "bcast_init",
                    "alltoall_init", "gather", "scatter", "gatherv",
                    "scatterv", "allgatherv", "reduce_scatter",
                    "dup_allreduce"]

# Per mode: the flags each case adds, and the number of rounds.
MODES = {
    "quick": {
        "rounds": 2,
        "latency": "-s 8,4096,65536,1M -r 5 -i 500 -w 50",
        "bandwidth": "-s 8,65536,1M,4M -r 5 -i 20 -w 2",
        "bibw": "-s 8,65536,1M,4M -r 5 -i 20 -w 2",
        "msgrate": "-s 8 -r 5 -i 100 -w 10",
        "overlap": "-s 64K,1M,4M,16M -r 5 -i 50 -w 1",
        "allreduce": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "alltoallv": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "bcast": "-s 8,1K,64K,1M -r 5 -i 100 -w 5",
        "reduce": "-s 8,1K,64K,1M -r 5 -i 100 -w 5",
        "allgather": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "alltoall": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "reduce_scatter_block": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "barrier": "-s 0 -r 5 -i 1000 -w 50",
        "allreduce_init": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "io_cwrite": "-s 16M,64M -r 3 -w 1",
        "io_cread": "-s 16M,64M -r 3 -w 1",
        "io_write": "-s 16M,64M -r 3 -w 1",
        "io_read": "-s 16M,64M -r 3 -w 1",
        "iallreduce": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "ibcast": "-s 8,1K,64K,1M -r 5 -i 100 -w 5",
        "bcast_init": "-s 8,1K,64K,1M -r 5 -i 100 -w 5",
        "alltoall_init": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "gather": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "scatter": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "gatherv": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "scatterv": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "allgatherv": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "reduce_scatter": "-s 8,1K,64K -r 5 -i 100 -w 5",
        "dup_allreduce": "-s 8 -r 5 -i 50 -w 5",
        "floor": "-s 8,64,4K,64K,1M,4M,16M -r 5 -i 20000",
        **{c: "-s 8 -r 5 -i 500 -w 50" for c in RMA_LATENCY},
        **{c: "-s 4K,64K,1M,4M -r 5 -i 20 -w 2" for c in RMA_BANDWIDTH},
    },
    "full": {
        "rounds": 5,
        "latency": "-m 1:16M -r 11 -i 2000 -w 200",
        "bandwidth": "-m 1:16M -r 11 -i 100 -w 10",
        "bibw": "-m 1:16M -r 11 -i 100 -w 10",
        "msgrate": "-m 1:1K -r 11 -i 500 -w 50",
        "overlap": "-m 64K:16M -r 11 -i 200 -w 1",
        "allreduce": "-m 8:1M -r 11 -i 200 -w 10",
        "alltoallv": "-m 8:256K -r 11 -i 200 -w 10",
        "bcast": "-m 8:4M -r 11 -i 200 -w 10",
        "reduce": "-m 8:4M -r 11 -i 200 -w 10",
        "allgather": "-m 8:1M -r 11 -i 200 -w 10",
        "alltoall": "-m 8:1M -r 11 -i 200 -w 10",
        "reduce_scatter_block": "-m 8:1M -r 11 -i 200 -w 10",
        "barrier": "-s 0 -r 11 -i 2000 -w 100",
        "allreduce_init": "-m 8:1M -r 11 -i 200 -w 10",
        "io_cwrite": "-s 4M,16M,64M -r 7 -w 1",
        "io_cread": "-s 4M,16M,64M -r 7 -w 1",
        "io_write": "-s 4M,16M,64M -r 7 -w 1",
        "io_read": "-s 4M,16M,64M -r 7 -w 1",
        "iallreduce": "-m 8:1M -r 11 -i 200 -w 10",
        "ibcast": "-m 8:4M -r 11 -i 200 -w 10",
        "bcast_init": "-m 8:4M -r 11 -i 200 -w 10",
        "alltoall_init": "-m 8:1M -r 11 -i 200 -w 10",
        "gather": "-m 8:1M -r 11 -i 200 -w 10",
        "scatter": "-m 8:1M -r 11 -i 200 -w 10",
        "gatherv": "-m 8:1M -r 11 -i 200 -w 10",
        "scatterv": "-m 8:1M -r 11 -i 200 -w 10",
        "allgatherv": "-m 8:1M -r 11 -i 200 -w 10",
        "reduce_scatter": "-m 8:1M -r 11 -i 200 -w 10",
        "dup_allreduce": "-s 8,1K -r 11 -i 100 -w 10",
        "floor": "-m 1:16M -r 11 -i 100000",
        **{c: "-s 8 -r 11 -i 2000 -w 200" for c in RMA_LATENCY},
        **{c: "-m 4K:4M -r 11 -i 100 -w 10" for c in RMA_BANDWIDTH},
    },
    # With more ranks than CPUs a busy-polling MPI pays a scheduler tick
    # per hand-off (milliseconds), so oversubscribed runs stay tiny.
    "oversubscribed": {
        "latency": "-s 8,65536 -r 3 -i 50 -w 5",
        "bandwidth": "-s 65536,1M -r 3 -i 4 -w 1",
        "bibw": "-s 65536,1M -r 3 -i 4 -w 1",
        "msgrate": "-s 8 -r 3 -i 10 -w 1",
        "overlap": "-s 1M -r 3 -i 2 -w 1",
        "allreduce": "-s 8,1K -r 3 -i 20 -w 2",
        "alltoallv": "-s 8,1K -r 3 -i 20 -w 2",
        "bcast": "-s 8,64K -r 3 -i 20 -w 2",
        "reduce": "-s 8,64K -r 3 -i 20 -w 2",
        "allgather": "-s 8,1K -r 3 -i 20 -w 2",
        "alltoall": "-s 8,1K -r 3 -i 20 -w 2",
        "reduce_scatter_block": "-s 8,1K -r 3 -i 20 -w 2",
        "barrier": "-s 0 -r 3 -i 50 -w 5",
        "allreduce_init": "-s 8,1K -r 3 -i 20 -w 2",
        "io_cwrite": "-s 4M -r 3 -w 0",
        "io_cread": "-s 4M -r 3 -w 0",
        "io_write": "-s 4M -r 3 -w 0",
        "io_read": "-s 4M -r 3 -w 0",
        "iallreduce": "-s 8,1K -r 3 -i 20 -w 2",
        "ibcast": "-s 8,64K -r 3 -i 20 -w 2",
        "bcast_init": "-s 8,64K -r 3 -i 20 -w 2",
        "alltoall_init": "-s 8,1K -r 3 -i 20 -w 2",
        "gather": "-s 8,1K -r 3 -i 20 -w 2",
        "scatter": "-s 8,1K -r 3 -i 20 -w 2",
        "gatherv": "-s 8,1K -r 3 -i 20 -w 2",
        "scatterv": "-s 8,1K -r 3 -i 20 -w 2",
        "allgatherv": "-s 8,1K -r 3 -i 20 -w 2",
        "reduce_scatter": "-s 8,1K -r 3 -i 20 -w 2",
        "dup_allreduce": "-s 8 -r 3 -i 5 -w 2",
        **{c: "-s 8 -r 3 -i 50 -w 5" for c in RMA_LATENCY},
        **{c: "-s 64K,1M -r 3 -i 4 -w 1" for c in RMA_BANDWIDTH},
    },
}

IMPL_ORDER = ["hcmpi", "mpich", "openmpi"]
IMPL_TITLE = {"hcmpi": "hcmpi", "mpich": "MPICH", "openmpi": "Open MPI"}


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "n/a"


def cpu_pressure():
    """The 'some avg10' of /proc/pressure/cpu, or None."""
    try:
        with open("/proc/pressure/cpu") as f:
            m = re.search(r"avg10=([0-9.]+)", f.readline())
            return m.group(1) if m else None
    except OSError:
        return None


def executable(path):
    if not path:
        return None
    if os.sep in path:
        return path if os.access(path, os.X_OK) else None
    return shutil.which(path)


def define_impls(args):
    """Returns {impl: {"cc": path, "run": [argv prefix]}} and skip notes."""
    want = [i.strip() for i in args.impls.split(",") if i.strip()]
    build = args.build
    cand = {
        "hcmpi": (args.hcmpicc or os.path.join(build, "tools", "hcmpicc-build"),
                  args.hcmpirun or os.path.join(build, "tools", "hcmpirun")),
        "mpich": ("mpicc.mpich", "mpiexec.mpich"),
        "openmpi": ("mpicc.openmpi", "mpirun.openmpi"),
    }
    impls, notes = {}, []
    for name in IMPL_ORDER:
        if name not in want:
            continue
        cc, run = cand[name]
        cc_p, run_p = executable(cc), executable(run)
        if not cc_p or not run_p:
            missing = cc if not cc_p else run
            notes.append(f"{IMPL_TITLE[name]} skipped: {missing} not found "
                         "or not executable")
            continue
        impls[name] = {"cc": cc_p, "run": run_p}
    return impls, notes


def launch_cmd(impl, info, nranks, prog, prog_args, wrap=()):
    """The launcher's command line; wrap (a command and its arguments, e.g.
    chrt's) goes before the program, so each rank runs under it."""
    prog = list(wrap) + [prog]
    if impl == "openmpi":
        cmd = [info["run"], "--allow-run-as-root", "-n", str(nranks)]
        if nranks > (os.cpu_count() or 1):
            cmd.append("--oversubscribe")
    else:
        cmd = [info["run"], "-n", str(nranks)]
    return cmd + prog + prog_args


def build_all(impls, bindir, cflags, log, notes):
    """Compiles every program with every MPI; returns {(impl, prog): path}."""
    built = {}
    srcs = [os.path.join(HERE, c) for c in COMMON]
    for impl, info in impls.items():
        os.makedirs(os.path.join(bindir, impl), exist_ok=True)
        for prog in SOURCES:
            out = os.path.join(bindir, impl, prog)
            cmd = ([info["cc"]] + cflags + ["-I", HERE,
                   os.path.join(HERE, prog + ".c")] + srcs +
                   PROG_EXTRA.get(prog, []) + ["-o", out])
            log.write("$ " + shlex.join(cmd) + "\n")
            res = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            log.write(res.stdout)
            if res.returncode == 0:
                built[(impl, prog)] = out
            else:
                notes.append(f"{IMPL_TITLE[impl]}: building {prog} failed "
                             f"(see build.log)")
    build_floor(bindir, cflags, log, notes, built)
    return built


def build_floor(bindir, cflags, log, notes, built):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not cc:
        notes.append("floor skipped: no C compiler")
        return
    os.makedirs(os.path.join(bindir, "floor"), exist_ok=True)
    out = os.path.join(bindir, "floor", FLOOR_SOURCE)
    cmd = [cc] + cflags + [os.path.join(HERE, FLOOR_SOURCE + ".c"), "-o", out]
    log.write("$ " + shlex.join(cmd) + "\n")
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    log.write(res.stdout)
    if res.returncode == 0:
        built[("floor", FLOOR_SOURCE)] = out
    else:
        notes.append("floor: build failed (see build.log)")


def parse_line(line):
    return dict(tok.split("=", 1) for tok in line.split() if "=" in tok)


def median_key(fields):
    for k in fields:
        if k.startswith("median_"):
            return k
    return None


def case_name(fields):
    if fields.get("bench") == "bandwidth" and fields.get("mode") == "bi":
        return "bibw"
    return fields.get("bench")


FLOOR_CASES = {"floor_pp": "us", "floor_memcpy": "MB/s", "floor_cma": "MB/s"}

# A VM's two vCPUs sit on cores near each other or far apart, and the host
# moves them between runs: on the AMD EPYC of the fifteenth session a
# cache line crossed one way in ~0.05 us near and ~0.2 us far, and every
# MPI's 8-byte message rate halved with it (rate24 in bench/NOTES.md).
# A ratio between runs that met different placements measures the host,
# so each 2-rank run sits between two short ping-pong probes, and runs
# whose probes agree are also compared within their placement.  A probe
# reads its fastest of nine short reps: a rep the scheduler interrupted
# says nothing about where the vCPUs are.
PLACEMENT_PROBE_FLAGS = "-s 64 -r 9 -i 4000"
PLACEMENT_NEAR_US = 0.12
PLACEMENTS = ("near", "far")


class Session:
    """Runs the cases and keeps every measured value."""

    def __init__(self, args, impls, built, raw, notes):
        self.args, self.impls, self.built = args, impls, built
        self.raw, self.notes = raw, notes
        # (case, ranks, size, impl) -> list of per-run medians
        self.values = {}
        # (case, ranks, impl) -> "timeout" / "fail" when a run broke
        self.broken = {}
        # (case, ranks, size, impl, placement) -> list of per-run medians
        self.placed = {}

    def probe_placement(self):
        """The one-way cache-line time between the two vCPUs, or None."""
        prog = self.built.get(("floor", FLOOR_SOURCE))
        if not prog:
            return None
        try:
            res = subprocess.run(shlex.split(self.args.wrap) + [prog] +
                                 shlex.split(PLACEMENT_PROBE_FLAGS),
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True,
                                 timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return None
        for line in res.stdout.splitlines():
            fields = parse_line(line)
            if fields.get("bench") == "floor_pp":
                try:
                    return float(fields["min_us"])
                except (KeyError, ValueError):
                    return None
        return None

    def placement_of(self, before, after):
        if before is None or after is None:
            return None
        near = [v < PLACEMENT_NEAR_US for v in (before, after)]
        if all(near):
            return "near"
        return "far" if not any(near) else "mixed"

    def run_one(self, case, impl, nranks, rnd, flags):
        prog = self.built.get((impl, case["prog"]))
        if not prog:
            return
        # Real-time ranks would starve each other on a crowded node.
        wrap = (shlex.split(self.args.wrap)
                if nranks <= (os.cpu_count() or 1) else [])
        cmd = launch_cmd(impl, self.impls[impl], nranks, prog,
                         case["args"] + shlex.split(flags), wrap)
        tag = (f"impl={impl} case={case['name']} round={rnd} "
               f"load1={loadavg().split()[0]}")
        psi = cpu_pressure()
        if psi is not None:
            tag += f" cpu_some_avg10={psi}"
        probing = self.args.placement and nranks == 2
        before = self.probe_placement() if probing else None
        self.raw.write(f"# {tag} cmd={shlex.join(cmd)}\n")
        t0 = time.monotonic()
        try:
            res = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True,
                                 timeout=self.args.timeout)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout or ""
            if isinstance(out, bytes):
                out = out.decode(errors="replace")
            self.record(case, impl, nranks, out, tag)
            self.broken[(case["name"], nranks, impl)] = "timeout"
            self.raw.write(f"# TIMEOUT after {self.args.timeout}s\n")
            return
        placement = None
        if probing:
            after = self.probe_placement()
            placement = self.placement_of(before, after)
            tag += f" placement={placement} probe_us={before},{after}"
        self.record(case, impl, nranks, res.stdout, tag, placement)
        self.raw.write(f"# rc={res.returncode} "
                       f"wall_s={time.monotonic() - t0:.2f}\n")
        if res.returncode != 0:
            self.broken[(case["name"], nranks, impl)] = "fail"

    def record(self, case, impl, nranks, out, tag, placement=None):
        for line in out.splitlines():
            if not line.startswith("bench="):
                if line.strip() and not line.startswith("#"):
                    self.raw.write("# | " + line + "\n")
                continue
            self.raw.write(f"{line} {tag}\n")
            fields = parse_line(line)
            key = median_key(fields)
            name = case_name(fields)
            if key is None or (name != case["name"] and
                               not (case["name"] == "floor" and
                                    name in FLOOR_CASES)):
                continue
            try:
                val = float(fields[key])
                size = int(fields["size"])
            except (KeyError, ValueError):
                continue
            self.values.setdefault(
                (name, nranks, size, impl), []).append(val)
            if placement in PLACEMENTS:
                self.placed.setdefault(
                    (name, nranks, size, impl, placement), []).append(val)
        self.raw.flush()

    def run_floor(self, rnd, flags):
        """The physical floors, once per round, between the MPI runs."""
        prog = self.built.get(("floor", FLOOR_SOURCE))
        if not prog:
            return
        case = {"name": "floor"}
        cmd = [prog] + shlex.split(flags)
        tag = f"impl=floor case=floor round={rnd} load1={loadavg().split()[0]}"
        self.raw.write(f"# {tag} cmd={shlex.join(cmd)}\n")
        try:
            res = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True,
                                 timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            self.raw.write(f"# TIMEOUT after {self.args.timeout}s\n")
            return
        self.record(case, "floor", 1, res.stdout, tag)

    def run(self, cases, ranks_list, rounds, mode):
        order = [i for i in IMPL_ORDER if i in self.impls]
        ncpu = os.cpu_count() or 1
        for rnd in range(rounds):
            if self.args.floor:
                self.run_floor(rnd, MODES[mode]["floor"])
            shift = rnd % max(1, len(order))
            rotated = order[shift:] + order[:shift]
            for nranks in ranks_list:
                table = MODES["oversubscribed"] if nranks > ncpu else MODES[mode]
                for case in cases:
                    for impl in rotated:
                        self.run_one(case, impl, nranks, rnd,
                                     table[case["name"]])
            print(f"  round {rnd + 1}/{rounds} done, load {loadavg()}",
                  file=sys.stderr)


def fmt(v):
    if v is None:
        return "–"
    if v >= 1e4:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v == 0:
        return "0"
    return f"{v:#.3g}"


def size_label(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.2f}"


def table_for(session, case, nranks):
    sizes = sorted({k[2] for k in session.values
                    if k[0] == case["name"] and k[1] == nranks})
    lines = [f"### {case['title']}, {nranks} ranks", ""]
    notes = []
    for impl in IMPL_ORDER:
        state = session.broken.get((case["name"], nranks, impl))
        if state:
            notes.append(f"{IMPL_TITLE[impl]}: at least one run ended in "
                         f"{state}; its column uses the runs that finished")
    if not sizes:
        return lines + ["(no results)", ""] + notes
    lines.append("| size | hcmpi | MPICH | Open MPI | hcmpi/MPICH | "
                 "hcmpi/OMPI | hcmpi/best | runs |")
    lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in sizes:
        med = {}
        runs = []
        for impl in IMPL_ORDER:
            vals = session.values.get((case["name"], nranks, size, impl))
            med[impl] = statistics.median(vals) if vals else None
            runs.append(str(len(vals)) if vals else "0")
        lines.append(
            f"| {size_label(size)} | {fmt(med['hcmpi'])} | "
            f"{fmt(med['mpich'])} | {fmt(med['openmpi'])} | "
            f"{ratio(med['hcmpi'], med['mpich'])} | "
            f"{ratio(med['hcmpi'], med['openmpi'])} | "
            f"{ratio(med['hcmpi'], best_of(case, med))} | {'/'.join(runs)} |")
    lines += [""] + placement_lines(session, case, nranks, sizes)
    return lines + notes + ([""] if notes else [])


def placement_lines(session, case, nranks, sizes):
    """The same cells within each placement the probes agreed on, when
    the runs met more than one; a line saying which, when they met one."""
    seen = {k[4] for k in session.placed
            if k[0] == case["name"] and k[1] == nranks}
    if not seen:
        return []
    if len(seen) == 1:
        return [f"(every probed run in the {seen.pop()} placement)", ""]
    lines = [f"By the vCPUs' placement (one-way cache-line probe before "
             f"and after each run: near below {PLACEMENT_NEAR_US} us; runs "
             f"whose probes disagree left out):", "",
             "| size | placement | hcmpi | MPICH | Open MPI | hcmpi/best "
             "| runs |", "|---:|---|---:|---:|---:|---:|---:|"]
    for size in sizes:
        for where in PLACEMENTS:
            med, runs = {}, []
            for impl in IMPL_ORDER:
                vals = session.placed.get((case["name"], nranks, size, impl,
                                           where))
                med[impl] = statistics.median(vals) if vals else None
                runs.append(str(len(vals)) if vals else "0")
            if all(v is None for v in med.values()):
                continue
            lines.append(
                f"| {size_label(size)} | {where} | {fmt(med['hcmpi'])} | "
                f"{fmt(med['mpich'])} | {fmt(med['openmpi'])} | "
                f"{ratio(med['hcmpi'], best_of(case, med))} | "
                f"{'/'.join(runs)} |")
    return lines + [""]


def best_of(case, med):
    """The better of MPICH and Open MPI (what the issue's targets use)."""
    vals = [v for v in (med["mpich"], med["openmpi"]) if v is not None]
    if not vals:
        return None
    return max(vals) if case["higher"] else min(vals)


def floor_median(session, name, size):
    vals = session.values.get((name, 1, size, "floor"))
    return statistics.median(vals) if vals else None


def floor_table(session):
    lines = ["### physical floors (same session, no MPI)", ""]
    pp = floor_median(session, "floor_pp", 64)
    if pp is None:
        return lines + ["(no results)", ""]
    lines += [f"- cache-line ping-pong between two processes, one way: "
              f"{fmt(pp)} us", "",
              "| size | memcpy, one core (MB/s) | CMA process_vm_readv "
              "(MB/s) |", "|---:|---:|---:|"]
    sizes = sorted({k[2] for k in session.values
                    if k[0] == "floor_memcpy" and k[3] == "floor"})
    for size in sizes:
        lines.append(f"| {size_label(size)} | "
                     f"{fmt(floor_median(session, 'floor_memcpy', size))} | "
                     f"{fmt(floor_median(session, 'floor_cma', size))} |")
    return lines + [""]


def write_csv(session, path):
    """One row per (case, ranks, size, MPI): the median over runs and the
    per-run medians it came from."""
    with open(path, "w") as f:
        f.write("case,ranks,size,impl,median,runs,values\n")
        for key in sorted(session.values):
            case, nranks, size, impl = key
            vals = session.values[key]
            f.write(f"{case},{nranks},{size},{impl},"
                    f"{statistics.median(vals):.6g},{len(vals)},"
                    f"{' '.join(f'{v:.6g}' for v in vals)}\n")


# --plot-from's exit status when no case has two sizes at that rank count.
PLOT_NOTHING = 3


def write_plot(session, path, nranks, notes, csv_path):
    """Every case measured at nranks against size (plot_values); False
    when none was measured at two sizes.  Needs python3-matplotlib, in
    this interpreter or in the system's /usr/bin/python3 (a pyenv python3
    often lacks it)."""
    try:
        import matplotlib
    except ImportError:
        system = "/usr/bin/python3"
        if os.access(system, os.X_OK) and \
                os.path.realpath(system) != os.path.realpath(sys.executable):
            res = subprocess.run([system, os.path.abspath(__file__),
                                  "--plot-from", csv_path, path, str(nranks)],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            if res.returncode in (0, PLOT_NOTHING):
                return res.returncode == 0
        notes.append("plot skipped: python3-matplotlib is not installed")
        return False
    return plot_values(session.values, path, nranks)


def plot_from_csv(csv_path, path, nranks):
    values = {}
    with open(csv_path) as f:
        next(f)
        for line in f:
            case, ranks, size, impl, _, _, vals = line.rstrip("\n").split(",")
            values[(case, int(ranks), int(size), impl)] = \
                [float(v) for v in vals.split()]
    return plot_values(values, path, nranks)


def plot_values(values, path, nranks):
    """One panel per case measured at nranks and at two sizes or more
    (time, bandwidth or rate against size, a line per MPI), in the order
    of CASES; latency and bandwidth carry the physical floors."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    class _S:  # floor_median reads .values
        pass
    session = _S()
    session.values = values
    panels = []
    for case in CASES:
        sizes = {k[2] for k in values
                 if k[0] == case["name"] and k[1] == nranks and k[2] > 0}
        if len(sizes) >= 2:
            panels.append(case)
    if not panels:
        return False
    ncols = min(3, len(panels))
    nrows = (len(panels) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.5 * ncols, 4.2 * nrows),
                             squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for case, ax in zip(panels, axes.flat):
        name = case["name"]
        for impl in IMPL_ORDER:
            pts = sorted((k[2], statistics.median(v))
                         for k, v in values.items()
                         if k[0] == name and k[1] == nranks and k[3] == impl
                         and k[2] > 0)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        label=IMPL_TITLE[impl])
        if name == "latency":
            pp = floor_median(session, "floor_pp", 64)
            if pp is not None:
                ax.axhline(pp, color="gray", linestyle=":",
                           label="floor: cache-line ping-pong")
        elif name == "bandwidth":
            for floor, label in (("floor_memcpy", "floor: memcpy, one core"),
                                 ("floor_cma", "floor: CMA read")):
                pts = sorted((k[2], statistics.median(v))
                             for k, v in values.items()
                             if k[0] == floor and k[3] == "floor")
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            linestyle="--", label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("bytes")
        ax.set_ylabel(case["unit"])
        ax.set_title(case["title"].split(" (")[0], fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"hcmpi vs MPICH vs Open MPI, {nranks} ranks, "
                 f"{os.cpu_count()} CPUs")
    fig.tight_layout(rect=(0, 0, 1, 0.97))  # room for the suptitle
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=["quick", "full"], default="quick")
    p.add_argument("--quick", dest="mode", action="store_const", const="quick")
    p.add_argument("--full", dest="mode", action="store_const", const="full")
    p.add_argument("--ranks", default="2",
                   help="comma-separated rank counts, e.g. 2,8")
    p.add_argument("--rounds", type=int, default=None,
                   help="interleaved rounds (default: quick 2, full 5)")
    p.add_argument("--impls", default="hcmpi,mpich,openmpi")
    p.add_argument("--cases",
                   default=",".join(c["name"] for c in CASES
                                    if not c.get("optional")),
                   help="comma-separated cases; \"collectives\" names every "
                        "collective case, \"io\" every MPI-IO case, "
                        "\"rma\" every one-sided case, \"rma_device\" "
                        "the one-sided cases on device windows")
    p.add_argument("--rma-device", choices=["npu", "cuda"], default="npu",
                   help="the runtime of the rma_device cases' memory "
                        "(bench/rma --device)")
    p.add_argument("--build", default=os.environ.get("BUILD", os.getcwd()),
                   help="hcmpi build tree (default $BUILD or the cwd)")
    p.add_argument("--hcmpicc", default=os.environ.get("HCMPICC"),
                   help="hcmpi compile wrapper "
                        "(default $HCMPICC or BUILD/tools/hcmpicc-build)")
    p.add_argument("--hcmpirun", default=os.environ.get("HCMPIRUN"),
                   help="hcmpi launcher "
                        "(default $HCMPIRUN or BUILD/tools/hcmpirun)")
    p.add_argument("--results", default=None,
                   help="results directory (default "
                        "BUILD/bench-results/<timestamp>)")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds per run (default: quick 60, full 300)")
    p.add_argument("--cflags", default=os.environ.get("BENCH_CFLAGS", "-O2"))
    p.add_argument("--flags", action="append", default=[],
                   metavar="CASE=FLAGS",
                   help="replace a case's benchmark flags for this run "
                        "(repeatable), e.g. "
                        "--flags 'bandwidth=-s 1M,4M,16M -r 11 -i 20 -w 2'")
    p.add_argument("--no-floor", dest="floor", action="store_false",
                   help="skip the physical floors (memcpy, CMA, ping-pong)")
    p.add_argument("--no-placement", dest="placement", action="store_false",
                   help="no placement probes around the 2-rank runs")
    p.add_argument("--no-plot", dest="plot", action="store_false",
                   help="skip plot.png")
    p.add_argument("--wrap", default="",
                   help="a command each rank and placement probe runs "
                        "under, e.g. 'chrt -f 10': real-time ranks keep "
                        "other jobs on the machine off their cores (the "
                        "kernel's real-time throttle still takes 5 %% of "
                        "each second); not applied to runs with more "
                        "ranks than CPUs")
    return p.parse_args()


def write_env(path, args, impls, start_load):
    with open(path, "w") as f:
        f.write(f"date: {datetime.datetime.now().isoformat()}\n")
        f.write(f"host: {os.uname().nodename} cpus: {os.cpu_count()}\n")
        f.write(f"mode: {args.mode} ranks: {args.ranks} cflags: "
                f"{args.cflags}\n")
        f.write(f"load average at start: {start_load}\n")
        if args.wrap:
            f.write(f"wrap: {args.wrap}\n")
        for impl, info in impls.items():
            f.write(f"{impl}: cc={info['cc']} run={info['run']}\n")


def main():
    args = parse_args()
    mode = MODES[args.mode]
    for item in args.flags:
        name, sep, flags = item.partition("=")
        if not sep:
            print(f"--flags {item!r}: want CASE=FLAGS", file=sys.stderr)
            return 2
        # Every table: runs with more ranks than CPUs use the
        # oversubscribed one, and the flags are for this run whatever it is.
        mode[name.strip()] = flags
        MODES["oversubscribed"][name.strip()] = flags
    rounds = args.rounds or mode["rounds"]
    if args.timeout is None:
        args.timeout = 60.0 if args.mode == "quick" else 300.0
    args.build = os.path.abspath(args.build)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    resdir = args.results or os.path.join(args.build, "bench-results", stamp)
    os.makedirs(resdir, exist_ok=True)
    ranks_list = [int(r) for r in args.ranks.split(",") if r.strip()]
    wanted = args.cases.split(",")
    if "collectives" in wanted:
        wanted += COLLECTIVE_GROUP
    if "io" in wanted:
        wanted += IO_GROUP
    if "rma" in wanted:
        wanted += RMA_GROUP
    if "rma_device" in wanted:
        wanted += RMA_DEVICE_GROUP
    cases = [c for c in CASES if c["name"] in wanted]
    for c in cases:
        if c["name"] in RMA_DEVICE_GROUP:
            c["args"] = [args.rma_device if a == "npu" else a
                         for a in c["args"]]

    impls, notes = define_impls(args)
    for n in notes:
        print("note: " + n, file=sys.stderr)
    if not impls:
        print("no MPI implementation found; nothing to run", file=sys.stderr)
        return 1
    start_load = loadavg()
    write_env(os.path.join(resdir, "env.txt"), args, impls, start_load)
    with open(os.path.join(resdir, "build.log"), "w") as log:
        built = build_all(impls, os.path.join(resdir, "bin"),
                          shlex.split(args.cflags), log, notes)
    print(f"running {args.mode} mode, {rounds} rounds, ranks {args.ranks}, "
          f"load {start_load}", file=sys.stderr)
    with open(os.path.join(resdir, "raw.txt"), "w") as raw:
        session = Session(args, impls, built, raw, notes)
        session.run(cases, ranks_list, rounds, args.mode)
    end_load = loadavg()

    out = [f"# hcmpi vs MPICH vs Open MPI ({args.mode} mode)", "",
           f"- date: {stamp}, host: {os.uname().nodename}, "
           f"cpus: {os.cpu_count()}",
           f"- load average (1/5/15 min) at start: {start_load}; "
           f"at end: {end_load}",
           f"- rounds: {rounds} (interleaved, MPI order rotated each round); "
           f"each cell is the median over rounds of each run's median",
           "- ratios are hcmpi / other: below 1 is better for latency, "
           "above 1 is better for bandwidth, message rate and overlap",
           "- runs column: runs that produced a value, hcmpi/MPICH/Open MPI",
           ""]
    if args.wrap:
        out[-1:-1] = [f"- every run of no more ranks than CPUs, and every "
                      f"placement probe, under `{args.wrap}`"]
    out += [f"- note: {n}" for n in notes] + ([""] if notes else [])
    if args.floor:
        out += floor_table(session)
    for nranks in ranks_list:
        for case in cases:
            out += table_for(session, case, nranks)
    write_csv(session, os.path.join(resdir, "results.csv"))
    plot_notes = []
    plots = []
    for i, nranks in enumerate(ranks_list if args.plot else []):
        name = "plot.png" if i == 0 else f"plot-{nranks}.png"
        if write_plot(session, os.path.join(resdir, name), nranks,
                      plot_notes, os.path.join(resdir, "results.csv")):
            plots.append(f"`{name}` ({nranks} ranks)")
        if plot_notes:
            break
    if plots:
        out += [f"Plots: {', '.join(plots)}; CSV: `results.csv`.", ""]
    out += [f"- note: {n}" for n in plot_notes]
    text = "\n".join(out) + "\n"
    with open(os.path.join(resdir, "table.md"), "w") as f:
        f.write(text)
    print(text)
    print(f"results in {resdir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--plot-from":
        sys.exit(0 if plot_from_csv(sys.argv[2], sys.argv[3],
                                    int(sys.argv[4])) else PLOT_NOTHING)
    sys.exit(main())
