#!/usr/bin/env python3
"""Generates the MPI layer's Fortran entry points from functions.spec.

usage: gen_fortran.py functions.spec OUT.cpp HANDWRITTEN.cpp...

Open MPI's Fortran library calls PMPI_* directly, so a Fortran call would
never reach the layer's C wrappers. The layer therefore defines the Fortran
symbols itself (mpi_send_, with the aliases mpi_send, mpi_send__ and
MPI_SEND that both MPIs export): each converts its Fortran arguments, calls
the layer's C function MPI_Xxx (so the protocol and the handle tables apply)
and stores the result in IERROR.

Conversions, decided from the C prototype:
  - INTEGER and INTEGER(KIND=MPI_ADDRESS_KIND/OFFSET_KIND/COUNT_KIND) values
    arrive by reference; pointers and arrays of them pass as they are
    (LOGICAL is an int holding 0 or 1 with flang, as in C);
  - handles are Fortran integers: MPI_Xxx_f2c on the way in, MPI_Xxx_c2f on
    the way out (the layer's own conversions, see Fortran.cpp); arrays of
    handles need a count argument before them;
  - choice buffers: the MPI_BOTTOM and MPI_IN_PLACE sentinels become C's;
    so do MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY for graph weights;
  - statuses are INTEGER(MPI_STATUS_SIZE) arrays, MPI_STATUS(ES)_IGNORE
    sentinels become C's;
  - indices (Waitany, Waitsome...) are 1-based in Fortran;
  - CHARACTER arguments have a hidden length after all others.
A function with an argument none of these covers (callbacks, attribute
values, argv...) is refused under its Fortran name, never passed to MPI
unseen (at the call: it cannot run). `refuse` functions and `proto`
functions not written by hand yet run, and are refused at the next
checkpoint under their Fortran name, as in C. Functions without a Fortran binding (f2c/c2f, MPI_T_*) get
nothing, nor do the MPICH-only ones ([only:mpich]): MPICH's Fortran bindings
call the C functions, which the layer defines.

`legacy` functions (MPI-1 names, see functions.spec) follow their
replacement: refused with its reason while it is refused; else converted as
above, calling the C legacy function of Legacy.cpp, unless written by hand
(LegacyFortran.cpp: INTEGER where C has MPI_Aint). A legacy function that
is neither convertible nor written by hand stops the generation.
"""
import re
import sys

from gen_wrappers import handwritten, param_name, param_type, parse_spec, \
    split_params

# C handle type -> the infix of its f2c/c2f conversion.
HANDLES = {
    "MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Group": "Group",
    "MPI_Op": "Op", "MPI_Request": "Request", "MPI_Info": "Info",
    "MPI_Errhandler": "Errhandler", "MPI_Win": "Win", "MPI_File": "File",
    "MPI_Message": "Message",
}
# Fortran INTEGER kinds the C side takes by value.
SCALARS = ("int", "MPI_Aint", "MPI_Count", "MPI_Offset", "MPI_Fint")
# `void *` arguments that are choice buffers in Fortran too.
BUFFERS = {"buf", "sendbuf", "recvbuf", "buffer", "inbuf", "outbuf",
           "inoutbuf", "location", "origin_addr", "result_addr",
           "compare_addr", "base"}
# Argument lists whose length is known before the call.
COUNTS = ("count", "incount")
# Fortran subroutines without IERROR.
NO_IERROR = {"MPI_Pcontrol"}
# Fortran bindings that differ from C beyond these rules.
NOT_CONVERTED = {
    "MPI_Buffer_detach": "its buffer address argument differs from C's",
}


class NotConverted(Exception):
    pass


def fortran_names(name):
    low = name.lower()
    return low + "_", [low, low + "__", name.upper()]


def param_shape(p):
    """A C parameter's name, base type (no const, no *), whether it is an
    array, a pointer (arrays included) and const."""
    n = param_name(p)
    t = param_type(p)
    array = "[" in p[p.rfind(n):]
    base = t.replace("const", "").replace("*", "").strip()
    return n, base, array, "*" in t or array, t.startswith("const")


