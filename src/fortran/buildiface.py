#!/usr/bin/env python3
"""Generate hcmpi's Fortran layer from include/mpi.h.

Usage (from the source root, after any change to the C library):
    python3 src/fortran/buildiface.py [CC]

Writes, all committed:
  src/fortran/mpif.h        constants (fixed-form compatible) and COMMON blocks
  src/fortran/fort_bind.c   C bodies of mpi_x_ / pmpi_x_ and their aliases
  src/fortran/fort_bind.h   prototypes of the strong pmpi_x_ symbols
  src/fortran/mpi_ifaces.f90  interface bodies for `use mpi`
  src/fortran/mpi_f08_ifaces.f90  interface bodies and constants for mpi_f08

What gets a binding: every PMPI_x (and of MPICH's extensions, the
fault-tolerance PMPIX_Comm_x) defined in src/mpi/*.c whose C prototype
in include/mpi.h maps onto the argument kinds below, minus SKIP, plus the
hand-written calls in HAND (C bodies in fort_hand.c).  A new C call gets
its binding by re-running this script; one whose arguments need special
care gets an entry in SPECIAL_ARGS, HAND or SKIP.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# HCMPI_FORTRAN_OUT writes elsewhere: tests/fortran/current.sh regenerates
# into a temporary folder and compares with what is committed.
OUT = os.environ.get('HCMPI_FORTRAN_OUT') or os.path.join(ROOT, 'src', 'fortran')

# ---- the table ----------------------------------------------------------
# Calls the generator leaves out, with the reason (see docs/fortran.md).
SKIP = {
    'Init': 'hand', 'Init_thread': 'hand', 'Wtime': 'hand', 'Wtick': 'hand',
    'Pcontrol': 'hand', 'Buffer_detach': 'hand', 'Comm_get_attr': 'hand',
    'Comm_set_attr': 'hand', 'Info_create_env': 'hand',
    'Info_get_string': 'hand', 'Comm_create_keyval': 'hand',
    'Session_get_nth_pset': 'hand', 'Grequest_start': 'hand',
    'Comm_spawn': 'hand', 'Comm_spawn_multiple': 'hand',
    # MPI-1 calls whose Fortran form has INTEGER where C has MPI_Aint
    # (hand-written in fort_hand.c; not in mpi_f08, which left them out).
    'Address': 'hand', 'Type_extent': 'hand', 'Type_lb': 'hand',
    'Type_ub': 'hand', 'Type_hindexed': 'hand', 'Type_hvector': 'hand',
    'Type_struct': 'hand', 'Attr_get': 'hand', 'Attr_put': 'hand',
    'Keyval_create': 'hand', 'Type_get_attr': 'hand', 'Type_set_attr': 'hand',
    'Type_create_keyval': 'hand',
    'Win_get_attr': 'hand', 'Win_set_attr': 'hand', 'Win_create_keyval': 'hand',
    # Returns an address, like Buffer_detach.
    'Buffer_detach_c': 'hand', 'Comm_detach_buffer': 'hand',
    'Comm_detach_buffer_c': 'hand', 'Session_detach_buffer': 'hand',
    'Session_detach_buffer_c': 'hand',
    # Callbacks the library calls with C arguments: C trampolines.
    'File_create_errhandler': 'hand', 'Register_datarep': 'hand',
    'Register_datarep_c': 'hand',
}
# Hand-written calls that mpi_f08 does not have (MPI-3.0 dropped the
# deprecated MPI-1 forms from it).
NOT_F08 = {'Address', 'Type_extent', 'Type_lb', 'Type_ub', 'Type_hindexed',
           'Type_hvector', 'Type_struct', 'Attr_get', 'Attr_put',
           'Keyval_create', 'Attr_delete', 'Keyval_free'}
# Functions mpif.h declares EXTERNAL with their type: no interface in
# `use mpi` (it includes mpif.h).
# Functions mpif.h declares itself (`use mpi` takes them from there).
# MPI_AINT_ADD and MPI_AINT_DIFF it leaves to the program, as MPICH's
# does: a program that declares them (MPICH's suite does) must compile.
MPIF_EXTERNAL = {'Wtime', 'Wtick'}

# Fortran interfaces of the hand-written calls: (name, [(arg, kind)], result)
HAND = [
    ('Init', [], None),
    ('Init_thread', [('required', 'int'), ('provided', 'int*')], None),
    ('Wtime', [], 'double'),
    ('Wtick', [], 'double'),
    ('Pcontrol', [('level', 'int')], None),
    ('Buffer_detach', [('buffer_addr', 'buf'), ('size', 'int*')], None),
    ('Buffer_detach_c', [('buffer_addr', 'buf'), ('size', 'count*')], None),
    ('Comm_detach_buffer', [('comm', 'h:Comm'), ('buffer_addr', 'buf'),
                            ('size', 'int*')], None),
    ('Comm_detach_buffer_c', [('comm', 'h:Comm'), ('buffer_addr', 'buf'),
                              ('size', 'count*')], None),
    ('Session_detach_buffer', [('session', 'h:Session'),
                               ('buffer_addr', 'buf'), ('size', 'int*')],
     None),
    ('Session_detach_buffer_c', [('session', 'h:Session'),
                                 ('buffer_addr', 'buf'), ('size', 'count*')],
     None),
    ('Comm_get_attr', [('comm', 'h:Comm'), ('comm_keyval', 'int'),
                       ('attribute_val', 'aint*'), ('flag', 'lout')], None),
    ('Comm_set_attr', [('comm', 'h:Comm'), ('comm_keyval', 'int'),
                       ('attribute_val', 'aint')], None),
    ('Info_create_env', [('info', 'h*:Info')], None),
    ('Info_get_string', [('info', 'h:Info'), ('key', 'sin'),
                         ('buflen', 'int*'), ('value', 'sout'),
                         ('flag', 'lout')], None),
    ('Session_get_nth_pset', [('session', 'h:Session'), ('info', 'h:Info'),
                              ('n', 'int'), ('pset_len', 'int*'),
                              ('pset_name', 'sout')], None),
    ('Comm_create_keyval', [('comm_copy_attr_fn', 'fn'),
                            ('comm_delete_attr_fn', 'fn'),
                            ('comm_keyval', 'int*'),
                            ('extra_state', 'aint')], None),
    ('Type_get_attr', [('datatype', 'h:Datatype'), ('type_keyval', 'int'),
                       ('attribute_val', 'aint*'), ('flag', 'lout')], None),
    ('Type_set_attr', [('datatype', 'h:Datatype'), ('type_keyval', 'int'),
                       ('attribute_val', 'aint')], None),
    ('Type_create_keyval', [('type_copy_attr_fn', 'fn'),
                            ('type_delete_attr_fn', 'fn'),
                            ('type_keyval', 'int*'),
                            ('extra_state', 'aint')], None),
    ('Win_get_attr', [('win', 'h:Win'), ('win_keyval', 'int'),
                      ('attribute_val', 'aint*'), ('flag', 'lout')], None),
    ('Win_set_attr', [('win', 'h:Win'), ('win_keyval', 'int'),
                      ('attribute_val', 'aint')], None),
    ('Win_create_keyval', [('win_copy_attr_fn', 'fn'),
                           ('win_delete_attr_fn', 'fn'),
                           ('win_keyval', 'int*'),
                           ('extra_state', 'aint')], None),
    ('File_create_errhandler', [('file_errhandler_fn', 'fn'),
                                ('errhandler', 'h*:Errhandler')], None),
    ('Register_datarep', [('datarep', 'sin'), ('read_conversion_fn', 'fn'),
                          ('write_conversion_fn', 'fn'),
                          ('dtype_file_extent_fn', 'fn'),
                          ('extra_state', 'aint')], None),
    ('Register_datarep_c', [('datarep', 'sin'), ('read_conversion_fn', 'fn'),
                            ('write_conversion_fn', 'fn'),
                            ('dtype_file_extent_fn', 'fn'),
                            ('extra_state', 'aint')], None),
    ('Aint_add', [('base', 'aint'), ('disp', 'aint')], 'aint'),
    # Generalized requests: C callbacks that call the Fortran procedures.
    ('Grequest_start', [('query_fn', 'fn'), ('free_fn', 'fn'),
                        ('cancel_fn', 'fn'), ('extra_state', 'aint'),
                        ('request', 'h*:Request')], None),
    ('X_Grequest_start', [('query_fn', 'fn'), ('free_fn', 'fn'),
                          ('cancel_fn', 'fn'), ('poll_fn', 'fn'),
                          ('wait_fn', 'fn'), ('extra_state', 'aint'),
                          ('request', 'h*:Request')], None),
    ('X_Grequest_class_create', [('query_fn', 'fn'), ('free_fn', 'fn'),
                                 ('cancel_fn', 'fn'), ('poll_fn', 'fn'),
                                 ('wait_fn', 'fn'), ('greq_class', 'int*')],
     None),
    ('X_Grequest_class_allocate', [('greq_class', 'int'),
                                   ('extra_state', 'aint'),
                                   ('request', 'h*:Request')], None),
    # Arrays of blank-padded strings, each list ended by a blank one.
    ('Comm_spawn', [('command', 'sin'), ('argv', 's[]'), ('maxprocs', 'int'),
                    ('info', 'h:Info'), ('root', 'int'), ('comm', 'h:Comm'),
                    ('intercomm', 'h*:Comm'), ('array_of_errcodes', 'int[]')],
     None),
    ('Comm_spawn_multiple', [('count', 'int'), ('array_of_commands', 's[]'),
                             ('array_of_argv', 's[][]'),
                             ('array_of_maxprocs', 'int[]'),
                             ('array_of_info', 'h[]:Info'), ('root', 'int'),
                             ('comm', 'h:Comm'), ('intercomm', 'h*:Comm'),
                             ('array_of_errcodes', 'int[]')], None),
    # MPICH's binding: the C result (1 or 0) arrives in the one INTEGER.
    ('X_Query_cuda_support', [], None),
    ('X_Query_hip_support', [], None),
    ('X_Query_ze_support', [], None),
    ('X_Query_ascend_support', [], None),
    # MPI_F_SYNC_REG has no IERROR: it only tells the compiler that the
    # buffer may change.
    ('F_sync_reg', [('buf', 'buf')], 'noerr'),
    ('Aint_diff', [('addr1', 'aint'), ('addr2', 'aint')], 'aint'),
    # MPI-1: INTEGER addresses, displacements and attribute values.
    ('Address', [('location', 'buf'), ('address', 'int*')], None),
    ('Type_extent', [('datatype', 'h:Datatype'), ('extent', 'int*')], None),
    ('Type_lb', [('datatype', 'h:Datatype'), ('displacement', 'int*')],
     None),
    ('Type_ub', [('datatype', 'h:Datatype'), ('displacement', 'int*')],
     None),
    ('Type_hindexed', [('count', 'int'), ('array_of_blocklengths', 'int[]'),
                       ('array_of_displacements', 'int[]'),
                       ('oldtype', 'h:Datatype'),
                       ('newtype', 'h*:Datatype')], None),
    ('Type_hvector', [('count', 'int'), ('blocklength', 'int'),
                      ('stride', 'int'), ('oldtype', 'h:Datatype'),
                      ('newtype', 'h*:Datatype')], None),
    ('Type_struct', [('count', 'int'), ('array_of_blocklengths', 'int[]'),
                     ('array_of_displacements', 'int[]'),
                     ('array_of_types', 'h[]:Datatype'),
                     ('newtype', 'h*:Datatype')], None),
    ('Attr_get', [('comm', 'h:Comm'), ('keyval', 'int'),
                  ('attribute_val', 'int*'), ('flag', 'lout')], None),
    ('Attr_put', [('comm', 'h:Comm'), ('keyval', 'int'),
                  ('attribute_val', 'int')], None),
    ('Keyval_create', [('copy_fn', 'fn'), ('delete_fn', 'fn'),
                       ('keyval', 'int*'), ('extra_state', 'int')], None),
]
HAND_NAMES = {c for c, _, _ in HAND}

# C `int` arguments that are LOGICAL in Fortran, and `int *` outputs too.
LOGICAL_IN = {('Status_set_cancelled', 'flag'), ('Op_create', 'commute'),
              ('Op_create_c', 'commute'),
              ('Intercomm_merge', 'high'), ('Cart_create', 'reorder'),
              ('Graph_create', 'reorder'), ('Dist_graph_create', 'reorder'),
              ('Dist_graph_create_adjacent', 'reorder'),
              ('File_set_atomicity', 'flag')}
LOGICAL_OUT_NAMES = {'flag', 'commute', 'weighted', 'is_supported'}
# `int *` arguments named like those that are INTEGER all the same: the
# agreement's flag is a bit mask, read and written (passed through).
INTEGER_FLAGS = {('X_Comm_agree', 'flag'), ('X_Comm_iagree', 'flag')}
# C `int` arrays that are LOGICAL arrays in Fortran (passed through: a
# LOGICAL is 0 or 1 in gfortran, and C only tests them for non-zero or
# writes 0 and 1).
LOGICAL_ARRAYS = {('Cart_create', 'periods'), ('Cart_get', 'periods'),
                  ('Cart_map', 'periods'), ('Cart_sub', 'remain_dims')}
# Output strings: C buffer size for each (call, argument).
STRING_OUT = {
    ('Get_processor_name', 'name'): 'MPI_MAX_PROCESSOR_NAME',
    ('Error_string', 'string'): 'MPI_MAX_ERROR_STRING',
    ('Comm_get_name', 'comm_name'): 'MPI_MAX_OBJECT_NAME',
    ('Type_get_name', 'type_name'): 'MPI_MAX_OBJECT_NAME',
    ('Win_get_name', 'win_name'): 'MPI_MAX_OBJECT_NAME',
    ('Get_library_version', 'version'): 'MPI_MAX_LIBRARY_VERSION_STRING',
    ('Info_get_nthkey', 'key'): 'MPI_MAX_INFO_KEY',
    ('Info_get', 'value'): '(size_t)*valuelen',
    ('File_get_view', 'datarep'): 'MPI_MAX_DATAREP_STRING',
    ('Open_port', 'port_name'): 'MPI_MAX_PORT_NAME',
    ('Lookup_name', 'port_name'): 'MPI_MAX_PORT_NAME',
}
# 0-based C indices that are 1-based in Fortran.
INDEX_OUT = {('Waitany', 'indx'), ('Testany', 'indx'),
             ('Request_get_status_any', 'index')}
INDICES_OUT = {('Waitsome', 'array_of_indices'),
               ('Testsome', 'array_of_indices'),
               ('Request_get_status_some', 'array_of_indices')}

# Edge weights of distributed graphs: the array, or the sentinel
# MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY (scalars in COMMON, whose addresses
# hc_f_weights turns into the C sentinels; no rank check on the dummy, so
# the scalar may stand for the array).
WEIGHTS = {('Dist_graph_create', 'weights'),
           ('Dist_graph_create_adjacent', 'sourceweights'),
           ('Dist_graph_create_adjacent', 'destweights'),
           ('Dist_graph_neighbors', 'sourceweights'),
           ('Dist_graph_neighbors', 'destweights')}

HANDLES = ['Comm', 'Datatype', 'Group', 'Info', 'Op', 'Errhandler',
           'Request', 'Win', 'Session', 'Message', 'File']
PASS_FN = {'MPI_User_function', 'MPI_User_function_c', 'MPI_Comm_errhandler_function',
           'MPI_Win_errhandler_function', 'MPI_Session_errhandler_function',
           'MPI_Comm_errhandler_fn', 'MPI_Handler_function',
           'MPI_File_errhandler_function'}


# ---- reading the C library ----------------------------------------------
def c_name(call):
    """The C name of a call: MPI_x, or MPIX_x for the MPICH extensions
    bound here (kept as X_x in the tables)."""
    return 'MPIX_' + call[2:] if call.startswith('X_') else 'MPI_' + call


def read_prototypes():
    text = open(os.path.join(ROOT, 'include', 'mpi.h')).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'^\s*#.*$', ' ', text, flags=re.M)
    text = re.sub(r'\s+', ' ', text)
    protos = {}
    for ret, x, name, args in re.findall(
            r'\b(int|double)\s+PMPI(X?)_(\w+)\s*\(([^;{}]*?)\)\s*;', text):
        protos[('X_' if x else '') + name] = (ret, args.strip())
    return protos


def implemented_calls():
    names = set()
    for layer in ('mpi', 'io'):
        d = os.path.join(ROOT, 'src', layer)
        for f in sorted(os.listdir(d)):
            if f.endswith('.c'):
                src = open(os.path.join(d, f)).read()
                names.update(re.findall(
                    r'^(?:int|double)\s*\n?PMPI_(\w+)\s*\(', src, flags=re.M))
                # Of MPICH's extensions, those MPICH binds in Fortran too:
                # fault tolerance (MPIX_Comm_*), error-class removal and
                # the GPU query.
                names.update('X_' + n for n in re.findall(
                    r'^int\s*\n?PMPIX_(Comm_\w+|Delete_error_\w+|'
                    r'GPU_query_support)\s*\(', src, flags=re.M))
    # The tool interface (MPI_T_*) has no Fortran bindings in the standard.
    return {n for n in names if not n.startswith('T_')}


def parse_arg(call, arg):
    """Map one C parameter to (name, kind) or raise ValueError."""
    m = re.match(r'(.*?)(\w+)\s*(\[\s*\])?(\[3\])?$', arg.strip())
    if not m:
        raise ValueError(arg)
    ctype = m.group(1).replace('const', '').strip()
    name, arr = m.group(2), bool(m.group(3))
    if m.group(4) and ctype == 'int':
        return name, 'int[][3]'
    if ctype == 'char' and arr:
        ctype, arr = 'char *', False
    if ctype in ('void *',):
        return name, 'buf'
    if ctype == 'int' and not arr:
        if (call, name) in LOGICAL_IN:
            return name, 'lin'
        return name, 'int'
    if ctype == 'int' and arr:
        if (call, name) in INDICES_OUT:
            return name, 'idx[]'
        if (call, name) in WEIGHTS:
            return name, 'w[]'
        if (call, name) in LOGICAL_ARRAYS:
            return name, 'l[]'
        return name, 'int[]'
    if ctype == 'int *':
        if name in LOGICAL_OUT_NAMES and (call, name) not in INTEGER_FLAGS:
            return name, 'lout'
        if (call, name) in INDEX_OUT:
            return name, 'idx*'
        return name, 'int*'
    for k in ('Aint', 'Count', 'Offset'):
        if ctype == 'MPI_' + k:
            return name, k.lower() + ('[]' if arr else '')
        if ctype == 'MPI_%s *' % k:
            return name, k.lower() + '*'
    for h in HANDLES:
        if ctype == 'MPI_' + h:
            return name, ('h[]:' if arr else 'h:') + h
        if ctype == 'MPI_%s *' % h:
            return name, 'h*:' + h
    if ctype == 'MPI_Status *' and name == 'array_of_statuses':
        return name, 'st[]'  # mpi.h spells status arrays as pointers
    if ctype == 'MPI_Status *' and not arr:
        if call in ('Get_count', 'Get_elements', 'Get_elements_x',
                    'Get_count_c', 'Get_elements_c',
                    'Test_cancelled', 'Status_set_elements',
                    'Status_set_elements_x', 'Status_set_elements_c',
                    'Status_set_cancelled'):
            return name, 'stin'
        return name, 'st'
    if ctype == 'MPI_Status' and arr:
        return name, 'st[]'
    if ctype == 'char *' and not arr:
        if (call, name) in STRING_OUT:
            return name, 'sout'
        if 'const' in arg:
            return name, 'sin'
        raise ValueError('output string without a size: ' + arg)
    if ctype.endswith('*') and ctype[:-1].strip() in PASS_FN:
        return name, 'fn'
    raise ValueError(arg)


def bindable(protos, implemented):
    calls, skipped = [], []
    for name in sorted(implemented):
        if name in SKIP or name not in protos:
            continue
        ret, args = protos[name]
        if ret != 'int':
            skipped.append((name, 'returns ' + ret))
            continue
        try:
            parsed = [] if args in ('', 'void') else \
                [parse_arg(name, a) for a in split_args(args)]
        except ValueError as e:
            skipped.append((name, str(e)))
            continue
        calls.append((name, parsed))
    return calls, skipped


def split_args(args):
    return [a for a in args.split(',') if a.strip()]


# ---- C output ------------------------------------------------------------
CTYPE = {'buf': 'void *', 'int[][3]': 'MPI_Fint *', 'int': 'MPI_Fint *', 'int[]': 'MPI_Fint *',
         'int*': 'MPI_Fint *', 'idx*': 'MPI_Fint *', 'idx[]': 'MPI_Fint *',
         'w[]': 'MPI_Fint *', 'l[]': 'MPI_Fint *',
         'lin': 'MPI_Fint *', 'lout': 'MPI_Fint *', 'aint': 'MPI_Aint *',
         'aint[]': 'MPI_Aint *', 'aint*': 'MPI_Aint *',
         'count': 'MPI_Count *', 'count[]': 'MPI_Count *',
         'count*': 'MPI_Count *', 'offset': 'MPI_Offset *',
         'offset*': 'MPI_Offset *', 'st': 'MPI_Fint *', 'stin': 'MPI_Fint *',
         'st[]': 'MPI_Fint *', 'sin': 'char *', 'sout': 'char *'}


def c_param(name, kind):
    if kind.startswith('h'):
        return 'MPI_Fint *' + name
    if kind == 'fn':
        return 'void *' + name
    return CTYPE[kind] + name


def c_signature(fname, args):
    params = [c_param(n, k) for n, k in args] + ['MPI_Fint *ierr']
    params += ['size_t %s_len' % n for n, k in args if k in ('sin', 'sout')]
    return 'void %s(%s)' % (fname, ', '.join(params))


BIND_KIND = {'h:Comm': 'HC_MPI_BIND_COMM', 'h:Win': 'HC_MPI_BIND_WIN',
             'h:File': 'HC_MPI_BIND_FILE', 'h:Session': 'HC_MPI_BIND_SESSION'}


def bind_object(args):
    """The object whose error handler sees an error the wrapper finds
    itself: the first communicator, window, file or session argument (as
    kind, Fortran handle expression); none raises on MPI_COMM_WORLD's, as
    the C face does."""
    for n, k in args:
        if k in BIND_KIND:
            return BIND_KIND[k], '*' + n
    return 'HC_MPI_BIND_NONE', '0'


def c_body(call, args):
    pre, actual, post, cleanup = [], [], [], []
    for n, k in args:
        if k == 'buf':
            actual.append('hc_f_buf(%s)' % n)
        elif k == 'h:File':  # a pointer in C, an integer in Fortran
            actual.append('MPI_File_f2c(*%s)' % n)
        elif k == 'h*:File':
            pre.append('MPI_File %s_c = MPI_File_f2c(*%s);' % (n, n))
            actual.append('&%s_c' % n)
            post.append('*%s = MPI_File_c2f(%s_c);' % (n, n))
        elif k in ('int', 'aint', 'count', 'offset', 'lin') or \
                k.startswith('h:'):
            actual.append('*' + n if k != 'lin' else '(*%s != 0)' % n)
        elif k == 'lout':
            pre.append('int %s_c = 0;' % n)
            actual.append('&%s_c' % n)
            post.append('*%s = hc_f_logical(%s_c);' % (n, n))
        elif k == 'idx*':
            pre.append('int %s_c = MPI_UNDEFINED;' % n)
            actual.append('&%s_c' % n)
            post.append('*%s = hc_f_index(%s_c);' % (n, n))
        elif k == 'idx[]':
            actual.append(n)
            post.append('hc_f_indices(%s, *outcount);' % n)
        elif k == 'w[]':
            actual.append('hc_f_weights(%s)' % n)
        elif k == 'st':
            actual.append('hc_f_status(%s)' % n)
        elif k == 'stin':
            actual.append('(MPI_Status *)%s' % n)
        elif k == 'st[]':
            actual.append('hc_f_statuses(%s)' % n)
        elif k == 'sin':
            pre.append('char *%s_c = hc_f_str_in(%s, %s_len);' % (n, n, n))
            actual.append('%s_c' % n)
            cleanup.append('free(%s_c);' % n)
        elif k == 'sout':
            size = STRING_OUT[(call, n)]
            pre.append('char *%s_c = hc_f_str_buf(%s);' % (n, size))
            actual.append('%s_c' % n)
            # A call that says by flag whether it found a value (MPI_Info_get)
            # leaves the caller's string alone when it did not.
            found = 'if (flag_c) ' if ('flag', 'lout') in args else ''
            post.append('%shc_f_str_out(%s, %s_len, %s_c);' % (found, n, n, n))
            cleanup.append('free(%s_c);' % n)
        elif k == 'fn':
            actual.append('(void *)%s' % n)
        elif k == 'int[][3]':
            actual.append('(int(*)[3])%s' % n)
        else:  # pointers and arrays pass through: same layout in C
            actual.append(n)
    lines = ['  ' + p for p in pre]
    copies = [n for n, k in args if k in ('sin', 'sout')]
    if copies:
        lines.append('  if (%s) {' % ' || '.join('!%s_c' % n for n in copies))
        lines += ['    ' + c for c in cleanup]
        kind, handle = bind_object(args)
        what = 'no memory for a C copy of %s' % ' or '.join(copies)
        lines.append('    hc_f_raise(ierr, "%s", %s, %s, MPI_ERR_NO_MEM,' %
                     (c_name(call), kind, handle))
        lines.append('               "%s");' % what)
        lines.append('    return;')
        lines.append('  }')
    lines.append('  int rc = %s(%s);' % (c_name(call), ', '.join(actual)))
    if post:
        lines.append('  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {')
        lines += ['    ' + p for p in post]
        lines.append('  }')
    lines += ['  ' + c for c in cleanup]
    lines.append('  hc_f_err(ierr, rc);')
    return '\n'.join(lines)


def alias_names(call):
    low = c_name(call).lower()
    return [low + '_', low, low + '__', c_name(call).upper(), 'p' + low,
            'p' + low + '__', 'P' + c_name(call).upper()]


def write_c(calls):
    hdr = ['/* Generated by src/fortran/buildiface.py; do not edit. */',
           '#ifndef HC_FORT_BIND_H', '#define HC_FORT_BIND_H',
           # In the order clang-format sorts them, so that the output is
           # the same with and without it (tests/fortran/current.sh).
           '#include "fortran/fort_gfc.h"', '#include "mpi.h"',
           '#include <stddef.h>', '']
    src = ['/* Generated by src/fortran/buildiface.py from include/mpi.h; do',
           ' * not edit.  Each pmpi_x_ converts Fortran arguments, calls the C',
           ' * MPI_x (so C-level profiling sees Fortran calls too) and stores',
           ' * the error code; the other name forms are weak aliases. */',
           '#include "fortran/fort_impl.h"', '#include <stdlib.h>', '']
    names = {c for c, _ in calls}
    for call, args in calls:
        sig = c_signature('p%s_' % c_name(call).lower(), args)
        hdr.append(sig + ';')
        src.append(sig)
        src.append('{')
        src.append(c_body(call, args))
        src.append('}')
        for a in alias_names(call):
            src.append('#pragma weak %s = p%s_' % (a, c_name(call).lower()))
        src += f08_entry(call, args, names, hdr)
        src.append('')
    hdr += ['', '#endif']
    open(os.path.join(OUT, 'fort_bind.h'), 'w').write('\n'.join(hdr) + '\n')
    open(os.path.join(OUT, 'fort_bind.c'), 'w').write('\n'.join(src))


# ---- MPICH's mpi_f08 entry points ------------------------------------------
# A program compiled with MPICH's `use mpi_f08`, and one compiled with ours,
# calls mpi_x_f08_ (or mpi_x_f08ts_ when x has a choice buffer,
# mpi_x_f08[ts]_large_ for the MPI_COUNT_KIND form, mpi_x_c_f08[ts]_ from
# MPICH 4.2 on).  Handles, statuses,
# LOGICALs, strings and the OPTIONAL ierror arrive as they do in mpif.h's
# binding, so those names are aliases of pmpi_x_; a choice buffer arrives
# as gfortran's descriptor of an assumed-rank array.  A contiguous one
# passes its first element's address to pmpi_x_; an array section with
# gaps becomes a datatype or a copy (fort_section.c), as the call allows.

# Calls that use a buffer after they return, besides the I-forms, the
# _init forms and the nonblocking file calls.
KEEPS_BUFFER = {'Put', 'Get', 'Accumulate', 'Get_accumulate', 'Fetch_and_op',
                'Compare_and_swap', 'Rput', 'Rget', 'Raccumulate',
                'Rget_accumulate'}
# Buffers a call needs as one piece of memory (windows, the attached send
# buffer).
WHOLE_BUFFER = {'Buffer_attach', 'Win_create', 'Win_attach'}
# Calls that take only the buffer's address.
ADDRESS_ONLY = {'Get_address', 'Free_mem', 'Win_detach'}
# Buffers a call only reads (so a copy need not be written back); Get's
# origin_addr is where it writes.
INPUT_BUFFERS = {'sendbuf', 'origin_addr', 'compare_addr', 'inbuf'}
SENDS = {'Send', 'Bsend', 'Ssend', 'Rsend', 'Psend'}
# Buffers whose count is one peer's block of them.
PER_PEER = {('Gather', 'recvbuf'), ('Allgather', 'recvbuf'),
            ('Neighbor_allgather', 'recvbuf'), ('Scatter', 'sendbuf'),
            ('Alltoall', 'sendbuf'), ('Alltoall', 'recvbuf'),
            ('Neighbor_alltoall', 'sendbuf'),
            ('Neighbor_alltoall', 'recvbuf')}


def call_family(call):
    """Send for Isend, Send_init, Send_c...: the blocking call's name."""
    base = call[:-2] if call.endswith('_c') else call
    base = base[:-5] if base.endswith('_init') else base
    if base[0] == 'I' and base[1].islower():
        base = base[1].upper() + base[2:]
    return base


