#!/usr/bin/env python3
"""Checks for tests/tools/trace.sh on what hcmpi-trace wrote.

  trace_check.py counts DIR          trace_counts: exact MPI and engine counts
  trace_check.py moe DIR OUTPUT      moe_dispatch: the calls each rank says it
                                     made (its "rank R calls:" lines) equal
                                     the trace's, engine sends pair with
                                     receives
  trace_check.py paths DIR P...      paths-bytes.csv: bytes on each path P,
                                     none on the device paths not named
  trace_check.py dom DOM DIR         the page Chromium rendered (--dump-dom)
                                     drew the heatmap, the timeline and the
                                     per-path table of DIR's trace
  trace_check.py png FILE W H MIN    FILE is a W x H PNG of at least MIN
                                     distinct colours (not a blank page)
Prints one FAIL line per problem and exits 1 when there is one.
"""
import json
import re
import struct
import sys
import zlib

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DEVICE_PATHS = ("ipc", "hccl", "staging")


def events(d):
    return json.load(open(d + "/trace.json"))["traceEvents"]


def count(ev, name, pid=None):
    return sum(1 for e in ev if e.get("ph") == "X" and e["name"] == name
               and (pid is None or e["pid"] == pid))


def engine_pairs(ev):
    """Problems with engine sends, receives and the flows between them."""
    sends, recvs = count(ev, "send"), count(ev, "recv")
    flows_s = sum(1 for e in ev if e.get("ph") == "s")
    flows_f = sum(1 for e in ev if e.get("ph") == "f")
    if sends != recvs or flows_s != sends or flows_f != sends:
        return [f"engine sends {sends}, recvs {recvs}, flows {flows_s}/{flows_f}"]
    return []


def read_csv(path):
    rows = [line.strip().split(",") for line in open(path)]
    return rows[0], rows[1:]


def check_counts(d):
    ev = events(d)
    n, K, M = 4, 5, 3
    # Per rank: K Send/Recv and M Isend/Irecv per peer, one Waitall and one
    # Barrier; then requests_once and collectives_once.
    want = {"MPI_Send": K * n, "MPI_Recv": (K + 2) * n,
            "MPI_Isend": M * n * (n - 1) + 2 * n,
            "MPI_Irecv": M * n * (n - 1) + 2 * n, "MPI_Barrier": n,
            "MPI_Waitall": 4 * n, "MPI_Wait": 2 * n, "MPI_Start": 2 * n}
    for name in ("Ssend", "Bsend", "Waitany", "Waitsome", "Test", "Testall",
                 "Testany", "Testsome", "Probe", "Iprobe", "Startall", "Scan",
                 "Exscan", "Reduce_scatter", "Reduce_scatter_block", "Gatherv",
                 "Scatterv", "Allgatherv", "Alltoallv", "Alltoallw", "Ibarrier",
                 "Ibcast", "Ireduce", "Iallreduce", "Igather", "Igatherv",
                 "Iscatter", "Iscatterv", "Iallgather", "Iallgatherv",
                 "Ialltoall", "Ialltoallv", "Ialltoallw", "Ireduce_scatter",
                 "Ireduce_scatter_block", "Iscan", "Iexscan"):
        want["MPI_" + name] = n
    names = {e["name"] for e in ev if e.get("ph") == "X"}
    bad = [f"traced under no known name: {sorted(n for n in names if n.startswith('call'))}"
           ] if any(n.startswith("call") for n in names) else []
    extra = sorted(n for n in names if n.startswith("MPI_") and n not in want)
    if extra:
        bad.append(f"calls the program did not make: {extra}")
    bad += [f"{k}: {count(ev, k)} != {v}" for k, v in want.items()
            if count(ev, k) != v]
    # Alltoallv/w record the bytes sent: one int to each of n ranks.
    for k in ("MPI_Alltoallv", "MPI_Alltoallw", "MPI_Ialltoallw"):
        b = {e["args"]["bytes"] for e in ev if e.get("name") == k}
        if b != {4 * n}:
            bad.append(f"{k} bytes {sorted(b)} != {{{4 * n}}}")
    bad += engine_pairs(ev)
    if count(ev, "send") < K * n + M * n * (n - 1):
        bad.append(f"only {count(ev, 'send')} engine sends")
    _, rows = read_csv(d + "/matrix-messages.csv")
    for i, row in enumerate(rows):
        right = (i + 1) % n
        for j in range(n):
            exp = (K if j == right else 0) + (M if j != i else 0)
            # collectives (the barrier) add messages of their own: at least exp
            if int(row[j + 1]) < exp:
                bad.append(f"matrix {i}->{j}: {row[j + 1]} < {exp}")
    _, b = read_csv(d + "/matrix-bytes.csv")
    if int(b[0][2]) < K * 256 + M * 4096:
        bad.append(f"bytes 0->1 {b[0][2]} < {K * 256 + M * 4096}")
    return bad


