#!/usr/bin/env python3
"""Generates the MPI-5.0 standard-ABI layer from include/mpi.h.

Writes
  include/mpi_abi.h   the prototypes between its BEGIN/END GENERATED marks
  src/abi/abi_mpich.h the table of libhcmpi's PMPI_ functions, typed with
                      MPICH-ABI handles (ints), that libmpi_abi calls
  src/abi/abi_calls.c one PMPI_x per call (MPI_x a weak alias): convert the
                      arguments to the MPICH ABI, call libhcmpi, convert the
                      outputs and the error code back.

Each parameter is classified once (classify()); the rules are by C type
and, where the type does not tell (ranks, tags, enums, array lengths), by
(call, parameter) in the tables below.  Calls with callbacks or arguments
no rule covers are written by hand in src/abi/abi_hand.c (HAND).  Run it
after adding a call to include/mpi.h and commit what it writes.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.environ.get('HCMPI_ABI_OUT') or ROOT

HANDLES = {'Comm': 'comm', 'Datatype': 'type', 'Group': 'group',
           'Info': 'info', 'Op': 'op', 'Errhandler': 'errhandler',
           'Request': 'request', 'Win': 'win', 'Session': 'session',
           'Message': 'message', 'File': 'file'}
T_HANDLES = {'MPI_T_enum', 'MPI_T_cvar_handle', 'MPI_T_pvar_handle',
             'MPI_T_pvar_session', 'MPI_T_event_registration',
             'MPI_T_event_instance'}

# Calls that are not part of the standard ABI: Fortran handle conversions
# (the ABI has MPI_x_toint/fromint instead), mpi_f08 statuses, and the
# MPI-1 names MPI-3.0 removed.
NOT_ABI = re.compile(r'(_c2f|_f2c|_f082c|_c2f08|_f082f|_f2f08)$|^(Address|'
                     r'Type_extent|Type_lb|Type_ub|Type_hindexed|Type_hvector|'
                     r'Type_struct|Errhandler_create|Errhandler_set|'
                     r'Errhandler_get|Type_create_f90_\w+)$')
# Written by hand in abi_hand.c: callbacks, encoded arrays, attribute
# values that are constants of their own.
HAND = {'Op_create', 'Op_create_c', 'Comm_create_keyval',
        'Type_create_keyval', 'Win_create_keyval', 'Keyval_create',
        'Comm_create_errhandler', 'Win_create_errhandler',
        'File_create_errhandler', 'Session_create_errhandler',
        'Grequest_start', 'Register_datarep', 'Register_datarep_c',
        'Type_create_darray', 'Type_create_darray_c', 'Win_get_attr',
        'Group_translate_ranks', 'Pcontrol', 'T_event_register_callback',
        'T_event_handle_free', 'T_event_set_dropped_handler',
        'T_event_get_info'}

BUF_IN = {'sendbuf', 'recvbuf'}
# Calls whose handle pointer is read as well as written; in all others it
# is an output only and is not read.
INOUT_HANDLE = re.compile(r'(_free|_finalize|^Type_commit|^Wait|^Test|'
                          r'^Start|^Cancel|^Comm_disconnect|^File_close|'
                          r'^Mrecv|^Imrecv)(_c)?$')
RANK_IN = {'dest', 'source', 'root', 'target_rank', 'rank'}
RANK_OUT = {('Cart_shift', 'rank_source'), ('Cart_shift', 'rank_dest'),
            ('Status_get_source', 'source')}
# The buffer of a buffered-send attach, and the output of its detach:
# MPI_BUFFER_AUTOMATIC has a value of its own in each ABI.
BSEND_BUF_IN = re.compile(r'^(Buffer_attach|Comm_attach_buffer|'
                          r'Session_attach_buffer)(_c)?$')
BSEND_BUF_OUT = re.compile(r'^(Buffer_detach|Comm_detach_buffer|'
                           r'Session_detach_buffer)(_c)?$')
TAG_IN = {'tag', 'sendtag', 'recvtag'}
KEYVALS = {'comm_keyval', 'type_keyval', 'win_keyval', 'keyval'}
WEIGHTS = {'weights', 'sourceweights', 'destweights'}
# (call, parameter) -> the converter of an int constant; '*' for any call.
ENUM_IN = {
    ('Init_thread', 'required'): 'thread',
    ('T_init_thread', 'required'): 'thread',
    ('Comm_split_type', 'split_type'): 'split',
    ('Win_lock', 'lock_type'): 'lock',
    ('*', 'assert'): 'winmode',
    ('File_open', 'amode'): 'amode',
    ('File_seek', 'whence'): 'seek',
    ('File_seek_shared', 'whence'): 'seek',
    ('Type_create_subarray', 'order'): 'order',
    ('Type_create_subarray_c', 'order'): 'order',
    ('Type_match_size', 'typeclass'): 'typeclass',
    ('*', 'errorcode'): 'err',
    ('Add_error_code', 'errorclass'): 'err',
    ('Remove_error_class', 'errorclass'): 'err',
    ('Status_set_error', 'error'): 'err',
    ('T_pvar_get_index', 'var_class'): 'pvarclass',
}
ENUM_OUT = {
    ('Init_thread', 'provided'): 'thread',
    ('T_init_thread', 'provided'): 'thread',
    ('Query_thread', 'provided'): 'thread',
    ('Comm_compare', 'result'): 'compare',
    ('Group_compare', 'result'): 'compare',
    ('Topo_test', 'status'): 'topo',
    ('File_get_amode', 'amode'): 'amode',
    ('Type_get_envelope', 'combiner'): 'combiner',
    ('Type_get_envelope_c', 'combiner'): 'combiner',
    ('Error_class', 'errorclass'): 'err',
    ('Add_error_class', 'errorclass'): 'err',
    ('Add_error_code', 'errorcode'): 'err',
    ('Status_get_error', 'error'): 'err',
    ('Status_get_tag', 'tag'): 'tag',
    ('*', 'verbosity'): 'verbosity',
    ('*', 'bind'): 'bind',
    ('*', 'scope'): 'scope',
    ('T_pvar_get_info', 'var_class'): 'pvarclass',
}
# Arrays of handles or statuses: their length, as a C expression.
LENGTHS = {
    ('Waitall', 'array_of_requests'): 'count',
    ('Waitall', 'array_of_statuses'): 'count',
    ('Testall', 'array_of_requests'): 'count',
    ('Testall', 'array_of_statuses'): 'count',
    ('Waitany', 'array_of_requests'): 'count',
    ('Testany', 'array_of_requests'): 'count',
    ('Waitsome', 'array_of_requests'): 'incount',
    ('Waitsome', 'array_of_statuses'): 'incount',
    ('Testsome', 'array_of_requests'): 'incount',
    ('Testsome', 'array_of_statuses'): 'incount',
    ('Startall', 'array_of_requests'): 'count',
    ('Request_get_status_all', 'array_of_requests'): 'count',
    ('Request_get_status_all', 'array_of_statuses'): 'count',
    ('Request_get_status_any', 'array_of_requests'): 'count',
    ('Request_get_status_some', 'array_of_requests'): 'incount',
    ('Request_get_status_some', 'array_of_statuses'): 'incount',
    ('Type_create_struct', 'array_of_types'): 'count',
    ('Type_create_struct_c', 'array_of_types'): 'count',
    ('Type_get_contents', 'array_of_datatypes'): 'max_datatypes',
    ('Type_get_contents_c', 'array_of_datatypes'): 'max_datatypes',
    ('Comm_spawn_multiple', 'array_of_info'): 'count',
}
# The alltoallw family: one type per peer of comm (its neighbours for the
# neighbourhood forms).
for _base in ('Alltoallw', 'Ialltoallw', 'Alltoallw_init'):
    for _sfx in ('', '_c'):
        for _p in ('sendtypes', 'recvtypes'):
            LENGTHS[(_base + _sfx, _p)] = 'hc_abi_peers(comm)'
for _base in ('Neighbor_alltoallw', 'Ineighbor_alltoallw',
              'Neighbor_alltoallw_init'):
    for _sfx in ('', '_c'):
        LENGTHS[(_base + _sfx, 'sendtypes')] = 'hc_abi_neighbors(comm, 1)'
        LENGTHS[(_base + _sfx, 'recvtypes')] = 'hc_abi_neighbors(comm, 0)'


# ---- reading include/mpi.h ------------------------------------------------
def read_prototypes():
    text = open(os.path.join(ROOT, 'include', 'mpi.h')).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'^\s*#.*$', ' ', text, flags=re.M)
    text = re.sub(r'\s+', ' ', text)
    protos = []
    for ret, name, args in re.findall(
            r'(?:^|[;}])\s*([\w ]+?\**)\s*\bPMPI_(\w+)\s*\(([^;{}]*?)\)\s*;',
            text):
        protos.append((ret.strip(), name, args.strip()))
    return protos


def implemented_calls():
    """The calls libhcmpi defines (PMPI_x in src/mpi, src/io): mpi.h also
    declares some that no one has written yet, and libmpi_abi binds only
    to what exists."""
    names = set()
    for layer in ('mpi', 'io'):
        d = os.path.join(ROOT, 'src', layer)
        for f in sorted(os.listdir(d)):
            if f.endswith('.c'):
                names.update(re.findall(r'^[\w ]+?\**\s*\n?PMPI_(\w+)\s*\(',
                                        open(os.path.join(d, f)).read(),
                                        flags=re.M))
    return names


def split_param(arg):
    """'const MPI_Datatype array_of_types[]' -> (ctype, name, is_array)."""
    if arg.strip() == '...':
        return '...', '', False
    m = re.match(r'(.*?)(\w+)\s*((?:\[\s*\w*\s*\])*)$', arg.strip())
    ctype = re.sub(r'\s+', ' ', m.group(1)).strip()
    ctype = re.sub(r'\s*\*', ' *', ctype).replace('* *', '**')
    return ctype, m.group(2), re.sub(r'\s+', '', m.group(3))


def params(args):
    if args in ('', 'void'):
        return []
    return [split_param(a) for a in args.split(',')]


# ---- classification -------------------------------------------------------
def enum_rule(table, call, name):
    return table.get((call, name)) or table.get(('*', name))


def classify(call, ctype, name, arr):
    """The conversion of one parameter: (kind, detail)."""
    base = ctype.replace('const ', '').strip()
    const = ctype.startswith('const')
    for h, short in HANDLES.items():
        if base == 'MPI_' + h and arr:
            return ('harr', (short, const, LENGTHS[(call, name)]))
        if base == 'MPI_' + h:
            return ('h', short)
        if base == 'MPI_%s *' % h:
            return ('hptr', short)
    if base == 'MPI_Status *' and (arr or name == 'array_of_statuses'):
        return ('starr', LENGTHS[(call, name)])
    if base == 'MPI_Status *':
        return ('stin' if const else 'st', None)
    if base == 'MPI_T_pvar_handle':  # MPI_T_PVAR_ALL_HANDLES differs
        return ('pvar_in', None)
    if base in T_HANDLES:
        return ('cast', 'void *')
    if base in {t + ' *' for t in T_HANDLES}:
        return ('cast', 'void **')
    if base == 'MPI_T_source_order *':
        return ('enum_out', 'tsource')
    if base == 'MPI_T_cb_safety':
        return ('enum_in', 'cbsafety')
    if base == 'void *' and name in BUF_IN:
        return ('buf', const)
    if base == 'void *' and name == 'buffer' and BSEND_BUF_IN.match(call):
        return ('bsend_buf', None)
    if base == 'void *' and name == 'buffer_addr' and BSEND_BUF_OUT.match(call):
        return ('bsend_addr', None)
    if base == 'int *' and name in WEIGHTS:
        return ('weights', const)
    if base == 'int' and arr == '[]' and name == 'array_of_errcodes':
        return ('errcodes', None)
    if base == 'int' and not arr:
        rule = enum_rule(ENUM_IN, call, name)
        if rule:
            return ('enum_in', rule)
        if name in RANK_IN:
            return ('enum_in', 'rank')
        if name in TAG_IN:
            return ('enum_in', 'tag')
        if name in KEYVALS:
            return ('enum_in', 'keyval')
    if base == 'int *' and not arr:
        rule = enum_rule(ENUM_OUT, call, name)
        if rule:
            return ('enum_out', rule)
        if (call, name) in RANK_OUT:
            return ('enum_out', 'rank')
        if name in KEYVALS:
            return ('enum_inout', 'keyval')
    if 'function' in base:
        raise ValueError('callback %s of %s: write it by hand' % (name, call))
    return ('pass', None)


# ---- the MPICH side ---------------------------------------------------------
def mpich_type(ctype, arr):
    if ctype == '...':
        return ctype
    if arr == '[][3]':
        return ctype + ' (*)[3]'
    base = ctype.replace('const ', '').strip()
    const = 'const ' if ctype.startswith('const') else ''
    if arr:
        base += ' *'
    for h in HANDLES:
        if h == 'File':
            continue
        if base == 'MPI_' + h:
            return 'int'
        if base == 'MPI_%s *' % h:
            return const + 'int *'
    if base == 'MPI_File':
        return 'hc_mpich_file'
    if base == 'MPI_File *':
        return 'hc_mpich_file *'
    if base == 'MPI_Status *':
        return const + 'hc_mpich_status_t *'
    if base in T_HANDLES:
        return 'void *'
    if base in {t + ' *' for t in T_HANDLES}:
        return 'void **'
    if base == 'MPI_T_cb_safety':
        return 'int'
    if base == 'MPI_T_source_order *':
        return 'int *'
    if 'function' in base:
        return 'hc_abi_any_fn'
    if base.endswith('[]'):
        base = base[:-2].strip() + ' *'
    return const + base if arr else ctype


def mpich_member(ret, call, plist):
    types = [mpich_type(t, a) for t, n, a in plist] or ['void']
    return '  %s (*%s)(%s);' % (ret, call, ', '.join(types))


# ---- wrappers ---------------------------------------------------------------
def abi_param(ctype, name, arr):
    if ctype == '...':
        return ctype
    return '%s %s%s' % (ctype, name, arr)


def ignorable_status(call, plist):
    """The name of the call's one output status, which a caller may pass
    as MPI_STATUS_IGNORE, or None."""
    names = [n for t, n, a in plist if classify(call, t, n, a)[0] == 'st']
    if len(names) != 1 or call.startswith('Status_set'):
        return None
    return names[0]


def conversions(call, plist, ignored=None):
    """(pre, actual, post, cleanup) of a call's wrapper; the status named
    ignored is MPI_STATUS_IGNORE, so it passes MPICH's and converts nothing."""
    pre, actual, post, cleanup = [], [], [], []
    for ctype, name, arr in plist:
        kind, detail = classify(call, ctype, name, arr)
        if name == ignored:
            actual.append('HC_MPICH_STATUS_IGNORE')
        elif kind == 'h':
            actual.append('hc_abi_%s_in(%s)' % (detail, name))
        elif kind == 'hptr':
            mtype = 'hc_mpich_file' if detail == 'file' else 'int'
            if INOUT_HANDLE.search(call):
                pre.append('%s %s_m = %s ? hc_abi_%s_in(*%s) : 0;' %
                           (mtype, name, name, detail, name))
            else:  # an output: the caller's variable may be unset
                pre.append('%s %s_m = 0;' % (mtype, name))
            actual.append('%s ? &%s_m : NULL' % (name, name))
            post.append('if (%s) *%s = hc_abi_%s_out(%s_m);' %
                        (name, name, detail, name))
        elif kind == 'harr':
            short, const, length = detail
            pre.append('int %s_n = %s;' % (name, length))
            pre.append('int %s_s[HC_ABI_STACK];' % name)
            pre.append('int *%s_m = hc_abi_scratch(%s_s, %s_n, sizeof(int));'
                       % (name, name, name))
            pre.append('if (%s && !%s_m) return MPI_ERR_NO_MEM;' % (name, name))
            pre.append('if (%s) hc_abi_%s_array_in(%s_m, %s, %s_n);' %
                       (name, short, name, name, name))
            actual.append('%s ? %s_m : NULL' % (name, name))
            if not const:
                post.append('if (%s) hc_abi_%s_array_out(%s, %s_m, %s_n);' %
                            (name, short, name, name, name))
            cleanup.append('hc_abi_scratch_free(%s_s, %s_m);' % (name, name))
        elif kind in ('st', 'stin'):
            pre.append('hc_mpich_status_t %s_m = {0};' % name)
            reads = kind == 'stin' or call.startswith('Status_set')
            actual.append('hc_abi_status_%s(%s, &%s_m)' %
                          ('in' if reads else 'slot', name, name))
            if kind == 'st':
                post.append('hc_abi_status_out(%s, &%s_m);' % (name, name))
        elif kind == 'starr':
            pre.append('int %s_n = %s;' % (name, detail))
            pre.append('hc_mpich_status_t %s_s[HC_ABI_STACK];' % name)
            pre.append('hc_mpich_status_t *%s_m = hc_abi_statuses_in(%s, %s_s, %s_n);'
                       % (name, name, name, name))
            pre.append('if (%s && !%s_m) return MPI_ERR_NO_MEM;' % (name, name))
            actual.append('%s ? %s_m : HC_MPICH_STATUSES_IGNORE' % (name, name))
            post.append('hc_abi_statuses_out(%s, %s_m, %s_n);' %
                        (name, name, name))
            cleanup.append('hc_abi_scratch_free(%s_s, %s_m);' % (name, name))
        elif kind == 'errcodes':  # a spawn's, written at every rank
            actual.append(name)
            post.append('hc_abi_errcodes_out(%s);' % name)
        elif kind == 'cast':
            actual.append('(%s)%s' % (detail, name))
        elif kind == 'pvar_in':
            actual.append('hc_abi_pvar_handle_in(%s)' % name)
        elif kind == 'buf':
            actual.append('hc_abi_%sbuf_in(%s)' % ('c' if detail else '', name))
        elif kind == 'bsend_buf':
            actual.append('hc_abi_bsend_buf_in(%s)' % name)
        elif kind == 'bsend_addr':
            actual.append(name)
            post.append('if (rc == 0) hc_abi_bsend_addr_out(%s);' % name)
        elif kind == 'weights':
            actual.append('hc_abi_%sweights_in(%s)' %
                          ('c' if detail else '', name))
        elif kind == 'enum_in':
            actual.append('hc_abi_%s_in(%s)' % (detail, name))
        elif kind in ('enum_out', 'enum_inout'):
            init = 'hc_abi_%s_in(*%s)' % (detail, name) \
                if kind == 'enum_inout' else '0'
            pre.append('int %s_m = %s ? %s : 0;' % (name, name, init))
            actual.append('%s ? &%s_m : NULL' % (name, name))
            post.append('if (%s) *%s = hc_abi_%s_out(%s_m);' %
                        (name, name, detail, name))
        else:
            actual.append(name)
    return pre, actual, post, cleanup