def keeps_buffer(call):
    base = call[:-2] if call.endswith('_c') else call
    return (base[0] == 'I' and base[1].islower()) or base.endswith('_init') \
        or base in KEEPS_BUFFER or base.startswith('File_i') or \
        base.endswith('_begin')


def buffer_plan(call, args):
    """For each choice buffer: (name, flags, count arg or None, datatype
    arg or None); and whether the buffers share one count and datatype."""
    base = call[:-2] if call.endswith('_c') else call
    family = call_family(call)
    names = [n for n, _ in args]
    bufs = [n for n, k in args if k == 'buf']
    blocking = not keeps_buffer(call)
    # Buffers side by side share the count and datatype after them
    # (Reduce's sendbuf and recvbuf, Compare_and_swap's three).
    at = [names.index(b) for b in bufs]
    shared = len(bufs) > 1 and at == list(range(at[0], at[0] + len(bufs)))
    plan = []
    for b in bufs:
        i = names.index(b)
        flags = []
        if base in ADDRESS_ONLY or (base.startswith('File_') and
                                    base.endswith('_end')):
            flags.append('ADDRESS')
        elif base in WHOLE_BUFFER:
            flags.append('WHOLE')
        count = dtype = None
        if shared:
            dtype = 'datatype'
            count = 'count' if 'count' in names else \
                None if any(n.startswith('recvcount') for n in names) else 1
            flags.append('COUNTED' if count is not None else 'SPACED')
        elif i + 2 < len(args) and args[i + 1][1] in ('int', 'count') and \
                args[i + 2][1] == 'h:Datatype':
            count, dtype = args[i + 1][0], args[i + 2][0]
            flags.append('PER_PEER' if (family, b) in PER_PEER else 'COUNTED')
        elif 'ADDRESS' not in flags and 'WHOLE' not in flags:
            # Counts in arrays (or partitions) before the buffer's datatype.
            for n, k in args[i + 1:]:
                if k == 'buf':
                    break
                if k == 'h:Datatype':
                    dtype = n
                    flags.append('SPACED')
                    break
        if blocking:
            flags.append('COPY')
        reads_only = (b in INPUT_BUFFERS and family not in ('Get', 'Rget')) \
            or (b == 'buf' and (family in SENDS or 'write' in base))
        if not reads_only:
            flags.append('OUT')
        plan.append((b, flags, count, dtype))
    return plan, shared


