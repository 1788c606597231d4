#!/bin/sh
# ckpt-cc/ckpt-fc choose the MPI by the mpi.h (mpif.h) the compiler finds
# with the given flags, never by the spelling of an include path: a
# library's .../openmpi/include without mpi.h (HDF5's), a user's
# .../mpich-tools/include, the real Debian parallel HDF5 directory if
# installed, a serial stub mpi.h (no layer, a note), each MPI's own
# directory in both -I forms, CCC_MPI and --mpi=, and each MPI's wrapper
# routing to ckpt-cc (the whole layer: libmpi precedes it). -show only,
# plus one compile against Debian's HDF5.
# usage: mpi_choice_test.sh BUILD_DIR
set -eu
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
cc="$work/prefix/bin/ckpt-cc"
fc="$work/prefix/bin/ckpt-fc"
ompi_inc=/usr/lib/x86_64-linux-gnu/openmpi/include
mpich_inc=/usr/include/x86_64-linux-gnu/mpich
# The layer a -show line links: openmpi, mpich or none.
layer() {
  case $1 in
    *libccc_mpi_openmpi.a*) echo openmpi ;;
    *libccc_mpi_mpich.a*) echo mpich ;;
    *) echo none ;;
  esac
}
default=$(layer "$("$cc" -show -o x x.c)")
mkdir -p "$work/hdf5/openmpi/include" "$work/src/mpich-tools/include" \
  "$work/stub/openmpi/include"
echo '#define H5_HAVE_PARALLEL 1' >"$work/hdf5/openmpi/include/H5pubconf.h"
echo '#define TOOLS 1' >"$work/src/mpich-tools/include/tools.h"
printf '#define MPI_COMM_WORLD 0\nint MPI_Init(int *, char ***);\n' \
  >"$work/stub/openmpi/include/mpi.h"
for d in "$work/hdf5/openmpi/include" "$work/src/mpich-tools/include" \
  /usr/lib/x86_64-linux-gnu/hdf5/openmpi/include; do
  [ -d "$d" ] || continue
  got=$(layer "$("$cc" -show -I"$d" -o x x.c 2>"$work/err")")
  [ "$got" = "$default" ] || fail "-I$d chose $got, not the default $default"
  [ -s "$work/err" ] && fail "-I$d: $(cat "$work/err")"
  got=$(layer "$("$cc" -show -I "$d" -o x x.c)")
  [ "$got" = "$default" ] || fail "-I $d chose $got, not the default $default"
done
# Debian's parallel HDF5 (libhdf5-openmpi-dev), when installed: its include
# directory alone must still give mpi.h (it used to drop the MPI's flags).
h5=/usr/lib/x86_64-linux-gnu/hdf5/openmpi/include
if [ -f "$h5/hdf5.h" ] && [ "$default" != none ]; then
  printf '#include <hdf5.h>\n#include <mpi.h>\nint main(void){return H5_VERS_MAJOR;}\n' >"$work/h5.c"
  "$cc" -I"$h5" -c -o "$work/h5.o" "$work/h5.c" 2>"$work/err" ||
    fail "HDF5's include directory: $(cat "$work/err")"
fi
got=$(layer "$("$cc" -show -I"$work/stub/openmpi/include" -o x x.c 2>"$work/err")")
[ "$got" = none ] || fail "a stub mpi.h chose $got"
grep -q "^ccc: ckpt-cc: the mpi.h .*stub/openmpi/include/mpi.h.* neither" "$work/err" ||
  fail "a stub mpi.h: no note: $(cat "$work/err")"
n=0
for mpi in openmpi mpich; do
  [ -f "$work/prefix/lib/libccc_mpi_$mpi.a" ] || continue
  n=$((n + 1))
  [ $mpi = openmpi ] && inc=$ompi_inc
  [ $mpi = mpich ] && inc=$mpich_inc
  got=$(layer "$("$cc" -show -I"$inc" -o x x.c)")
  [ "$got" = $mpi ] || fail "-I$inc chose $got"
  got=$(layer "$("$cc" -show -I "$inc" -o x x.c)")
  [ "$got" = $mpi ] || fail "-I $inc chose $got"
  got=$(layer "$(CCC_MPI=$mpi "$cc" -show -o x x.c)")
  [ "$got" = $mpi ] || fail "CCC_MPI=$mpi chose $got"
  got=$(layer "$(CCC_MPI=none "$cc" --mpi=$mpi -show -o x x.c)")
  [ "$got" = $mpi ] || fail "--mpi=$mpi under CCC_MPI=none chose $got"
  "$fc" -show -I"$inc" -o x x.f90 | grep -q "include/ccc/fortran/$mpi'" ||
    fail "ckpt-fc -I$inc: not $mpi's modules"
  if [ $mpi = openmpi ]; then
    line=$(OMPI_CC="$cc -show" mpicc.openmpi -o x x.c)
  else
    line=$(MPICH_CC="$cc -show" mpicc.mpich -o x x.c)
  fi
  [ "$(layer "$line")" = $mpi ] || fail "through $mpi's mpicc: $line"
  case $line in *--whole-archive*) ;; *) fail "through $mpi's mpicc: not the whole layer: $line" ;; esac
done
[ $n -gt 0 ] || { echo "no MPI layer built: skipped"; exit 77; }
echo "MPI choice: ok ($n MPIs, default $default)"
