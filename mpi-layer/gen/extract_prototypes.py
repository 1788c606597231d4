#!/usr/bin/env python3
"""Extract the C prototypes of the MPI API from Open MPI's and MPICH's mpi.h.

This is how the PROTOTYPE column of functions.spec was obtained.  Usage:

    extract_prototypes.py [--ompi MPI_H] [--mpich MPI_H] [--check SPEC]

Prints one canonical prototype per line for every MPI_ function declared in
BOTH headers, then, as '#' comments, notes (names that are macros in one
header, declarations whose types differ) and the names found in only one
header.  With --check, instead compares the prototypes of SPEC with the
extracted ones (exit status 1 if they differ).

Rules:
  * A header is read with the headers it #includes from its own directory
    (MPICH declares its API in mpi_proto.h and mpio.h); C++ headers skipped.
  * Only function declarations count, whatever their return type (int,
    double, MPI_Aint, MPI_Fint, handles); PMPI_/QMPI_ versions, typedefs and
    calls are ignored.  A function-like `#define MPI_Xxx(...)` makes the name
    present as a macro: a name declared as a function in one header and as a
    macro in the other is kept and flagged "[macro:ompi]"/"[macro:mpich]".
  * Declarations tagged __mpi_interface_removed__ (Open MPI's MPI-1 functions
    removed in MPI-3.0, hidden unless built with --enable-mpi1-compatibility,
    but still in the library) are kept when MPICH declares them too, flagged
    "removed in MPI-3.0": a program can call them, so the layer must wrap
    them.  The first declaration of a name wins.
  * Canonical form: `RET NAME(TYPE name, ...)`, types spelled as in Open
    MPI's header (const kept, `[]` kept), one space between tokens, `*`
    attached to the name.  Parameter names: Open MPI's, else MPICH's, else
    derived from the type (MPI_Comm -> comm, MPI_Datatype * -> datatype...);
    three Open MPI typos (TYPOS) are corrected.
"""
import argparse
import os
import re
import sys

OMPI_H = "/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h"
MPICH_H = "/usr/include/x86_64-linux-gnu/mpich/mpi.h"
# Open MPI 4.1 parameter names that are typos of the standard's names.
TYPOS = {"target_cout": "target_count", "erhandler": "errhandler", "ibuf": "buf"}
C_WORDS = {"const", "volatile", "void", "char", "short", "int", "long", "float",
           "double", "signed", "unsigned", "struct", "restrict"}


def read_header(path, seen=None):
    """Text of path with its same-directory, non-C++ #includes inlined."""
    seen = set() if seen is None else seen
    if path in seen:
        return ""
    seen.add(path)
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', line)
            inc = m and os.path.join(os.path.dirname(path), m.group(1))
            if inc and "cxx" not in inc and os.path.isfile(inc):
                out.append(read_header(inc, seen))
            else:
                out.append(line)
    return "".join(out)


