#!/usr/bin/env python3
"""Compare hcmpi's include/mpi.h with MPICH's mpi.h, name by name.

Everything our header declares is probed twice, once compiled against our
header and once against MPICH's (through mpicc.mpich):

  * every object-like MPI_/MPIX_/PMPI_ macro and every MPI_ enumerator:
    its C type and its value (pointer sentinels as integers, strings as text,
    callback constants as null / MPIR_Dup_fn);
  * every function-like conversion macro (MPI_Comm_c2f ...) applied to a
    handle;
  * sizeof and _Alignof of every typedef and extern object, offsetof of every
    field of MPI_Status and MPI_F08_status.

Any difference fails.  Names MPICH lacks are listed but do not fail.  Then a
file that includes our header and repeats MPICH's own declarations of every
function, callback typedef and extern object we declare must compile: C
rejects a redeclaration whose type differs, so this proves the signatures
are identical.  Finally our header must compile warning-free as strict C and
as C++.

usage: abi-check.py OUR_INCLUDE_DIR WORK_DIR
environment: HCMPI_ABI_MPICC (default mpicc.mpich), CC (default cc), CXX (default c++)
"""

import os
import re
import shutil
import subprocess
import sys

NAME_RE = re.compile(r"^(P?MPIX?_\w+|HCMPI\w*)$")


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def declared_name(stmt):
    """The name a simple declaration declares: its last identifier, before
    any array bounds."""
    return re.findall(r"(\w+)\s*(?:\[[^\]]*\])?$", stmt)[0]


def run(cmd, **kw):
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, **kw)
    return res.returncode, res.stdout


# ---- scanning our header ----------------------------------------------------


class Header:
    """What a header declares, found by reading its text."""

    def __init__(self, text):
        self.text = strip_comments(text)
        self.defined = set()  # every macro name, empty ones included
        self.macros = {}      # object-like: name -> definition text
        self.fmacros = []     # function-like macro names
        self.enums = []       # enumerator names
        self.typedefs = {}    # name -> "object" | "struct" | "function"
        self.fields = {}      # struct typedef name -> [field names]
        self.externs = []     # extern data objects
        self.functions = []   # declared function names
        self._scan()

    def _scan(self):
        lines = self.text.replace("\\\n", " ").split("\n")
        code = []
        for line in lines:
            m = re.match(r"\s*#\s*define\s+(\w+)(\(?)(.*)$", line)
            if m:
                self.defined.add(m.group(1))
            if m and NAME_RE.match(m.group(1)):
                if m.group(2):
                    self.fmacros.append(m.group(1))
                elif m.group(3).strip():
                    self.macros[m.group(1)] = m.group(3).strip()
            if not line.lstrip().startswith("#"):
                code.append(line)
        self._scan_code(" ".join(code))

    def _scan_code(self, code):
        for body in re.findall(r"\benum\s*\w*\s*\{([^}]*)\}", code):
            for item in body.split(","):
                name = item.split("=")[0].strip()
                if name:
                    self.enums.append(name)
        code = re.sub(r"\benum\s*\w*\s*\{[^}]*\}\s*\w*\s*;", " ", code)
        for m in re.finditer(r"typedef\s+struct\s*\w*\s*\{([^}]*)\}\s*(\w+)\s*;",
                             code):
            self.typedefs[m.group(2)] = "struct"
            self.fields[m.group(2)] = re.findall(r"(\w+)\s*;", m.group(1))
        code = re.sub(r"typedef\s+struct\s*\w*\s*\{[^}]*\}\s*\w+\s*;", " ", code)
        for stmt in code.split(";"):
            self._scan_statement(" ".join(stmt.split()))

    def _scan_statement(self, stmt):
        stmt = re.sub(r'^extern\s+"C"\s*\{\s*', "", stmt).strip("} ")
        if stmt.startswith("typedef"):
            m = re.match(r"typedef\s.*?\(\s*\*?\s*(\w+)\s*\)\s*\(", stmt)
            if m:
                self.typedefs[m.group(1)] = "function"
                return
            words = re.findall(r"\w+", stmt)
            aliased = self.typedefs.get(words[-2]) == "function"
            self.typedefs[words[-1]] = "function" if aliased else "object"
            return
        if stmt.startswith("extern"):
            self.externs.append(declared_name(stmt))
            return
        m = re.match(r"^[\w\s\*]+?\b(\w+)\s*\(", stmt)
        if m:
            self.functions.append(m.group(1))


