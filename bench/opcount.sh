#!/usr/bin/env bash
# bench/opcount.sh -- how many instructions one libgex operation costs.
#
# Usage:  bench/opcount.sh [BUILD_DIR]        (default BUILD_DIR: build)
#
# Counts, with valgrind's callgrind, the instructions rank 0 of a 2-rank job
# executes per call of:
#   gex_RMA_PutNBI        8 bytes to the other rank (same node)
#   gasnet_put_nbi        8 bytes to the other rank (same node; the GASNet-1 form)
#   gex_RMA_GetNBI        8 bytes from the other rank (same node)
#   gex_AM_RequestShort0  to the other rank (same node), empty handler
#   gex_AD_OpNBI_I64      add to the other rank (same node), relaxed
#   gex_AD_OpNBI_I64      the same with GEX_FLAG_RANK_IS_JOBRANK, as UPC++ names its targets
#   gex_NBI_Wait(GEX_EC_ALL, 0) with nothing outstanding
#   gasnet_AMPoll         with nothing arrived
# and, where the build has libgexshmem (BUILD_DIR/bin/shmem-opcount), the
# OpenSHMEM calls shmem_putmem, shmem_putmem_nbi and shmem_getmem of 8
# bytes to the other PE (same node; inline, shmem/shmem_inline.h),
# and prints them next to the targets and the figures measured for the
# reference GASNet-EX.
#
# How: BUILD_DIR/bin/opcount (bench/opcount.c) runs each operation in a loop
# inside its own non-inlined function loop_<op>.  The job is started with
# gexrun; this script is the program gexrun starts for each rank, and it puts
# rank 0 (only) under
#   valgrind --tool=callgrind --toggle-collect='loop_*'
# so just the instructions inside the loops are counted, inclusive of every
# library call they make.  The job runs twice, with 1000 and 11000
# iterations, and instructions/op = (Ir(11000) - Ir(1000)) / 10000, which
# cancels whatever a loop costs once (call, first-call symbol binding...).
# Each figure includes the loop's own counter, compare and branch; the last
# row (an empty loop) shows how much that is.
#
# Then the same operations to a peer reached through the network
# (GEX_SUPERNODE_MAXSIZE=1; provider net, libgex's default, or
# GEX_OPCOUNT_PROVIDER; with GEX_OPCOUNT_TRANSPORT=sock, libgex's own TCP
# transport instead, whose libfabric column is then 0),
# one run per operation collecting inside loop_<op> only, with each loop's
# exclusive instructions split by object: libgex's own code (the program,
# libgex being linked in statically), libfabric, and the rest (libc, ld.so).
# The off-node targets are for libgex's own code.
#
# The script builds nothing.  The targets are meant for a build without the
# misuse checks; make one with
#   cmake -B build-bench -DGEX_CHECKS=OFF -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-bench
# and run  bench/opcount.sh build-bench .  With the default build (checks on)
# the figures include the rank and bounds checks; the script says which kind
# of build it measured.
#
# Needs: valgrind (with callgrind_annotate), awk.  Exit status: 0 when the
# measurement ran (whether or not the targets are met), non-zero when the
# program or valgrind failed.
set -euo pipefail

# ---- internal mode: gexrun starts this script once per rank ------------------
#   opcount.sh --as-rank CALLGRIND_OUT PROGRAM ARGS...
if [[ "${1:-}" == "--as-rank" ]]; then
  out=$2
  shift 2
  if [[ "${GEX_RANK:-}" == "0" ]]; then
    exec valgrind -q --tool=callgrind --callgrind-out-file="$out" \
      --toggle-collect="${OPCOUNT_TOGGLE:-loop_*}" --collect-atstart=no "$@"
  fi
  exec "$@"
fi

case "${1:-}" in
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
esac

build=${1:-build}
self=$(readlink -f "${BASH_SOURCE[0]}")
n1=1000
n2=11000

die() {
  echo "opcount: $*" >&2
  exit 1
}