def f08ts_body(call, args, target):
    """The body of pmpi_x_f08ts_: buffers prepared, the call, the end."""
    plan, shared = buffer_plan(call, args)
    kinds = dict(args)
    bufs = [b for b, _, _, _ in plan]
    fn = c_name(call)
    kind, handle = bind_object(args)
    plain = [('hc_f_f08ts_buf(%s)' % n) if n in bufs else n
             for n, k in args] + ['ierr']
    plain += ['%s_len' % n for n, k in args if k in ('sin', 'sout')]
    if all('ADDRESS' in f for _, f, _, _ in plan):
        return ['  %s(%s);' % (target, ', '.join(plain))]
    out = ['  if (%s) {' % ' && '.join('hc_f_f08ts_contiguous(%s)' % b
                                       for b in bufs),
           '    %s(%s);' % (target, ', '.join(plain)),
           '    return;', '  }',
           '  hc_f_section_t s[%d] = {{0}};' % len(plan)]
    swap = {}  # argument -> what the call gets instead

    def flag_expr(flags):
        return ' | '.join('HC_F_SECTION_' + f for f in flags) or '0'

    def count_expr(count):
        return '1' if count == 1 else '-1' if count is None else '*' + count

    if shared:
        _, _, count, dtype = plan[0]
        out += ['  hc_f_gfc_desc_t *const descs[] = {%s};' % ', '.join(bufs),
                '  static const char *const names[] = {%s};' %
                ', '.join('"%s"' % b for b in bufs),
                '  static const int how[] = {%s};' %
                ', '.join(flag_expr(f) for _, f, _, _ in plan),
                '  int ok = hc_f_section_open_shared(s, %d, names, descs, how, '
                '%s, *%s);' % (len(bufs), count_expr(count), dtype)]
        for i, b in enumerate(bufs):
            swap[b] = 's[%d].addr' % i
        if count == 'count':
            swap['count'] = '&s[0].%s' % (
                'count_c' if kinds['count'] == 'count' else 'count')
        swap[dtype] = '&s[0].type'
    else:
        out.append('  int ok = 1;')
        for i, (b, flags, count, dtype) in enumerate(plan):
            out.append('  ok = ok && hc_f_section_open(&s[%d], "%s", %s, %s, '
                       '%s, %s);' % (i, b, b, count_expr(count),
                                     '*' + dtype if dtype else '0',
                                     flag_expr(flags)))
            swap[b] = 's[%d].addr' % i
            if count:
                swap[count] = '&s[%d].%s' % (
                    i, 'count_c' if kinds[count] == 'count' else 'count')
            if dtype:
                swap[dtype] = '&s[%d].type' % i
    actual = [swap.get(n, n) for n, k in args] + ['ierr']
    actual += ['%s_len' % n for n, k in args if k in ('sin', 'sout')]
    out += ['  if (ok)', '    %s(%s);' % (target, ', '.join(actual)),
            '  hc_f_sections_end(s, %d, ok, "%s", %s, %s, ierr);' %
            (len(plan), fn, kind, handle)]
    return out


