#!/bin/sh
# Configures, builds and installs ccc into build/install (after installing
# the packages it needs).
set -eu
top=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
cmake -S "$top" -B "$top/build" -G Ninja \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$top/build/install" >/dev/null
cmake --build "$top/build"
cmake --install "$top/build" >/dev/null
