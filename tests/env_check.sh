#!/usr/bin/env bash
# tests/env_check.sh -- every environment variable of libgex and gexrun
# either parses or ends the job with one line naming it and its value.
#
# usage: env_check.sh <gexrun> <t_env> <have_ofi: 0|1>
#
# Bad values: a 2-rank job (and, for a few, the program alone) must end with
# status 1 and a line "libgex: rank R: NAME='value': <why>" (gexrun's own
# variables: "gexrun: NAME='value': <why>", status 2), and must not pass.
# Good values: t_env checks what they mean (GASNET_MAX_SEGSIZE's sizes and
# fractions, GEX_SUPERNODE_MAXSIZE's groups).  Every run goes through
# tests/expect.sh (no survivors, no new /dev/shm entries).
set -u
here=$(cd "$(dirname "$0")" && pwd)
gexrun=$1 prog=$2 have_ofi=$3
fail=0
ncase=0
log=$(mktemp "${TMPDIR:-/tmp}/gex_envcheck.XXXXXX")
trap 'rm -f "$log"' EXIT

# bad NAME VALUE: the job must fail at gex_Client_Init naming NAME and VALUE.
bad() {
  local name=$1 value=$2 re
  ncase=$((ncase + 1))
  # the value as an extended regular expression
  re=$(printf '%s' "$value" | sed 's/[][\.*^$+?(){}|/]/\\&/g')
  env "$name=$value" bash "$here/expect.sh" --status 1 --within 60 --nogrep '^PASS' \
    --grep "^libgex: rank [0-9]+: $name='$re': [a-z']" \
    -- "$gexrun" -n 2 "$prog" maxseg fraction 0.5 host @TOKEN@ >"$log" 2>&1 ||
    { cat "$log"; echo "env_check.sh: FAILED: $name='$value'"; fail=1; }
  grep "^libgex: rank 0: $name=" "$log" | head -1
}

# good "NAME=VALUE..." -- t_env arguments: the job must pass.
good() {
  local envs=$1 n=$2
  shift 2
  ncase=$((ncase + 1))
  # shellcheck disable=SC2086
  env $envs bash "$here/expect.sh" --pass --within 60 -- "$gexrun" -n "$n" "$prog" "$@" @TOKEN@ \
    >"$log" 2>&1 ||
    { cat "$log"; echo "env_check.sh: FAILED: $envs t_env $*"; fail=1; }
}

# counts, sizes, switches, choices, lists
for v in 1e3 1x 1G abc -1 ' 1' 99999999999; do bad GEX_SUPERNODE_MAXSIZE "$v"; done
for v in abc 1x -1 0.5/X 2.0 1.5 0.0 100 /H 4GB/PH; do bad GASNET_MAX_SEGSIZE "$v"; done
for v in abc -5 1x 2.5; do bad GEX_OFI_AM_CREDIT "$v"; done
for v in abc 2G -1; do bad GEX_VIS_PACK_MAX "$v"; done
for v in 1 65 4x; do bad GEX_COLL_RADIX "$v"; done
bad GEX_COLL_HIER maybe
bad GEX_COLL_FORCE_AM 2
bad GEX_AD_FORCE_AM yesno
bad GEX_AD_VERBOSE x
bad GEX_AD_NATIVE sometimes
bad GEX_VIS_FORCE_AM on1
bad GEX_OFI_MULTI_RECV 2
bad GEX_OFI_VERBOSE verbose
bad GEX_OFI_ATOMIC_NONFETCH -1
bad GEX_NET_TRANSPORT tcp
bad GEX_NET_VERBOSE maybe
bad GEX_WAIT_MODE sleep
bad GEX_MK_TEST_DEVICE cuda
bad GEX_MK_IPC sometimes
for v in abc 1K 4G; do bad GEX_SOCK_AM_CREDIT "$v"; done
for v in abc 0 3601 -1; do bad GEX_SOCK_CONNECT_TIMEOUT "$v"; done
for v in abc 2G -1; do bad GEX_SOCK_SNDBUF "$v"; done
bad GASNET_CATCH_EXIT maybe
bad GASNET_NO_CATCH_SIGNAL SIGFOO

# the program alone (a job of one rank) reads them the same way
ncase=$((ncase + 1))
GEX_SUPERNODE_MAXSIZE=abc bash "$here/expect.sh" --status 1 --within 60 --nogrep '^PASS' \
  --grep "^libgex: rank 0: GEX_SUPERNODE_MAXSIZE='abc': not a whole number$" \
  -- "$prog" nbrhd 1 @TOKEN@ || fail=1