def check_moe(d, output):
    """Every rank's own count of each call equals the trace's, exactly."""
    ev = events(d)
    said = {}
    for line in open(output):
        m = re.match(r"moe_dispatch: rank (\d+) calls: (.*)$", line.strip())
        if m:
            pairs = m.group(2).split()
            said[int(m.group(1))] = {pairs[i]: int(pairs[i + 1])
                                     for i in range(0, len(pairs), 2)}
    ranks = {e["pid"] for e in ev if e.get("ph") == "M"}
    bad = [] if said and set(said) == ranks else [
        f"ranks that printed calls {sorted(said)} != traced ranks {sorted(ranks)}"]
    for rank, calls in sorted(said.items()):
        for name, n in calls.items():
            if count(ev, name, rank) != n:
                bad.append(f"rank {rank}: {count(ev, name, rank)} {name} traced, "
                           f"the program made {n}")
        # Every MPI call the rank made is one it printed: nothing else.
        traced = sum(1 for e in ev if e.get("ph") == "X" and e["pid"] == rank
                     and e["name"].startswith("MPI_"))
        if traced != sum(calls.values()):
            bad.append(f"rank {rank}: {traced} MPI calls traced, "
                       f"{sum(calls.values())} made")
    bad += engine_pairs(ev)
    isends = sum(c.get("MPI_Isend", 0) for c in said.values())
    if count(ev, "send") < isends:
        bad.append(f"{count(ev, 'send')} engine sends < {isends} MPI_Isend")
    print(f"moe_dispatch: {sum(sum(c.values()) for c in said.values())} MPI calls "
          f"on {len(said)} ranks as the program counted; "
          f"{count(ev, 'send')} engine messages paired")
    return bad


def check_paths(d, used):
    head, rows = read_csv(d + "/paths-bytes.csv")
    bad = [f"paths-bytes.csv lacks column {p}" for p in
           ("shm", "tcp", "verbs") + DEVICE_PATHS if p not in head]
    if bad:
        return bad
    total = {p: sum(int(r[head.index(p)]) for r in rows) for p in head[1:]}
    for p in used:
        if total.get(p, 0) == 0:
            bad.append(f"no bytes on path {p}: {total}")
    for p in DEVICE_PATHS:
        if p not in used and total[p] != 0:
            bad.append(f"{total[p]} bytes on {p}, which was not used")
    if not bad:
        print("paths:", ", ".join(f"{p} {total[p]} B" for p in used))
    return bad


def check_dom(dom_file, d):
    dom = open(dom_file).read()
    ev = events(d)
    bad = [] if 'data-rendered="yes"' in dom else ["report script did not finish"]
    ranks = len({e["pid"] for e in ev if e.get("ph") == "M"})
    cells = dom.count('class="cell"')
    if cells != ranks * ranks:
        bad.append(f"heatmap has {cells} cells, not {ranks * ranks}")
    calls = sum(1 for e in ev if e.get("ph") == "X" and e["name"].startswith("MPI_"))
    drawn = dom.count('class="call"')
    if drawn != calls:
        bad.append(f"timeline drew {drawn} calls of {calls}")
    table = re.search(r'<table id="paths">(.*?)</table>', dom, re.S)
    heads = re.findall(r"<th>([^<]*)</th>", table.group(1)) if table else []
    for p in ("shm", "tcp", "verbs") + DEVICE_PATHS:
        if p not in heads:
            bad.append(f"bytes-by-path table lacks {p} (has {heads})")
    return bad


def png_rows(data):
    """(width, height, rows of pixels as bytes, bytes per pixel) of an 8-bit,
    non-interlaced PNG, unfiltered."""
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(ctype)  # 3: palette indices
    if depth != 8 or bpp is None or interlace:
        raise ValueError(f"PNG depth {depth}, colour type {ctype}, interlace {interlace}")
    idat, off = b"", 8
    while off < len(data):
        n, kind = struct.unpack(">I4s", data[off:off + 8])
        if kind == b"IDAT":
            idat += data[off + 8:off + 8 + n]
        off += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def check_png(path, want_w, want_h, min_colours):
    data = open(path, "rb").read()
    if data[:8] != PNG_MAGIC or data[12:16] != b"IHDR":
        return [f"{path}: not a PNG"]
    w, h, rows, bpp = png_rows(data)
    if (w, h) != (want_w, want_h):
        return [f"{path}: {w}x{h}, not {want_w}x{want_h}"]
    colours = {row[i:i + bpp] for row in rows for i in range(0, len(row), bpp)}
    if len(colours) < min_colours:
        return [f"{path}: {len(colours)} distinct colours: blank?"]
    print(f"{path}: {w}x{h} PNG, {len(colours)} colours")
    return []


def main(argv):
    what, args = argv[1], argv[2:]
    if what == "counts":
        bad = check_counts(args[0])
    elif what == "moe":
        bad = check_moe(args[0], args[1])
    elif what == "paths":
        bad = check_paths(args[0], args[1:])
    elif what == "dom":
        bad = check_dom(args[0], args[1])
    elif what == "png":
        bad = check_png(args[0], int(args[1]), int(args[2]), int(args[3]))
    else:
        raise SystemExit(f"trace_check.py: unknown check {what}")
    for b in bad:
        print(f"FAIL: {what}: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