def convert(name, ps):
    """Returns (Fortran parameters, statements before, call arguments,
    statements after, hidden lengths)."""
    fparams, pre, args, post, hidden = [], [], [], [], []
    names = [param_name(p) for p in ps]
    count = next((n for n in names if n in COUNTS), None)
    for p in ps:
        n, base, array, ptr, const = param_shape(p)
        t = param_type(p)
        if n in ("argc", "argv") and name.startswith("MPI_Init"):
            args.append("nullptr")  # Fortran has no command line here
        elif base in SCALARS and not ptr:
            fparams.append(f"{base} *{n}")
            args.append(f"*{n}")
        elif base in SCALARS and "[][3]" in p:
            fparams.append(f"{base} *{n}")
            args.append(f"reinterpret_cast<{base} (*)[3]>({n})")
        elif base == "int" and ptr and n.endswith("weights"):
            # Graph edge weights: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY are
            # Fortran variables (Topologies.cpp).
            fparams.append(f"int *{n}")
            args.append(f"fortranWeights({n})")
        elif base in SCALARS:
            fparams.append(f"{base} *{n}")
            args.append(n)
            if n == "index" and not array and not const:
                post.append(f"if (R == MPI_SUCCESS && *{n} != MPI_UNDEFINED)"
                            f"\n    ++*{n};")
            elif n == "array_of_indices":
                post.append("if (R == MPI_SUCCESS && *outcount != "
                            "MPI_UNDEFINED)\n    for (int I = 0; I < "
                            f"*outcount; ++I)\n      ++{n}[I];")
        elif base in HANDLES and not ptr:
            fparams.append(f"MPI_Fint *{n}")
            args.append(f"MPI_{HANDLES[base]}_f2c(*{n})")
        elif base in HANDLES and array:
            if not count:
                raise NotConverted(f"no count for {n}")
            h = HANDLES[base]
            fparams.append(f"MPI_Fint *{n}")
            pre.append(f"{base} *C_{n} = static_cast<{base} *>("
                       f"scratch(*{count} * sizeof({base})));\n"
                       f"  for (int I = 0; I < *{count}; ++I)\n"
                       f"    C_{n}[I] = MPI_{h}_f2c({n}[I]);")
            args.append(f"C_{n}")
            if not const:
                post.append(f"for (int I = 0; I < *{count}; ++I)\n"
                            f"    {n}[I] = MPI_{h}_c2f(C_{n}[I]);")
            post.append(f"scratchFree(C_{n});")
        elif base in HANDLES:
            h = HANDLES[base]
            fparams.append(f"MPI_Fint *{n}")
            pre.append(f"{base} C_{n} = MPI_{h}_f2c(*{n});")
            args.append(f"&C_{n}")
            if not const:
                post.append(f"*{n} = MPI_{h}_c2f(C_{n});")
        elif base == "MPI_Status" and n.startswith("array_of_statuses"):
            if not count:
                raise NotConverted(f"no count for {n}")
            fparams.append(f"MPI_Fint *{n}")
            pre.append(f"MPI_Status *C_{n} = MPI_STATUSES_IGNORE;\n"
                       f"  if (!isStatusesIgnore({n}))\n"
                       f"    C_{n} = static_cast<MPI_Status *>(scratch("
                       f"*{count} * sizeof(MPI_Status) + 1));")
            args.append(f"C_{n}")
            post.append(f"if (C_{n} != MPI_STATUSES_IGNORE) {{\n"
                        f"    for (int I = 0; I < *{count}; ++I)\n"
                        f"      PMPI_Status_c2f(&C_{n}[I], "
                        f"{n} + I * kStatusSize);\n"
                        f"    scratchFree(C_{n});\n  }}")
        elif base == "MPI_Status":
            fparams.append(f"MPI_Fint *{n}")
            pre.append(f"MPI_Status S_{n}, *C_{n} = MPI_STATUS_IGNORE;\n"
                       f"  if (!isStatusIgnore({n})) {{\n"
                       f"    C_{n} = &S_{n};\n"
                       f"    PMPI_Status_f2c({n}, &S_{n});\n  }}")
            args.append(f"C_{n}")
            if not const:
                post.append(f"if (C_{n} != MPI_STATUS_IGNORE)\n"
                            f"    PMPI_Status_c2f(C_{n}, {n});")
        elif base == "void" and t.count("*") == 1 and n in BUFFERS:
            fparams.append(f"void *{n}")
            args.append(f"fortranBuffer({n})")
        elif base == "void" and t.count("*") == 1 and n == "baseptr":
            # INTEGER(KIND=MPI_ADDRESS_KIND): C stores the address there.
            fparams.append(f"void *{n}")
            args.append(n)
        elif base == "char" and t.count("*") + array == 1:
            fparams.append(f"char *{n}")
            hidden.append(f"size_t L_{n}")
            if const:
                pre.append(f"char *C_{n} = stringToC({n}, L_{n});")
                args.append(f"C_{n}")
                post.append(f"scratchFree(C_{n});")
            else:
                pre.append(f"char *C_{n} = static_cast<char *>("
                           f"scratch(kMaxString + 1));\n"
                           f"  C_{n}[0] = 0;")
                args.append(f"C_{n}")
                post.append(f"stringToFortran(C_{n}, {n}, L_{n});\n"
                            f"  scratchFree(C_{n});")
        else:
            raise NotConverted(p)
    return fparams, pre, args, post, hidden


