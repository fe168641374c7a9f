#!/usr/bin/env bash
# tests/fault.sh -- a rank or the launcher dies; the whole job must end.
#
# usage: fault.sh <gexrun> <ranks> <fault_prog> <mode>
#   modes: sigkill_self sigkill_in_handler exit_noexit kill_rank kill_flooded
#          kill_rma kill_nbi kill_alltoall kill_gexrun (see fault_prog.c), and stop_rank:
#          rank 1 of fault_prog's kill_rank is stopped (SIGSTOP) instead, and
#          gexrun --stall 2 --stall-end must name it and end the job
#          (END_BOUND counts from the end of the 2 s)
#
# Checks: the job ends within a bound after the fault (measured from the
# fault when this script causes it, else over the whole run); gexrun's status
# is non-zero; for a rank death, gexrun names the dead rank and its pid and
# how it died, and every other rank prints a line naming the dead rank and
# no line of a rank names another rank (a survivor is never blamed); no
# process of the job survives (bounded poll, death by PDEATHSIG is
# asynchronous); /dev/shm gains no entries.
set -u
gexrun=$1 n=$2 prog=$3 mode=$4
END_BOUND=5      # fair-share seconds from the fault to the end of the job
TOTAL_BOUND=60   # fair-share seconds for the whole run (load_scale.sh)
. "$(dirname "${BASH_SOURCE[0]}")/load_scale.sh"

token="gexfault_$$_${RANDOM}${RANDOM}"
out=$(mktemp "${TMPDIR:-/tmp}/gex_fault.XXXXXX")
trap 'rm -f "$out"' EXIT
fail=0
problem() { echo "fault.sh: FAILED: $*"; fail=1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# exit() without gasnet_exit ends the job like gasnet_exit unless
# GASNET_CATCH_EXIT=0; with it, exit(3) is a failure of the rank.
[ "$mode" = exit_noexit ] && export GASNET_CATCH_EXIT=0
. "$(dirname "${BASH_SOURCE[0]}")/shm_names.sh"
shm_before=$(gex_shm_list)
t_start=$(now_ms)
if [ "$mode" = stop_rank ]; then
  "$gexrun" --stall 2 --stall-end -n "$n" "$prog" kill_rank "$token" >"$out" 2>&1 &
else
  "$gexrun" -n "$n" "$prog" "$mode" "$token" >"$out" 2>&1 &
fi
gpid=$!

# pid of rank r, once printed (bounded wait)
rank_pid() {
  local r=$1 p= alive
  gex_clock_start
  while gex_clock_below 30000; do
    kill -0 "$gpid" 2>/dev/null && alive=1 || alive=0
    p=$(sed -n "s/^RANKPID $r \([0-9][0-9]*\)\$/\1/p" "$out" | head -1)
    [ -n "$p" ] && { echo "$p"; return 0; }
    [ "$alive" = 1 ] || break # read once more after gexrun ended: done
    sleep 0.1
  done
  return 1
}

# wait (bounded) for gexrun to end; sets grc
wait_gexrun() {
  local bound_ms=$1 t0
  t0=$(now_ms)
  while kill -0 "$gpid" 2>/dev/null; do
    gex_scaled "$bound_ms"
    if [ $(($(now_ms) - t0)) -gt "$gex_ms" ]; then
      problem "gexrun still running $((gex_ms / 1000)) s after the fault ($((bound_ms / 1000)) fair-share s)"
      kill -9 "$gpid" 2>/dev/null
      break
    fi
    sleep 0.05
  done
  wait "$gpid"
  grc=$?
}

victim=
t_fault=
case "$mode" in
  sigkill_self|sigkill_in_handler|exit_noexit)
    victim=$((n - 1))
    vpid=$(rank_pid "$victim") || problem "rank $victim never printed its pid"
    # the victim announces its death just before it happens
    t_fault=
    gex_clock_start
    while gex_clock_below 30000; do
      kill -0 "$gpid" 2>/dev/null && alive=1 || alive=0
      if grep -q '^DYING' "$out"; then t_fault=$(now_ms); break; fi
      [ "$alive" = 1 ] || break
      sleep 0.05
    done
    [ -n "$t_fault" ] || { problem "the victim never announced its death"; t_fault=$(now_ms); }
    wait_gexrun $((END_BOUND * 1000))
    ;;
  kill_rank|kill_flooded|kill_rma|kill_nbi|kill_alltoall)
    victim=1
    for r in $(seq 0 $((n - 1))); do rank_pid "$r" >/dev/null || problem "rank $r never printed its pid"; done
    # everyone has started flooding / moving data (bounded wait)
    started=
    [ "$mode" = kill_flooded ] && started=FLOODING
    case "$mode" in kill_rma|kill_nbi|kill_alltoall) started=MOVING ;; esac
    if [ -n "$started" ]; then
      gex_clock_start
      while gex_clock_below 30000; do
        [ "$(grep -c "^$started" "$out")" -ge "$n" ] && break
        sleep 0.1
      done
    fi
    vpid=$(rank_pid "$victim")
    if [ -n "$vpid" ]; then
      t_fault=$(now_ms)
      kill -9 "$vpid"
    fi
    wait_gexrun $((END_BOUND * 1000))
    ;;
  stop_rank)
    victim=1
    for r in $(seq 0 $((n - 1))); do rank_pid "$r" >/dev/null || problem "rank $r never printed its pid"; done
    vpid=$(rank_pid "$victim")
    if [ -n "$vpid" ]; then
      kill -STOP "$vpid"
      t_fault=$(($(now_ms) + 2000)) # --stall 2
    fi
    wait_gexrun $((END_BOUND * 1000 + 2000))
    grep -qE "^gexrun: rank $victim \(pid $vpid\) has been stopped \(state T: a stop signal\) for [0-9]+ s; $((n - 1)) other rank\(s\) of the job may be waiting for it; ending the job$" "$out" ||
      problem "gexrun did not report that rank $victim is stopped"
    ;;
  kill_gexrun)
    for r in $(seq 0 $((n - 1))); do rank_pid "$r" >/dev/null || problem "rank $r never printed its pid"; done
    t_fault=$(now_ms)
    kill -9 "$gpid"
    wait "$gpid"
    grc=$?
    ;;
  *) echo "fault.sh: unknown mode $mode"; exit 2 ;;
