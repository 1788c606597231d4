#!/usr/bin/env python3
"""Generates the `mpi_f08` module for flang from functions.spec.

usage: gen_f08.py functions.spec MPI_MOD OUT.f90 [HANDWRITTEN.cpp...]

MPIs ship a gfortran mpi_f08.mod that flang cannot read. This module gives
flang programs `use mpi_f08` (MPI-3.1 chapter 17): derived-type handles
(TYPE(MPI_Comm) ... each BIND(C) with INTEGER :: MPI_VAL, so MPI_VAL is the
old binding's integer handle), TYPE(MPI_Status) laid out as that MPI's
INTEGER(MPI_STATUS_SIZE) status, the named constants, == and /= on
handles, and one generic procedure per function with an optional IERROR.

Each procedure calls the old Fortran entry point (mpi_send_ ...) with the
handles' MPI_VAL: in a program built with ckpt-fc that is the layer's
(gen_fortran.py), so the checkpoint protocol and the handle tables apply;
in a plain build it is the MPI's own Fortran library. Functions the layer
refuses are refused by those entry points; functions gen_fortran.py does
not convert (callbacks, attribute values, argv...) and the MPI-1 names
removed in MPI-3.0 have no procedure here.

MPI_MOD is the flang `mpi` module of the same MPI (mpi.f90: its mpif.h),
read as text for the names and kinds of the constants: the handle
constants become typed ones (MPI_COMM_WORLD = MPI_Comm(value)), the others
and the sentinels MPI_BOTTOM, MPI_IN_PLACE, MPI_UNWEIGHTED... are the
`mpi` module's own (the entry points recognise the sentinels by address).
MPI_STATUS(ES)_IGNORE are this module's variables, replaced by mpif.h's
before each call.

Choice buffers are assumed-size with flang's IGNORE_TKR (flang 19 has no
assumed-rank dummies in procedures written in Fortran): the callee gets
the first element's address, and a non-contiguous section is copied in
and out around the call. That is right for blocking calls only, as for
the old bindings: MPI_SUBARRAYS_SUPPORTED is .false., so a non-blocking
call needs a contiguous buffer (MPI-3.1 17.1.12).
"""
import re
import sys

from gen_fortran import NO_IERROR, NOT_CONVERTED, NotConverted, convert, \
    fortran_names, hand_fortran, param_shape
from gen_wrappers import parse_spec, split_params

HANDLE_TYPES = ("MPI_Comm", "MPI_Datatype", "MPI_Group", "MPI_Op",
                "MPI_Request", "MPI_Info", "MPI_Errhandler", "MPI_Message",
                "MPI_Win", "MPI_File")
# Handle constants other than datatypes, by type.
HANDLE_CONSTANTS = {
    "MPI_Comm": ["MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_COMM_NULL"],
    "MPI_Group": ["MPI_GROUP_EMPTY", "MPI_GROUP_NULL"],
    "MPI_Request": ["MPI_REQUEST_NULL"],
    "MPI_Op": ["MPI_OP_NULL", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD",
               "MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR",
               "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE",
               "MPI_NO_OP"],
    "MPI_Info": ["MPI_INFO_NULL", "MPI_INFO_ENV"],
    "MPI_Errhandler": ["MPI_ERRHANDLER_NULL", "MPI_ERRORS_ARE_FATAL",
                       "MPI_ERRORS_RETURN", "MPI_ERRORS_ABORT"],
    "MPI_Message": ["MPI_MESSAGE_NULL", "MPI_MESSAGE_NO_PROC"],
    "MPI_Win": ["MPI_WIN_NULL"],
    "MPI_File": ["MPI_FILE_NULL"],
}
DATATYPES = set("""MPI_DATATYPE_NULL MPI_BYTE MPI_PACKED MPI_UB MPI_LB
MPI_CHARACTER MPI_LOGICAL MPI_INTEGER MPI_INTEGER1 MPI_INTEGER2 MPI_INTEGER4
MPI_INTEGER8 MPI_INTEGER16 MPI_REAL MPI_REAL2 MPI_REAL4 MPI_REAL8 MPI_REAL16
MPI_DOUBLE_PRECISION MPI_COMPLEX MPI_COMPLEX4 MPI_COMPLEX8 MPI_COMPLEX16
MPI_COMPLEX32 MPI_DOUBLE_COMPLEX MPI_2REAL MPI_2DOUBLE_PRECISION MPI_2INTEGER
MPI_2COMPLEX MPI_2DOUBLE_COMPLEX MPI_LOGICAL1 MPI_LOGICAL2 MPI_LOGICAL4
MPI_LOGICAL8 MPI_WCHAR MPI_CHAR MPI_UNSIGNED_CHAR MPI_SIGNED_CHAR MPI_SHORT
MPI_UNSIGNED_SHORT MPI_INT MPI_UNSIGNED MPI_LONG MPI_UNSIGNED_LONG
MPI_LONG_LONG_INT MPI_LONG_LONG MPI_UNSIGNED_LONG_LONG MPI_FLOAT MPI_DOUBLE
MPI_LONG_DOUBLE MPI_FLOAT_INT MPI_DOUBLE_INT MPI_LONG_DOUBLE_INT MPI_LONG_INT
MPI_2INT MPI_SHORT_INT MPI_AINT MPI_OFFSET MPI_COUNT MPI_C_BOOL
MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX MPI_C_DOUBLE_COMPLEX
MPI_C_LONG_DOUBLE_COMPLEX MPI_CXX_BOOL MPI_CXX_FLOAT_COMPLEX
MPI_CXX_DOUBLE_COMPLEX MPI_CXX_LONG_DOUBLE_COMPLEX""".split())
DATATYPE_RE = re.compile(r"^MPI_U?INT(8|16|32|64)_T$")
# C int arguments that are LOGICAL in Fortran.
LOGICALS = {"flag", "reorder", "periods", "remain_dims", "high", "commute",
            "weighted"}
