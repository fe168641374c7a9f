#!/usr/bin/env bash
# tests/netns/netns.sh -- two network namespaces that play two "hosts".
#
# usage: netns.sh up NAME1 NAME2   create NAME1 and NAME2, joined by a veth
#                                  pair: NAME1 has 10.231.0.1/24, NAME2 has
#                                  10.231.0.2/24; lo and the veth ends up
#        netns.sh down NAME1 NAME2 delete them (and the veth pair with them)
#
# Both are idempotent: "up" first removes leftovers of the same names,
# "down" ignores namespaces that do not exist.  Callers pick names unique to
# their run (for example with $$ in them) so that parallel tests do not
# collide; the veth names are derived from NAME1 the same way.  The
# addresses are only visible inside the two namespaces, so the same /24 in
# several pairs at once does not conflict.
#
# Exits 77 after printing "SKIP: cannot create network namespaces (<reason>)"
# when namespaces cannot be created here (not root, no ip(8), no kernel
# support); callers pass that status on to ctest (SKIP_RETURN_CODE 77).
# "up" cleans up after itself if it fails half-way.
set -u

skip() {
  echo "SKIP: cannot create network namespaces ($*)"
  exit 77
}

# veth names are limited to 15 characters: derive short ones from NAME1.
veth_names() {
  local h
  h=$(printf '%s' "$1" | cksum | cut -d' ' -f1)
  va="gxa$((h % 100000000))"
  vb="gxb$((h % 100000000))"
}

down() {
  local ns
  for ns in "$@"; do
    ip netns delete "$ns" 2>/dev/null
  done
  veth_names "$1"
  ip link delete "$va" 2>/dev/null # only if it never got moved into a namespace
  return 0
}

up() {
  local n1=$1 n2=$2 err
  [ "$(id -u)" = 0 ] || skip "not root"
  command -v ip >/dev/null 2>&1 || skip "no ip command"
  down "$n1" "$n2"
  if ! err=$(ip netns add "$n1" 2>&1); then
    skip "ip netns add failed: $err"
  fi
  trap 'down "$n1" "$n2"' EXIT
  veth_names "$n1"
  ip netns add "$n2" || exit 1
  ip link add "$va" type veth peer name "$vb" || exit 1
  ip link set "$va" netns "$n1" || exit 1
  ip link set "$vb" netns "$n2" || exit 1
  ip -n "$n1" addr add 10.231.0.1/24 dev "$va" || exit 1
  ip -n "$n2" addr add 10.231.0.2/24 dev "$vb" || exit 1
  for ns in "$n1" "$n2"; do
    ip -n "$ns" link set lo up || exit 1
  done
  ip -n "$n1" link set "$va" up || exit 1
  ip -n "$n2" link set "$vb" up || exit 1
  trap - EXIT
}

[ $# -ge 1 ] || { echo "usage: netns.sh up|down NAME1 NAME2" >&2; exit 2; }
cmd=$1
shift
case "$cmd" in
  up) [ $# = 2 ] || { echo "usage: netns.sh up NAME1 NAME2" >&2; exit 2; }; up "$@" ;;
  down) [ $# -ge 1 ] || { echo "usage: netns.sh down NAME1 [NAME2]" >&2; exit 2; }; down "$@" ;;
  *) echo "netns.sh: unknown command $cmd" >&2; exit 2 ;;
esac
