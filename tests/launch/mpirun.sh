#!/usr/bin/env bash
# tests/launch/mpirun.sh -- libgex jobs started by Open MPI's mpirun, which
# reaches the ranks through PMIx (the 'pmix' bootstrap, src/bootstrap/pmix.c).
#
# usage: mpirun.sh pass   <np> <prog> [args...]   exit 0 and a PASS line
#        mpirun.sh status <code> <np> <prog> [args...]
#                                                 exit status exactly <code>
#        mpirun.sh kill   <np> <fault_prog>       kill -9 rank 1 of a running
#                                                 job: mpirun must end within
#                                                 10 s with status 137 (128 + 9)
#        mpirun.sh killlauncher <np> <fault_prog> kill -9 mpirun itself while
#                                                 every rank waits: every rank
#                                                 must end within 10 s, each
#                                                 saying the launcher is gone
#        mpirun.sh timeout <np> <prog>            <np> ranks of <prog> and one
#                                                 process that never joins: the
#                                                 bootstrap fence times out
#                                                 (GEX_BOOTSTRAP_TIMEOUT=3) with
#                                                 one line per rank, status != 0
#
# All but 'kill' run through tests/expect.sh (status, output, no process of
# the job survives it, /dev/shm unchanged).  Every mode prints "SKIP: ..."
# and exits 77 when mpirun is not installed.  MPIRUN may name another mpirun.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
expect=$here/../expect.sh
mpirun=${MPIRUN:-mpirun}
if ! command -v "$mpirun" >/dev/null 2>&1; then
  echo "SKIP: $mpirun not found (Debian: apt-get install openmpi-bin)"
  exit 77
fi
# Open MPI refuses to run as root without this; oversubscribe lets 7 ranks
# share 2 cores; no binding, as libgex ranks wait by polling.
launch=("$mpirun" --allow-run-as-root --oversubscribe --bind-to none)
mode=${1:-}
shift || true

# A private directory for Open MPI's session directory: two mpiruns that
# start at once (ctest -j) race to create the shared default /tmp/ompi.<host>.<uid>
# and one of them fails.  Whatever the job leaves in it is a leftover.
session=$(mktemp -d "${TMPDIR:-/tmp}/gex_ompi.XXXXXX")
export OMPI_MCA_orte_tmpdir_base=$session
check_session() { # $1: status so far; prints a problem and returns 1 on leftovers
  local left
  left=$(find "$session" -mindepth 1 -maxdepth 3 2>/dev/null | head -5)
  rm -rf "$session"
  if [ -n "$left" ]; then
    echo "mpirun.sh: FAILED: the job left files in its session directory: $left"
    return 1
  fi
  return "$1"
}

case "$mode" in
  pass)
    np=$1; shift
    export GEX_TEST_EXPECT_RANKS=$np
    bash "$expect" --pass --within 60 --nogrep '^libgex: .*PMIx' \
      -- "${launch[@]}" -np "$np" "$@" @TOKEN@
    check_session $?
    exit
    ;;
  status)
    code=$1 np=$2; shift 2
    bash "$expect" --status "$code" --within 60 --grep '^EXITING rank' \
      -- "${launch[@]}" -np "$np" "$@" @TOKEN@
    check_session $?
    exit
    ;;
  timeout)
    np=$1 prog=$2
    export GEX_BOOTSTRAP_TIMEOUT=3
    bash "$expect" --nonzero --within 30 \
      --grep '^libgex: rank [0-9]+: bootstrap \(PMIx fence\) timed out after 3 s' \
      -- "${launch[@]}" -x GEX_BOOTSTRAP_TIMEOUT -np "$np" "$prog" @TOKEN@ \
      : -np 1 bash -c 'sleep 30' @TOKEN@
    check_session $?
    exit
    ;;
  kill | killlauncher) ;;
  *) echo "usage: mpirun.sh pass|status|kill|killlauncher|timeout ..." >&2; rm -rf "$session"; exit 2 ;;
esac

