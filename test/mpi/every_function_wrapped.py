#!/usr/bin/env python3
"""Every MPI function of functions.spec is defined by the layer.

usage: every_function_wrapped.py functions.spec LAYER.a MPI.h

A function the layer does not define would reach MPI unseen by the
checkpoint protocol. Names MPI.h defines as macros have no symbol to define
and are skipped.
"""
import re
import subprocess
import sys

spec, lib, header = sys.argv[1:4]
names = []
for line in open(spec):
    if line.strip() and not line.startswith("#"):
        names.append(re.search(r"\b(MPI_\w+)\(", line.split("|")[1]).group(1))
macros = set(re.findall(r"#\s*define\s+(MPI_\w+)\(", open(header).read()))
nm = subprocess.run(["nm", "--defined-only", lib], capture_output=True,
                    text=True, check=True).stdout
defined = set(re.findall(r" T (MPI_\w+)$", nm, re.M))
missing = [n for n in names if n not in macros and n not in defined]
print(f"{len(names)} functions in the spec, {len(macros & set(names))} macros "
      f"here, {len(missing)} not defined by {lib}")
for n in missing:
    print("  missing:", n)
sys.exit(1 if missing or not names else 0)