# ---- reading MPICH's declarations -------------------------------------------


def mpich_statements(text):
    """Top-level declarations of MPICH's headers, one string each, with the
    visibility and type-tag annotations removed."""
    text = strip_comments(text).replace("\\\n", " ")
    text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))
    text = re.sub(r'extern\s*"C"\s*\{', " ", text)
    text = re.sub(r"MPICH_ATTR_\w+\s*\([^)]*\)", " ", text)
    text = re.sub(r"\b(MPICH_API_PUBLIC|ROMIO_API_PUBLIC|MPIU_DLL_SPEC)\b", " ",
                  text)
    # Drop braced bodies (structs, enums) so that splitting on ';' is safe.
    while True:
        new = re.sub(r"\{[^{}]*\}", "@BODY@", text)
        if new == text:
            break
        text = new
    return [" ".join(s.split()) for s in text.split(";")]


def mpich_declarations(stmts):
    funcs, typedefs, externs = {}, {}, {}
    for s in stmts:
        if "@BODY@" in s:
            continue
        if s.startswith("typedef"):
            m = re.match(r"typedef\s.*?\(\s*\*?\s*(\w+)\s*\)\s*\(", s)
            name = m.group(1) if m else declared_name(s)
            typedefs[name] = s + ";"
        elif s.startswith("extern"):
            externs[declared_name(s)] = s + ";"
        else:
            m = re.match(r"^[\w\s\*]+?\b(\w+)\s*\(", s)
            if m:
                funcs[m.group(1)] = s + ";"
    return funcs, typedefs, externs


# ---- the value probe ----------------------------------------------------------

PROBE_HEAD = r"""
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

#define TYPE_NAME(x) _Generic((x), \
    int: "int", unsigned: "unsigned", long: "long", \
    unsigned long: "unsigned_long", long long: "long_long", \
    unsigned long long: "unsigned_long_long", char *: "char*", \
    const char *: "const_char*", void *: "void*", int *: "int*", \
    char **: "char**", char ***: "char***", MPI_Status *: "MPI_Status*", \
    MPI_File: "MPI_File", default: "other")

/* Defined here so that the probe links without any MPI library. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state,
                void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldcomm; (void)keyval; (void)extra_state;
    (void)attribute_val_in; (void)attribute_val_out; (void)flag;
    return 0;
}

typedef void (*any_fn)(void);

static const char *fn_kind(any_fn f)
{
    if (f == (any_fn)0)
        return "null";
    if (f == (any_fn)MPIR_Dup_fn)
        return "MPIR_Dup_fn";
    return "other";
}

int main(void)
{
"""


def constant_kind(name, value):
    if value.startswith('"'):
        return "string"
    if name.endswith("_FN") or "_FN_NULL" in name:
        return "function"
    return "value"


def probe_lines(ours, present):
    """C statements printing 'NAME what type value' for each probed item;
    items for which present(name) is false are skipped."""
    out = []

    def emit(name, stmt):
        if present(name):
            out.append("    " + stmt)

    for name, value in sorted(ours.macros.items()):
        kind = constant_kind(name, value)
        if kind == "string":
            stmt = 'printf("%s string %%s\\n", %s);' % (name, name)
        elif kind == "function":
            stmt = 'printf("%s fnptr %%s\\n", fn_kind((any_fn)(%s)));' % (
                name, name)
        else:
            stmt = ('printf("%s value %%s %%lld\\n", TYPE_NAME(%s), '
                    '(long long)(intptr_t)(%s));' % (name, name, name))
        emit(name, stmt)
    for name in sorted(set(ours.enums)):
        emit(name, 'printf("%s enum %%lld\\n", (long long)(%s));'
                % (name, name))
    for name in sorted(ours.fmacros):
        emit(name, 'printf("%s convert %%s %%lld\\n", TYPE_NAME(%s(0x44000000)),'
                ' (long long)%s(0x44000000));' % (name, name, name))
    for name, kind in sorted(ours.typedefs.items()):
        if kind == "function":
            continue
        emit(name, 'printf("%s sizeof %%zu align %%zu\\n", sizeof(%s), '
                '_Alignof(%s));' % (name, name, name))
        for field in ours.fields.get(name, []):
            emit(name, 'printf("%s.%s offsetof %%zu\\n", offsetof(%s, %s));'
                    % (name, field, name, field))
    for name in sorted(ours.externs):
        emit(name, 'printf("%s extern_sizeof %%zu\\n", sizeof(%s));'
                % (name, name))
    return out


