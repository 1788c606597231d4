#!/bin/sh
# The installed tree works as users run it: `cmake --install` to a fresh
# prefix, build a program with bin/ckpt-cc only, run it with checkpoints,
# and inspect the images with bin/ckpt (ls, info, verify, config).
# usage: installed_tools_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in lib/libccc.so lib/libccc_rt.a include/ccc.h include/ccc/abi.h \
  include/ccc.f90 include/ccc/fortran/ccc.mod lib/pkgconfig/ccc.pc \
  lib/cmake/ccc/cccConfig.cmake lib/cmake/ccc/cccConfigVersion.cmake \
  bin/ckpt-cc bin/ckpt-c++ bin/ckpt-fc bin/ckpt; do
  [ -e "$work/prefix/$f" ] || fail "install lacks $f"
done
cc="$work/prefix/bin/ckpt-cc"
"$cc" -show -O2 -o x x.c | grep -q "fpass-plugin=$work/prefix/lib/libccc.so" ||
  fail "ckpt-cc -show does not name the plugin"
"$cc" -show -c x.c | grep -q libccc_rt && fail "ckpt-cc -c must not link the runtime"
"$work/prefix/bin/ckpt-c++" -show x.cpp | grep -q "^clang++-19 .*fpass-plugin.*libccc_rt.a.*--wrap=malloc" ||
  fail "ckpt-c++ -show: $("$work/prefix/bin/ckpt-c++" -show x.cpp)"
"$work/prefix/bin/ckpt-fc" -show x.f90 | grep -q "^flang-new-19 .*-I$work/prefix/include/ccc/fortran" ||
  fail "ckpt-fc -show lacks the Fortran module directory"
# A shared library built with the pass leaves the runtime to the program:
# one heap, one table of files in the process.
"$cc" -show -shared -fPIC -o libx.so x.c | grep -q "libccc_rt\|libccc_mpi\|--wrap" &&
  fail "ckpt-cc -shared must not link the runtime or the MPI layer"
"$cc" -O2 -shared -fPIC -I"$src/test/rt/libraries" -o "$work/libwave.so" \
  "$src/test/rt/libraries/pass_library.c"
nm -D --defined-only "$work/libwave.so" | grep -q " __ccc_" &&
  fail "libwave.so defines runtime symbols"
"$cc" -O2 -I"$src/test/rt/libraries" -o "$work/wave" \
  "$src/test/rt/libraries/pass_library_main.c" -L"$work" -lwave -Wl,-rpath,"$work"
(cd "$work" && CCC_DIR="$work/wave-ckpt" CCC_INTERVAL=0.02 ./wave 2000 4096 >/dev/null) ||
  fail "a program with a library built by ckpt-cc -shared"