KINDS = {"int": "INTEGER", "MPI_Fint": "INTEGER",
         "MPI_Aint": "INTEGER(KIND=MPI_ADDRESS_KIND)",
         "MPI_Count": "INTEGER(KIND=MPI_COUNT_KIND)",
         "MPI_Offset": "INTEGER(KIND=MPI_OFFSET_KIND)"}


def read_mpi_mod(path):
    """(parameters, variables) of flang's `mpi` module text, upper case."""
    params, variables = [], []
    depth = 0
    for line in open(path, encoding="utf-8-sig"):
        line = line.strip()
        if line.startswith("interface"):
            depth += 1
        elif line == "end interface":
            depth -= 1
        if depth:
            continue
        m = re.match(r"(\w+)\([^)]*\),parameter::(\w+)=", line)
        if m:
            params.append(m.group(2).upper())
            continue
        m = re.match(r"(integer|character)\([^)]*\)::(\w+)", line)
        if m:
            variables.append(m.group(2).upper())
    return params, variables


def wrap(text, indent="  "):
    """Free-form lines of at most 132 characters: break at ', '."""
    out = []
    while len(text) > 100:
        cut = text.rfind(", ", 0, 100)
        if cut < 0:
            break
        out.append(text[:cut + 1] + " &")
        text = indent + "    " + text[cut + 2:]
    out.append(text)
    return "\n".join(out)


HAND = set()  # Fortran entry points the layer defines by hand


