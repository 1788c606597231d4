#!/bin/sh
# The Debian package of the install tree (cpack -G DEB) installs and works:
# its Depends name what the tools run and load (dpkg refuses it in a root
# where they are missing); installed by dpkg into a fresh root (admin
# directory seeded with this machine's package list, so the dependencies
# are checked against what is really installed), ckpt-cc from that root
# builds a program, a kill/restart trial of it passes, ckpt and pkg-config
# there work, and dpkg removes every file again.
# usage: deb_package_test.sh BUILD_DIR SOURCE_DIR PYTHON
set -eu
build=$1
src=$2
python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cpack -G DEB -B "$work/pkg" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1 ||
  fail "cpack: $(cat "$work/cpack.log")"
deb=$(ls "$work"/pkg/ccc_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for d in clang-19 libzstd-dev libc6 libstdc++6 libzstd1; do
  echo "$depends" | grep -q "\(^\|, \)$d\( (\|,\|\$\)" || fail "Depends lacks $d: $depends"
done

# dpkg into ROOT with admin directory ADMIN whose package list is STATUS.
dpkg_in() {
  root=$1
  status=$2
  shift 2
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" \
    "$root/var/lib/dpkg/triggers"
  [ -f "$root/var/lib/dpkg/status" ] || cp "$status" "$root/var/lib/dpkg/status"
  # The maintainer scripts are no-ops (package/deb-postinst): run them
  # without a chroot into a root that has no shell.
  dpkg --instdir="$root" --admindir="$root/var/lib/dpkg" \
    --force-script-chrootless --force-not-root "$@"
}

# Nothing installed: the dependencies stop it.
: >"$work/empty-status"
dpkg_in "$work/bare" "$work/empty-status" -i "$deb" >"$work/bare.log" 2>&1 &&
  fail "dpkg installed ccc where clang-19 is missing"
grep -q "depends on clang-19" "$work/bare.log" || fail "unmet Depends: $(cat "$work/bare.log")"

root="$work/root"
dpkg_in "$root" /var/lib/dpkg/status -i "$deb" >"$work/install.log" 2>&1 ||
  fail "dpkg -i: $(grep -v 'files list file' "$work/install.log")"
usr="$root/usr"
for f in bin/ckpt bin/ckpt-cc bin/ckpt-c++ bin/ckpt-fc lib/libccc.so \
  lib/libccc_rt.a include/ccc.h lib/pkgconfig/ccc.pc lib/cmake/ccc/cccConfig.cmake; do
  [ -e "$usr/$f" ] || fail "package lacks /usr/$f"
done
plugin=$(PKG_CONFIG_PATH="$usr/lib/pkgconfig" pkg-config --variable=plugin ccc)
[ "$(realpath "$plugin")" = "$(realpath "$usr/lib/libccc.so")" ] ||
  fail "pkg-config in the installed root does not find its plugin"

# Built with the installed wrapper (C, serial) and killed and restarted:
# the result must match the same build's uninterrupted run.
"$usr/bin/ckpt-cc" --mpi=none -O2 -o "$work/heap" \
  "$src/test/rt/programs/heap_graph_interior_pointers.c" -lm
"$python" "$src/test/harness/killrestart.py" --name deb.heap_graph \
  --trials 2 --interval 0.15 --ref "$work/heap 3000" -- "$work/heap" 3000 ||
  fail "kill/restart of a program built from the package"
CCC_DIR="$work/ckpt" CCC_INTERVAL=0.05 "$work/heap" 3000 >/dev/null
img=$(ls "$work"/ckpt/*.ccc | head -n 1)
"$usr/bin/ckpt" verify "$img" | grep -q ': ok' || fail "installed ckpt verify"

dpkg_in "$root" /var/lib/dpkg/status -r ccc >"$work/remove.log" 2>&1 ||
  fail "dpkg -r: $(grep -v 'files list file' "$work/remove.log")"
[ -z "$(find "$usr" -type f)" ] || fail "dpkg -r left files: $(find "$usr" -type f)"
echo "Debian package: ok"