def call_body(ret, call, plist, ignored, indent):
    pre, actual, post, cleanup = conversions(call, plist, ignored)
    body = [indent + p for p in pre]
    call_expr = 'hc_mpich.%s(%s)' % (call, ', '.join(actual))
    if ret != 'int':
        return body + [indent + 'return %s;' % call_expr]
    body.append(indent + 'int rc = %s;' % call_expr)
    # Outputs convert back whatever rc says: a failed receive still
    # fills its status (MPI_ERR_TRUNCATE), a failed wait still frees
    # its request, and an untouched handle converts back to itself.
    body += [indent + p for p in post]
    body += [indent + c for c in cleanup]
    return body + [indent + 'return hc_abi_err_out(rc);']


def wrapper(ret, call, plist):
    sig = '%s PMPI_%s(%s)' % (ret, call, ', '.join(
        abi_param(t, n, a) for t, n, a in plist) or 'void')
    status = ignorable_status(call, plist) if ret == 'int' else None
    if status:
        # A status to fill goes to a function of its own, so that the
        # usual case on the hot path (MPI_Recv, MPI_Wait with
        # MPI_STATUS_IGNORE) saves no registers for the conversion back.
        filler = 'abi_%s_status' % call
        head = '/* MPI_%s with a status to fill. */\nstatic __attribute__((noinline)) ' % call
        head += sig.replace('PMPI_%s(' % call, '%s(' % filler, 1)
        fill = '%s\n{\n%s\n}\n\n' % (
            head, '\n'.join(call_body(ret, call, plist, None, '  ')))
        body = ['  if (%s != MPI_STATUS_IGNORE)' % status,
                '    return %s(%s);' % (filler, ', '.join(
                    n for t, n, a in plist))]
        body += call_body(ret, call, plist, status, '  ')
    else:
        fill = ''
        body = call_body(ret, call, plist, None, '  ')
    return fill + '%s\n{\n%s\n}\nHC_WEAK_ALIAS(MPI_%s, PMPI_%s);\n' % (
        sig, '\n'.join(body), call, call)