def refusal(fname, fparams, reason):
    reason = reason.replace("\\", "\\\\").replace('"', "'")
    return (f"void {fname}({', '.join(fparams) or 'void'}) {{\n"
            f"  refuse(\"{fname.upper()[:-1]} (Fortran)\", \"{reason}\");\n"
            "}\n")


def refusal_reason(status, name, note, done):
    """Why the layer refuses the C function, or None."""
    if status == "refuse":
        return re.sub(r"^\[(macro|only):\w+\]\s*", "", note) or \
            "not supported by ccc yet"
    if status in ("proto", "legacy") and name not in done:
        return "not handled by ccc's MPI layer yet"
    return None


def hand_fortran(paths):
    """Fortran entry points defined by hand: `void mpi_xxx_(`."""
    names = set()
    for p in paths:
        names |= set(re.findall(r"^void\s+(mpi_\w+_)\(", open(p).read(),
                                re.M))
    return names


def entry(status, ret, name, params, note, done, refused=None):
    fname, aliases = fortran_names(name)
    ps = [p for p in split_params(params) if p != "..."]
    refused = refused or refusal_reason(status, name, note, done)
    try:
        if name in NOT_CONVERTED:
            raise NotConverted(NOT_CONVERTED[name])
        fparams, pre, args, post, hidden = convert(name, ps)
    except NotConverted:
        if status == "legacy" and not refused:
            sys.exit(f"gen_fortran.py: the Fortran {name} needs writing by "
                     "hand (LegacyFortran.cpp)")
        why = NOT_CONVERTED.get(
            name, "its arguments are not converted by ccc's Fortran bindings")
        if refused:
            why = refused
        return refusal(fname, ["..."], why), fname, aliases, "..."
    ierror = name not in NO_IERROR and ret == "int"
    allp = fparams + (["MPI_Fint *ierror"] if ierror else []) + hidden
    fret = ret if ret != "int" else "void"
    sig = ", ".join(allp) or "void"
    lines = [f"{fret} {fname}({sig}) {{"]
    if refused:
        # Noted under the Fortran name before the C function notes its own;
        # the refusal comes at the next checkpoint (gen_wrappers.py).
        lines.append(f"  noteRefused(\"{name.upper()} (Fortran)\","
                     f" \"{refused}\");")
    lines += ["  " + s for s in pre]
    call = f"{name}({', '.join(args)})"
    if ret == "int":
        lines.append(f"  int R = {call};")
    elif post:
        lines.append(f"  {ret} R = {call};")
    else:
        lines.append(f"  return {call};")
    lines += ["  " + s for s in post]
    if ret == "int" and ierror:
        lines.append("  *ierror = R;")
    elif ret != "int" and post:
        lines.append("  return R;")
    lines.append("}")
    return "\n".join(lines) + "\n", fname, aliases, sig


def main():
    spec, out, hand = sys.argv[1], sys.argv[2], sys.argv[3:]
    done = handwritten(hand)
    fhand = hand_fortran(hand)
    specs = parse_spec(spec)
    by_name = {e[2]: e for e in specs}
    text = [
        "// Generated by gen_fortran.py from functions.spec: do not edit.",
        '#include "Layer.h"',
        "",
        "#include <cstddef>",
        "",
        "namespace ccc {",
        "namespace mpi {",
        "// Fortran.cpp",
        "void *fortranBuffer(void *B);",
        "bool isStatusIgnore(const MPI_Fint *S);",
        "bool isStatusesIgnore(const MPI_Fint *S);",
        "char *stringToC(const char *F, size_t Len);",
        "void stringToFortran(const char *C, char *F, size_t Len);",
        "int *fortranWeights(int *W); // Topologies.cpp",
        "constexpr int kStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);",
        "constexpr size_t kMaxString = 8192;",
        "} // namespace mpi",
        "} // namespace ccc",
        "",
        "using namespace ccc::mpi;",
        "",
        'extern "C" {',
    ]
    for status, ret, name, params, note in specs:
        if name.startswith("MPI_T_") or re.search(r"_(c2f|f2c)$", name):
            continue
        # Written by hand (LegacyFortran.cpp), or one MPI's own function
        # (its Fortran bindings call the C ones).
        if fortran_names(name)[0] in fhand or note.startswith("[only:"):
            continue
        refused = None
        if status == "legacy":
            r = by_name[re.match(r"-> (MPI_\w+)", note).group(1)]
            refused = refusal_reason(r[0], r[2], r[4], done)
        body, fname, aliases, sig = entry(status, ret, name, params, note,
                                          done, refused)
        fret = ret if ret not in ("int",) else "void"
        text.append(body)
        for a in aliases:
            text.append(f"#ifndef {a}\n{fret} {a}({sig}) "
                        f"__attribute__((alias(\"{fname}\")));\n#endif")
        text.append("")
    text.append("}")
    with open(out, "w") as f:
        f.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