# ---- kill: a rank dies by SIGKILL; mpirun must end the job ---------------------------
np=$1 prog=$2
END_BOUND=10 # fair-share seconds (load_scale.sh)
. "$here/../load_scale.sh"
token="gexmpirun_$$_${RANDOM}${RANDOM}"
out=$(mktemp "${TMPDIR:-/tmp}/gex_mpirun.XXXXXX")
trap 'rm -f "$out"' EXIT
fail=0
problem() { echo "mpirun.sh: FAILED: $*"; fail=1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ---- killlauncher: mpirun dies by SIGKILL; every rank must end by itself --------------
if [ "$mode" = killlauncher ]; then
  # The ranks' standard error goes to a file of their own: mpirun forwards
  # what they print, and it is gone when they report its end.
  errf=$(mktemp "${TMPDIR:-/tmp}/gex_mpirun_err.XXXXXX")
  trap 'rm -f "$out" "$errf"' EXIT
  GEX_TEST_ERRF=$errf "${launch[@]}" -x GEX_TEST_ERRF -np "$np" \
    bash -c 'exec "$0" "$@" 2>>"$GEX_TEST_ERRF"' "$prog" kill_gexrun "$token" >"$out" 2>&1 &
  mpid=$!
  pids=
  gex_clock_start
  while gex_clock_below 30000; do
    pids=$(sed -n 's/^RANKPID [0-9]* \([0-9][0-9]*\)$/\1/p' "$out" | sort -u | tr '\n' ' ')
    [ "$(echo $pids | wc -w)" = "$np" ] && break
    kill -0 "$mpid" 2>/dev/null || break
    sleep 0.1
  done
  if [ "$(echo $pids | wc -w)" != "$np" ]; then
    problem "not every rank printed its pid (got: $pids)"
    kill -9 "$mpid" $pids 2>/dev/null
  else
    sleep 0.5 # every rank is in its wait
    t_kill=$(now_ms)
    kill -9 "$mpid"
    while :; do
      alive=
      for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
      [ -z "$alive" ] && break
      gex_scaled $((END_BOUND * 1000))
      if [ $(($(now_ms) - t_kill)) -gt "$gex_ms" ]; then
        problem "ranks$alive still running $((gex_ms / 1000)) s after mpirun was killed"
        kill -9 $alive 2>/dev/null
        break
      fi
      sleep 0.05
    done
    echo "---- mpirun.sh: every rank ended $(($(now_ms) - t_kill)) ms after mpirun was killed"
  fi
  wait "$mpid" 2>/dev/null
  cat "$out" "$errf"
  said=$(grep -c '^libgex: rank [0-9]*: the launcher (process [0-9]*, the PMIx server) is gone; ending$' "$errf")
  [ "$said" = "$np" ] || problem "$said of $np ranks said that the launcher is gone"
  grep -q '^NOT ENDED' "$out" && problem "a rank was not ended by the fault"
  # mpirun's own session directory stays behind (it was killed); it is
  # Open MPI's, not the job's, so it is removed without counting it.
  rm -rf "$session"
  if [ "$fail" = 0 ]; then
    echo "mpirun.sh: ok"
    exit 0
  fi
  exit 1
fi

"${launch[@]}" -np "$np" "$prog" kill_rank "$token" >"$out" 2>&1 &
mpid=$!
victim=
gex_clock_start
while gex_clock_below 30000; do
  victim=$(sed -n 's/^RANKPID 1 \([0-9][0-9]*\)$/\1/p' "$out" | head -1)
  [ -n "$victim" ] && break
  kill -0 "$mpid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$victim" ]; then
  problem "rank 1 never printed its pid"
  kill -9 "$mpid" 2>/dev/null
else
  t_kill=$(now_ms)
  kill -9 "$victim"
  while kill -0 "$mpid" 2>/dev/null; do
    gex_scaled $((END_BOUND * 1000))
    if [ $(($(now_ms) - t_kill)) -gt "$gex_ms" ]; then
      problem "mpirun still running $((gex_ms / 1000)) s after rank 1 was killed"
      kill -9 "$mpid" 2>/dev/null
      break
    fi
    sleep 0.05
  done
fi
wait "$mpid"
rc=$?
cat "$out"
echo "---- mpirun.sh: mpirun exit status $rc, $(($(now_ms) - ${t_kill:-$(now_ms)})) ms after the kill"
[ "$rc" = 137 ] || problem "mpirun exited with status $rc after rank 1 was killed by signal 9, expected 137"
grep -q '^NOT ENDED' "$out" && problem "a rank was not ended by the fault"
survivors=
for _ in $(seq 1 100); do
  survivors=$(pgrep -f -- "$token" || true)
  [ -z "$survivors" ] && break
  sleep 0.1
done
if [ -n "$survivors" ]; then
  problem "processes of the job survive it: $survivors"
  kill -9 $survivors 2>/dev/null
fi
check_session 0 || fail=1
if [ "$fail" = 0 ]; then
  echo "mpirun.sh: ok"
  exit 0
fi
exit 1