# ---- constant values: the standard's (mpi_abi.h) against MPICH's (mpi.h) ----
# Integer families converted by value; each is a list of (ABI name, MPICH
# value).  A name mpi.h lacks maps to HC_ABI_NO_VALUE (rejected by libhcmpi
# as an invalid argument).
FAMILIES = [
    ('thread', r'MPI_THREAD_'), ('compare', r'MPI_(IDENT|CONGRUENT|SIMILAR|UNEQUAL)$'),
    ('topo', r'MPI_(CART|GRAPH|DIST_GRAPH)$'), ('split', r'MPI_COMM_TYPE_'),
    ('lock', r'MPI_LOCK_'), ('winmode', r'MPI_MODE_NO'),
    ('amode', r'MPI_MODE_(?!NO)'), ('seek', r'MPI_SEEK_'),
    ('order', r'MPI_ORDER_'), ('distrib', r'MPI_DISTRIBUTE_'),
    ('typeclass', r'MPI_TYPECLASS_'), ('combiner', r'MPI_COMBINER_'),
    ('err', r'MPI_(SUCCESS$|ERR_(?!LASTCODE)|T_ERR_)'),
    ('keyval', r'MPI_(KEYVAL_INVALID|TAG_UB|IO|HOST|WTIME_IS_GLOBAL|APPNUM|'
               r'LASTUSEDCODE|UNIVERSE_SIZE|WIN_BASE|WIN_DISP_UNIT|WIN_SIZE|'
               r'WIN_CREATE_FLAVOR|WIN_MODEL)$'),
    ('flavor', r'MPI_WIN_FLAVOR_'), ('model', r'MPI_WIN_(UNIFIED|SEPARATE)$'),
    ('verbosity', r'MPI_T_VERBOSITY_'), ('bind', r'MPI_T_BIND_'),
    ('scope', r'MPI_T_SCOPE_'), ('pvarclass', r'MPI_T_PVAR_CLASS_'),
    ('cbsafety', r'MPI_T_CB_REQUIRE_'), ('tsource', r'MPI_T_SOURCE_'),
]


