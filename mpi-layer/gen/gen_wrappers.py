#!/usr/bin/env python3
"""Generates the MPI layer's wrappers from functions.spec.

usage: gen_wrappers.py functions.spec OUT.cpp HANDWRITTEN.cpp...

Every function of the spec gets a definition, so that no MPI call can reach
the library past the layer unseen:
  - defined by hand in one of HANDWRITTEN (the protocol and handle tables):
    nothing is generated;
  - `pass`: translate handle arguments (ccc handles to MPI's), call PMPI_;
  - `refuse`, and `proto` functions not written by hand yet: translate
    handle arguments as `pass` does (arrays of datatypes too) and call PMPI_,
    after noting the call (noteRefused, Init.cpp): the job stops with a
    `ccc:` error naming the first such function (and the legacy name the
    program called, when a Legacy.cpp function called it) when a checkpoint
    would be taken, since it would miss the state the call made. A program
    that never checkpoints (no site, CCC_DISABLE=1) runs as without ccc;
    handles MPI returns from these calls reach the program unchanged and
    pass through the layer like predefined ones. Point-to-point ones
    (MESSAGES) stop at the call under the non-blocking protocol;
  - `legacy`: must be written by hand (Legacy.cpp); generation fails
    otherwise, since passing it through would hand MPI ccc handles.
Every definition is guarded with #ifndef NAME: some names are macros in one
MPI.
"""
import re
import sys

HANDLE_IN = {
    "MPI_Comm": "realComm",
    "MPI_Datatype": "realType",
    "MPI_Op": "realOp",
    "MPI_Group": "realGroup",
    "MPI_Info": "realInfo",
    "MPI_Errhandler": "realErrhandler",
    "MPI_File": "realFile",
    "MPI_Win": "realWin",  # Windows.cpp
}
# Handle kinds the layer has no table for yet: a `pass` function taking one
# by value passes it unchanged (only predefined ones can exist).
# Point-to-point calls the layer does not handle: under the non-blocking
# protocol (a program with sites) every message carries the layer's header,
# which these would neither add nor strip, so they cannot even run: they
# are refused at the call there.
MESSAGES = re.compile(r"MPI_(i?[bsr]?send|i?recv|[bsr]?send_init|recv_init|"
                      r"i?mprobe|i?mrecv|i?sendrecv(_replace)?|"
                      r"p(send|recv)_init)(_c)?$", re.I)
OTHER_HANDLES = ("MPI_Message", "MPI_Request")


def parse_spec(path):
    out = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        status, proto, note = [f.strip() for f in line.split("|", 2)]
        m = re.match(r"(.+?)\b(MPI_\w+)\((.*)\)$", proto)
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3)
        out.append((status, ret, name, params, note))
    return out


def split_params(params):
    if params in ("void", ""):
        return []
    return [p.strip() for p in params.split(",")]


def param_name(p):
    if p == "...":
        return None
    m = re.search(r"(\w+)(\s*\[[^\]]*\])*\s*$", p)
    return m.group(1)


def param_type(p):
    return p[: p.rfind(param_name(p))].strip()


def handwritten(paths):
    names = set()
    for p in paths:
        names |= set(re.findall(r"^\s*(?:int|double|MPI_\w+)\s+(MPI_\w+)\(",
                                open(p).read(), re.M))
    return names


def definition(status, ret, name, params, note):
    ps = split_params(params)

    fixed = [p for p in ps if p != "..."]
    # Variadic MPI_Pcontrol: only `level` is forwarded.
    decl = f"{ret} {name}({', '.join(ps) if ps else 'void'})"
    names = [param_name(p) for p in fixed]
    args, pre, post = [], [], []
    for p, n in zip(fixed, names):
        t = param_type(p)
        if t in HANDLE_IN and not p.endswith("]"):
            args.append(f"{HANDLE_IN[t]}({n})")
        elif t == "const MPI_Datatype" and p.endswith("]"):
            # Alltoallw-like calls: one datatype per peer or per block.
            # A non-blocking or persistent call reads the array until it
            # completes: its copy (made only if it holds a ccc handle) is
            # left allocated.
            pre.append(f"const MPI_Datatype *C_{n} = realTypes({n}, "
                       f"{type_array_length(name, names, n)});")
            args.append(f"C_{n}")
            if not re.match(r"MPI_I|.*_init(_c)?$", name):
                post.append(f"if (C_{n} != {n})\n    scratchFree("
                            f"const_cast<MPI_Datatype *>(C_{n}));")
        else:
            args.append(n)
    lines = []
    if status != "pass":
        if status == "proto":
            reason = "not handled by ccc's MPI layer yet"
        else:
            reason = re.sub(r"^\[(macro|only):\w+\]\s*", "", note)
            reason = reason or "not supported by ccc yet"
        reason = reason.replace("\\", "\\\\").replace('"', "'")
        if MESSAGES.match(name):
            lines += ["if (NonBlocking)",
                      f"  refuse(calledAs(\"{name}\"), \"{reason}; its "
                      "messages would not carry the header of "
                      "CCC_PROTOCOL=nonblocking\");"]
        lines.append(f"noteRefused(calledAs(\"{name}\"), \"{reason}\");")
    lines += pre
    call = f"P{name}({', '.join(args)})"
    if post:
        lines += [f"{ret} R = {call};"] + post + ["return R;"]
    else:
        lines.append(f"return {call};")
    body = "\n".join("  " + l for l in lines)
    return f"{decl} {{\n{body}\n}}\n"


def type_array_length(name, names, n):
    """The C expression for the length of the datatype array n of name."""
    if "count" in names:
        return "count"
    if "alltoallw" not in name.lower():
        sys.exit(f"gen_wrappers.py: no length known for {name}'s {n}")
    neighbour = "eighbor" in name
    recv = n.startswith("recv")
    return (f"typeArrayLength(comm, {'true' if neighbour else 'false'}, "
            f"{'true' if recv else 'false'})")


def main():
    spec, out, hand = sys.argv[1], sys.argv[2], sys.argv[3:]
    done = handwritten(hand)
    lines = [
        "// Generated by gen_wrappers.py from functions.spec: do not edit.",
        '#include "Layer.h"',
        "",
        "using namespace ccc::mpi;",
        "",
        "namespace ccc {",
        "namespace mpi {",
        "const char *calledAs(const char *Name); // Legacy.cpp",
        "// Objects.cpp: real handles of an array of N program datatypes (Ts",
        "// itself if it holds no ccc handle, else a scratch copy), and how",
        "// many an Alltoallw-like call on the program's communicator C reads.",
        "const MPI_Datatype *realTypes(const MPI_Datatype *Ts, MPI_Count N);",
        "int typeArrayLength(MPI_Comm C, bool Neighbour, bool Recv);",
        "} // namespace mpi",
        "} // namespace ccc",
        "",
        'extern "C" {',
    ]
    for status, ret, name, params, note in parse_spec(spec):
        if name in done:
            continue
        if status == "legacy":
            sys.exit(f"gen_wrappers.py: {name} is `legacy` in {spec} but not "
                     "defined by hand")
        # Some names are macros in one MPI (not always marked in the spec).
        text = definition(status, ret, name, params, note)
        text = f"#ifndef {name}\n{text}#endif\n"
        only = re.match(r"\[only:(\w+)\]", note)
        if only:  # declared by that MPI's mpi.h only
            macro = {"mpich": "MPICH", "ompi": "OPEN_MPI"}[only.group(1)]
            text = f"#ifdef {macro}\n{text}#endif\n"
        lines.append(text)
    lines.append("}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
