#!/bin/sh
# Sets up (packages, build, install) and runs every test: lit tests of the
# pass, runtime unit tests, kill/restart trials, bad-input tests, tools.
set -eu
top=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
"$top/scripts/build.sh"
cd "$top/build"
ctest -j2 --output-on-failure "$@"
