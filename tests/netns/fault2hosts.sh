#!/usr/bin/env bash
# tests/netns/fault2hosts.sh -- faults in a job on two "hosts" (network
# namespaces, GEX_RSH="ip netns exec", or $GEX_NETNS_RSH if set): the whole
# job must end.
#
# usage: fault2hosts.sh <gexrun> <ranks-per-host> <fault_prog> <mode>
#   kill_rank   kill -9 the last rank (on the second host) while every rank
#               waits in fault_prog's kill_rank mode
#   kill_proxy  kill -9 the proxy of the second host (gexrun --proxy, the
#               parent of the ranks there)
#   sigterm     SIGTERM to gexrun while the ranks wait (fault_prog
#               kill_gexrun mode): every rank ends, gexrun exits 143
#   kill_gexrun kill -9 gexrun itself: the proxies and all ranks must go
#
# Checks: gexrun ends within END_BOUND s of the fault with the expected
# status (137 for a rank killed by SIGKILL, 143 for sigterm, ...); its
# message names the rank or the host;
# no process of the job is left (neither in the namespaces nor anywhere with
# the job's token); the namespaces are removed afterwards.
set -u
here=$(cd "$(dirname "$0")" && pwd)
gexrun=$1 k=$2 prog=$3 mode=$4
n=$((2 * k))
END_BOUND=10 # fair-share seconds (load_scale.sh)
. "$here/../load_scale.sh"

ns1="gexns$$x${RANDOM}a"
ns2="${ns1%a}b"
"$here/netns.sh" up "$ns1" "$ns2"
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "fault2hosts.sh: FAILED: cannot set up the namespaces (status $rc)"; exit 1; }
token="gexfault2_$$_${RANDOM}${RANDOM}"
out=$(mktemp "${TMPDIR:-/tmp}/gex_fault2.XXXXXX")
gpid=
cleanup() {
  [ -n "$gpid" ] && kill -9 "$gpid" 2>/dev/null
  local left
  left=$(pgrep -f -- "$token"; ip netns pids "$ns1" 2>/dev/null; ip netns pids "$ns2" 2>/dev/null)
  [ -n "$left" ] && kill -9 $left 2>/dev/null
  "$here/netns.sh" down "$ns1" "$ns2"
  rm -f "$out"
}
trap cleanup EXIT
fail=0
problem() { echo "fault2hosts.sh: FAILED: $*"; fail=1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

case "$mode" in
  kill_rank) pmode=kill_rank ;;
  kill_proxy) pmode=kill_rank ;;
  sigterm|kill_gexrun) pmode=kill_gexrun ;;
  *) echo "fault2hosts.sh: unknown mode $mode" >&2; exit 2 ;;
esac

GEX_RSH=${GEX_NETNS_RSH:-ip netns exec} "$gexrun" -n "$n" --hosts "$ns1:$k,$ns2:$k" "$prog" "$pmode" "$token" \
  >"$out" 2>&1 &
gpid=$!

# Wait (bounded) until every rank printed its pid.
gex_clock_start
while gex_clock_below 30000; do
  [ "$(grep -c '^RANKPID ' "$out")" -ge "$n" ] && break
  kill -0 "$gpid" 2>/dev/null || break
  sleep 0.1
done
[ "$(grep -c '^RANKPID ' "$out")" -ge "$n" ] || problem "not every rank printed its pid"
victim=$((n - 1))
vpid=$(sed -n "s/^RANKPID $victim \([0-9][0-9]*\)\$/\1/p" "$out" | head -1)
proxy=
[ -n "$vpid" ] && proxy=$(ps -o ppid= -p "$vpid" | tr -d ' ')

t_fault=$(now_ms)
case "$mode" in
  kill_rank) [ -n "$vpid" ] && kill -9 "$vpid" ;;
  kill_proxy)
    if [ -n "$proxy" ] && grep -q -- '--proxy' "/proc/$proxy/cmdline" 2>/dev/null; then
      kill -9 "$proxy"
    else
      problem "cannot find the proxy of rank $victim (parent pid '${proxy:-?}')"
    fi
    ;;
  sigterm) kill -TERM "$gpid" ;;
  kill_gexrun) kill -9 "$gpid" ;;
esac

# gexrun must end within the bound.
while kill -0 "$gpid" 2>/dev/null; do
  gex_scaled $((END_BOUND * 1000))
  if [ $(($(now_ms) - t_fault)) -gt "$gex_ms" ]; then
    problem "gexrun still running $((gex_ms / 1000)) s after the fault"
    kill -9 "$gpid"
    break
  fi
  sleep 0.05
done
wait "$gpid"
grc=$?
gpid=
t_end=$(now_ms)

# Every process of the job must be gone (bounded poll).
left=
while :; do
  left=$(pgrep -f -- "$token"; ip netns pids "$ns1" 2>/dev/null; ip netns pids "$ns2" 2>/dev/null)
  [ -z "$left" ] && break
  gex_scaled $((END_BOUND * 1000))
  [ $(($(now_ms) - t_fault)) -gt "$gex_ms" ] && break
  sleep 0.05
done

cat "$out"
echo "---- fault2hosts.sh: mode $mode, $n ranks on $ns1 and $ns2, gexrun status $grc, ended $((t_end - t_fault)) ms after the fault"
[ -z "$left" ] || problem "processes of the job are left: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ',')" 2>/dev/null)"
if grep -q '^NOT ENDED' "$out"; then problem "a rank was not ended by the fault"; fi
case "$mode" in
  kill_rank) # 128 + SIGKILL, as the reference's spawners give a rank's death by a signal
    [ "$grc" = 137 ] || problem "gexrun exited with status $grc, expected 137"
    grep -E "^gexrun: rank $victim \(pid $vpid on host $ns2\) was killed by signal 9" "$out" >/dev/null ||
      problem "no line 'gexrun: rank $victim (pid $vpid on host $ns2) was killed by signal 9'"
    ;;
  kill_proxy)
    [ "$grc" = 1 ] || problem "gexrun exited with status $grc, expected 1"
    grep -E "^gexrun: lost host $ns2 with ranks? [0-9,-]*$victim" "$out" >/dev/null ||
      problem "no line 'gexrun: lost host $ns2 with ranks ...$victim...'"
    ;;
  sigterm)
    [ "$grc" = 143 ] || problem "gexrun exited with status $grc, expected 143"
    if grep -E '^gexrun: (rank [0-9]+ \(|lost host)' "$out" >/dev/null; then
      problem "an exit caused by the signal was reported as a death"
    fi
    ;;
  kill_gexrun)
    [ "$grc" = 137 ] || problem "gexrun exited with status $grc, expected 137 (killed)"
    ;;
esac

if [ "$fail" = 0 ]; then
  echo "fault2hosts.sh: ok ($mode)"
  exit 0
fi
exit 1
