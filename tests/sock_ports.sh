#!/usr/bin/env bash
# tests/sock_ports.sh -- the sock transport's connections do not each hold
# an ephemeral port of the host (label netns; docs/network.md, "Limits").
#
# usage: sock_ports.sh GEXRUN T_ALLTOALL NRANKS PORTS
#
# Runs T_ALLTOALL as a job of NRANKS ranks, every rank its own node over
# the sock transport's TCP connections (GEX_SOCK_UDP=0), inside a network namespace of its own whose
# ephemeral port range (net.ipv4.ip_local_port_range, which is per
# namespace) holds only PORTS ports: enough for the NRANKS listeners and,
# per destination, one port for each rank that connects to it, but far
# fewer than one port per connection (NRANKS*(NRANKS-1)/2).  A transport
# that binds each connecting socket to a port of its own before connect()
# runs out ("bind: Address already in use"); one whose ports are chosen by
# connect() for each destination does not.
#
# Exit 0 pass, 1 fail, 77 skip (no root or no namespaces).
set -u
[ $# = 4 ] || { echo "usage: sock_ports.sh GEXRUN T_ALLTOALL NRANKS PORTS" >&2; exit 2; }
gexrun=$1 prog=$2 n=$3 ports=$4
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a network namespace)"; exit 77; }
command -v ip >/dev/null 2>&1 || { echo "SKIP: no ip command"; exit 77; }
ns="gexports$$x$RANDOM"
if ! err=$(ip netns add "$ns" 2>&1); then
  echo "SKIP: cannot create a network namespace ($err)"
  exit 77
fi
out=$(mktemp "${TMPDIR:-/tmp}/gex_ports.XXXXXX")
trap 'ip netns delete "$ns" 2>/dev/null; rm -f "$out"' EXIT
ip -n "$ns" link set lo up || exit 1
lo=40000
hi=$((lo + ports - 1))
ip netns exec "$ns" sysctl -q -w net.ipv4.ip_local_port_range="$lo $hi" || {
  echo "sock_ports.sh: FAILED: cannot narrow the namespace's port range"
  exit 1
}
conns=$((n * (n - 1) / 2))
echo "sock_ports.sh: $n ranks, $conns connections, ports $lo-$hi ($ports) in namespace $ns"
timeout 300 ip netns exec "$ns" env GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock GEX_SOCK_UDP=0 \
  "$gexrun" -n "$n" "$prog" >"$out" 2>&1
status=$?
cat "$out"
[ "$status" = 0 ] || { echo "sock_ports.sh: FAILED: the job exited with status $status"; exit 1; }
grep -q '^PASS ' "$out" || { echo "sock_ports.sh: FAILED: no PASS line"; exit 1; }
if grep -qE 'unreachable|Address already in use|died' "$out"; then
  echo "sock_ports.sh: FAILED: a rank ran out of ports or was called unreachable"
  exit 1
fi
echo "sock_ports.sh: ok"
exit 0