def f08_entry(call, args, names, hdr):
    if call in NOT_F08:
        return []
    large = call.endswith('_c') and call[:-2] in names
    base = call[:-2] if large else call
    # baseptr (Alloc_mem, Win_allocate...) is TYPE(C_PTR) in mpi_f08, by
    # reference as the mpif.h INTEGER is: no descriptor.
    bufs = [n for n, k in args if k == 'buf' and n != 'baseptr']
    ts = bool(bufs)
    f08 = '%s_f08%s%s' % (c_name(base).lower(), 'ts' if ts else '',
                          '_large' if large else '')
    target = 'p%s_' % c_name(call).lower()
    out = []
    if ts:
        params = [('hc_f_gfc_desc_t *' + n) if n in bufs else c_param(n, k)
                  for n, k in args] + ['MPI_Fint *ierr']
        params += ['size_t %s_len' % n for n, k in args if k in ('sin', 'sout')]
        sig = 'void p%s_(%s)' % (f08, ', '.join(params))
        hdr.append(sig + ';')
        out += [sig, '{'] + f08ts_body(call, args, target) + ['}']
        target = 'p%s_' % f08
    else:
        out.append('#pragma weak p%s_ = %s' % (f08, target))
    # MPICH 4.2 renamed the large forms mpi_x_c_f08[ts]_ (4.0 and 4.1:
    # mpi_x_f08[ts]_large_); a program built with either module links.
    names = [f08]
    if large:
        names.append('%s_c_f08%s' % (c_name(base).lower(), 'ts' if ts else ''))
    for name in names:
        out.append('#pragma weak %s_ = %s' % (name, target))
        # What MPICH's pmpi_f08 module calls.
        if name.startswith('mpix_'):
            out.append('#pragma weak pmpixr_%s_ = %s' % (name[5:], target))
        else:
            out.append('#pragma weak pmpir_%s_ = %s' % (name[4:], target))
    # MPICH's mpi_f08 binds MPIX_Delete_error_* under MPI_ names.
    if base.startswith('X_Delete_error_'):
        out.append('#pragma weak mpi_%s_ = %s' % (f08[5:], target))
        out.append('#pragma weak pmpir_%s_ = %s' % (f08[5:], target))
    return out