def write_probe(path, lines):
    with open(path, "w") as f:
        f.write(PROBE_HEAD)
        f.write("\n".join(lines))
        f.write("\n    return 0;\n}\n")


def build_and_run(compiler, flags, src, exe):
    rc, log = run(compiler + flags + ["-c", src, "-o", exe + ".o"])
    if rc != 0:
        sys.stdout.write(log)
        return None
    rc, log = run([os.environ.get("CC", "cc"), exe + ".o", "-o", exe])
    if rc != 0:
        sys.stdout.write(log)
        return None
    rc, out = run([exe])
    if rc != 0:
        return None
    return dict(line.split(" ", 1) for line in out.splitlines() if line)


# ---- the signature check ----------------------------------------------------


def write_sigcheck(path, ours, funcs, typedefs, externs):
    """Our header followed by MPICH's declarations of the same names."""
    count = 0
    with open(path, "w") as f:
        f.write("/* Generated by abi-check.py: each line below is MPICH's own\n"
                " * declaration; a type that differs from ours is an error. */\n"
                "#include <mpi.h>\n\n")
        for name in sorted(ours.typedefs):
            if name in typedefs:
                f.write(typedefs[name] + "\n")
                count += 1
        for name in sorted(ours.externs):
            if name in externs:
                f.write(externs[name] + "\n")
                count += 1
        for name in ours.functions:
            if name in funcs:
                f.write(funcs[name] + "\n")
                count += 1
        f.write("\nint hcmpi_sigcheck_unit;\n")
    return count


# ---- main ----------------------------------------------------------------------


def mpich_view(mpicc, work):
    """MPICH's mpi.h as the compiler sees it: the preprocessed declarations
    (conditionals resolved, annotation macros expanded away), the macro
    names it defines, and the directory it lives in."""
    src = os.path.join(work, "find.c")
    with open(src, "w") as f:
        f.write("#include <mpi.h>\n")
    rc, lines = run([mpicc, "-E", src])
    if rc != 0:
        return None
    m = re.search(r'^# \d+ "([^"]*)/mpi\.h"', lines, flags=re.M)
    rc, decls = run([mpicc, "-E", "-P", src])
    rc2, defs = run([mpicc, "-E", "-dM", src])
    if not m or rc != 0 or rc2 != 0:
        return None
    macros = set(re.findall(r"^#define (\w+)", defs, flags=re.M))
    return m.group(1), decls, macros


# The standard level may be ahead of the installed MPICH's (hcmpi is
# MPI-4.1, Debian's MPICH 4.0 says 4.0): a version, not an ABI value.
LEVEL = {"MPI_VERSION", "MPI_SUBVERSION"}


def level_ahead(ours, theirs):
    """'value int N' of ours at least that of MPICH."""
    a, b = ours.split()[-1], theirs.split()[-1]
    return a.lstrip("-").isdigit() and b.lstrip("-").isdigit() and int(a) >= int(b)


def compare(ours_vals, mpich_vals):
    diffs, only_ours = [], []
    for key in sorted(ours_vals):
        if key not in mpich_vals:
            only_ours.append(key)
        elif key in LEVEL and level_ahead(ours_vals[key], mpich_vals[key]):
            continue
        elif ours_vals[key] != mpich_vals[key]:
            diffs.append("%s: hcmpi '%s' vs MPICH '%s'" %
                         (key, ours_vals[key], mpich_vals[key]))
    return diffs, only_ours


def header_hygiene(our_inc, work):
    """Our header alone must be clean under strict warnings, C and C++."""
    src = os.path.join(work, "hygiene.c")
    with open(src, "w") as f:
        f.write("#include <mpi.h>\nint main(void) { return MPI_SUCCESS; }\n")
    failures = []
    cc = os.environ.get("CC", "cc")
    flags = ["-Wall", "-Wextra", "-Wstrict-prototypes", "-Wmissing-prototypes",
             "-Wshadow", "-Wpedantic", "-Werror", "-I" + our_inc, "-fsyntax-only"]
    for std in ("-std=c99", "-std=gnu11"):
        rc, log = run([cc, std] + flags + [src])
        if rc != 0:
            failures.append("C %s:\n%s" % (std, log))
    cxx = os.environ.get("CXX", "c++")
    if shutil.which(cxx):
        rc, log = run([cxx, "-x", "c++", "-Wall", "-Wextra", "-Wpedantic",
                       "-Werror", "-I" + our_inc, "-fsyntax-only", src])
        if rc != 0:
            failures.append("C++:\n" + log)
    return failures