def abi_hand_text():
    text = open(os.path.join(ROOT, 'include', 'mpi_abi.h')).read()
    return text.split('/* BEGIN GENERATED PROTOTYPES */')[0]


def abi_handles():
    """[(name, kind, value)] of the predefined handles, nulls first."""
    found = re.findall(r'#define (MPI_\w+) \(\(MPI_(\w+)\)(0x[0-9a-f]+)\)',
                       abi_hand_text())
    out = [(n, k, int(v, 16)) for n, k, v in found
           if k in HANDLES and k != 'File']
    return sorted(out, key=lambda e: (not e[0].endswith('_NULL'), e[2]))


def abi_enum_names():
    text = abi_hand_text()
    names = []
    for body in re.findall(r'\benum\s*\w*\s*\{([^}]*)\}', text):
        names += re.findall(r'(MPI_[A-Z0-9_]+)\s*=', body)
    return names


def mpich_values(names, cc):
    """{name: value} for the names include/mpi.h defines."""
    inc = os.path.join(ROOT, 'include')
    src = '#include <mpi.h>\n'
    macros = subprocess.run([cc, '-E', '-dM', '-I', inc, '-x', 'c', '-'],
                            input=src, capture_output=True, text=True,
                            check=True).stdout
    known = set(re.findall(r'^#define (MPI_\w+)', macros, flags=re.M))
    pre = subprocess.run([cc, '-E', '-I', inc, '-x', 'c', '-'], input=src,
                         capture_output=True, text=True, check=True).stdout
    for body in re.findall(r'\benum\s*\w*\s*\{([^}]*)\}', pre):
        known.update(re.findall(r'(MPI_[A-Z0-9_]+)\s*[=,}]', body + ','))
    present = [n for n in names if n in known]
    prog = ['#include <stdio.h>', '#include <stdint.h>', '#include <mpi.h>',
            'int main(void) {']
    for n in present:
        prog.append('  printf("%%s %%lld\\n", "%s", (long long)(intptr_t)(%s));'
                    % (n, n))
    prog += ['  return 0;', '}']
    with tempfile.TemporaryDirectory() as tmp:
        c, exe = os.path.join(tmp, 'v.c'), os.path.join(tmp, 'v')
        open(c, 'w').write('\n'.join(prog) + '\n')
        subprocess.run([cc, '-w', '-I', inc, c, '-o', exe], check=True)
        out = subprocess.run([exe], capture_output=True, text=True,
                             check=True).stdout
    return {n: int(v) for n, v in (l.split() for l in out.splitlines())}


