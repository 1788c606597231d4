#!/bin/sh
# The sanitizer tier (docs/sanitizers.md): configures a build of ccc with
# -DCCC_SANITIZE=address,undefined in BUILD/sanitize (the runtime, the MPI
# layer, ckpt and the runtime unit tests instrumented; the pass plugin taken
# from the main build, as it is not sanitized), builds only what the chosen
# tests need and runs them there: the runtime unit tests, serial
# kill/restart trials of C and C++ programs (two with files open across
# checkpoints: the runtime's malloc then serves glibc), the bad-input tests
# of the runtime, `ckpt` (images, and message logs: tools.verify_log) and
# `ckpt run`, and one Open MPI kill/restart
# test. Any sanitizer report fails it, also an ASan one a test would have
# taken for an expected failure (reports go to log files, checked at the
# end).
# Exit 77 (skipped) where the compiler cannot build and link sanitized
# code with any sanitizer runtime.
#
# sanitize_tier.sh SOURCE BUILD C_COMPILER CXX_COMPILER PASS_PLUGIN
set -eu
src=$1 bin=$2 cc=$3 cxx=$4 plugin=$5
dir=$bin/sanitize
logs=$dir/sanitizer-logs
sanitizers=address,undefined
mkdir -p "$dir"

# Can this compiler's sanitized code be linked, with its own runtime or
# with GCC's (what CCC_SANITIZE does)? Debian's clang-19 has none of its
# own.
probe=$dir/probe
printf 'int main(void) { return 0; }\n' >"$probe.c"
if ! "$cc" -fsanitize=$sanitizers -c "$probe.c" -o "$probe.o" 2>/dev/null; then
  echo "sanitize.tier: skipped: $cc cannot compile -fsanitize=$sanitizers"
  exit 77
fi
gcc_libs=""
if command -v gcc >/dev/null 2>&1; then
  gcc_libs="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
fi
# shellcheck disable=SC2086 # gcc_libs: two paths without spaces
if ! "$cc" -fsanitize=$sanitizers "$probe.o" -o "$probe" 2>/dev/null &&
   ! "$cc" "$probe.o" -o "$probe" $gcc_libs 2>/dev/null; then
  echo "sanitize.tier: skipped: no sanitizer runtime links with $cc (its" \
       "own, or GCC's libasan/libubsan: Debian libasan8, libubsan1)"
  exit 77
fi
if ! ASAN_OPTIONS=verify_asan_link_order=0 "$probe"; then
  echo "sanitize.tier: skipped: a sanitized program does not run here"
  exit 77
fi

start=$(date +%s)
# Fewer trials than the main build's: every test here also runs there
# unsanitized; this tier looks for the runtime's memory and UB errors.
cmake -S "$src" -B "$dir" -G Ninja \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCC_SANITIZE=$sanitizers \
  -DCCC_PASS_PLUGIN="$plugin" -DCCC_EXTRA_LLVM_MAJORS= \
  -DCCC_KR_TRIALS=4 -DCCC_KR_LANG_TRIALS=3 -DCCC_MPI_TRIALS=1 >/dev/null

serial_targets="chunk_table_test heap_region_test image_codec_test
  heap_graph_interior_pointers heap_graph_interior_pointers.plain
  deep_recursion_site deep_recursion_site.plain
  polymorphic_graph_stl polymorphic_graph_stl.plain
  open_files open_files.plain file_streams file_streams.plain
  forced_checkpoints forced_checkpoints.rebuilt run_particles_stl ckpt"
serial_tests='^(tools\.verify_log|rt\.(heap_region|image_codecs|chunk_table_sizes|bad_input)|killrestart\.(heap_graph_interior_pointers|deep_recursion_site|polymorphic_graph_stl|open_files|file_streams)|run\.bad_input)$'
mpi_targets=""
mpi_tests='^killrestart\.mpi\.openmpi\.halo_isend_irecv\.np2$'
if grep -q '^build test/mpi/mpi_openmpi_halo_isend_irecv:' "$dir/build.ninja"; then
  mpi_targets="mpi_openmpi_halo_isend_irecv mpi_openmpi_halo_isend_irecv.plain"
else
  echo "sanitize.tier: no Open MPI layer: no MPI test"
fi
# shellcheck disable=SC2086 # target lists
cmake --build "$dir" -j2 --target $serial_targets $mpi_targets >"$dir/build.log" 2>&1 ||
  { tail -50 "$dir/build.log"; exit 1; }
built=$(date +%s)
echo "sanitize.tier: built in $((built - start)) s"

# halt_on_error: the first report ends the process. verify_asan_link_order=0:
# libasan follows the runtime among the libraries (rt/CMakeLists.txt) and
# rt.bad_input preloads libz. Reports go to LOGS, checked below.
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="halt_on_error=1:verify_asan_link_order=0:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
status=0
(cd "$dir" && ctest -j2 --output-on-failure -R "$serial_tests") || status=1
if [ -n "$mpi_targets" ]; then
  # Open MPI leaks at MPI_Finalize, from components it has already
  # unloaded (LeakSanitizer names no frame to suppress): no leak check
  # for the MPI job.
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
    sh -c 'cd "$1" && ctest --output-on-failure -R "$2"' sh "$dir" "$mpi_tests" ||
    status=1
fi
for f in "$logs"/*; do
  [ -e "$f" ] || continue
  echo "sanitize.tier: sanitizer report $f:"
  cat "$f"
  status=1
done
# GCC's libubsan beside libasan ignores log_path: its reports are found in
# the tests' output instead (where a test shows its programs' stderr).
if grep -l "runtime error: " "$dir"/Testing/Temporary/LastTest*.log \
     2>/dev/null; then
  echo "sanitize.tier: UBSan reports in the test logs above"
  status=1
fi
echo "sanitize.tier: tests ran in $(($(date +%s) - built)) s"
exit $status
