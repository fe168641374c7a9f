#!/usr/bin/env bash
# bench/gpu_run.sh -- the run on a machine with an NVIDIA GPU that device
# memory kinds need (docs/memory-kinds.md, "The GPU run").
#
# Usage: bench/gpu_run.sh [OUTDIR]     (default: $OUT, else ./gpu-run)
#
# Builds libgex from this tree (Release, tests and benchmarks; libfabric,
# PMIx and MPI are not needed: one host), then
#   1. says what the machine has (nvidia-smi -L, the CUDA driver's file);
#   2. runs the memory-kind tests (ctest label "mk": t_mk*, t_mk_rma on the
#      test device, t_mk_rma_gpu on the GPU, the mkbench smoke test);
#   3. runs t_mk_rma on the GPU at 1 (loopback), 2, 4 and 7 ranks, then
#      on the staged path between neighbours (GEX_MK_IPC=0, 2 ranks), over
#      the sock transport on loopback (GEX_SUPERNODE_MAXSIZE=1, 2 ranks:
#      the staged path over the network) and in two neighbourhoods of two
#      (GEX_SUPERNODE_MAXSIZE=2, 4 ranks: both paths);
#   4. runs mkbench on the GPU (2 ranks): the CUDA floors beside libgex's
#      Put and Get into and out of a neighbour's device segment;
# and writes OUTDIR/summary.txt (one line per step, PASS / FAIL / SKIP),
# machine.txt, build.log, ctest.log, rma.log and mkbench.txt.  Exit status
# 0 when every step passed or was skipped for want of a GPU, 1 otherwise.
# Where there is no GPU the GPU steps SKIP, visibly; it is meant to be
# tried there first.  GPU_RUN_BUILD names the build directory (default
# /tmp/libgex-gpu-build); GPU_RUN_JOBS the build's parallelism (default:
# the processors); GPU_RUN_CMAKE_ARGS more arguments for CMake.  A build
# that fails only because a newer compiler warns is built again with
# -DGEX_WERROR=OFF, and the summary says so.
set -uo pipefail
out=${1:-${OUT:-gpu-run}}
mkdir -p "$out"
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
b=${GPU_RUN_BUILD:-/tmp/libgex-gpu-build}
jobs=${GPU_RUN_JOBS:-$(nproc)}
summary="$out/summary.txt"
: >"$summary"
status=0
say() { echo "$*" | tee -a "$summary"; }

# ---- 1. the machine -----------------------------------------------------------------
{
  date -u
  uname -m
  echo "processors: $(nproc)"
  nvidia-smi -L 2>&1 || echo "nvidia-smi: not available"
  ldconfig -p 2>/dev/null | grep -m1 'libcuda\.so\.1' || echo "libcuda.so.1: not found by ldconfig"
  git -C "$src" log -1 --format='commit %H' 2>/dev/null || echo "commit: unknown (not a git tree)"
} >"$out/machine.txt" 2>&1
gpu=0
nvidia-smi -L >/dev/null 2>&1 && gpu=1
say "machine: $(grep -m1 '^GPU' "$out/machine.txt" || echo 'no GPU')"

# ---- build ----------------------------------------------------------------------------
build() { # $1: ON or OFF (-Werror)
  # shellcheck disable=SC2086 # GPU_RUN_CMAKE_ARGS is a list of words
  cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Release -DGEX_BUILD_BENCH=ON -DGEX_WERROR="$1" \
        ${GPU_RUN_CMAKE_ARGS:-} >>"$out/build.log" 2>&1 &&
    cmake --build "$b" -j"$jobs" >>"$out/build.log" 2>&1
}
: >"$out/build.log"
if build ON; then
  say "build: PASS"
elif echo "---- again with -DGEX_WERROR=OFF" >>"$out/build.log" && build OFF; then
  say "build: PASS only with -DGEX_WERROR=OFF: this compiler warns ($(grep -c 'warning:' "$out/build.log") warnings in build.log)"
  status=1
else
  say "build: FAIL (build.log)"
  exit 1
fi

# ---- 2. the memory-kind tests ---------------------------------------------------------
if ctest --test-dir "$b" -L mk --output-on-failure >"$out/ctest.log" 2>&1; then
  say "ctest -L mk: PASS ($(grep -c 'Test *#' "$out/ctest.log") tests; $(grep -c '\*\*\*Skipped' "$out/ctest.log") skipped)"
else
  say "ctest -L mk: FAIL (ctest.log)"
  status=1
fi

# ---- 3. t_mk_rma on the GPU -------------------------------------------------------------
: >"$out/rma.log"
rma() { # rma WHAT N [VAR=VALUE ...]: t_mk_rma on the GPU at N ranks
  local what=$1 n=$2
  shift 2
  echo "---- $what, $n ranks: $*" >>"$out/rma.log"
  env "$@" "$b/bin/gexrun" -n "$n" "$b/tests/t_mk_rma" >>"$out/rma.log" 2>&1
  local rc=$?
  if [ "$rc" = 0 ]; then
    say "t_mk_rma on the GPU, $what, $n ranks: PASS"
  elif [ "$rc" = 77 ] && [ "$gpu" = 0 ]; then
    say "t_mk_rma on the GPU, $what, $n ranks: SKIP (no GPU)"
  else
    say "t_mk_rma on the GPU, $what, $n ranks: FAIL (status $rc, rma.log)"
    status=1
  fi
}
for n in 1 2 4 7; do rma "one node" "$n"; done
rma "staged between neighbours" 2 GEX_MK_IPC=0 GEX_TEST_STAGED=+ GEX_TEST_ASYNC=0
rma "staged over sock" 2 GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock GEX_TEST_STAGED=+ GEX_TEST_ASYNC=0
rma "two neighbourhoods over sock" 4 GEX_SUPERNODE_MAXSIZE=2 GEX_NET_TRANSPORT=sock

# ---- 4. mkbench -------------------------------------------------------------------------
if "$b/bin/gexrun" -n 2 "$b/bin/mkbench" >"$out/mkbench.txt" 2>&1; then
  if grep -q 'not measured' "$out/mkbench.txt" && [ "$gpu" = 1 ]; then
    say "mkbench: ran, but some rows were not measured (mkbench.txt)"
    status=1
  else
    say "mkbench: ran (mkbench.txt)"
  fi
else
  say "mkbench: FAIL (mkbench.txt)"
  status=1
fi
[ "$gpu" = 1 ] || say "no GPU here: the GPU steps above skipped or measured nothing"
exit $status