def write_conv(cc):
    """abi_conv.h: one in/out pair of inline conversions per handle kind
    and per integer family, each name spelled out.  On the way out, the
    kind's null (what a completed request, a freed object becomes) is one
    compare before the search of the other predefined handles."""
    out = ['/* Generated by src/abi/buildabi.py; do not edit.  Included at the',
           ' * end of abi_impl.h. */', '#ifndef HC_ABI_CONV_H',
           '#define HC_ABI_CONV_H', '']
    nulls = mpich_values(['MPI_%s_NULL' % h.upper() for h in HANDLES], cc)
    predefined = {}
    for name, kind, v in abi_handles():
        predefined[kind] = predefined.get(kind, 0) + 1
    for h, short in HANDLES.items():
        if h == 'File':
            continue
        t, kind = 'MPI_' + h, 'HC_ABI_KIND_' + h.upper()
        null = 'MPI_%s_NULL' % h.upper()
        out += [
            'static inline int hc_abi_%s_in(%s h) {' % (short, t),
            '  return hc_abi_handle_in((uintptr_t)h);', '}',
            'static inline %s hc_abi_%s_out(int h) {' % (t, short)]
        if null in nulls:
            out += ['  if (h == %s) /* MPICH\'s %s */' % (hex(nulls[null]), null),
                    '    return %s;' % null]
        if h == 'Datatype':
            # MPICH's pair types (MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT) are
            # direct handles, 0x8c00000N, which hc_abi_handle_out's fast
            # path would pass through as libhcmpi's own types.
            out += ['  if ((uint32_t)h - 0x8c000000u < 16u) /* MPICH\'s pair types */',
                    '    return (%s)hc_abi_handle_out_slow(%s, h);' % (t, kind)]
        if predefined.get(h, 0) <= 1 and null in nulls:
            # The null is the kind's only predefined handle, so every other
            # value is libhcmpi's own (a request completed at once too).
            out.append('  return (%s)(uintptr_t)(uint32_t)h;' % t)
        else:
            out.append('  return (%s)hc_abi_handle_out(%s, h);' % (t, kind))
        out += [
            '}',
            'static inline void hc_abi_%s_array_in(int *m, const %s *a, int n) {'
            % (short, t),
            '  for (int i = 0; i < n; i++)',
            '    m[i] = hc_abi_%s_in(a[i]);' % short, '}',
            'static inline void hc_abi_%s_array_out(%s *a, const int *m, int n) {'
            % (short, t),
            '  for (int i = 0; i < n; i++)',
            '    a[i] = hc_abi_%s_out(m[i]);' % short, '}', '']
    for fam, _ in FAMILIES:
        if fam in ('err', 'keyval'):
            out += ['extern const struct hc_abi_pair hc_abi_%s_pairs[];' % fam,
                    'extern const int hc_abi_%s_npairs;' % fam, '']
            continue
        how = 'bits' if fam in ('winmode', 'amode') else 'pair'
        out += ['extern const struct hc_abi_pair hc_abi_%s_pairs[];' % fam,
                'extern const int hc_abi_%s_npairs;' % fam,
                'static inline int hc_abi_%s_in(int v) {' % fam,
                '  return hc_abi_%s_in(hc_abi_%s_pairs, hc_abi_%s_npairs, v);'
                % (how, fam, fam), '}',
                'static inline int hc_abi_%s_out(int v) {' % fam,
                '  return hc_abi_%s_out(hc_abi_%s_pairs, hc_abi_%s_npairs, v);'
                % (how, fam, fam), '}', '']
    out.append('#endif')
    open(os.path.join(OUT, 'src', 'abi', 'abi_conv.h'), 'w').write(
        '\n'.join(out) + '\n')


