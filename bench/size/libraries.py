#!/usr/bin/env python3
"""What the state of libraries adds to a checkpoint image (issue 45).

For two kernels that keep their state in libraries (test/mpi/programs/
libraries: parallel HDF5 output, a PETSc KSP solve; Open MPI, 2 ranks), in
one run of this script:
  - ccc's image of rank 0 at its first checkpoint with CCC_LIBRARIES=save
    (the default) and with CCC_LIBRARIES=off: the difference is what the
    libraries' .data/.bss and heap add; `ckpt info --json` gives the
    libraries' data share (raw, and stored at the section's ratio);
  - the baseline: a `gcore` of rank 0 of the plain build at the same point
    of its loop (a second in), raw and through `zstd -1 -T0`, what a
    system-level checkpointer would save for the whole process.

usage: bench/size/libraries.py [BUILD_DIR]   (default: build)
Needs the library tests built (test/mpi/LibraryTests.cmake), gdb, zstd.
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
CKPT = os.path.join(BUILD, "tools", "ckpt")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
KERNELS = [("hdf5_fields", ["2000000", "250"]), ("petsc_heat", ["100000"])]


def launch(exe, args, cwd, env):
    return subprocess.Popen(
        ["mpirun.openmpi", "-np", "2", "-x", "CCC_DIR", "-x", "CCC_INTERVAL",
         "-x", "CCC_LIBRARIES", "-x", "CCC_KEEP", exe] + args,
        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)


def stop(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    time.sleep(0.3)


def first_image(exe, args, libraries):
    d = tempfile.mkdtemp(prefix="ccc-libsize-")
    env = dict(ENV, CCC_DIR=os.path.join(d, "ckpt"), CCC_INTERVAL="1",
               CCC_LIBRARIES=libraries, CCC_KEEP="10")
    p = launch(exe, args, d, env)
    deadline = time.time() + 60
    commit = os.path.join(d, "ckpt", "*.v000001.commit")
    while not glob.glob(commit) and time.time() < deadline:
        time.sleep(0.05)
    stop(p)
    image = glob.glob(os.path.join(d, "ckpt", "*.v000001.r0.ccc"))
    if not image:
        sys.exit(f"no committed image of {exe} (CCC_LIBRARIES={libraries})")
    info = json.loads(subprocess.run([CKPT, "info", "--json", image[0]],
                                     capture_output=True, text=True,
                                     check=True).stdout)
    shutil.rmtree(d)
    lib = [w for w in info["where"] if w["kind"] == "library data"]
    return (info["file_size"], sum(w["here"] for w in lib),
            sum(w["stored_estimate"] for w in lib), len(lib))


def rank0(exe):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{pid}/exe") != exe:
                continue
            environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if b"OMPI_COMM_WORLD_RANK=0" in environ:
            return int(pid)
    return None


def core_size(exe, args):
    d = tempfile.mkdtemp(prefix="ccc-libcore-")
    p = launch(exe, args, d, ENV)
    time.sleep(1.5)
    pid = rank0(exe)
    if pid is None:
        stop(p)
        sys.exit(f"rank 0 of {exe} not found")
    core = os.path.join(d, "core")
    subprocess.run(["gcore", "-o", core, str(pid)], capture_output=True)
    stop(p)
    core = glob.glob(core + "*")[0]
    raw = os.path.getsize(core)
    subprocess.run(["zstd", "-q", "-1", "-T0", core, "-o", core + ".zst"],
                   check=True)
    z = os.path.getsize(core + ".zst")
    shutil.rmtree(d)
    return raw, z


def kib(n):
    return f"{n / 1024:.0f} KiB"


print("| kernel | image, libraries saved | image, CCC_LIBRARIES=off | "
      "libraries add | libraries' data (raw, stored~, count) | "
      "gcore raw | gcore zstd -1 | image / gcore zstd | added / gcore zstd |")
print("|---|---|---|---|---|---|---|---|---|")
for name, args in KERNELS:
    exe = os.path.join(BUILD, "test", "mpi", f"mpi_openmpi_library_{name}")
    save, lib_raw, lib_stored, nlib = first_image(exe, args, "save")
    off, _, _, _ = first_image(exe, args, "off")
    raw, z = core_size(exe + ".plain", args)
    print(f"| {name} | {kib(save)} | {kib(off)} | {kib(save - off)} | "
          f"{kib(lib_raw)}, {kib(lib_stored)}, {nlib} | {kib(raw)} | "
          f"{kib(z)} | {save / z:.3f} | {(save - off) / z:.3f} |")
