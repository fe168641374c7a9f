#!/usr/bin/env bash
# tests/sec_attack.sh -- attack a running 2-rank job from outside (label security).
#
# usage: sec_attack.sh [--netns] [--counted] GEXRUN VICTIM ATTACKER MODE PROVIDER
#
# Starts VICTIM (t_sec_victim) as a 2-rank job whose ranks talk through the
# network provider PROVIDER: on one host with GEX_SUPERNODE_MAXSIZE=1
# (loopback), or with --netns on two "hosts" (network namespaces, see
# netns/netns.sh; rank 0 in the first, rank 1 in the second).  When the job
# says it is ready, ATTACKER (sec_attack) attacks each rank in MODE (rma:
# guessed memory keys; am: forged, truncated, oversized and mutated
# messages) -- with --netns from inside the first namespace, so rank 1 is
# attacked across the virtual wire and rank 0 from its own host; flood: 1 GiB
# of 4 KiB messages, as fast as the provider takes them.  Then the job
# checks that nothing changed, that no rank grew by more than 256 MiB, and
# that it still works.
#
# MODE replay (PROVIDER tcp;ofi_rxm; ATTACKER is sec_replay.py): first a
# job A of VICTIM runs to its end while sec_replay.py captures its TCP
# streams; then, in the attacked job B, every stream that went to a rank of
# job A is written to the same rank of job B over a plain socket.  Both jobs
# run inside namespaces the test creates (without --netns: both ranks in the
# first, so only the test's traffic is captured).
#
# PROVIDER sock: the job runs over libgex's own TCP transport
# (GEX_NET_TRANSPORT=sock GEX_SOCK_UDP=0: its TCP connections, whose
# handshakes are attacked) and ATTACKER is sock_attack.py, whose MODEs are
# hello (random, forged, mutated, truncated and oversized handshakes), hold
# (1100 connections held open), flood (1 GiB over 64 connections) and
# replay (as above, through its own replay); every rank attacked must report
# the refused connections ("network (sock): refused a connection ...").
#
# With --counted the attacker aims at the rank's counted endpoint
# (transport/ofi/ofi_counted.c: it only initiates RMA), opened with
# GEX_OFI_COUNTED_RMA=1, instead of its main one.  On net it posts no
# receive and the provider refuses what is sent there: the job must simply
# be unaffected.  On tcp;ofi_rxm and udp;ofi_rxd it posts drain receives,
# so in modes am and flood every rank must report the dropped messages as
# above.
#
# Passes when every attack failed (ATTACKER exits 0), the job printed PASS
# and exited 0, in modes am and flood every rank reported the dropped
# messages in one line per source ("network: dropped a message ..."; in
# mode replay, at least one rank reported the replayed ones), and nothing
# of the job is left.  Exit 0 pass, 1 fail, 77 skip (with a SKIP line).
set -u
here=$(cd "$(dirname "$0")" && pwd)
netns=0
if [ "${1:-}" = --netns ]; then
  netns=1
  shift
fi
counted=0
if [ "${1:-}" = --counted ]; then
  counted=1
  export GEX_TEST_ATTACK_COUNTED=1 GEX_OFI_COUNTED_RMA=1
  shift
