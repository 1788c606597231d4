#!/usr/bin/env python3
"""Every MPI function the layer supports is called by a test program.

usage: spec_coverage.py functions.spec DIR...

A function of functions.spec not marked `refuse` (nor MPICH-only) must be
called in some C or Fortran source under the DIRs: the test programs that
the kill/restart tests build twice, with ccc and plain, and whose outputs
they compare. Fortran sources are searched without regard to case. Lists
the functions no program calls and fails if there is one.
"""
import os
import re
import sys


def supported(spec):
    for line in open(spec):
        if line.startswith("#") or "|" not in line:
            continue
        status, proto, note = [f.strip() for f in line.split("|", 2)]
        if status == "refuse" or note.startswith("[only:mpich]"):
            continue
        yield re.search(r"\b(MPI_\w+)\(", proto).group(1)


def sources(dirs):
    c, fortran = [], []
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                path = os.path.join(root, f)
                if f.endswith((".c", ".cpp", ".cc")):
                    c.append(open(path, errors="replace").read())
                elif f.endswith((".f", ".f90", ".F90", ".F")):
                    fortran.append(open(path, errors="replace").read().lower())
    return "\n".join(c), "\n".join(fortran)


def main():
    spec, dirs = sys.argv[1], sys.argv[2:]
    c, fortran = sources(dirs)
    missing = []
    names = list(supported(spec))
    for name in names:
        # A call: the name followed by '(' (C, or Fortran's CALL/function).
        if re.search(rf"\b{name}\s*\(", c):
            continue
        if re.search(rf"\b{name.lower()}\s*\(", fortran):
            continue
        missing.append(name)
    print(f"{len(names) - len(missing)} of {len(names)} supported functions "
          f"are called by a test program")
    if missing:
        print(f"no test program calls these {len(missing)}:")
        for i in range(0, len(missing), 4):
            print("  " + "  ".join(missing[i:i + 4]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
