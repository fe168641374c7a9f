#!/usr/bin/env bash
# tests/netns/run2hosts.sh -- run one gexrun job on two "hosts" (network
# namespaces) and judge it with tests/expect.sh.
#
# usage: run2hosts.sh [--post CMD] <gexrun> <ranks-per-host> [expect.sh options] -- prog [args...]
#
# Creates two namespaces (netns.sh up, names unique to this run), runs
#   GEX_RSH="ip netns exec" expect.sh <options> -- \
#       gexrun -n 2K --hosts NS1:K,NS2:K prog args
# (GEX_NETNS_RSH, if set, replaces "ip netns exec"; it must treat host
# names as namespaces)
# and deletes the namespaces again, whatever happens.  gexrun's own options
# (for example -l) can be put first in "prog args": everything after -- goes
# to gexrun after --hosts.  In all arguments, @NS1@ and @NS2@ are replaced by
# the namespace names (@TOKEN@ is left for expect.sh).  The environment is
# passed on, so extra variables for the ranks (GEX_OFI_PROVIDER=...) are set
# by the caller (ctest ENVIRONMENT); gexrun forwards GEX_*, GASNET_* and FI_*
# to the second host.
#
# After the job, no process may be left in either namespace.  With --post
# CMD, CMD (split on spaces, @NS1@ and @NS2@ replaced) is run with the path
# of a file holding the job's output appended, and must succeed too; it
# runs before the namespaces are deleted.
# Exit status: that of expect.sh (0 ok, 1 failed), 1 if something else
# failed, 77 (with a SKIP line) if namespaces cannot be created here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
post=
if [ "${1:-}" = --post ]; then
  post=$2
  shift 2
fi
[ $# -ge 4 ] || { echo "usage: run2hosts.sh [--post CMD] gexrun K [expect options] -- prog [args]" >&2; exit 2; }
gexrun=$1 k=$2
shift 2

ns1="gexns$$x${RANDOM}a"
ns2="${ns1%a}b"
"$here/netns.sh" up "$ns1" "$ns2"
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "run2hosts.sh: FAILED: cannot set up the namespaces (status $rc)"; exit 1; }
out=$(mktemp "${TMPDIR:-/tmp}/gex_2hosts.XXXXXX")
trap '"$here/netns.sh" down "$ns1" "$ns2"; rm -f "$out"' EXIT

expect_args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  a=${1//@NS1@/$ns1}
  expect_args+=("${a//@NS2@/$ns2}")
  shift
done
[ "${1:-}" = -- ] || { echo "run2hosts.sh: no -- before the program" >&2; exit 2; }
shift
prog=()
for a in "$@"; do
  a=${a//@NS1@/$ns1}
  prog+=("${a//@NS2@/$ns2}")
done

GEX_RSH=${GEX_NETNS_RSH:-ip netns exec} bash "$here/../expect.sh" ${expect_args[@]+"${expect_args[@]}"} -- \
  "$gexrun" -n $((2 * k)) --hosts "$ns1:$k,$ns2:$k" "${prog[@]}" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" = 77 ] && exit 77

# Nothing of the job may be left in the namespaces (bounded poll: deaths by
# PR_SET_PDEATHSIG are asynchronous).
left=
for _ in $(seq 1 50); do
  left=$(ip netns pids "$ns1" 2>/dev/null; ip netns pids "$ns2" 2>/dev/null)
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -n "$left" ]; then
  echo "run2hosts.sh: FAILED: processes left in the namespaces: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ',')")"
  kill -9 $left 2>/dev/null
  rc=1
fi
if [ -n "$post" ]; then
  post=${post//@NS1@/$ns1}
  post=${post//@NS2@/$ns2}
  # shellcheck disable=SC2086
  if ! $post "$out"; then
    echo "run2hosts.sh: FAILED: $post"
    rc=1
  fi
fi
[ "$rc" = 0 ] && echo "run2hosts.sh: ok ($ns1, $ns2)"
exit "$rc"