def write_values(cc):
    handles = abi_handles()
    enums = abi_enum_names()
    values = mpich_values([h[0] for h in handles] + enums, cc)
    src = ['/* Generated by src/abi/buildabi.py from include/mpi_abi.h and',
           ' * include/mpi.h; do not edit.  Each pair is (the standard ABI\'s',
           ' * value, MPICH\'s value of the same name). */',
           '#include "abi/abi_impl.h"', '']
    src.append('const struct hc_abi_handle_pair hc_abi_handle_pairs[] = {')
    for name, kind, v in handles:
        mv = values.get(name)
        src.append('  {%s, %s, HC_ABI_KIND_%s}, /* %s */' % (
            hex(v), 'HC_ABI_NO_VALUE' if mv is None else
            '(int)0x%08x' % (mv & 0xffffffff), kind.upper(), name))
    src += ['};', 'const int hc_abi_handle_npairs = %d;' % len(handles), '']
    for fam, pattern in FAMILIES:
        names = [n for n in enums if re.match(pattern, n)]
        src.append('const struct hc_abi_pair hc_abi_%s_pairs[] = {' % fam)
        for n in names:
            mv = values.get(n)
            src.append('  {%s, %s},' % (n, 'HC_ABI_NO_VALUE' if mv is None
                                         else str(mv)))
        src += ['};', 'const int hc_abi_%s_npairs = %d;' % (fam, len(names)),
                '']
    open(os.path.join(OUT, 'src', 'abi', 'abi_values.c'), 'w').write(
        '\n'.join(src))