[[ -d "$build" ]] || die "no build directory '$build' (give the build directory as the argument)"
gexrun="$build/bin/gexrun"
prog="$build/bin/opcount"
[[ -x "$gexrun" ]] || die "$gexrun not found: build first (cmake --build $build)"
[[ -x "$prog" ]] || die "$prog not found: build with -DGEX_BUILD_BENCH=ON"
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
command -v callgrind_annotate >/dev/null || die "callgrind_annotate not found (it comes with valgrind)"

config="$build/include/gex/gex_config.h"
checks=$(sed -n 's/^#define GEX_CHECKS \([0-9]\).*/\1/p' "$config" 2>/dev/null || true)
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
sanitize=$(sed -n 's/^GEX_SANITIZE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
case "$checks" in
  0) checks_text="GEX_CHECKS=OFF" ;;
  1) checks_text="GEX_CHECKS=ON: misuse checks included; the targets are for GEX_CHECKS=OFF" ;;
  *) checks_text="GEX_CHECKS unknown (no $config)" ;;
esac
[[ -z "$sanitize" ]] || echo "opcount: warning: $build is a GEX_SANITIZE=$sanitize build; valgrind may not run it" >&2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/opcount.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Run the job under callgrind for n iterations; leaves $tmp/ann.$n (inclusive
# costs per function).  With a second argument OP, collects inside loop_OP
# only and leaves $tmp/self.OP.$n (exclusive costs per function and object).
# OP may name a variant, LOOP:VARIANT, run with the extra environment
# settings given as the third argument (words NAME=VALUE).
measure() {
  local n=$1 op=${2:-} tag=$1 loop="*" extra=()
  [[ -z "$op" ]] || { tag="$op.$1"; loop=${op%%:*}; }
  [[ -z "${3:-}" ]] || read -r -a extra <<<"$3"
  if ! timeout 600 env "${run_env[@]}" "${extra[@]}" OPCOUNT_TOGGLE="loop_$loop" "$gexrun" -n 2 \
    bash "$self" --as-rank "$tmp/cg.$tag" "$prog" --iters "$n" >"$tmp/log.$tag" 2>&1; then
    cat "$tmp/log.$tag" >&2
    die "the $n-iteration run failed"
  fi
  [[ -s "$tmp/cg.$tag" ]] || { cat "$tmp/log.$tag" >&2; die "callgrind wrote no profile"; }
  if [[ -z "$op" ]]; then
    callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$tmp/cg.$tag" >"$tmp/ann.$n"
  else
    callgrind_annotate --inclusive=no --threshold=100 --auto=no "$tmp/cg.$tag" >"$tmp/self.$tag"
  fi
}

# Exclusive Ir inside loop_OP of the n-iteration run, split by object:
# "LIBGEX PROVIDER OTHER".  libgex is linked into the program statically, so
# the program's own object is libgex (plus the loop itself); libfabric.so
# holds the providers; everything else (libc, the dynamic linker) is OTHER.
split_of() {
  local op=$1 n=$2
  awk -v prog="$(readlink -f "$prog")" '
    /\[.*\]$/ && $1 ~ /^[0-9,]+$/ {
      x = $1; gsub(",", "", x); x += 0
      obj = $NF; gsub(/^\[|\]$/, "", obj)
      if (obj == prog) g += x; else if (obj ~ /libfabric/) p += x; else o += x
    }
    END { printf "%.0f %.0f %.0f\n", g, p, o }' "$tmp/self.$op.$n"
}

# Inclusive Ir of loop_<op> in the profile of the n-iteration run.
ir_of() {
  local op=$1 n=$2 v
  # Lines look like:  "12,345 (67.8%)  opcount.c:loop_putnbi [/path/opcount]".
  # With debug info a function can also have lines for the files its inlined
  # code came from (e.g. gex_inline.h:loop_putnbi); those are parts of it, so
  # the largest figure is the whole function.
  v=$(awk -v fn=":loop_$op" '
        { for (i = 2; i <= NF; i++) {
            f = $i
            if (length(f) >= length(fn) && substr(f, length(f) - length(fn) + 1) == fn) {
              x = $1; gsub(",", "", x); x += 0
              if (!found || x > max) max = x
              found = 1
              break
            } } }
        END { if (found) printf "%.0f\n", max }' "$tmp/ann.$n")
  [[ -n "$v" ]] || die "loop_$op not found in the callgrind profile of the $n-iteration run"
  echo "$v"
}

# judge FIGURE TARGET: sets $verdict, and $target as printed ("-": none).
judge() {
  verdict=""
  target=$2
  [[ "$target" != "-" ]] || return 0
  if awk -v p="$1" -v t="$target" 'BEGIN { exit !(p <= t) }'; then
    verdict="meets target"
  else
    verdict="OVER target"
  fi
  target="<= $target"
}

run_env=(GEX_OPCOUNT=on-node)
measure "$n1"
measure "$n2"

echo "opcount: instructions per operation, rank 0 of a 2-rank job, peer on the same node"
echo "  build: $build (${build_type:-RelWithDebInfo}, $checks_text)"
echo "  method: callgrind inclusive Ir of each loop, (Ir($n2 iters) - Ir($n1 iters)) / $((n2 - n1))"
echo
printf '  %-36s %10s %8s %11s  %s\n' "operation" "instr/op" "target" "GASNet-EX" ""
printf '  %-36s %10s %8s %11s  %s\n' "---------" "--------" "------" "---------" ""
rows=(
  "putnbi|gex_RMA_PutNBI, 8 bytes|10|8"
  "legput|gasnet_put_nbi, 8 bytes|10|-"
  "getnbi|gex_RMA_GetNBI, 8 bytes|10|8"
  "amshort|gex_AM_RequestShort0|150|184"
  "adadd|gex_AD_OpNBI_I64 ADD, relaxed|-|50"
  "adjob|gex_AD_OpNBI_I64 ADD, jobrank (UPC++)|-|50"
  "nbiwait|gex_NBI_Wait(GEX_EC_ALL), idle|-|-"
  "ampoll|gasnet_AMPoll, nothing arrived|-|50"
  "empty|empty loop (included in each row)|-|-"
)
for row in "${rows[@]}"; do
  IFS='|' read -r op label target ref <<<"$row"
  a=$(ir_of "$op" "$n1")
  b=$(ir_of "$op" "$n2")
  per=$(awk -v a="$a" -v b="$b" -v d=$((n2 - n1)) 'BEGIN { printf "%.1f", (b - a) / d }')
  judge "$per" "$target"
  printf '  %-36s %10s %8s %11s  %s\n' "$label" "$per" "$target" "$ref" "$verdict"
done

# ---- OpenSHMEM's inline calls (libgexshmem), peer on the same node ------------
# BUILD_DIR/bin/shmem-opcount (bench/shmem_opcount.c), measured the same way.
sprog="$build/bin/shmem-opcount"
if [[ -x "$sprog" ]]; then
  gprog=$prog
  prog=$sprog
  measure "$n1"
  measure "$n2"
  prog=$gprog
  echo
  echo "opcount: OpenSHMEM (libgexshmem), PE 0 of a 2-PE job, peer on the same node"
  printf '  %-36s %10s %8s\n' "operation" "instr/op" "target"
  printf '  %-36s %10s %8s\n' "---------" "--------" "------"
  for row in "shput|shmem_putmem, 8 bytes|12" "shputnbi|shmem_putmem_nbi, 8 bytes|12" \
             "shget|shmem_getmem, 8 bytes|12"; do
    IFS='|' read -r op label target <<<"$row"
    a=$(ir_of "$op" "$n1")
    b=$(ir_of "$op" "$n2")
    per=$(awk -v a="$a" -v b="$b" -v d=$((n2 - n1)) 'BEGIN { printf "%.1f", (b - a) / d }')
    judge "$per" "$target"
    printf '  %-36s %10s %8s  %s\n' "$label" "$per" "$target" "$verdict"
  done
fi

# ---- the same operations to a peer reached through the network ---------------
# GEX_SUPERNODE_MAXSIZE=1 puts the two ranks in different "nodes", so every
# operation goes through the libfabric transport (net on loopback: the
# default provider, and the one where the counted endpoint is open by
# default, transport/ofi/ofi_counted.c).
if ! grep -q '^GEX_FABRIC_LIB:FILEPATH=/' "$build/CMakeCache.txt" 2>/dev/null ||
   grep -q '^GEX_WITH_OFI:BOOL=OFF' "$build/CMakeCache.txt" 2>/dev/null; then
  echo
  echo "opcount: SKIP off-node rows: $build was built without libfabric"
  exit 0
fi
prov=${GEX_OPCOUNT_PROVIDER:-net}
run_env=(GEX_SUPERNODE_MAXSIZE=1 "GEX_OFI_PROVIDER=$prov")
if [ "${GEX_OPCOUNT_TRANSPORT:-ofi}" = sock ]; then # libgex's own transport (its UDP lane by default)
  prov="sock transport"
  run_env=(GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock)
fi
# op|label|target|extra environment.  Small NBI Puts to a software-RMA
# provider are coalesced (docs/coalescing.md): the first row is that path
# (its flushes, inside the loop, included); the second is the RMA path that
# providers with RMA in the NIC take.
off_rows=(
  "putnbi|gex_RMA_PutNBI, 8 bytes (coalesced)|60|"
  "putnbi:rma|gex_RMA_PutNBI, 8 bytes (RMA, GEX_COALESCE=1)|60|GEX_COALESCE=1"
  "getnbi|gex_RMA_GetNBI, 8 bytes|-|"
  "amshort|gex_AM_RequestShort0 (flood)|-|"
  "amburst|gex_AM_RequestShort0 (bursts of 16)|100|"
  "amburst:single|gex_AM_RequestShort0 (bursts, no batches)|100|GEX_OFI_AM_BATCH=0"
  "nbiwait|gex_NBI_Wait(GEX_EC_ALL), idle|20|"
  "empty|empty loop (included in each row)|-|"
)
for row in "${off_rows[@]}"; do
  IFS='|' read -r op _ _ extra <<<"$row"
  measure "$n1" "$op" "$extra"
  measure "$n2" "$op" "$extra"
done
echo
echo "opcount: the same, peer reached through the network ($prov, GEX_SUPERNODE_MAXSIZE=1)"
echo "  split by object (callgrind exclusive Ir inside each loop): libgex's own code (the"
echo "  program, libgex linked in), libfabric (its providers), and the rest (libc, ld.so)."
echo "  Targets are for libgex's own code; the SFI paper's GASNet prototype needed ~106"
echo "  for AMRequestShort.  Polling inside the loops (flow control, completions) is"
echo "  timing-dependent, so these rows vary a little from run to run.  A flood of AMs"
echo "  outruns the target and then polls, waiting for flow-control credit, at every"
echo "  send; the bursts row sends 16 at a time and waits for the credit outside the"
echo "  counted loop: the send path itself, the figure the target is for.  In a burst"
echo "  the first AM leaves on its own and the others join the peer's batch (one"
echo "  provider message); the no-batches row (GEX_OFI_AM_BATCH=0) sends each on its own."
printf '  %-46s %10s %10s %10s %10s %8s  %s\n' "operation" "total" "libgex" "libfabric" "libc,ld" "target" ""
printf '  %-46s %10s %10s %10s %10s %8s  %s\n' "---------" "-----" "------" "---------" "-------" "------" ""
for row in "${off_rows[@]}"; do
  IFS='|' read -r op label target _ <<<"$row"
  read -r g1 p1 o1 <<<"$(split_of "$op" "$n1")"
  read -r g2 p2 o2 <<<"$(split_of "$op" "$n2")"
  read -r tot gex fab oth <<<"$(awk -v g1="$g1" -v p1="$p1" -v o1="$o1" -v g2="$g2" -v p2="$p2" \
      -v o2="$o2" -v d=$((n2 - n1)) 'BEGIN {
        g = (g2 - g1) / d; p = (p2 - p1) / d; o = (o2 - o1) / d
        printf "%.1f %.1f %.1f %.1f\n", g + p + o, g, p, o }')"
  judge "$gex" "$target"
  printf '  %-46s %10s %10s %10s %10s %8s  %s\n' "$label" "$tot" "$gex" "$fab" "$oth" "$target" "$verdict"
done
