#!/usr/bin/env bash
# bench/smoke.sh -- the ctest smoke checks of the benchmarks.  They are not
# timed tests: they run each benchmark briefly and check that it works and
# that its output parses, never how fast it is.
#
# Usage:
#   smoke.sh run KIND MINLINES CMD...
#       Runs CMD.  It must exit 0 and print at least MINLINES result lines;
#       every line of stdout must be a comment ('#...') or a result line of
#       KIND (small, large, am, mpi: the formats of gex-testsmall,
#       gex-testlarge, gex-testam, mpi-rma-bench; op: the line of
#       gex-testbarrier, gex-testratomic, gex-testcoll, gex-teststrided and
#       mpi-coll-bench) whose numbers are positive (a Short AM's size is 0
#       and its MiB/s '-'; so are a barrier's).
#   smoke.sh badargs CMD...
#       CMD is the launcher and the program (e.g. gexrun -n 2 gex-testsmall).
#       Runs it with bad arguments (an unknown flag, non-numeric ITERS and
#       MAXSZ, an unknown section, a bad -minsz, an extra argument, and a
#       MAXSZ above the segment limit, set low with GASNET_MAX_SEGSIZE);
#       each run must exit with status 2 and print a "usage:" line on stderr.
#   smoke.sh badargs_nosize CMD...
#       The same for the programs whose command line is ITERS [SECTIONS]
#       (gex-testbarrier, gex-testratomic).
#   smoke.sh mpi MPIEXEC PROGRAM
#       The same two checks for mpi-rma-bench under MPIEXEC with 2 processes
#       (as root with Open MPI: --allow-run-as-root --oversubscribe).  Exits
#       77 (ctest: skipped) when MPIEXEC cannot start 2 processes here.
#   smoke.sh mpicoll MPIEXEC PROGRAM
#       The same for mpi-coll-bench.
set -uo pipefail

# In a ThreadSanitizer build every process would otherwise sleep 1 s at exit
# (TSan's atexit_sleep_ms); harmless elsewhere.
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}atexit_sleep_ms=0"

num='[0-9]+(\.[0-9]+)?'
head_re='^([A-Z]): +([0-9]+) - +'
declare -A fmt=(
  [small]="${head_re}([0-9]+) byte : +([0-9]+) iters, latency +(${num}) us total, +(${num}) us ave\. \((.+)\)$"
  [large]="${head_re}([0-9]+) byte : +([0-9]+) iters, throughput +(${num}) MiB/s \((.+)\)$"
  [am]="${head_re}(Short|Medium|Long) +([0-9]+) byte : +([0-9]+) iters, +(${num}) us/op, +(${num}|-) MiB/s \((.+)\)$"
  [op]="${head_re}([0-9]+) byte : +([0-9]+) iters, +(${num}) us/op, +(${num}) op/s, +(${num}|-) MiB/s \((.+)\)$"
  [mpi]="${head_re}([0-9]+) byte : +([0-9]+) iters, latency +(${num}) us total, +(${num}) us ave\., +(${num}) MB/s, +(${num}) MiB/s \((.+)\)$"
)

fail() {
  echo "smoke: FAIL: $*" >&2
  exit 1
}

positive() { awk -v x="$1" 'BEGIN { exit !(x + 0 > 0) }'; }
# A rate printed with fixed decimals can round to 0 when the machine is
# loaded (a slow ping-pong of 1-byte AMs): zero is allowed, negative is not,
# and every line must still carry at least one positive figure.
nonnegative() { awk -v x="$1" 'BEGIN { exit !(x ~ /^[0-9.]+$/ && x + 0 >= 0) }'; }

