#!/usr/bin/env bash
# tests/sock_storm.sh -- a stranger's connection storm while a job over the
# sock transport makes its connections (label security; docs/security.md,
# "Connection storms").
#
# usage: sock_storm.sh GEXRUN T_ALLTOALL SOCK_STORM_PY NRANKS SECONDS [FLOODERS]
#
# Starts T_ALLTOALL as a job of NRANKS ranks, every rank its own node
# (GEX_SUPERNODE_MAXSIZE=1) over GEX_NET_TRANSPORT=sock without its UDP
# lane (GEX_SOCK_UDP=0: every pair makes a TCP connection) on loopback, with
# GEX_TEST_STORM_DIR: each rank publishes its listener's address and then
# blocks until told to go, so its listener's backlog fills with the
# storm's connections before it serves any.  FLOODERS (default 2)
# processes of SOCK_STORM_PY then flood every rank with connections for
# SECONDS seconds (silent ones, garbage, and well-formed HELLOs claiming
# ranks of the job, from the job's own address); once each has reached
# every rank, the ranks are told to go and make their connections --
# those the initial barrier did not make -- all-to-all during the storm,
# twice over (GEX_TEST_ROUNDS=2), checking every word and every AM.
#
# Passes when the job prints PASS and exits 0 with no line that calls a
# rank unreachable or dead, and no process of the job is left.  Prints how
# long the job took from the go to its end, beside the storm's length.
# Exit 0 pass, 1 fail.
set -u
[ $# -ge 5 ] || { echo "usage: sock_storm.sh GEXRUN T_ALLTOALL SOCK_STORM_PY NRANKS SECONDS [FLOODERS]" >&2; exit 2; }
gexrun=$1 prog=$2 storm=$3 n=$4 secs=$5 flooders=${6:-2}

dir=$(mktemp -d "${TMPDIR:-/tmp}/gex_storm.XXXXXX")
job= pids=()
cleanup() {
  [ -n "$job" ] && kill -9 "$job" 2>/dev/null
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "--- job output:"
  cat "$dir/out" 2>/dev/null
  echo "sock_storm.sh: FAILED: $*"
  exit 1
}

for ((r = 0; r < n; r++)); do mkfifo "$dir/go.$r" || fail "mkfifo"; done
env GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock GEX_SOCK_UDP=0 GEX_TEST_STORM_DIR="$dir" GEX_TEST_ROUNDS=2 \
  "$gexrun" -n "$n" "$prog" >"$dir/out" 2>&1 &
job=$!

# Every rank publishes its address (bounded wait; the job may be slow to start).
for _ in $(seq 1 1200); do
  k=$(find "$dir" -name 'rank*.addr' | wc -l)
  [ "$k" = "$n" ] && break
  kill -0 "$job" 2>/dev/null || break
  sleep 0.05
done
[ "$k" = "$n" ] || fail "only $k of $n ranks published their address"
addrs=()
for ((r = 0; r < n; r++)); do addrs+=("$dir/rank$r.addr"); done

for ((f = 0; f < flooders; f++)); do
  python3 "$storm" "$secs" "$dir/started.$f" "${addrs[@]}" >"$dir/storm.$f" 2>&1 &
  pids+=($!)
done
for ((f = 0; f < flooders; f++)); do
  for _ in $(seq 1 600); do
    [ -e "$dir/started.$f" ] && break
    kill -0 "${pids[$f]}" 2>/dev/null || break
    sleep 0.05
  done
  [ -e "$dir/started.$f" ] || { cat "$dir/storm.$f"; fail "flooder $f did not start"; }
done

go=$(date +%s.%N)
for ((r = 0; r < n; r++)); do
  timeout 60 sh -c 'echo go > "$1"' sh "$dir/go.$r" || fail "rank $r did not wait for the go"
done
# The job's bound: the storm, the connection budget of the sock transport
# (GEX_SOCK_CONNECT_TIMEOUT, 30 s), and a slow machine's slack.
limit=$(awk -v s="$secs" 'BEGIN { printf "%d", (s + 30 + 60) * 20 }')
for _ in $(seq 1 "$limit"); do
  kill -0 "$job" 2>/dev/null || break
  sleep 0.05
done
kill -0 "$job" 2>/dev/null && fail "the job did not end within $((limit / 20)) s of the go"
wait "$job"
status=$?
job=
end=$(date +%s.%N)
for p in "${pids[@]}"; do wait "$p"; done
pids=()
cat "$dir"/storm.*
[ "$status" = 0 ] || fail "the job exited with status $status"
grep -q '^PASS ' "$dir/out" || fail "no PASS line"
if grep -E 'unreachable|died|has left the job|ending: rank' "$dir/out"; then
  fail "a rank was called unreachable or dead"
fi
grep -E 'libgex: rank' "$dir/out" | head -n 10
grep '^PASS ' "$dir/out"
awk -v a="$go" -v b="$end" -v s="$secs" -v n="$n" \
  'BEGIN { printf "sock_storm.sh: ok: %d ranks, all-to-all twice, %.2f s from the go to the end, the storm %s s\n", n, b - a, s }'
exit 0