def matching_paren(text, i):
    """Index of the ')' closing the '(' at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j
    raise ValueError("unbalanced parentheses")


def split_param(p):
    """'const int ranges[][3]' -> ('const int', '', 'ranges', '[][3]')."""
    p = " ".join(p.replace("*", " * ").split())
    m = re.match(r"(.*?)\s*((?:\[[^\]]*\]\s*)*)$", p)
    p, arrays = m.group(1), m.group(2).replace(" ", "")
    toks = p.split()
    name = ""
    if len(toks) > 1 and re.fullmatch(r"[A-Za-z_]\w*", toks[-1]) \
            and toks[-1] not in C_WORDS and not toks[-1].startswith("MPI"):
        name = toks.pop()
    stars = ""
    while toks and toks[-1] == "*":
        stars += toks.pop()
    return " ".join(toks), stars, name, arrays


def parse(path):
    """{name: (ret, [(type, stars, pname, arrays)], variadic)}, macro names
    and names of removed functions."""
    text = read_header(path)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"\\\n", " ", text)
    macros, removed, body = set(), set(), []
    for line in text.split("\n"):
        if line.lstrip().startswith("#"):
            m = re.match(r"\s*#\s*define\s+(MPI_\w+)\((.*)", line)
            if m and "REMOVED_IN_MPI30" not in m.group(2):
                macros.add(m.group(1))
        else:
            body.append(line)
    funcs = {}
    for stmt in re.split(r"[;{}]", " ".join(body)):
        m = re.match(r"\s*(?:OMPI_DECLSPEC\s+|extern\s+)*([A-Za-z_][\w ]*?[\s*]+)"
                     r"(MPI_\w+)\s*\(", stmt)
        if not m or m.group(1).split()[0] == "typedef" or m.group(2) in funcs:
            continue
        if "__mpi_interface_removed__" in stmt:
            removed.add(m.group(2))
        close = matching_paren(stmt, m.end() - 1)
        ret = " ".join(m.group(1).replace("*", " * ").split()).replace(" *", "*")
        args = [a.strip() for a in stmt[m.end():close].split(",")]
        variadic = args[-1] == "..."
        args = args[:-1] if variadic else args
        params = [] if args in ([""], ["void"]) else [split_param(a) for a in args]
        funcs[m.group(2)] = (ret, params, variadic)
    return funcs, macros, removed


def name_from_type(ctype, stars):
    """Parameter name for an unnamed parameter, derived from its type."""
    base = ctype.replace("const", "").split()[-1]
    if base.startswith("MPI_"):
        return re.sub(r"_function$", "_fn", base[4:].lower())
    return {"char": "string", "void": "buf"}.get(base, "arg" if not stars else "ptr")


def canonical(name, ompi, mpich):
    """Canonical prototype string of a function declared in ompi or mpich."""
    ret, params, variadic = ompi or mpich
    other = mpich[1] if ompi and mpich else [("", "", "", "")] * len(params)
    out, used = [], set()
    for i, ((t, s, n, a), (_, _, n2, _)) in enumerate(zip(params, other)):
        n = TYPOS.get(n, n) or n2 or name_from_type(t, s)
        if n in used:
            n += str(i)
        used.add(n)
        out.append(f"{t} {s}{n}{a}")
    if variadic:
        out.append("...")
    return f"{ret} {name}({', '.join(out) or 'void'})"


def signature(decl):
    """Types only, arrays as pointers: what must agree between the headers.
    ROMIO's MPIO_Request is #defined to MPI_Request in both implementations."""
    ret, params, variadic = decl
    return (ret, tuple((t.replace("MPIO_Request", "MPI_Request"),
                        s + "*" * a.count("[")) for t, s, _, a in params), variadic)


def extract(ompi_h, mpich_h):
    """Canonical prototypes of the names in both headers, notes on them,
    the names found in one header only, and the canonical prototypes of
    those that are calls (named in capitals only, like MPI_DUP_FN, they are
    predefined callbacks)."""
    (of, om, removed), (mf, mm, _) = parse(ompi_h), parse(mpich_h)
    protos, notes = {}, {}
    only = {"Open MPI": [], "MPICH": [], "MPICH, removed in MPI-3.0": []}
    one = {}
    for name in sorted(set(of) | set(mf)):
        o, m = of.get(name), mf.get(name)
        if o and m and name in removed:
            notes[name] = "removed in MPI-3.0 (Open MPI declares it only " \
                "with OMPI_OMIT_MPI1_COMPAT_DECLS=0)"
        elif o and m:
            if signature(o) != signature(m):
                notes[name] = "types differ: MPICH has " + canonical(name, None, m)
        elif o and name in mm:
            notes[name] = "[macro:mpich]"
        elif m and name in om:
            notes[name] = "[macro:ompi]"
        else:
            key = "Open MPI" if o else "MPICH"
            only[key + ", removed in MPI-3.0" if name in removed else key].append(name)
            # MPICH's mpi_f08 status conversions are defined in its Fortran
            # library, not libmpich (and hold no handles): left out.
            if re.search("[a-z]", name) and "f08" not in name:
                one[name] = canonical(name, o, m)
            continue
        protos[name] = canonical(name, o, m)
    return protos, notes, only, one


def check(spec, protos):
    """Compare the PROTOTYPE column of spec with protos; True if identical."""
    have = {}
    with open(spec) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                proto = line.split("|")[1].strip()
                have[re.search(r"(MPI_\w+)\(", proto).group(1)] = proto
    ok = True
    for name in sorted(set(have) | set(protos)):
        if have.get(name) != protos.get(name):
            ok = False
            print(f"{name}:\n  spec:      {have.get(name)}\n  extracted: {protos.get(name)}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ompi", default=OMPI_H)
    ap.add_argument("--mpich", default=MPICH_H)
    ap.add_argument("--check", metavar="SPEC")
    args = ap.parse_args()
    protos, notes, only, one = extract(args.ompi, args.mpich)
    if args.check:
        # The spec lists the calls of one implementation too ([only:...]).
        sys.exit(0 if check(args.check, {**protos, **one}) else 1)
    for name in sorted(protos):
        print(protos[name])
    print(f"# {len(protos)} functions in both headers")
    for name in sorted(notes):
        print(f"# {name}: {notes[name]}")
    for impl, names in only.items():
        if names:
            print(f"# only in {impl} ({len(names)}): {' '.join(names)}")


if __name__ == "__main__":
    main()