# ---- output -----------------------------------------------------------------
ABI_ONLY = [
    'int MPI_Abi_get_version(int *abi_major, int *abi_minor);',
    'int MPI_Abi_get_info(MPI_Info *info);',
    'int MPI_Abi_get_fortran_info(MPI_Info *info);',
    'int MPI_Abi_set_fortran_info(MPI_Info info);',
    'int MPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, '
    'void *logical_false, int *is_set);',
    'int MPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, '
    'void *logical_false);',
] + ['int MPI_%s_toint(MPI_%s %s);\nMPI_%s MPI_%s_fromint(int %s);' %
     (k, h, s, h, k, s) for k, h, s in
     [('Comm', 'Comm', 'comm'), ('Errhandler', 'Errhandler', 'errhandler'),
      ('File', 'File', 'file'), ('Group', 'Group', 'group'),
      ('Info', 'Info', 'info'), ('Message', 'Message', 'message'),
      ('Op', 'Op', 'op'), ('Request', 'Request', 'request'),
      ('Session', 'Session', 'session'), ('Type', 'Datatype', 'datatype'),
      ('Win', 'Win', 'win')]]


def in_abi(call):
    return not call.startswith('X') and not NOT_ABI.search(call)


# libhcmpi calls the layer needs that are not in the standard ABI.
MPICH_ONLY = {'File_c2f', 'File_f2c'}
# Callback slots: each is a static function with libhcmpi's signature that
# calls the ABI function registered in its slot (abi_hand.c).
NTRAMP = 32
TRAMPS = [
    ('op', 'void', 'void *invec, void *inoutvec, int *len, int *datatype',
     'invec, inoutvec, len, datatype'),
    ('op_c', 'void', 'void *invec, void *inoutvec, MPI_Count *len, int *datatype',
     'invec, inoutvec, len, datatype'),
    ('comm_eh', 'void', 'int *comm, int *code, ...', 'comm, code'),
    ('win_eh', 'void', 'int *win, int *code, ...', 'win, code'),
    ('file_eh', 'void', 'hc_mpich_file *file, int *code, ...', 'file, code'),
    ('session_eh', 'void', 'int *session, int *code, ...', 'session, code'),
    ('event_cb', 'void', 'void *instance, void *registration, int safety, '
     'void *user_data', 'instance, registration, safety, user_data'),
    ('event_free', 'void', 'void *registration, int safety, void *user_data',
     'registration, safety, user_data'),
    ('event_dropped', 'void', 'MPI_Count count, void *registration, '
     'int source, int safety, void *user_data',
     'count, registration, source, safety, user_data'),
]