def write_aliases(hand):
    """Aliases of the hand-written pmpi_x_, included at the end of
    fort_hand.c (a weak alias must be in its target's file)."""
    src = ['/* Generated by src/fortran/buildiface.py; do not edit.  Name',
           ' * forms of the calls written by hand in fort_hand.c. */']
    for call, args, _ in hand:
        for a in alias_names(call):
            src.append('#pragma weak %s = p%s_' % (a, c_name(call).lower()))
        # MPICH's mpi_f08 names (see f08_entry) of those without a buffer.
        if call not in NOT_F08 and not any(k == 'buf' for _, k in args):
            src += f08_entry(call, args, {c for c, _, _ in hand}, [])
    open(os.path.join(OUT, 'fort_hand_alias.h'), 'w').write('\n'.join(src) + '\n')


# ---- Fortran interfaces --------------------------------------------------
# The abstract interface (mpi_f08_callbacks.f90) of each procedure dummy in
# mpi_f08, by dummy name; `use mpi` and MPICH's poll_fn/wait_fn keep
# EXTERNAL.  A large-count call (_c) takes the _c form where one exists.
F08_CALLBACK = {
    'user_fn': 'MPI_User_function',
    'comm_copy_attr_fn': 'MPI_Comm_copy_attr_function',
    'comm_delete_attr_fn': 'MPI_Comm_delete_attr_function',
    'type_copy_attr_fn': 'MPI_Type_copy_attr_function',
    'type_delete_attr_fn': 'MPI_Type_delete_attr_function',
    'win_copy_attr_fn': 'MPI_Win_copy_attr_function',
    'win_delete_attr_fn': 'MPI_Win_delete_attr_function',
    'comm_errhandler_fn': 'MPI_Comm_errhandler_function',
    'win_errhandler_fn': 'MPI_Win_errhandler_function',
    'file_errhandler_fn': 'MPI_File_errhandler_function',
    'session_errhandler_fn': 'MPI_Session_errhandler_function',
    'query_fn': 'MPI_Grequest_query_function',
    'free_fn': 'MPI_Grequest_free_function',
    'cancel_fn': 'MPI_Grequest_cancel_function',
    'read_conversion_fn': 'MPI_Datarep_conversion_function',
    'write_conversion_fn': 'MPI_Datarep_conversion_function',
    'dtype_file_extent_fn': 'MPI_Datarep_extent_function',
}
F08_CALLBACK_C = {'MPI_User_function', 'MPI_Datarep_conversion_function'}