def procedure(ret, name, params):
    """(f08 specific procedure, old entry point interface) or NotConverted."""
    ps = [p for p in split_params(params) if p != "..."]
    if name in NOT_CONVERTED:
        raise NotConverted(name)
    try:  # the layer's entry point exists for these arguments
        convert(name, ps)
    except NotConverted:
        if fortran_names(name)[0] not in HAND:
            raise
    decls, actuals, dummies, pre = [], [], [], []
    need_sp = need_ssp = False
    for p in ps:
        n, base, array, ptr, const = param_shape(p)
        if n in ("argc", "argv") and name.startswith("MPI_Init"):
            continue
        dummies.append(n)
        actual = n
        if base in KINDS and n in LOGICALS:
            kind = "LOGICAL"
        elif base in KINDS:
            kind = KINDS[base]
        if base in KINDS and "[][3]" in p:
            decls.append(f"{kind}, INTENT(IN) :: {n}(3, *)")
        elif base in KINDS and n.endswith("weights"):
            # MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY: mpif.h's, scalar in MPICH.
            decls.append(f"!DIR$ IGNORE_TKR {n}\n  {kind}, INTENT(IN) :: {n}(*)")
        elif base in KINDS and array:
            intent = ", INTENT(IN)" if const else ""
            decls.append(f"{kind}{intent} :: {n}(*)")
        elif base in KINDS and ptr:
            decls.append(f"{kind} :: {n}")
        elif base in KINDS:
            decls.append(f"{kind}, INTENT(IN) :: {n}")
        elif base in HANDLE_TYPES and not ptr:
            decls.append(f"TYPE({base}), INTENT(IN) :: {n}")
            actual = f"{n}%MPI_VAL"
        elif base in HANDLE_TYPES and array:
            intent = ", INTENT(IN)" if const else ""
            decls.append(f"TYPE({base}){intent} :: {n}(*)")
        elif base in HANDLE_TYPES:
            intent = ", INTENT(IN)" if const else ""
            decls.append(f"TYPE({base}){intent} :: {n}")
            actual = f"{n}%MPI_VAL"
        elif base == "MPI_Status" and n.startswith("array_of_statuses"):
            decls.append(f"TYPE(MPI_Status), TARGET :: {n}(*)")
            pre.append(f"CALL ccc_statuses({n}, ccc_ssp)")
            actual = "ccc_ssp"
            need_ssp = True
        elif base == "MPI_Status" and const:
            decls.append(f"TYPE(MPI_Status), INTENT(IN) :: {n}")
        elif base == "MPI_Status":
            decls.append(f"TYPE(MPI_Status), TARGET :: {n}")
            pre.append(f"CALL ccc_status({n}, ccc_sp)")
            actual = "ccc_sp"
            need_sp = True
        elif base == "void" and n == "baseptr":
            decls.append(f"TYPE(C_PTR) :: {n}")
        elif base == "void":
            intent = ", INTENT(IN)" if const else ""
            decls.append(f"!DIR$ IGNORE_TKR {n}\n  TYPE(*){intent} :: {n}(*)")
        elif base == "char":
            intent = ", INTENT(IN)" if const else ""
            decls.append(f"CHARACTER(LEN=*){intent} :: {n}")
        else:
            raise NotConverted(p)
        actuals.append(actual)
    fname = name + "_f08"
    ierror = name not in NO_IERROR and ret == "int"
    old = "ccc_f_" + name[4:].lower()
    lines = []
    if ret == "int":
        args = dummies + (["ierror"] if ierror else [])
        lines.append(wrap(f"SUBROUTINE {fname}({', '.join(args)})"))
    else:
        rtype = {"double": "DOUBLE PRECISION"}.get(ret, KINDS.get(ret))
        lines.append(wrap(f"{rtype} FUNCTION {fname}({', '.join(dummies)})"))
    lines += ["  " + d for d in decls]
    if ierror:
        lines.append("  INTEGER, OPTIONAL, INTENT(OUT) :: ierror")
        lines.append("  INTEGER :: ccc_ierr")
        actuals.append("ccc_ierr")
    if need_sp:
        lines.append("  TYPE(MPI_Status), POINTER :: ccc_sp")
    if need_ssp:
        lines.append("  TYPE(MPI_Status), POINTER :: ccc_ssp(:)")
    lines += ["  " + s for s in pre]
    if ret == "int":
        lines.append(wrap(f"  CALL {old}({', '.join(actuals)})"))
        if ierror:
            lines.append("  IF (PRESENT(ierror)) ierror = ccc_ierr")
        lines.append(f"END SUBROUTINE {fname}")
    else:
        lines.append(wrap(f"  {fname} = {old}({', '.join(actuals)})"))
        lines.append(f"END FUNCTION {fname}")
    # The old entry point: every argument by address, unchecked (the f08
    # procedure above is the typed interface); strings with hidden lengths.
    fortran = fortran_names(name)[0][:-1]
    formals = [f"a{i}" for i in range(len(actuals))]
    chars = [f for f, a in zip(formals, actuals)
             if a in dummies and "CHARACTER" in decls[dummies.index(a)]]
    others = [f for f in formals if f not in chars]
    iface = []
    if ret == "int":
        iface.append(wrap(f"SUBROUTINE {fortran}({', '.join(formals)})"))
    else:
        rtype = {"double": "DOUBLE PRECISION"}.get(ret, KINDS.get(ret))
        iface.append(wrap(f"{rtype} FUNCTION {fortran}({', '.join(formals)})"))
        iface.append("  IMPORT MPI_ADDRESS_KIND")
    # One directive a line: a directive has no continuation lines.
    for o in others:
        iface.append(f"  !DIR$ IGNORE_TKR {o}\n  TYPE(*) :: {o}(*)")
    if chars:
        iface.append(f"  CHARACTER(LEN=*) :: {', '.join(chars)}")
    iface.append("END SUBROUTINE" if ret == "int" else "END FUNCTION")
    return "\n".join(lines), "\n".join(iface), fortran, old


