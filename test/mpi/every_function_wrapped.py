#!/usr/bin/env python3
"""Every MPI function a program can call is defined by the layer.

usage: every_function_wrapped.py functions.spec LAYER.a MPI.h LIBMPI.so

A function the layer does not define would reach MPI unseen by the
checkpoint protocol, with ccc handles MPI cannot read. Checked both ways:
  - every function of the spec is defined by LAYER.a, except names MPI.h
    defines as function-like macros (no symbol to define) and those the
    spec marks as another implementation's ([only:...]);
  - every function LIBMPI.so exports under a C API name (MPI_ and a
    lowercase letter; names in capitals only are predefined callbacks such
    as MPI_DUP_FN and Fortran symbols) is defined by LAYER.a: wrapped,
    refused or implemented by hand, unless MPI.h makes the name a macro.
    This covers the MPI-1 functions removed in MPI-3.0 (MPI_Type_struct...),
    which the libraries still export, and MPICH's MPI-4.0 functions.
Open MPI #defines the removed functions as compile errors (static asserts)
for programs that do not ask for them: those macros do not count as macros.
"""
import re
import subprocess
import sys

spec, lib, header, mpilib = sys.argv[1:5]
impl = "ompi" if "OPEN_MPI" in open(header).read() else "mpich"
names = []
for line in open(spec):
    if line.strip() and not line.startswith("#"):
        fields = [f.strip() for f in line.split("|", 2)]
        only = re.match(r"\[only:(\w+)\]", fields[2])
        if not only or only.group(1) == impl:
            names.append(re.search(r"\b(MPI_\w+)\(", fields[1]).group(1))
macros = set()
for m in re.finditer(r"#\s*define\s+(MPI_\w+)\(.*", open(header).read()):
    if "REMOVED_IN_MPI30" not in m.group(0):
        macros.add(m.group(1))


def symbols(args, types):
    out = subprocess.run(["nm", "--defined-only"] + args, capture_output=True,
                         text=True, check=True).stdout
    return set(re.findall(rf" [{types}] (MPI_\w+)$", out, re.M))


defined = symbols([lib], "T")
exported = {n for n in symbols(["-D", mpilib], "TWi") if re.search("[a-z]", n)}
missing = [n for n in names if n not in macros and n not in defined]
unwrapped = sorted(exported - defined - macros)
print(f"{len(names)} functions in the spec, {len(macros & set(names))} macros "
      f"here, {len(missing)} not defined by {lib}; {len(exported)} C API "
      f"functions exported by {mpilib}, {len(unwrapped)} neither wrapped nor "
      "refused")
for n in missing:
    print("  missing:", n)
for n in unwrapped:
    print("  exported by MPI, not defined by the layer:", n)
sys.exit(1 if missing or unwrapped or not names or not exported else 0)