def main():
    our_inc, work = sys.argv[1], sys.argv[2]
    mpicc = os.environ.get("HCMPI_ABI_MPICC", "mpicc.mpich")
    view = mpich_view(mpicc, work)
    if not view:
        print("SKIP: cannot preprocess MPICH's mpi.h with %s" % mpicc)
        return 77
    mpich_inc, mpich_decls, mpich_macros = view
    print("hcmpi header: %s/mpi.h\nMPICH header: %s/mpi.h" % (our_inc, mpich_inc))

    ours = Header(read(os.path.join(our_inc, "mpi.h")))
    mpich_words = set(re.findall(r"\w+", mpich_decls)) | mpich_macros
    ok = check_values(ours, our_inc, mpicc, mpich_words, work)
    ok = check_declarations(ours, our_inc, mpich_decls, work) and ok
    for failure in header_hygiene(our_inc, work):
        print("FAIL: header not warning-free as " + failure)
        ok = False
    mpich_only = sorted(n for n in mpich_macros
                        if re.match(r"^MPIX?_[A-Z0-9_]+$", n)
                        and n not in ours.defined and not n.startswith("MPI_T_"))
    print("MPICH constants not in hcmpi (MPI_T_* not counted): %s" %
          (" ".join(mpich_only) or "none"))
    return 0 if ok else 1


def check_values(ours, our_inc, mpicc, mpich_words, work):
    cc = [os.environ.get("CC", "cc")]
    ours_vals = build_and_run(cc, ["-std=gnu11", "-I" + our_inc],
                              write_probe_file(work, "probe-hcmpi.c", ours,
                                               lambda n: True),
                              os.path.join(work, "probe-hcmpi"))
    mpich_vals = build_and_run([mpicc], ["-std=gnu11"],
                               write_probe_file(work, "probe-mpich.c", ours,
                                                lambda n: n in mpich_words),
                               os.path.join(work, "probe-mpich"))
    if ours_vals is None or mpich_vals is None:
        print("FAIL: a value probe did not build or run")
        return False
    diffs, only_ours = compare(ours_vals, mpich_vals)
    for d in diffs:
        print("DIFF " + d)
    for name in only_ours:
        print("only in hcmpi (not compared): " + name)
    compared = [k for k in ours_vals if k not in only_ours]
    nconst = sum(1 for k in compared
                 if ours_vals[k].split()[0] in ("value", "enum", "string", "fnptr"))
    print("compared %d items with MPICH (%d constants, %d conversion macros,"
          " %d sizes/offsets): %d differ" % (
              len(compared), nconst,
              sum(1 for k in compared if ours_vals[k].startswith("convert")),
              sum(1 for k in compared if "sizeof" in ours_vals[k]
                  or "offsetof" in ours_vals[k]), len(diffs)))
    # A probe that found almost nothing would pass vacuously.
    return not diffs and len(compared) >= 300


def check_declarations(ours, our_inc, mpich_decls, work):
    funcs, typedefs, externs = mpich_declarations(mpich_statements(mpich_decls))
    missing = [n for n in ours.functions if n not in funcs]
    for name in missing:
        print("function only in hcmpi (not compared): " + name)
    sig = os.path.join(work, "sigcheck.c")
    n = write_sigcheck(sig, ours, funcs, typedefs, externs)
    cc = [os.environ.get("CC", "cc")]
    rc, log = run(cc + ["-std=gnu11", "-Werror=implicit-int", "-I" + our_inc,
                        "-c", sig, "-o", os.path.join(work, "sigcheck.o")])
    if rc != 0:
        sys.stdout.write(log)
        print("FAIL: MPICH's declarations conflict with ours (see above)")
        return False
    print("checked %d declarations against MPICH's (%d functions, "
          "%d typedefs/objects)" % (n, len(ours.functions) - len(missing),
                                    n - len(ours.functions) + len(missing)))
    return len(ours.functions) - len(missing) >= 700


def write_probe_file(work, name, ours, present):
    path = os.path.join(work, name)
    write_probe(path, probe_lines(ours, present))
    return path


if __name__ == "__main__":
    sys.exit(main())
