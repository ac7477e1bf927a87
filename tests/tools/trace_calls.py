#!/usr/bin/env python3
"""hcmpi-trace's CALLS table names every record kind of src/hcomm/trace.h
with the MPI call's own spelling, and no other: the table is written by hand
in the tool, so this keeps the two from drifting apart.

Usage: trace_calls.py SRCDIR"""
import importlib.machinery
import importlib.util
import os
import re
import sys


def expected_names(trace_h):
    text = open(trace_h, encoding="utf-8").read()
    body = re.search(r"typedef enum hc_trace_call \{(.*?)\} hc_trace_call_t;",
                     text, re.S).group(1)
    names = {}
    for name, num in re.findall(r"HC_TRACE_(\w+)\s*=\s*(\d+)", body):
        if name.startswith("MPI_"):
            # MPI_WAITALL -> MPI_Waitall, as the standard spells it.
            rest = name[len("MPI_"):].lower()
            names[int(num)] = "MPI_" + rest[0].upper() + rest[1:]
        else:
            names[int(num)] = {"ENG_SEND": "send", "ENG_RECV": "recv"}[name]
    return names


def tool_calls(tool):
    loader = importlib.machinery.SourceFileLoader("hcmpi_trace", tool)
    spec = importlib.util.spec_from_loader("hcmpi_trace", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module.CALLS


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    want = expected_names(os.path.join(src, "src", "hcomm", "trace.h"))
    have = tool_calls(os.path.join(src, "tools", "hcmpi-trace"))
    bad = 0
    for num in sorted(set(want) | set(have)):
        if want.get(num) != have.get(num):
            print(f"FAIL: record kind {num}: trace.h says {want.get(num)}, "
                  f"hcmpi-trace says {have.get(num)}")
            bad += 1
    if bad == 0:
        print(f"PASS: hcmpi-trace names all {len(want)} record kinds of trace.h")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