fi
[ $# = 5 ] || { echo "usage: sec_attack.sh [--netns] [--counted] GEXRUN VICTIM ATTACKER MODE PROVIDER" >&2; exit 2; }
gexrun=$1 victim=$2 attacker=$3 mode=$4 prov=$5
# How the job is told to use PROVIDER.
sel=("GEX_OFI_PROVIDER=$prov")
[ "$prov" = sock ] && sel=(GEX_NET_TRANSPORT=sock GEX_SOCK_UDP=0) # (its handshakes are attacked)
isolate=$netns # replay: the capture needs a namespace of the test's own
[ "$mode" = replay ] && isolate=1

dir=$(mktemp -d "${TMPDIR:-/tmp}/gex_attack.XXXXXX")
chmod 755 "$dir" # the shm attacker runs as another user
ns1= ns2= job=
cleanup() {
  [ -n "$job" ] && kill -9 "$job" 2>/dev/null
  [ -n "$ns1" ] && "$here/netns/netns.sh" down "$ns1" "$ns2"
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "--- job output:"
  cat "$dir/out" 2>/dev/null
  echo "sec_attack.sh: FAILED: $*"
  exit 1
}

run_attacker() { # rank
  if [ "$mode" = replay ]; then
    [ "$1" = 0 ] || return 0 # one replay covers every rank
    ip netns exec "$ns1" python3 "$attacker" replay "$dir/capture.json" "$dir/a" "$dir" 2
  elif [ "$prov" = shm ] && [ "$mode" = rma ]; then
    # libfabric's shm provider ignores memory keys: what keeps strangers out
    # is that its region is a mode-0600 file of the job's user (and that
    # cross-memory copies need ptrace rights).  So the stranger here is a
    # process of another user.
    if [ "$(id -u)" != 0 ]; then
      echo "SKIP: the shm attack runs the attacker as another user (needs root)"
      return 77
    fi
    setpriv --reuid=65534 --regid=65534 --clear-groups "$attacker" "$mode" "$prov" \
      "$dir/rank$1.addr" 2
  elif [ "$netns" = 1 ]; then
    ip netns exec "$ns1" "$attacker" "$mode" "$prov" "$dir/rank$1.addr" 2
  else
    "$attacker" "$mode" "$prov" "$dir/rank$1.addr" 2
  fi
}

if [ "$isolate" = 1 ]; then
  ns1="gexat$$x${RANDOM}a"
  ns2="${ns1%a}b"
  "$here/netns/netns.sh" up "$ns1" "$ns2"
  rc=$?
  [ "$rc" = 77 ] && exit 77
  [ "$rc" = 0 ] || { echo "sec_attack.sh: FAILED: cannot set up the namespaces"; exit 1; }
fi

start_job() { # DIR: the victim job, in the background ($job)
  if [ "$netns" = 1 ]; then
    env GEX_RSH="ip netns exec" "${sel[@]}" \
      "$gexrun" -n 2 --hosts "$ns1:1,$ns2:1" "$victim" "$1" >"$1/out" 2>&1 &
  elif [ "$isolate" = 1 ]; then
    ip netns exec "$ns1" env GEX_SUPERNODE_MAXSIZE=1 "${sel[@]}" \
      "$gexrun" -n 2 "$victim" "$1" >"$1/out" 2>&1 &
  else
    env GEX_SUPERNODE_MAXSIZE=1 "${sel[@]}" "$gexrun" -n 2 "$victim" "$1" >"$1/out" 2>&1 &
  fi
  job=$!
}

if [ "$mode" = replay ]; then
  # Job A, captured from start to end (its 'done' is there from the start).
  mkdir -p "$dir/a" && touch "$dir/a/done"
  ip netns exec "$ns1" python3 "$attacker" sniff "$dir/capture.json" "$dir/sniffing" \
    "$dir/stop" >"$dir/sniff.out" 2>&1 &
  sniffer=$!
  for _ in $(seq 1 100); do
    [ -e "$dir/sniffing" ] && break
    kill -0 "$sniffer" 2>/dev/null || break
    sleep 0.1
  done
  [ -e "$dir/sniffing" ] || { cat "$dir/sniff.out"; fail "the capture did not start"; }
  start_job "$dir/a"
  timeout 120 tail --pid="$job" -f /dev/null
  wait "$job"
  status=$?
  job=
  touch "$dir/stop"
  wait "$sniffer"
  cat "$dir/sniff.out"
  [ "$status" = 0 ] || { cat "$dir/a/out"; fail "job A exited with status $status"; }
fi
start_job "$dir"

# The job publishes its addresses, then says it is ready (bounded wait).
for _ in $(seq 1 600); do
  [ -e "$dir/ready" ] && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
[ -e "$dir/ready" ] || fail "the job never became ready"

attack_rc=0
for r in 0 1; do
  out=$(run_attacker "$r" 2>&1)
  rc=$?
  echo "rank $r: $out"
  [ "$rc" = 77 ] && { echo "$out" | grep SKIP; exit 77; }
  [ "$rc" = 0 ] || attack_rc=1
done
touch "$dir/done"

for _ in $(seq 1 600); do
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$job" 2>/dev/null && fail "the job did not end after the attack"
wait "$job"
status=$?
job=
[ "$attack_rc" = 0 ] || fail "an attack succeeded"
[ "$status" = 0 ] || fail "the job exited with status $status"
grep -q '^PASS ' "$dir/out" || fail "no PASS line"
if [ "$prov" = sock ]; then # every attacked rank refused the connections
  for r in 0 1; do
    if [ "$mode" != replay ]; then
      grep -q "libgex: rank $r: network (sock): refused a connection" "$dir/out" ||
        fail "rank $r did not report the refused connections"
    fi
  done
  [ "$mode" != replay ] || grep -q "libgex: rank [01]: network (sock): refused a connection" "$dir/out" ||
    fail "no rank reported refusing the replayed connections"
elif { [ "$mode" = am ] || [ "$mode" = flood ]; } &&
  { [ "$counted" = 0 ] || [[ "$prov" == *ofi_rx[md]* ]]; }; then
  for r in 0 1; do
    grep -q "libgex: rank $r: network: dropped a message" "$dir/out" ||
      fail "rank $r did not report the dropped messages"
  done
fi
if [ "$mode" = replay ] && [ "$prov" != sock ]; then # the replayed frames reached libgex, which dropped them
  grep -q "libgex: rank [01]: network: dropped a message" "$dir/out" ||
    fail "no rank reported dropping the replayed messages"
fi
grep -E 'libgex: rank|grew by' "$dir/out"
grep '^PASS ' "$dir/out"
echo "sec_attack.sh: ok ($mode, $prov$([ "$netns" = 1 ] && echo ', two network namespaces')$([ "$counted" = 1 ] && echo ', counted endpoint'))"
exit 0