esac

# every process of the job must be gone (bounded poll)
survivors=
while :; do
  survivors=$(pgrep -f -- "$token" || true)
  [ -z "$survivors" ] && break
  gex_scaled $((END_BOUND * 1000))
  if [ $(($(now_ms) - t_fault)) -gt "$gex_ms" ]; then break; fi
  sleep 0.05
done
t_end=$(now_ms)

cat "$out"
echo "---- fault.sh: mode $mode, $n ranks, gexrun status $grc, job ended $((t_end - t_fault)) ms after the fault"

if [ -n "$survivors" ]; then
  problem "processes of the job survive $END_BOUND s after the fault: $(ps -o pid=,args= -p "$(echo $survivors | tr ' ' ',')" 2>/dev/null)"
  kill -9 $survivors 2>/dev/null
fi
[ "$grc" != 0 ] || problem "gexrun exited with status 0"
# A rank killed by signal 9 ends the job with 128 + 9, as the reference's spawners do.
case "$mode" in
  sigkill_*|kill_rank|kill_flooded|kill_rma|kill_nbi|kill_alltoall|stop_rank)
    [ "$grc" = 137 ] || problem "gexrun exited with status $grc, expected 137 (a rank killed by signal 9)" ;;
  exit_noexit)
    [ "$grc" = 3 ] || problem "gexrun exited with status $grc, expected 3 (the rank's exit status)" ;;
esac
gex_scaled $((END_BOUND * 1000 + 500))
[ $((t_end - t_fault)) -le "$gex_ms" ] ||
  problem "the job took $((t_end - t_fault)) ms to end after the fault (bound ${END_BOUND} fair-share s: $gex_ms ms at load factor $gex_lx/100)"
gex_scaled $((TOTAL_BOUND * 1000))
[ $((t_end - t_start)) -le "$gex_ms" ] || problem "the whole run took $((t_end - t_start)) ms (bound $gex_ms ms)"
if grep -q '^NOT ENDED' "$out"; then problem "a rank was not ended by the fault"; fi
if grep -qE 'WARNING: ThreadSanitizer|ERROR: (Address|Leak)Sanitizer|runtime error: |Sanitizer:DEADLYSIGNAL' "$out"; then
  problem "a sanitizer reported an error"
fi

if [ -n "$victim" ]; then
  case "$mode" in
    sigkill_*|kill_rank|kill_flooded|kill_rma|kill_nbi|kill_alltoall|stop_rank) how="was killed by signal 9" ;;
    exit_noexit) how="exited with status 3 without calling gasnet_exit" ;;
  esac
  grep -E "^gexrun: rank $victim \(pid ${vpid:-[0-9]+}\) $how" "$out" >/dev/null ||
    problem "no line 'gexrun: rank $victim (pid ${vpid:-?}) $how'"
  # the first death is the one reported, not a survivor's failed operation
  other=$(grep -E "^gexrun: rank [0-9]+ " "$out" | grep -vE "^gexrun: rank $victim " || true)
  [ -z "$other" ] || problem "gexrun blamed another rank: $other"
  for r in $(seq 0 $((n - 1))); do
    [ "$r" = "$victim" ] && continue
    grep -E "^libgex: rank $r: .*\brank $victim\b" "$out" >/dev/null ||
      problem "rank $r printed no line naming the dead rank $victim"
  done
  # a survivor's lines name no rank but the dead one (not another survivor
  # whose end it saw while the job ended)
  blamed=$(grep -E "^libgex: rank [0-9]+: " "$out" | while IFS= read -r line; do
    others=$(printf '%s\n' "${line#libgex: rank * }" | grep -oE "\brank [0-9]+" | grep -vx "rank $victim")
    [ -z "$others" ] || printf '%s; ' "$line"
  done)
  [ -z "$blamed" ] || problem "a rank's line names another rank than the dead rank $victim: $blamed"
fi

shm_new=$(gex_shm_new "$shm_before")
[ -z "$shm_new" ] || problem "new entries in /dev/shm: $shm_new"

if [ "$fail" = 0 ]; then
  echo "fault.sh: ok ($mode, $n ranks)"
  exit 0
fi
exit 1
