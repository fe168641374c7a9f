#!/usr/bin/env bash
# tests/sock_udp_strangers.sh -- strangers' datagrams against the UDP lane
# (GEX_SOCK_UDP=1, src/transport/sock/sock_lane.c; label security).
#
# usage: sock_udp_strangers.sh <gexrun> <t_sec_victim> <token>
#
# Starts t_sec_victim as a 2-rank job over the lane (every peer through the
# network on loopback).  Once it has published its addresses, a plain UDP
# socket sends each rank's lane, for 2 s: random bytes of every size up to
# 64 KiB, headers with the lane's magic that name the right ranks with a
# wrong MAC, one that claims to come from the other rank, acknowledgements
# of what was never sent, and empty datagrams.  Then the job checks itself
# (t_sec_victim: segments untouched, no stray handler, memory bounded, a last
# exchange of every kind moves correct data) and must pass, and its ranks
# must have reported the drops (the first few, with the reason).
set -u
gexrun=$1 victim=$2 token=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/gex-udp-strangers.XXXXXX")
job=
cleanup() {
  [ -n "$job" ] && kill "$job" 2>/dev/null && wait "$job" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "sock_udp_strangers: FAIL: $*"; [ -f "$dir/out" ] && cat "$dir/out"; exit 1; }

env GEX_NET_TRANSPORT=sock GEX_SUPERNODE_MAXSIZE=1 GEX_SOCK_UDP=1 \
  "$gexrun" -n 2 "$victim" "$dir" "$token" >"$dir/out" 2>&1 &
job=$!
for _ in $(seq 600); do # at most 60 s
  [ -e "$dir/ready" ] && break
  kill -0 "$job" 2>/dev/null || fail "the job ended before it was ready"
  sleep 0.1
done
[ -e "$dir/ready" ] || fail "the job never became ready"
ports=()
for r in 0 1; do
  p=$(sed -n 's/^udp \([0-9]*\)$/\1/p' "$dir/rank$r.addr")
  [ -n "$p" ] || fail "rank $r published no UDP port (is the lane on?)"
  ports+=("$p")
done
echo "sock_udp_strangers: the ranks' lanes: 127.0.0.1:${ports[0]} 127.0.0.1:${ports[1]}"

python3 - "${ports[@]}" <<'EOF' || fail "the stranger could not send"
import os, random, socket, struct, sys, time
ports = [int(p) for p in sys.argv[1:]]
MAGIC = 0x31706475786567
def hdr(frm, to, seq, ack, length, mac):
    return struct.pack("<QIIQQIIQ", MAGIC, frm, to, seq, ack, length, 0, mac)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
sent = 0
end = time.time() + 2.0
while time.time() < end:
    for r, port in enumerate(ports):
        other = 1 - r
        kinds = [
            os.urandom(random.randint(0, 2000)),
            os.urandom(random.choice([47, 48, 49, 65000])),
            hdr(other, r, random.randint(1, 5), 0, 16, random.getrandbits(64)) + os.urandom(16),
            hdr(other, r, 0, 1 << 40, 0, random.getrandbits(64)),
            hdr(7, r, 1, 0, 0, 0),
            hdr(other, r, 1, 0, 1000, 0) + os.urandom(8),
            b"",
        ]
        for d in kinds:
            try:
                s.sendto(d, ("127.0.0.1", port))
                sent += 1
            except OSError:
                pass
    time.sleep(0.0005)
print("sock_udp_strangers: %d datagrams sent" % sent)
EOF
touch "$dir/done"
wait "$job"
rc=$?
job=
cat "$dir/out"
[ "$rc" = 0 ] || fail "the job's status is $rc"
grep -q '^PASS ' "$dir/out" || fail "the job did not report PASS"
grep -qE 'network \(sock\): dropped a datagram from 127\.0\.0\.1:[0-9]+ \(' "$dir/out" ||
  fail "no rank reported a dropped datagram"
echo "sock_udp_strangers: ok"
