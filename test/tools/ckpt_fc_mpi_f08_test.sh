#!/bin/sh
# `use mpi_f08` with the installed ckpt-fc, for each MPI ccc was built for:
# the program compiles against ccc's flang module (not the MPI's gfortran
# mpi_f08.mod, which flang cannot read), links with its procedures before
# the layer (mpi_send_ ... defined by the layer, in the executable), and
# runs one rank with a checkpoint.
# usage: ckpt_fc_mpi_f08_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
fc="$work/prefix/bin/ckpt-fc"
prog="$src/test/mpi/fortran/f08_ckpt_fc.f90"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
n=0
for mpi in openmpi mpich; do
  [ -f "$work/prefix/lib/libccc_mpi_$mpi.a" ] || continue
  for f in lib/libccc_mpi_f08_$mpi.a include/ccc/fortran/$mpi/mpi_f08.mod; do
    [ -e "$work/prefix/$f" ] || fail "install lacks $f"
  done
  mkdir "$work/$mpi"
  (cd "$work/$mpi" && "$fc" --mpi=$mpi -O2 -c "$prog" -o f08.o) ||
    fail "$mpi: ckpt-fc -c of a use mpi_f08 program"
  (cd "$work/$mpi" && "$fc" --mpi=$mpi -O2 -o f08 f08.o) ||
    fail "$mpi: ckpt-fc link of a use mpi_f08 program"
  nm "$work/$mpi/f08" | grep -q ' T mpi_isend_$' ||
    fail "$mpi: mpi_isend_ not the layer's (not defined in the executable)"
  nm "$work/$mpi/f08" | grep -qi ' T _QMmpi_f08Pmpi_isend_f08$' ||
    fail "$mpi: mpi_f08's MPI_Isend not linked"
  out=$(cd "$work/$mpi" && CCC_DIR="$work/$mpi/ckpt" ./f08) ||
    fail "$mpi: the program failed: $out"
  [ "$out" = "source 0 count 4 total 0" ] || fail "$mpi: output: $out"
  ls "$work/$mpi/ckpt" | grep -q '\.commit$' || fail "$mpi: no checkpoint committed"
  n=$((n + 1))
done
[ $n -gt 0 ] || { echo "no MPI layer with Fortran built: skipped"; exit 77; }
echo "ckpt-fc use mpi_f08: ok ($n MPIs)"
