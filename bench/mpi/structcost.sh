#!/bin/sh
# What MPI itself charges for the struct datatype that joins the
# non-blocking protocol's 8-byte header to a large buffer (issue 20): the
# plain structcost.c under each MPI, a ping-pong and an exchange of N
# contiguous bytes, of the same bytes behind the header (struct), and of
# header and bytes copied into one buffer and out of one (copy), in turns
# within each launch. Prints per MPI and size the median over the launches
# of each launch's ratios struct/contiguous and copy/contiguous (the times
# are the last launch's).
#
# usage: bench/mpi/structcost.sh [full|smoke]
#   full   5 launches of 7 repetitions, 16 KiB to 16 MiB (about 40 s per
#          MPI here)
#   smoke  1 launch of 1 short repetition, 64 KiB and 4 MiB (seconds)
# environment: BENCH_MPIS (default "openmpi mpich": those installed).
set -eu
top=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
mode=${1:-full}
case $mode in
  full) launches=5 reps=7 scale=1
    sizes="16384 65536 262144 1048576 2097152 4194304 16777216" ;;
  smoke) launches=1 reps=1 scale=0.02 sizes="65536 4194304" ;;
  *) echo "usage: $0 [full|smoke]" >&2; exit 2 ;;
esac
out=$(mktemp -d)
shm=$(mktemp -d -p /dev/shm ccc-structcost.XXXXXX)
trap 'rm -rf "$out" "$shm"' EXIT
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Open MPI's session directory and segments in our own directories (as
# run.sh).
mkdir -p "$out/ompi"
export OMPI_MCA_orte_tmpdir_base="$out/ompi" OMPI_MCA_btl_vader_backing_directory="$shm"

# The median over the launches of field F of the lines for SIZE in FILE.
median_of() {
  awk -v b="$2" -v f="$1" '$1 == "structcost" && $2 == b { print $f }' "$3" |
    sort -n | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); print NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2 }'
}

ran=0
for mpi in ${BENCH_MPIS:-openmpi mpich}; do
  case $mpi in
    openmpi) run="mpirun.openmpi -np 2" ;;
    mpich) run="mpiexec.mpich -np 2" ;;
    *) echo "$0: unknown MPI $mpi" >&2; exit 2 ;;
  esac
  command -v "mpicc.$mpi" >/dev/null 2>&1 || continue
  "mpicc.$mpi" -O2 "$top/bench/mpi/structcost.c" -o "$out/structcost.$mpi"
  : >"$out/$mpi.txt"
  l=0
  while [ $l -lt $launches ]; do
    $run "$out/structcost.$mpi" -r "$reps" -s "$scale" $sizes >>"$out/$mpi.txt"
    l=$((l + 1))
  done
  echo "== $mpi: mpicc.$mpi -O2, $launches launch(es) of $reps repetition(s); struct = {8 B header, N bytes} from MPI_BOTTOM, as ccc's layer sends a large buffer"
  # Per size: the last launch's latencies, and the median of the launches'
  # ratios (sorted; the middle one, or the mean of the two middle ones).
  printf "%10s %14s %14s %10s   %14s %14s %10s   %10s %10s\n" size \
    "pp contig us" "pp struct us" "pp ratio" "ex contig us" "ex struct us" \
    "ex ratio" "pp copy" "ex copy"
  for size in $sizes; do
    last=$(awk -v b="$size" '$1 == "structcost" && $2 == b' "$out/$mpi.txt" | tail -n 1)
    if [ -z "$last" ]; then
      echo "$0: $mpi: no result for $size bytes" >&2
      exit 1
    fi
    ratio=$(median_of 7 "$size" "$out/$mpi.txt")
    exratio=$(median_of 10 "$size" "$out/$mpi.txt")
    copyratio=$(median_of 12 "$size" "$out/$mpi.txt")
    excopyratio=$(median_of 14 "$size" "$out/$mpi.txt")
    echo "$last" | awk -v r="$ratio" -v x="$exratio" -v c="$copyratio" \
      -v xc="$excopyratio" '{
      b = $2; u = b >= 1048576 ? "MiB" : "KiB"; d = b >= 1048576 ? 1048576 : 1024
      printf "%10s %14.2f %14.2f %10.3f   %14.2f %14.2f %10.3f   %10.3f %10.3f\n",
        (b / d) " " u, $5, $6, r, $8, $9, x, c, xc
    }'
  done
  ran=1
done
if [ $ran -eq 0 ]; then
  echo "$0: no MPI compiler wrapper (mpicc.openmpi, mpicc.mpich) found" >&2
  exit 2
fi
