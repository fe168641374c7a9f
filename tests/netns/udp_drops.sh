#!/usr/bin/env bash
# tests/netns/udp_drops.sh MAX NS1 NS2 [job-output] -- a run2hosts.sh --post
# check: at most MAX UDP datagrams were dropped for want of receive-buffer
# space in each namespace (the RcvbufErrors counter of /proc/net/snmp, which
# every network namespace keeps for itself).  Prints the counts; exit 1 if
# one is above MAX.
set -u
max=$1
rc=0
for ns in "$2" "$3"; do
  n=$(ip netns exec "$ns" awk '/^Udp:/ { if (!h) { for (i = 2; i <= NF; i++) col[$i] = i; h = 1 }
                                          else print $col["RcvbufErrors"] }' /proc/net/snmp)
  echo "udp_drops.sh: $ns: ${n:-?} UDP datagrams dropped (receive buffer full), at most $max allowed"
  [ -n "$n" ] && [ "$n" -le "$max" ] || rc=1
done
exit $rc
