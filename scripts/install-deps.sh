#!/bin/sh
# Installs the Debian 12 packages ccc needs to build and test, if missing.
set -eu
# LLVM 22 beside 19: ccc builds libccc-22.so too and tests it (llvm22.*).
# Not libomp-22-dev: it conflicts with libomp-19-dev (apt removes one for
# the other), which the OpenMP tests need. gcc, libasan8 and libubsan1:
# the sanitizer runtimes of sanitize.tier (clang-19 ships none). HDF5
# (serial and parallel for both MPIs), FFTW's MPI interface and PETSc: the
# libraries whose state the library tests restore (issue 45).
PKGS="clang-19 llvm-19-dev llvm-19-tools lld-19 flang-19 libomp-19-dev
  clang-22 llvm-22-dev llvm-22-tools flang-22 libzstd-dev zstd libxxhash-dev cmake
  ninja-build make pkg-config python3 procps libopenmpi-dev openmpi-bin
  libmpich-dev mpich gdb hyperfine valgrind libfpzip-dev spin
  slurmctld slurmd slurm-client munge gcc libasan8 libubsan1
  libhdf5-dev libhdf5-openmpi-dev libhdf5-mpich-dev libfftw3-mpi-dev
  petsc-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "ccc: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