# gexrun's own variables: status 2 before any rank starts
for c in "GEX_BOOTSTRAP_TIMEOUT|abc|not a whole number" "GEX_BOOTSTRAP_TIMEOUT|-3|negative" \
         "GEXRUN_VERBOSE|maybe|not a yes/no value" \
         "GASNET_EXITTIMEOUT|abc|not a number of seconds" \
         "GASNET_EXITTIMEOUT|1e3|not a number of seconds: unexpected 'e3'" \
         "GASNET_EXITTIMEOUT_MIN|-1|negative" "GASNET_EXITTIMEOUT_FACTOR|.|no digits after" \
         "GASNET_EXITTIMEOUT_MAX|2000000|at most 1000000 seconds"; do
  IFS='|' read -r name value why <<<"$c"
  ncase=$((ncase + 1))
  env "$name=$value" bash "$here/expect.sh" --status 2 --within 60 --nogrep '^PASS' \
    --grep "^gexrun: $name='$value': $why" -- "$gexrun" -n 2 "$prog" nbrhd 2 @TOKEN@ || fail=1
done

# GASNET_MAX_SEGSIZE with the reference's grammar: bytes per process, "/H"
# shared by the host's processes (2 here), fractions of physical memory
good GASNET_MAX_SEGSIZE=64M 2 maxseg bytes 67108864
good GASNET_MAX_SEGSIZE=48KB 2 maxseg bytes 49152
good GASNET_MAX_SEGSIZE=1GB/P 2 maxseg bytes 1073741824
good GASNET_MAX_SEGSIZE=1.5G 1 maxseg bytes 1610612736
good GASNET_MAX_SEGSIZE=256MB/H 2 maxseg bytes 134217728
good GASNET_MAX_SEGSIZE=100000 2 maxseg bytes 98304
good GASNET_MAX_SEGSIZE=0.5/H 2 maxseg fraction 0.5 host
good GASNET_MAX_SEGSIZE=0.25/h 2 maxseg fraction 0.25 host
good GASNET_MAX_SEGSIZE=0.25 2 maxseg fraction 0.25 proc
good GASNET_MAX_SEGSIZE=.5/P 2 maxseg fraction 0.5 proc
good GASNET_MAX_SEGSIZE=1.0/ 1 maxseg fraction 1 proc
# GEX_SUPERNODE_MAXSIZE: 0 is no limit; leading zeros are digits
good GEX_SUPERNODE_MAXSIZE=0 4 nbrhd 4
good GEX_SUPERNODE_MAXSIZE=004 4 nbrhd 4
good "GEX_COLL_HIER=no GEX_COLL_FORCE_AM=off GEX_AD_FORCE_AM=FALSE GEX_VIS_PACK_MAX=4K" 2 nbrhd 2
# libgex's own TCP transport, with every knob
good "GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock GEX_SOCK_AM_CREDIT=64K GEX_SOCK_IFACE=lo" 2 nbrhd 1
good "GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock GEX_WAIT_MODE=block" 2 nbrhd 1
good "GEX_WAIT_MODE=spin" 2 nbrhd 2
good "GASNET_EXITTIMEOUT=2.5 GASNET_EXITTIMEOUT_FACTOR=.1" 2 nbrhd 2
ncase=$((ncase + 1))
env GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock GEX_SOCK_IFACE=nosuch0 \
  bash "$here/expect.sh" --status 1 --within 60 --nogrep '^PASS' \
  --grep "^libgex: rank [0-9]+: GEX_SOCK_IFACE='nosuch0': no interface of that name" \
  -- "$gexrun" -n 2 "$prog" nbrhd 1 @TOKEN@ || fail=1

if [ "$have_ofi" = 1 ]; then
  good "GEX_SUPERNODE_MAXSIZE=2 GEX_OFI_PROVIDER=tcp;ofi_rxm" 4 nbrhd 2
  good "GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER=tcp;ofi_rxm GEX_OFI_AM_CREDIT=64K" 2 nbrhd 1
  # a domain that does not exist is named as such (not as a provider problem)
  ncase=$((ncase + 1))
  env GEX_SUPERNODE_MAXSIZE=1 "GEX_OFI_PROVIDER=tcp;ofi_rxm" GEX_OFI_DOMAIN=nosuch0 \
    bash "$here/expect.sh" --status 1 --within 60 --nogrep '^PASS' \
    --grep "^libgex: rank [0-9]+: gex_Client_Init: GEX_OFI_DOMAIN='nosuch0': libfabric offers no domain of that name" \
    -- "$gexrun" -n 2 "$prog" nbrhd 1 @TOKEN@ || fail=1
else
  echo "SKIP (part): network cases: libgex was built without libfabric"
fi

if [ "$fail" = 0 ]; then
  echo "env_check.sh: ok ($ncase cases)"
  exit 0
fi
exit 1