def f_decl(name, kind, f08, call='', ts=False):
    base = kind.split(':')[0]
    if base == 'buf' and ts and name != 'baseptr':
        # Assumed rank: any array or section arrives with its descriptor.
        return ['type(*), dimension(..)%s :: %s' % (
            ', asynchronous' if keeps_buffer(call) else '', name)]
    if base == 'buf':
        return ['!GCC$ ATTRIBUTES NO_ARG_CHECK :: ' + name,
                'type(*), dimension(*) :: ' + name]
    scalar = base in ('int', 'int*', 'idx*', 'lin', 'lout', 'aint', 'aint*',
                      'count', 'count*', 'offset', 'offset*', 'h', 'h*')
    dims = '' if scalar else '(*)'
    if base in ('lin', 'lout'):
        return ['logical :: ' + name]
    if base == 'l[]':
        return ['logical :: %s(*)' % name]
    if base in ('sin', 'sout'):
        return ['character(len=*) :: ' + name]
    if base == 's[]':
        return ['character(len=*) :: %s(*)' % name]
    if base == 's[][]':
        return ['character(len=*) :: %s(count, *)' % name]
    if base == 'fn':
        iface = F08_CALLBACK.get(name) if f08 else None
        if iface is None:
            return ['external :: ' + name]
        if call.endswith('_c') and iface in F08_CALLBACK_C:
            iface += '_c'
        return ['procedure(%s) :: %s' % (iface, name)]
    if base.startswith('aint') or base.startswith('offset'):
        return ['integer(kind=8) :: %s%s' % (name, dims)]
    if base.startswith('count'):
        return ['integer(kind=8) :: %s%s' % (name, dims)]
    if base.startswith('h') and f08:
        return ['type(MPI_%s) :: %s%s' % (kind.split(':')[1], name, dims)]
    if base == 'int[][3]':
        return ['integer :: %s(3, *)' % name]
    if base == 'w[]':
        return ['!GCC$ ATTRIBUTES NO_ARG_CHECK :: ' + name,
                'integer :: %s(*)' % name]
    if base in ('st', 'stin'):
        return ['type(MPI_Status) :: ' + name] if f08 else \
            ['integer :: %s(5)' % name]
    if base == 'st[]':
        return ['type(MPI_Status) :: %s(*)' % name] if f08 else \
            ['integer :: %s(5, *)' % name]
    return ['integer :: %s%s' % (name, dims)]


def f08ts_name(call, args, by_name):
    """mpi_f08's specific name for a call whose choice buffers arrive as
    descriptors (MPI_Send_f08ts, MPI_Send_f08ts_large: the C entry points
    of f08_entry), or None."""
    if call in NOT_F08 or call in HAND_NAMES or \
            not any(k == 'buf' and n != 'baseptr' for n, k in args):
        return None
    large = call.endswith('_c') and call[:-2] in by_name
    return '%s_f08ts%s' % (c_name(call[:-2] if large else call),
                           '_large' if large else '')


def f_interface(call, args, result, f08, prefix='', ts_name=None):
    """The interface body of one call; prefix 'P' gives its profiling
    name (PMPI_x, the same binding under pmpi_x_); ts_name, its specific
    name in mpi_f08 when its buffers arrive as descriptors."""
    names = [n for n, k in args]
    if result is None:
        names.append('ierror')
    sub = result in (None, 'noerr')
    name = prefix + (ts_name or c_name(call))
    head = '%s %s(%s)' % ('subroutine' if sub else 'function', name,
                          ', '.join(names))
    out = wrap(head) + (['  import'] if f08 else []) + ['  implicit none']
    if not sub:
        rtype = 'double precision' if result == 'double' else \
            'integer(kind=8)'
        out.append('  %s :: %s' % (rtype, name))
    for n, k in args:
        out += ['  ' + d for d in f_decl(n, k, f08, call, bool(ts_name))]
    if result is None:
        out.append('  integer%s :: ierror' % (', optional' if f08 else ''))
    out.append('end %s' % ('subroutine' if sub else 'function'))
    return out


