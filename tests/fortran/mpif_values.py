#!/usr/bin/env python3
"""Every PARAMETER our mpif.h shares with MPICH's mpif.h has MPICH's value
(handles, error classes, string sizes, keyvals...), so objects compiled by
either run on the other.  Usage: mpif_values.py OURS MPICH"""
import re
import sys


def params(path):
    d = {}
    text = open(path).read()
    for body in re.findall(r'PARAMETER\s*\(([^)]*)\)', text, flags=re.I):
        for kv in body.split(','):
            if '=' in kv:
                k, v = kv.split('=', 1)
                d[k.strip().upper()] = v.strip()
    return d


def value(v, table):
    """MPICH writes some values as expressions (512-1, (-32766), names)."""
    v = v.strip('() ')
    if v.upper() in table:
        return value(table[v.upper()], table)
    if re.fullmatch(r'-?\d+-\d+', v):
        a, b = v.rsplit('-', 1)
        return int(a) - int(b)
    try:
        return int(v)
    except ValueError:
        return v.upper()


# The standard's level may be ahead of the installed MPICH's (hcmpi is
# MPI-4.1; Debian's MPICH 4.0 says 4.0): a version, not an ABI value.
LEVEL = {'MPI_VERSION', 'MPI_SUBVERSION'}

ours, mpich = params(sys.argv[1]), params(sys.argv[2])
bad = 0
for name in sorted(set(ours) & set(mpich)):
    a, b = value(ours[name], ours), value(mpich[name], mpich)
    if name in LEVEL and isinstance(a, int) and isinstance(b, int) and a >= b:
        continue
    if a != b:
        print('FAIL: %s is %s, MPICH has %s' % (name, a, b))
        bad += 1
print('%d shared constants, %d differ, %d only in MPICH: %s' % (
    len(set(ours) & set(mpich)), bad, len(set(mpich) - set(ours)),
    ' '.join(sorted(set(mpich) - set(ours)))))
sys.exit(1 if bad else 0)
