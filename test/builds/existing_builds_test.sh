#!/bin/sh
# Existing builds take ccc from outside, unmodified: a multi-language CMake
# project and a plain Makefile project get the pass through their compile
# flags and the runtime through `pkg-config --libs ccc`; a CMake project uses
# find_package(ccc). Every program so built (C, C++, Fortran; a static
# library compiled with the pass) is killed and restarted by the harness and
# must print exactly what its build without ccc prints.
# usage: existing_builds_test.sh BUILD_DIR SOURCE_DIR PYTHON TRIALS
set -eu
build=$1
src=$2
python=$3
trials=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
plugin="-fpass-plugin=$(pkg-config --variable=plugin ccc)"
includes=$(pkg-config --cflags-only-I ccc)
libs=$(pkg-config --libs ccc)
compilers="-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
  -DCMAKE_Fortran_COMPILER=flang-new-19"

# cmake_project, twice: with the plugin, and the reference without it.
for kind in ccc plain; do
  flags="-O2 $includes"
  [ $kind = ccc ] && flags="$flags $plugin"
  # shellcheck disable=SC2086
  cmake -S "$src/test/builds/cmake_project" -B "$work/cmake_$kind" -G Ninja \
    $compilers -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_Fortran_FLAGS="$flags" \
    -DCMAKE_C_STANDARD_LIBRARIES="$libs" \
    -DCMAKE_CXX_STANDARD_LIBRARIES="$libs" \
    -DCMAKE_Fortran_STANDARD_LIBRARIES="$libs" >"$work/log" 2>&1 ||
    { cat "$work/log"; fail "cmake_project: configure ($kind)"; }
  cmake --build "$work/cmake_$kind" >"$work/log" 2>&1 ||
    { cat "$work/log"; fail "cmake_project: build ($kind)"; }
done

# make_project, twice, each in a copy of the sources.
for kind in ccc plain; do
  cp -r "$src/test/builds/make_project" "$work/make_$kind"
  cflags="-O2 $includes"
  [ $kind = ccc ] && cflags="-O2 $(pkg-config --cflags ccc)"
  make -C "$work/make_$kind" CC=clang-19 CXX=clang++-19 FC=flang-new-19 \
    CFLAGS="$cflags" CXXFLAGS="$cflags" FFLAGS="$cflags" LDLIBS="$libs" \
    >"$work/log" 2>&1 || { cat "$work/log"; fail "make_project ($kind)"; }
done

# find_package_project: the reference is the same build run with
# CCC_DISABLE=1.
# shellcheck disable=SC2086
cmake -S "$src/test/builds/find_package_project" -B "$work/fp" -G Ninja \
  $compilers -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/log" 2>&1 ||
  { cat "$work/log"; fail "find_package_project: configure"; }
cmake --build "$work/fp" -v >"$work/log" 2>&1 ||
  { cat "$work/log"; fail "find_package_project: build"; }
grep -q "tally.cpp" "$work/log" && grep "tally.cpp" "$work/log" |
  grep -q -- "-fpass-plugin=" || fail "ccc::ccc did not add the plugin"

harness="$python $src/test/harness/killrestart.py --trials $trials \
  --interval 0.15"
kr() { # name ref-command ccc-command
  # shellcheck disable=SC2086
  $harness --name "$1" --ref "$2" -- $3 || fail "kill/restart of $1"
}
kr cmake.heat_c "$work/cmake_plain/heat 25000" "$work/cmake_ccc/heat 25000"
kr cmake.particles_cxx "$work/cmake_plain/particles 6000" \
  "$work/cmake_ccc/particles 6000"
kr cmake.waves_fortran "$work/cmake_plain/waves 60000" \
  "$work/cmake_ccc/waves 60000"
kr make.stats_c "$work/make_plain/stats 400000" "$work/make_ccc/stats 400000"
kr make.matrix_cxx "$work/make_plain/matrix 40000" \
  "$work/make_ccc/matrix 40000"
kr make.orbit_fortran "$work/make_plain/orbit 500000" \
  "$work/make_ccc/orbit 500000"
kr find_package.histo_cxx "env CCC_DISABLE=1 $work/fp/histo 75000" \
  "$work/fp/histo 75000"
kr find_package.decay_fortran "env CCC_DISABLE=1 $work/fp/decay 9000" \
  "$work/fp/decay 9000"
echo "existing builds: ok"