def wrap(line, width=100):
    out = []
    while len(line) > width:
        cut = line.rfind(', ', 0, width) + 1
        out.append(line[:cut] + ' &')
        line = '    ' + line[cut:].lstrip()
    return out + [line]


# ---- large counts in mpi_f08 ----------------------------------------------
# MPI-4 gives mpi_f08 the _c forms as overloads of the plain names: one
# generic MPI_X whose specifics are MPI_X (INTEGER counts) and MPI_X_c
# (INTEGER(KIND=MPI_COUNT_KIND)).  Where nothing but MPI_ADDRESS_KIND
# against MPI_COUNT_KIND tells them apart (both kind 8 here), the _c form
# keeps its own name only (MPI_Type_get_extent_c ...).  `use mpi` and
# mpif.h have no large-count forms.
def arg_tkr(kind):
    """Type, kind and rank of a dummy for generic resolution; None for one
    that matches anything (assumed type, procedures)."""
    base = kind.split(':')[0]
    if base in ('buf', 'fn'):
        return None
    rank = 2 if base == 'int[][3]' else \
        1 if base.endswith('[]') or base == 'w[]' else 0
    if base.startswith('h'):
        return ('MPI_' + kind.split(':')[1], rank)
    if base in ('lin', 'lout', 'l[]'):
        return ('logical', rank)
    if base.startswith(('aint', 'count', 'offset')):
        return ('integer8', rank)
    if base.startswith(('st',)):
        return ('status', rank)
    if base in ('sin', 'sout'):
        return ('character', 0)
    return ('integer', rank)


def distinguishable(a, b):
    if len(a) != len(b):
        return True
    for (_, ka), (_, kb) in zip(a, b):
        ta, tb = arg_tkr(ka), arg_tkr(kb)
        if ta is not None and tb is not None and ta != tb:
            return True
    return False


def write_ifaces(calls, hand):
    entries = [(c, a, None) for c, a in calls] + HAND
    entries.sort(key=lambda e: e[0])
    by_name = {c: a for c, a, _ in entries}
    generic = {c[:-2] for c, a, _ in entries
               if c.endswith('_c') and c[:-2] in by_name and
               distinguishable(by_name[c[:-2]], a)}
    # mpi_f08 also declares every call under its PMPI_ name (the profiling
    # interface: a tool wrapping MPI_x calls PMPI_x with the same typed
    # arguments); `use mpi` leaves PMPI_ calls to implicit interfaces.
    for f08, fname in ((False, 'mpi_ifaces.f90'), (True, 'mpi_f08_ifaces.f90')):
        out = ['! Generated by src/fortran/buildiface.py; do not edit.']
        for prefix in ('', 'P') if f08 else ('',):
            out += iface_block(entries, by_name, generic, f08, prefix)
        open(os.path.join(OUT, fname), 'w').write('\n'.join(out) + '\n')


def iface_block(entries, by_name, generic, f08, prefix):
    out = ['interface']
    pairs, renamed = [], []
    for call, args, result in entries:
        if not f08 and call in MPIF_EXTERNAL:
            continue
        if f08 and call in NOT_F08:
            continue
        large = call.endswith('_c') and call[:-2] in by_name
        if large and not f08:
            continue
        if f08 and (call in generic or (large and call[:-2] in generic)):
            pairs.append((call, args, result))
            continue
        if f08 and f08ts_name(call, args, by_name):
            renamed.append((call, args, result))
            continue
        out += f_interface(call, args, result, f08, prefix)
    out.append('end interface')

    def body(call, args, result):
        ts = f08ts_name(call, args, by_name) if f08 else None
        return f_interface(call, args, result, f08, prefix, ts)

    # A call whose buffers arrive as descriptors is a generic of its MPI
    # name over the _f08ts specific (and the _c form's, which its own name
    # reaches too).
    for call, args, result in pairs:
        if call.endswith('_c'):
            continue
        large = call + '_c'
        out.append('interface %s%s' % (prefix, c_name(call)))
        out += body(call, args, result)
        out += body(large, by_name[large], None)
        out.append('end interface')
        ts = f08ts_name(large, by_name[large], by_name) if f08 else None
        if ts:
            out += ['interface %s%s' % (prefix, c_name(large)),
                    'procedure :: %s%s' % (prefix, ts), 'end interface']
    for call, args, result in renamed:
        out.append('interface %s%s' % (prefix, c_name(call)))
        out += body(call, args, result)
        out.append('end interface')
    return out


# ---- constants -------------------------------------------------------------
POINTER_CONSTS = {'MPI_BOTTOM', 'MPI_IN_PLACE', 'MPI_STATUS_IGNORE',
                  'MPI_STATUSES_IGNORE', 'MPI_ERRCODES_IGNORE',
                  'MPI_ARGV_NULL', 'MPI_ARGVS_NULL', 'MPI_UNWEIGHTED',
                  'MPI_WEIGHTS_EMPTY', 'MPI_F_STATUS_IGNORE',
                  'MPI_F_STATUSES_IGNORE', 'MPI_F08_STATUS_IGNORE',
                  'MPI_F08_STATUSES_IGNORE', 'MPI_T_PVAR_ALL_HANDLES',
                  'MPI_BUFFER_AUTOMATIC'}
HANDLE_KINDS = {1: 'Comm', 2: 'Group', 3: 'Datatype', 5: 'Errhandler',
                6: 'Op', 7: 'Info', 8: 'Win', 11: 'Request', 14: 'Session'}


def read_constants(cc):
    """Values of every integer object-like MPI_ macro of our mpi.h."""
    inc = os.path.join(ROOT, 'include')
    macros = subprocess.run([cc, '-E', '-dM', '-I', inc, '-x', 'c', '-'],
                            input='#include <mpi.h>\n', capture_output=True,
                            text=True, check=True).stdout
    names = sorted(set(re.findall(r'^#define (MPIX?_[A-Z0-9_]+) \S', macros,
                                  flags=re.M)) - POINTER_CONSTS)
    pre = subprocess.run([cc, '-E', '-I', inc, '-x', 'c', '-'],
                         input='#include <mpi.h>\n', capture_output=True,
                         text=True, check=True).stdout
    for body in re.findall(r'\benum\s*\w*\s*\{([^}]*)\}', pre):
        names += re.findall(r'(?:^|,)\s*(MPIX?_[A-Z0-9_]+)\b', body)
    names = sorted(set(names))
    names = [n for n in names if not n.endswith('_FN') and
             not n.startswith('MPI_F_') and 'FMT' not in n and
             (not n.startswith('MPI_T_') or n.startswith('MPI_T_ERR_'))]
    prog = ['#include <stdio.h>', '#include <mpi.h>', 'int main(void) {']
    for n in names:
        prog.append('  printf("%%s %%d %%lld\\n", "%s", '
                    '_Generic((%s), int: 1, long: 2, long long: 2, '
                    'unsigned: 1, default: 0), (long long)(%s));' % (n, n, n))
    prog += ['  return 0;', '}']
    with tempfile.TemporaryDirectory() as tmp:
        c, exe = os.path.join(tmp, 'c.c'), os.path.join(tmp, 'c')
        open(c, 'w').write('\n'.join(prog) + '\n')
        subprocess.run([cc, '-w', '-I', inc, c, '-o', exe], check=True)
        out = subprocess.run([exe], capture_output=True, text=True,
                             check=True).stdout
    consts = []
    for line in out.splitlines():
        n, kind, v = line.split()
        if kind != '0':
            consts.append((n, int(kind), int(v)))
    return consts


