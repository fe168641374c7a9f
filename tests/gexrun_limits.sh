#!/usr/bin/env bash
# tests/gexrun_limits.sh -- gexrun's limits, its all-gather checks and its
# answer to signals while it starts a job.
#
# usage: gexrun_limits.sh <gexrun> <fake_rank> <mode>
#
#   nbound         -n above the limit (65536): one line saying the limit,
#                  status 2, nothing started; -n 0 and -n 1x: usage, status 2
#   nproc          with the soft process limit (ulimit -u) just above the
#                  user's current task count, -n 1000 is refused with one
#                  line naming the limit (status 1, nothing started); with
#                  room to spare a small job runs
#   nofile         a descriptor limit too low for the ranks (hard limit) is
#                  refused with one line; a low soft limit is raised for
#                  gexrun, and the ranks get the user's limit back
#   ag_big         16 ranks announce 60 MiB all-gather contributions: the
#                  job ends at the first header, without waiting for the
#                  payload (it never comes), status 1, one line with the sizes
#   ag_mismatch    contributions of different lengths: rejected at the
#                  header, status 1
#   ag_twice       a second contribution before the round completes: a
#                  protocol error, status 1
#   sigterm_start  rank 0 of a 2000-rank job of sleeping programs sends
#                  SIGTERM to gexrun as soon as it starts: gexrun stops
#                  starting ranks (no rank starts after it reports the signal,
#                  and fewer than 2000 started), ends them, exits 143 within
#                  the bound, and leaves nothing behind
#
# Every run goes through tests/expect.sh (status, output, no survivors, no
# new /dev/shm entries).
set -u
here=$(cd "$(dirname "$0")" && pwd)
gexrun=$1 fake=$2 mode=$3
expect=(bash "$here/expect.sh")
fail=0
problem() { echo "gexrun_limits.sh: FAILED: $*"; fail=1; }
run() { "${expect[@]}" "$@" || fail=1; }

# Tasks (threads) of this user now: what RLIMIT_NPROC counts.
user_tasks() { ps -L -u "$(id -u)" --no-headers 2>/dev/null | wc -l; }

case "$mode" in
  nbound)
    run --status 2 --within 30 --grep '^gexrun: -n 100000: at most 65536 ranks per job$' \
      --nogrep '^fake_rank' -- "$gexrun" -n 100000 "$fake" sleep @TOKEN@
    run --status 2 --within 30 --grep '^gexrun: -n 65537: at most 65536 ranks per job$' \
      -- "$gexrun" -n65537 "$fake" sleep @TOKEN@
    run --status 2 --within 30 --grep '^usage: gexrun' -- "$gexrun" -n 0 "$fake" sleep @TOKEN@
    run --status 2 --within 30 --grep '^usage: gexrun' -- "$gexrun" -n 1x "$fake" sleep @TOKEN@
    ;;
  nproc)
    now=$(user_tasks)
    # 1000 ranks need at least 2000 more tasks; the limit leaves 10.
    (
      ulimit -S -u $((now + 10)) || exit 3
      "${expect[@]}" --status 1 --within 60 \
        --grep '^gexrun: cannot start 1000 rank\(s\) on this host: this user may run [0-9]+ tasks \(ulimit -u\) and already runs [0-9]+; 1000 rank\(s\) need at least 2000 \(2 each\)$' \
        --nogrep '^fake_rank' -- "$gexrun" -n 1000 "$fake" sleep @TOKEN@
    ) || { [ $? = 3 ] && { echo "SKIP: cannot lower the process limit"; exit 77; }; fail=1; }
    now=$(user_tasks)
    (
      ulimit -S -u $((now + 2000)) || exit 3
      "${expect[@]}" --status 0 --within 60 -- "$gexrun" -n 4 true @TOKEN@
    ) || fail=1
    ;;
  nofile)
    (
      ulimit -S -n 40 && ulimit -H -n 100 || exit 3
      "${expect[@]}" --status 1 --within 60 \
        --grep '^gexrun: cannot start 200 rank\(s\) on this host: gexrun needs [0-9]+ file descriptors for them and may open at most 100 \(ulimit -Hn\)$' \
        -- "$gexrun" -n 200 "$fake" sleep @TOKEN@
    ) || fail=1
    out=$(
      ulimit -S -n 40 || exit 3
      "${expect[@]}" --status 0 --within 60 -- "$gexrun" -n 50 bash -c 'ulimit -S -n' @TOKEN@
    ) || fail=1
    echo "$out"
    n40=$(printf '%s\n' "$out" | grep -c '^40$')
    [ "$n40" = 50 ] || problem "$n40 of 50 ranks saw the user's descriptor limit 40"
    ;;
  ag_big)
    run --status 1 --within 60 \
      --grep '^gexrun: all-gather round 0: rank [0-9]+ contributes 62914560 bytes, a result of 1006632960 bytes for 16 ranks, above the limit of 67108864; ending the job$' \
      -- "$gexrun" -n 16 "$fake" ag_big 62914560 @TOKEN@
    ;;
  ag_mismatch)
    run --status 1 --within 60 \
      --grep '^gexrun: all-gather round 0: rank [0-9]+ contributed [0-9]+ bytes but rank [0-9]+ contributes [0-9]+; ending the job$' \
      -- "$gexrun" -n 4 "$fake" ag_mismatch @TOKEN@
    ;;
  ag_twice)
    run --status 1 --within 60 \
      --grep '^gexrun: rank 0: protocol error: a second all-gather contribution before round 0 completed; ending the job$' \
      -- "$gexrun" -n 2 "$fake" ag_twice @TOKEN@
    ;;
  sigterm_start)
    n=2000
    log=$(mktemp "${TMPDIR:-/tmp}/gex_limits.XXXXXX")
    trap 'rm -f "$log"' EXIT
    GEXRUN_VERBOSE=1 "${expect[@]}" --status 143 --within 60 \
      --grep '^gexrun: got SIGTERM; terminating the ranks$' \
      -- "$gexrun" -n $n "$fake" term_parent @TOKEN@ >"$log" 2>&1
    rc=$?
    if grep -q '^gexrun: cannot start' "$log"; then
      grep '^gexrun: cannot start' "$log"
      echo "SKIP: this host cannot take $n sleeping ranks"
      exit 77
    fi
    grep -v '^gexrun: rank [0-9]* \(started\|(pid\)' "$log"
    [ "$rc" = 0 ] || fail=1
    started=$(grep -c '^gexrun: rank [0-9]* started' "$log")
    after=$(sed -n '/^gexrun: got SIGTERM/,$p' "$log" | grep -c '^gexrun: rank [0-9]* started')
    echo "gexrun_limits.sh: $started of $n ranks started, $after after the signal was handled"
    [ "$after" = 0 ] || problem "$after rank(s) started after gexrun handled SIGTERM"
    [ "$started" -lt "$n" ] || problem "gexrun started all $n ranks before it handled SIGTERM"
    ;;
  *)
    echo "gexrun_limits.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
if [ "$fail" = 0 ]; then
  echo "gexrun_limits.sh: ok ($mode)"
  exit 0
fi
exit 1