ls "$work/wave-ckpt"/*.commit >/dev/null 2>&1 || fail "libwave program: no checkpoint committed"
ln -s "$(command -v clang++-19)" "$work/my-cxx"
CCC_CXX="$work/my-cxx" "$work/prefix/bin/ckpt-c++" -show x.cpp | grep -q "^$work/my-cxx " ||
  fail "CCC_CXX does not override the compiler"
"$cc" -O2 -c -o "$work/f.o" "$src/test/rt/bad_input/forced_checkpoints.c"
"$cc" -O2 -o "$work/forced" "$work/f.o"
CCC_DIR="$work/ckpt" CCC_KEEP=2 "$work/forced" >"$work/out"
grep -q '^total ' "$work/out" || fail "program output"
ckpt="$work/prefix/bin/ckpt"
"$ckpt" ls "$work/ckpt" >"$work/ls"
[ "$(awk '$2 == "image"' "$work/ls" | wc -l)" -eq 2 ] || fail "ckpt ls: expected 2 kept images: $(cat "$work/ls")"
[ "$(grep -c ' commit ' "$work/ls")" -eq 2 ] || fail "ckpt ls: expected 2 commits"
[ "$(grep -c ' commit .* of 1 ' "$work/ls")" -eq 2 ] ||
  fail "ckpt ls: a commit's rank column names the job's size (of 1): $(cat "$work/ls")"
img="$work/ckpt/forced.v000005.r0.ccc"
"$ckpt" info "$img" >"$work/info"
for s in context runtime loadmap globals heap stack; do
  grep -q "^$s " "$work/info" || fail "ckpt info lacks section $s"
done
grep -q '^version: *5$' "$work/info" || fail "ckpt info version"
"$ckpt" verify "$img" | grep -q ': ok' || fail "ckpt verify"
printf 'garbage' >"$work/bad.ccc"
"$ckpt" verify "$work/bad.ccc" 2>"$work/err" && fail "ckpt verify accepted garbage"
grep -q '^ccc: .*truncated' "$work/err" || fail "ckpt verify message: $(cat "$work/err")"
"$ckpt" config | grep -q '^CCC_INTERVAL' || fail "ckpt config"
"$ckpt" bogus 2>/dev/null && fail "ckpt accepted a bad command"

# MPI programs: ckpt-cc with the system's MPI, with --mpi=, and through the
# MPI's own wrapper must all link ccc's layer (its MPI_Send defined in the
# program, not left to libmpi); one of them runs 2 ranks, checkpoints and
# restarts.
mpisrc="$src/test/mpi/blocking/sends_in_flight_at_site.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for mpi in openmpi mpich; do
  [ -f "$work/prefix/lib/libccc_mpi_$mpi.a" ] || continue
  "$cc" --mpi=$mpi -O2 -o "$work/$mpi.opt" "$mpisrc"
  if [ $mpi = openmpi ]; then
    OMPI_CC="$cc" mpicc.openmpi -O2 -o "$work/$mpi.route" "$mpisrc"
    launch="mpirun.openmpi --oversubscribe -x CCC_DIR -x CCC_INTERVAL -x CCC_RESTART -np 2"
  else
    MPICH_CC="$cc" mpicc.mpich -O2 -o "$work/$mpi.route" "$mpisrc"
    launch="mpiexec.mpich -n 2"
  fi
  for exe in "$work/$mpi.opt" "$work/$mpi.route"; do
    nm "$exe" | grep -q ' T MPI_Send$' || fail "$exe: ccc's MPI layer not linked"
  done
  rm -rf "$work/mpickpt"
  # The job must outlast its first timer: 3000 steps (0.04 s at 2 MPICH
  # ranks on an idle machine, after MPI_Init) sometimes ended first.
  steps=30000
  CCC_DIR="$work/mpickpt" CCC_INTERVAL=0.02 $launch "$work/$mpi.route" $steps >"$work/mpi1"
  ls "$work/mpickpt" | grep -q '\.r1\.ccc$' || fail "$mpi: no rank-1 image"
  # The job finished: rank 0 recorded it, so it is resumed only on request
  # (CCC_RESTART=require), and run again as it is it starts afresh.
  [ -f "$work/mpickpt/$mpi.route.completed" ] || fail "$mpi: finished job not recorded as completed"
  CCC_DIR="$work/mpickpt" CCC_RESTART=require $launch "$work/$mpi.route" $steps >"$work/mpi2" 2>"$work/mpierr"
  grep -q 'restarting from' "$work/mpierr" || fail "$mpi: no restart: $(cat "$work/mpierr")"
  cmp -s "$work/mpi1" "$work/mpi2" || fail "$mpi: restarted output differs"
  CCC_DIR="$work/mpickpt" $launch "$work/$mpi.route" $steps >"$work/mpi3" 2>"$work/mpierr"
  grep -q 'finished normally.*starting afresh' "$work/mpierr" || fail "$mpi: finished job not started afresh: $(cat "$work/mpierr")"
  grep -q 'restarting from' "$work/mpierr" && fail "$mpi: finished job resumed: $(cat "$work/mpierr")"
  cmp -s "$work/mpi1" "$work/mpi3" || fail "$mpi: fresh output differs"
done
# Legacy C (MPI-1 names Open MPI 4 no longer declares) builds with ckpt-cc
# and through the MPI's own wrapper; an include directory of a library's
# Open MPI build (HDF5's .../hdf5/openmpi/include) is not mistaken for the
# MPI wrapper's, which would drop the MPI's flags.
legacy="$src/test/tools/legacy_mpi1_calls.c"
mkdir -p "$work/hdf5/openmpi/include"
for mpi in openmpi mpich; do
  [ -f "$work/prefix/lib/libccc_mpi_$mpi.a" ] || continue
  "$cc" --mpi=$mpi -O2 -o "$work/legacy.$mpi" "$legacy" 2>"$work/err" ||
    fail "$mpi: ckpt-cc does not build MPI-1 calls: $(cat "$work/err")"
  "$cc" --mpi=$mpi -I"$work/hdf5/openmpi/include" -O2 -o "$work/legacy.$mpi" \
    "$legacy" 2>"$work/err" ||
    fail "$mpi: an HDF5-like include directory: $(cat "$work/err")"
  if [ $mpi = openmpi ]; then
    OMPI_CC="$cc" mpicc.openmpi -O2 -o "$work/legacy.route" "$legacy" \
      2>"$work/err" || fail "$mpi: through mpicc: $(cat "$work/err")"
  else
    MPICH_CC="$cc" mpicc.mpich -O2 -o "$work/legacy.route" "$legacy" \
      2>"$work/err" || fail "$mpi: through mpicc: $(cat "$work/err")"
  fi
done

# C of gcc 12's days: clang's default errors stay warnings, as gcc had
# them, unless --strict.
"$cc" -O2 -o "$work/gcc12" "$src/test/tools/gcc12_era.c" 2>"$work/err" ||
  fail "ckpt-cc rejects what gcc 12 built: $(cat "$work/err")"
grep -q 'warning: .*implicit-function-declaration' "$work/err" ||
  fail "ckpt-cc: no warning left for an implicit declaration: $(cat "$work/err")"
"$cc" --strict -O2 -o "$work/gcc12" "$src/test/tools/gcc12_era.c" 2>"$work/err" &&
  fail "ckpt-cc --strict accepted an implicit declaration"
grep -q 'error: .*int-conversion' "$work/err" || fail "ckpt-cc --strict: $(cat "$work/err")"

if sys=$(command -v mpicc); then
  "$cc" -O2 -o "$work/sys" "$mpisrc"
  nm "$work/sys" | grep -q ' T MPI_Send$' || fail "ckpt-cc with the system MPI ($sys): layer not linked"
fi
"$cc" --mpi=lam -c x.c 2>"$work/err" && fail "ckpt-cc accepted --mpi=lam"
grep -q '^ccc: ckpt-cc: --mpi=lam' "$work/err" || fail "--mpi=lam message: $(cat "$work/err")"
echo "installed tools: ok"