# Constants that are an int in C but INTEGER(KIND=MPI_OFFSET_KIND) in
# Fortran, where they are passed by reference for an offset argument
# (MPI_FILE_SET_VIEW's DISP): a default INTEGER there would leave the
# offset's high half to whatever follows it in memory.
OFFSET_CONSTS = {'MPI_DISPLACEMENT_CURRENT'}

# String sizes: C counts the NUL, Fortran does not (MPICH's mpif.h).
STRING_SIZES = {'MPI_MAX_DATAREP_STRING', 'MPI_MAX_ERROR_STRING',
                'MPI_MAX_INFO_KEY', 'MPI_MAX_INFO_VAL',
                'MPI_MAX_LIBRARY_VERSION_STRING', 'MPI_MAX_OBJECT_NAME',
                'MPI_MAX_PORT_NAME', 'MPI_MAX_PROCESSOR_NAME'}


def fortran_value(v, name=''):
    """Predefined attribute keys are odd in C and one more in Fortran
    (MPICH's convention: the low bit tells the language of the caller)."""
    if name in STRING_SIZES:
        return v - 1
    u = v & 0xffffffff
    if (u >> 30) == 1 and ((u >> 26) & 0xf) == 9 and (u & 1):
        return v + 1
    return v


def handle_type(name, value):
    if name.startswith('MPI_MESSAGE_'):
        return 'Message'
    if name == 'MPI_FILE_NULL':
        return 'File'
    u = value & 0xffffffff
    if u < 0x04000000 or (u >> 30) == 3:
        return None
    return HANDLE_KINDS.get((u >> 26) & 0xf)


def write_mpif(consts):
    out = ['!     hcmpi mpif.h: generated by src/fortran/buildiface.py from',
           '!     include/mpi.h; do not edit.  Fixed- and free-form source.',
           '       INTEGER MPI_SOURCE, MPI_TAG, MPI_ERROR',
           '       PARAMETER (MPI_SOURCE=3,MPI_TAG=4,MPI_ERROR=5)',
           '       INTEGER MPI_STATUS_SIZE',
           '       PARAMETER (MPI_STATUS_SIZE=5)',
           '       INTEGER MPI_ADDRESS_KIND, MPI_OFFSET_KIND',
           '       PARAMETER (MPI_ADDRESS_KIND=8, MPI_OFFSET_KIND=8)',
           '       INTEGER MPI_COUNT_KIND, MPI_INTEGER_KIND',
           '       PARAMETER (MPI_COUNT_KIND=8, MPI_INTEGER_KIND=4)']
    skip = {'MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR', 'MPI_STATUS_SIZE'}
    for n, kind, v in consts:
        if n in skip:
            continue
        v = fortran_value(v, n)
        t = 'INTEGER' if kind == 1 and n not in OFFSET_CONSTS else 'INTEGER*8'
        out.append('       %s %s' % (t, n))
        out.append('       PARAMETER (%s=%d)' % (n, v))
    out += [
        '       INTEGER MPI_FILE_NULL',
        '       PARAMETER (MPI_FILE_NULL=0)',
        '       LOGICAL MPI_SUBARRAYS_SUPPORTED',
        '       PARAMETER (MPI_SUBARRAYS_SUPPORTED=.FALSE.)',
        '       LOGICAL MPI_ASYNC_PROTECTS_NONBLOCKING',
        '       PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=.FALSE.)',
        '       INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)',
        '       INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)',
        '       INTEGER MPI_ERRCODES_IGNORE(1)',
        '       CHARACTER*1 MPI_ARGVS_NULL(1,1)',
        '       CHARACTER*1 MPI_ARGV_NULL(1)',
        '       INTEGER MPI_BOTTOM, MPI_IN_PLACE, MPI_UNWEIGHTED',
        '       INTEGER MPI_WEIGHTS_EMPTY',
        '       INTEGER MPI_BUFFER_AUTOMATIC(1)',
        '!     Addresses the library recognises, under the COMMON names',
        '!     MPICH uses so that objects built by either agree.',
        '       COMMON /MPIFCMB5/ MPI_UNWEIGHTED',
        '       COMMON /MPIFCMB9/ MPI_WEIGHTS_EMPTY',
        '       COMMON /MPIFCMBA/ MPI_BUFFER_AUTOMATIC',
        '       COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE',
        '       COMMON /MPIPRIV2/ MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE',
        '       COMMON /MPIPRIVC/ MPI_ARGVS_NULL, MPI_ARGV_NULL',
        '       SAVE /MPIFCMB5/, /MPIFCMB9/, /MPIPRIV1/, /MPIPRIV2/',
        '       SAVE /MPIPRIVC/, /MPIFCMBA/',
        '       EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK',
        '       DOUBLE PRECISION MPI_WTIME, MPI_WTICK',
        '       DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK',
        '       EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN',
        '       EXTERNAL MPI_COMM_DUP_FN',
        '       EXTERNAL MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN',
        '       EXTERNAL MPI_TYPE_DUP_FN',
        '       EXTERNAL MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN',
        '       EXTERNAL MPI_WIN_DUP_FN',
        '       EXTERNAL MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN',
        '       EXTERNAL MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL_C']
    open(os.path.join(OUT, 'mpif.h'), 'w').write('\n'.join(out) + '\n')


def write_f08_consts(consts):
    out = ['! Generated by src/fortran/buildiface.py; do not edit.',
           'type(MPI_File), parameter :: MPI_FILE_NULL = MPI_File(0)',
           # Array sections pass as descriptors (fort_section.c); mpif.h
           # and `use mpi` pass addresses, so theirs stays .FALSE.
           'logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .true.',
           'logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.']
    for n, kind, v in consts:
        v = fortran_value(v, n)
        h = handle_type(n, v)
        if h:
            out.append('type(MPI_%s), parameter :: %s = MPI_%s(%d)' %
                       (h, n, h, v))
        else:
            k = '' if kind == 1 and n not in OFFSET_CONSTS else '(kind=8)'
            out.append('integer%s, parameter :: %s = %d' % (k, n, v))
    open(os.path.join(OUT, 'mpi_f08_consts.f90'), 'w').write(
        '\n'.join(out) + '\n')


def main():
    cc = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('CC', 'cc')
    protos = read_prototypes()
    calls, skipped = bindable(protos, implemented_calls())
    write_c(calls)
    for f in ('fort_bind.c', 'fort_bind.h'):
        try:
            subprocess.run(['clang-format', '-i', os.path.join(OUT, f)],
                           check=True)
        except OSError:
            pass
    write_aliases(HAND)
    write_ifaces(calls, HAND)
    consts = read_constants(cc)
    write_mpif(consts)
    write_f08_consts(consts)
    print('%d generated bindings, %d hand-written, %d constants' %
          (len(calls), len(HAND), len(consts)))
    for name, why in skipped:
        print('  no binding for %s: %s' % (c_name(name), why))


if __name__ == '__main__':
    main()