def write_tramps():
    out = ['/* Generated by src/abi/buildabi.py; do not edit.  %d callback' % NTRAMP,
           ' * slots per kind: slot i calls hc_abi_<kind>_call(i, ...), which',
           ' * converts the arguments and calls the ABI function registered in',
           ' * slot i (abi_hand.c). */', '#include "abi/abi_hand.h"', '']
    for kind, ret, params_c, args in TRAMPS:
        names = []
        for i in range(NTRAMP):
            name = 'abi_%s_slot_%d' % (kind, i)
            names.append(name)
            out += ['static %s %s(%s)' % (ret, name, params_c), '{',
                    '  hc_abi_%s_call(%d, %s);' % (kind, i, args), '}', '']
        out.append('const hc_abi_any_fn hc_abi_%s_slots[HC_ABI_NSLOTS] = {' % kind)
        out += ['  (hc_abi_any_fn)%s,' % n for n in names]
        out += ['};', '']
    open(os.path.join(OUT, 'src', 'abi', 'abi_tramp.c'), 'w').write(
        '\n'.join(out))


def write_header(protos):
    path = os.path.join(ROOT, 'include', 'mpi_abi.h')
    text = open(path).read()
    lines = []
    for ret, call, args in protos:
        if not in_abi(call) or call.startswith('Abi_'):
            continue
        for prefix in ('MPI_', 'PMPI_'):
            lines.append('%s %s%s(%s);' % (ret, prefix, call, args or 'void'))
    for proto in ABI_ONLY:
        lines.append(proto)
        lines.append(re.sub(r'\bMPI_(\w+)\(', r'PMPI_\1(', proto))
    begin, end = '/* BEGIN GENERATED PROTOTYPES */', '/* END GENERATED PROTOTYPES */'
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    out = head + begin + '\n' + '\n'.join(lines) + '\n' + end + tail
    dest = os.path.join(OUT, 'include', 'mpi_abi.h')
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    open(dest, 'w').write(out)


def main():
    have = implemented_calls()
    protos = [p for p in read_prototypes() if p[1] in have]
    calls = [(r, c, params(a)) for r, c, a in protos
             if in_abi(c) or c in MPICH_ONLY]
    table = ['/* Generated by src/abi/buildabi.py from include/mpi.h; do not',
             ' * edit.  libhcmpi\'s PMPI_ functions with MPICH-ABI handles (int),',
             ' * looked up once when libmpi_abi loads (abi_init.c). */',
             '#ifndef HC_ABI_MPICH_H', '#define HC_ABI_MPICH_H', '',
             '#include "abi/abi_types.h"', '#include "mpi_abi.h"', '',
             'struct hc_mpich_calls {']
    names = []
    for ret, call, plist in calls:
        mret = 'int' if ret in ('int', 'MPI_Fint') else mpich_type(ret, False)
        if call == 'File_f2c':
            plist = [('int', 'file', '')]
        table.append(mpich_member(mret, call, plist))
        names.append('  "PMPI_%s",' % call)
    table += ['};', '',
              '/* The names, in the order of the members. */',
              'extern const char *const hc_mpich_call_names[%d];' % len(calls),
              'extern struct hc_mpich_calls hc_mpich;', '', '#endif']
    src = ['/* Generated by src/abi/buildabi.py from include/mpi.h; do not',
           ' * edit.  Each PMPI_x converts its arguments to the MPICH ABI,',
           ' * calls libhcmpi\'s PMPI_x and converts outputs and the error code',
           ' * back; MPI_x is a weak alias. */',
           '#include "abi/abi_impl.h"', '',
           'const char *const hc_mpich_call_names[%d] = {' % len(calls)]
    src += names + ['};', '']
    for ret, call, plist in calls:
        if call in HAND or call in MPICH_ONLY or call.startswith('Abi_'):
            continue
        src.append(wrapper(ret, call, plist))
    open(os.path.join(OUT, 'src', 'abi', 'abi_mpich.h'), 'w').write(
        '\n'.join(table) + '\n')
    open(os.path.join(OUT, 'src', 'abi', 'abi_calls.c'), 'w').write(
        '\n'.join(src))
    write_header(read_prototypes())
    write_values(os.environ.get('CC', 'cc'))
    write_conv(os.environ.get('CC', 'cc'))
    write_tramps()
    return 0


if __name__ == '__main__':
    sys.exit(main())