def main():
    spec, mod, out = sys.argv[1], sys.argv[2], sys.argv[3]
    HAND.update(hand_fortran(sys.argv[4:]))
    params, variables = read_mpi_mod(mod)
    have = set(params)
    renamed = {"MPI_SOURCE", "MPI_TAG", "MPI_ERROR"}
    typed = []  # (type, name)
    for t, names in HANDLE_CONSTANTS.items():
        typed += [(t, n) for n in names if n in have]
    typed += [("MPI_Datatype", n) for n in params
              if n in DATATYPES or DATATYPE_RE.match(n)]
    renamed |= {n for _, n in typed}

    procs, ifaces, olds = [], [], []
    for status, ret, name, ps, note in parse_spec(spec):
        if name.startswith("MPI_T_") or re.search(r"_(c2f|f2c)$", name) \
                or note.startswith("[only:") or status == "legacy":
            continue
        try:
            proc, iface, fortran, old = procedure(ret, name, ps)
        except NotConverted:
            continue
        procs.append((name, proc))
        ifaces.append(iface)
        olds.append((old, fortran))

    text = [
        "! Generated by gen_f08.py from functions.spec and this MPI's mpif.h:",
        "! do not edit.",
        "",
        "! The old Fortran entry points (the layer's, or the MPI's own in a",
        "! plain build), under their own names.",
        "MODULE ccc_mpi_f08_entries",
        "  USE mpi, ONLY: MPI_ADDRESS_KIND",
        "  IMPLICIT NONE",
        "  INTERFACE",
    ]
    text += ["\n".join("  " + l for l in i.split("\n")) for i in ifaces]
    text += ["  END INTERFACE", "END MODULE ccc_mpi_f08_entries", ""]

    text += ["MODULE mpi_f08",
             "  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR, C_LOC, "
             "C_ASSOCIATED, C_F_POINTER"]
    keep = [n for n in params if n not in renamed]
    imports = [f"ccc_{n} => {n}" for n in sorted(renamed) if n in have]
    imports += ["ccc_STATUS_IGNORE => MPI_STATUS_IGNORE",
                "ccc_STATUSES_IGNORE => MPI_STATUSES_IGNORE"]
    imports += keep
    imports += [v for v in variables
                if v not in ("MPI_STATUS_IGNORE", "MPI_STATUSES_IGNORE")]
    text.append(wrap("  USE mpi, ONLY: " + ", ".join(imports)))
    text.append(wrap("  USE ccc_mpi_f08_entries, ONLY: " +
                     ", ".join(f"{o} => {f}" for o, f in olds)))
    text.append("  IMPLICIT NONE")
    priv = ["C_PTR", "C_LOC", "C_ASSOCIATED", "C_F_POINTER", "ccc_status",
            "ccc_statuses", "ccc_addr", "ccc_STATUS_IGNORE",
            "ccc_STATUSES_IGNORE"]
    priv += [f"ccc_{n}" for n in sorted(renamed) if n in have]
    priv += [o for o, _ in olds]
    text.append(wrap("  PRIVATE :: " + ", ".join(priv)))
    text.append("")
    for t in HANDLE_TYPES:
        text += [f"  TYPE, BIND(C) :: {t}", "    INTEGER :: MPI_VAL",
                 f"  END TYPE {t}"]
    # MPI_Status: mpif.h's INTEGER(MPI_STATUS_SIZE) array, field by field.
    text += ["", "  TYPE, BIND(C) :: MPI_Status"]
    text.append("    ! Generated below from MPI_STATUS_SIZE and the "
                "MPI_SOURCE, MPI_TAG, MPI_ERROR indices.")
    text.append("@STATUS@")
    text.append("  END TYPE MPI_Status")
    text.append("")
    for t, n in typed:
        text.append(f"  TYPE({t}), PARAMETER :: {n} = {t}(ccc_{n})")
    # Only their addresses matter (nothing writes them): ccc's own state,
    # named so that the runtime knows it need not be saved (__ccc_).
    text += ["  TYPE(MPI_Status), TARGET, SAVE, BIND(C, NAME="
             "'__ccc_f08_status_ignore') :: MPI_STATUS_IGNORE",
             "  TYPE(MPI_Status), TARGET, SAVE, BIND(C, NAME="
             "'__ccc_f08_statuses_ignore') :: MPI_STATUSES_IGNORE(1)", ""]
    for op, fn in (("==", "eq"), ("/=", "ne")):
        text.append(f"  INTERFACE OPERATOR({op})")
        text.append(wrap("    MODULE PROCEDURE " + ", ".join(
            f"ccc_{fn}_{t[4:].lower()}" for t in HANDLE_TYPES), "    "))
        text.append("  END INTERFACE")
    for name, _ in procs:
        text += [f"  INTERFACE {name}", f"    MODULE PROCEDURE {name}_f08",
                 "  END INTERFACE"]
    text += ["", "CONTAINS", ""]
    for op, fn in (("==", "eq"), ("/=", "ne")):
        for t in HANDLE_TYPES:
            f = f"ccc_{fn}_{t[4:].lower()}"
            text += [f"ELEMENTAL LOGICAL FUNCTION {f}(a, b)",
                     f"  TYPE({t}), INTENT(IN) :: a, b",
                     f"  {f} = a%MPI_VAL {op} b%MPI_VAL",
                     f"END FUNCTION {f}"]
    text += [
        "",
        "! mpif.h's sentinel for this module's MPI_STATUS(ES)_IGNORE: the",
        "! entry points recognise the former by address.",
        "FUNCTION ccc_addr(x) RESULT(p)",
        "  INTEGER, TARGET :: x(*)",
        "  TYPE(C_PTR) :: p",
        "  p = C_LOC(x)",
        "END FUNCTION ccc_addr",
        "SUBROUTINE ccc_status(s, p)",
        "  TYPE(MPI_Status), TARGET :: s",
        "  TYPE(MPI_Status), POINTER :: p",
        "  IF (C_ASSOCIATED(C_LOC(s), C_LOC(MPI_STATUS_IGNORE))) THEN",
        "    CALL C_F_POINTER(ccc_addr(ccc_STATUS_IGNORE), p)",
        "  ELSE",
        "    p => s",
        "  END IF",
        "END SUBROUTINE ccc_status",
        "SUBROUTINE ccc_statuses(s, p)",
        "  TYPE(MPI_Status), TARGET :: s(*)",
        "  TYPE(MPI_Status), POINTER :: p(:)",
        "  IF (C_ASSOCIATED(C_LOC(s), C_LOC(MPI_STATUSES_IGNORE))) THEN",
        "    CALL C_F_POINTER(ccc_addr(ccc_STATUSES_IGNORE), p, [1])",
        "  ELSE",
        "    CALL C_F_POINTER(C_LOC(s), p, [1])",
        "  END IF",
        "END SUBROUTINE ccc_statuses",
        "",
    ]
    text += [p + "\n" for _, p in procs]
    text.append("END MODULE mpi_f08")
    src = "\n".join(text) + "\n"
    src = src.replace("@STATUS@", status_fields(mod))
    with open(out, "w") as f:
        f.write(src)


def status_fields(mod):
    """MPI_Status's components in mpif.h's order."""
    vals = {}
    for line in open(mod, encoding="utf-8-sig"):
        m = re.match(r"integer\(4\),parameter::(mpi_source|mpi_tag|mpi_error|"
                     r"mpi_status_size)=(\d+)_4", line.strip())
        if m:
            vals[m.group(1).upper()] = int(m.group(2))
    if len(vals) != 4:
        sys.exit(f"gen_f08.py: {mod}: no MPI_STATUS_SIZE, MPI_SOURCE, "
                 "MPI_TAG, MPI_ERROR")
    at = {vals[k]: k for k in ("MPI_SOURCE", "MPI_TAG", "MPI_ERROR")}
    return "\n".join(f"    INTEGER :: {at.get(i, f'ccc_internal{i}')}"
                     for i in range(1, vals["MPI_STATUS_SIZE"] + 1))


if __name__ == "__main__":
    main()