# check_output KIND MINLINES FILE
check_output() {
  local kind=$1 min=$2 file=$3 re=${fmt[$1]} n=0 line
  while IFS= read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    [[ "$line" =~ $re ]] || fail "line does not parse as $kind output: '$line'"
    local m=("${BASH_REMATCH[@]}")
    case $kind in
      small) vals=("${m[3]}" "${m[4]}" "${m[5]}" "${m[7]}") ;;
      large) vals=("${m[3]}" "${m[4]}" "${m[5]}") ;;
      am)
        vals=("${m[5]}" "${m[6]}")
        if [[ "${m[3]}" == Short ]]; then
          [[ "${m[4]}" == 0 && "${m[8]}" == - ]] || fail "Short AM line with a payload: '$line'"
        else
          vals+=("${m[4]}" "${m[8]}")
        fi
        ;;
      op)
        vals=("${m[4]}" "${m[5]}" "${m[7]}")
        if [[ "${m[3]}" == 0 ]]; then
          [[ "${m[9]}" == - ]] || fail "0-byte line with a bandwidth: '$line'"
        else
          vals+=("${m[3]}" "${m[9]}")
        fi
        ;;
      mpi) vals=("${m[3]}" "${m[4]}" "${m[5]}" "${m[7]}" "${m[9]}" "${m[11]}") ;;
    esac
    local any=0
    for v in "${vals[@]}"; do
      nonnegative "$v" || fail "bad value '$v' in: '$line'"
      positive "$v" && any=1
    done
    ((any)) || fail "no positive value in: '$line'"
    n=$((n + 1))
  done <"$file"
  ((n >= min)) || fail "$n result lines, expected at least $min"
  echo "smoke: $n $kind result lines parsed, all values positive"
}

# run_ok KIND MINLINES CMD...
run_ok() {
  local kind=$1 min=$2 out rc
  shift 2
  out=$(mktemp)
  echo "smoke: running $*"
  "$@" >"$out"
  rc=$?
  cat "$out"
  if ((rc != 0)); then
    rm -f "$out"
    fail "exit status $rc"
  fi
  check_output "$kind" "$min" "$out"
  local r=$?
  rm -f "$out"
  return $r
}

# expect_usage CMD...: exit status 2 and a usage line on stderr.
expect_usage() {
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if ((rc != 2)) || ! grep -q "usage: " <<<"$err"; then
    printf '%s\n' "$err" >&2
    fail "'$*' exited with $rc (expected 2 and a usage line)"
  fi
  echo "smoke: exit 2 with usage: $*  [$(grep -v '^usage' <<<"$err" | grep -m1 -E '^[a-z-]+: ')]"
}

badargs() {
  expect_usage "$@" -x 10 64
  expect_usage "$@" 10 abc
  expect_usage "$@" 10 64Q
  expect_usage "$@" abc 64
  expect_usage "$@" 10 64 Z
  expect_usage "$@" -minsz 3 -m 10 64
  expect_usage "$@" 10 64 A extra
  expect_usage env GASNET_MAX_SEGSIZE=1M "$@" 10 2M
}

badargs_nosize() {
  expect_usage "$@" -x 10
  expect_usage "$@" abc
  expect_usage "$@" 0
  expect_usage "$@" 10Q
  expect_usage "$@" 10 Z
  expect_usage "$@" 10 A extra
}

case "${1:-}" in
  run)
    shift
    [[ $# -ge 3 && -n "${fmt[$1]:-}" ]] || fail "usage: smoke.sh run small|large|am|mpi|op MINLINES CMD..."
    run_ok "$@"
    ;;
  badargs)
    shift
    [[ $# -ge 1 ]] || fail "usage: smoke.sh badargs CMD..."
    badargs "$@"
    ;;
  badargs_nosize)
    shift
    [[ $# -ge 1 ]] || fail "usage: smoke.sh badargs_nosize CMD..."
    badargs_nosize "$@"
    ;;
  mpi | mpicoll)
    which=$1
    shift
    [[ $# -eq 2 ]] || fail "usage: smoke.sh $which MPIEXEC PROGRAM"
    mpiexec=$1 prog=$2
    launch=("$mpiexec")
    if "$mpiexec" --version 2>&1 | grep -qE "Open MPI|OpenRTE"; then
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      launch+=(--oversubscribe)
      # Open MPI is not built with the sanitizers: its leaks are not ours.
      export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    fi
    launch+=(-n 2)
    if ! probe=$(timeout 30 "${launch[@]}" true 2>&1); then
      printf '%s\n' "$probe" | head -5
      echo "smoke: SKIP: '${launch[*]} true' does not work here"
      exit 77
    fi
    if [[ $which == mpicoll ]]; then
      # A, B-E: 5 lines; F-I: 8 B .. 1 KiB = 8 sizes each
      run_ok op 37 timeout 60 "${launch[@]}" "$prog" -m 20 1024 || exit 1
    else
      run_ok mpi 6 timeout 60 "${launch[@]}" "$prog" -m 20 1024 ABCDEF || exit 1
    fi
    for bad in "-x 10 64" "10 2G"; do
      # shellcheck disable=SC2086
      expect_usage "${launch[@]}" "$prog" $bad
    done
    ;;
  *)
    sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 2
    ;;
esac
