#!/bin/sh
# The installed wrappers choose the plugin by the LLVM of the compiler they
# run: libccc.so for LLVM 19 (the default compilers), libccc-MAJOR.so and
# include/ccc/fortran-MAJOR for MAJOR's clang, clang++ and flang (chosen
# with CCC_CC, CCC_CXX, CCC_FC); a compiler with no plugin is refused,
# named. Programs built by MAJOR's compilers through them checkpoint and
# restart.
# usage: llvm_wrappers_test.sh BUILD_DIR SOURCE_DIR MAJOR
set -eu
build=$1
src=$2
major=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
p="$work/prefix"
for f in lib/libccc.so "lib/libccc-$major.so" include/ccc/fortran/ccc.mod \
  "include/ccc/fortran-$major/ccc.mod"; do
  [ -e "$p/$f" ] || fail "install lacks $f"
done

# -show: the plugin of each compiler's major.
show() { "$@" -show -O2 x 2>&1 || true; }
out=$(show "$p/bin/ckpt-cc")
case $out in "clang-19 '-fpass-plugin=$p/lib/libccc.so'"*) ;; *) fail "ckpt-cc (clang-19): $out" ;; esac
out=$(CCC_CC=clang-$major show "$p/bin/ckpt-cc")
case $out in "clang-$major '-fpass-plugin=$p/lib/libccc-$major.so'"*) ;; *) fail "CCC_CC=clang-$major: $out" ;; esac
out=$(CCC_CXX=clang++-$major show "$p/bin/ckpt-c++")
case $out in "clang++-$major '-fpass-plugin=$p/lib/libccc-$major.so'"*) ;; *) fail "CCC_CXX=clang++-$major: $out" ;; esac
if command -v flang-$major >/dev/null; then
  out=$(CCC_FC=flang-$major show "$p/bin/ckpt-fc")
  case $out in
    "flang-$major '-fpass-plugin=$p/lib/libccc-$major.so' '-I$p/include' '-I$p/include/ccc/fortran-$major'"*) ;;
    *) fail "CCC_FC=flang-$major: $out" ;;
  esac
fi

# Built and run through the wrappers with MAJOR's compilers: forced
# checkpoints, then a restart from the last one.
CCC_CC=clang-$major "$p/bin/ckpt-cc" --mpi=none -O2 -o "$work/forced" \
  "$src/test/rt/bad_input/forced_checkpoints.c"
CCC_DIR="$work/ckpt" "$work/forced" >"$work/out1"
CCC_DIR="$work/ckpt" CCC_RESTART=require "$work/forced" >"$work/out2" 2>"$work/err"
grep -q 'restarting from' "$work/err" || fail "clang-$major program: no restart: $(cat "$work/err")"
cmp -s "$work/out1" "$work/out2" || fail "clang-$major program: restarted output differs"
"$p/bin/ckpt" verify "$work/ckpt/forced.v000004.r0.ccc" | grep -q ': ok' ||
  fail "ckpt verify of the clang-$major program's image"
if command -v flang-$major >/dev/null; then
  cat >"$work/f.f90" <<'F'
program f
  use ccc
  implicit none
  real(8), allocatable :: a(:)
  integer :: i, step
  allocate (a(50000))
  a = 1
  do step = 1, 30
    a = a * 0.999d0 + step
    if (mod(step, 10) == 0) call ccc_checkpoint_force()
  end do
  if (ccc_is_restarted() /= 0) write (*, '(a)') 'restarted'
  write (*, '(f0.6)') sum(a)
end program
F
  (cd "$work" && CCC_FC=flang-$major "$p/bin/ckpt-fc" --mpi=none -O2 -o f f.f90)
  CCC_DIR="$work/fckpt" "$work/f" >"$work/f1"
  CCC_DIR="$work/fckpt" CCC_RESTART=require "$work/f" >"$work/f2" 2>"$work/ferr"
  grep -q 'restarting from' "$work/ferr" || fail "flang-$major program: no restart: $(cat "$work/ferr")"
  [ "$(tail -n 1 "$work/f1")" = "$(tail -n 1 "$work/f2")" ] ||
    fail "flang-$major program: restarted result differs"
fi

# No plugin for the compiler's major: refused, naming what is installed.
rm "$p/lib/libccc-$major.so"
CCC_CC=clang-$major "$p/bin/ckpt-cc" -c x.c 2>"$work/err" && fail "ckpt-cc without libccc-$major.so succeeded"
grep -q "^ccc: ckpt-cc: clang-$major is LLVM $major (version [0-9.]*), and ccc has no plugin for it .*plugins for LLVM: 19)\$" "$work/err" ||
  fail "missing plugin message: $(cat "$work/err")"
echo "wrappers under LLVM $major: ok"
