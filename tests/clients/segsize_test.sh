#!/usr/bin/env bash
# tests/clients/segsize_test.sh -- GASNET_MAX_SEGSIZE in the forms UPC++'s
# launcher gives it (upcxx-run sets it and passes it on with gasnetrun's -E),
# end to end through gasnetrun_ofi: each rank reports the
# gasnet_getMaxLocalSegmentSize() it gets and the host's physical memory.
#   128.0MB/P  -> 134217728 on every rank (also with every peer over tcp)
#   0.5/H      -> half of physical memory shared by the 4 ranks of the host,
#                 rounded down to a page, with -N 2 (two "nodes" of 2 ranks,
#                 which a per-neighbourhood reading would get wrong)
# The client is built from the build tree's GASNet build directory.
#
# usage: segsize_test.sh <source dir> <build dir> <token>
set -u
src=$1 build=$2 token=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "$build/segsize-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "segsize_test: FAIL: $*"; exit 1; }
step() { echo "segsize_test: $*"; }

cp "$here/../install/client.c" "$work/client.c"
make --no-print-directory -s -C "$work" -f "$here/../install/Makefile.client" \
  GASNET_MAK="$build/gasnet/ofi-conduit/ofi-par.mak" CONDUIT=ofi MODE=par client-ofi-par ||
  fail "building the client"
prog=$work/client-ofi-par

run() { # <ranks> <expected maxseg, or "H" for 0.5/H> <command...>
  local n=$1 want=$2; shift 2
  step "run: $*"
  "$@" >"$work/run.out" 2>&1
  local rc=$?
  cat "$work/run.out"
  [ "$rc" = 0 ] || fail "status $rc: $*"
  [ "$(grep -c 'moved .* bytes, all correct' "$work/run.out")" = "$n" ] ||
    fail "not every one of the $n ranks reported its bytes correct"
  [ "$(grep -c '^client: rank [0-9]* maxseg ' "$work/run.out")" = "$n" ] || fail "not every rank reported its maxseg"
  while read -r _ _ r _ got _ phys; do
    local expect=$want
    [ "$want" = H ] && expect=$(((phys / 2 / n) / 4096 * 4096))
    [ "$got" = "$expect" ] || fail "rank $r: maxseg $got, expected $expect"
  done < <(grep '^client: rank [0-9]* maxseg ' "$work/run.out")
}
run 2 134217728 env GASNET_MAX_SEGSIZE=128.0MB/P \
  "$build/bin/gasnetrun_ofi" -n 2 -E GASNET_MAX_SEGSIZE "$prog" segsize "$token"
if ldd "$prog" | grep -q libfabric; then
  run 2 134217728 env GASNET_MAX_SEGSIZE=128.0MB/P GEX_SUPERNODE_MAXSIZE=1 "GEX_OFI_PROVIDER=tcp;ofi_rxm" \
    "$build/bin/gasnetrun_ofi" -n 2 -E GASNET_MAX_SEGSIZE "$prog" segsize "$token"
fi
if [ ! -f "$src/src/core/env_parse.c" ]; then
  echo "SKIP: 0.5/H not checked: this libgex reads GASNET_MAX_SEGSIZE as a byte count only (no src/core/env_parse.c, the parser of the reference's grammar)"
  exit 77
fi
run 4 H env GASNET_MAX_SEGSIZE=0.5/H "$build/bin/gasnetrun_ofi" -n 4 -N 2 -E GASNET_MAX_SEGSIZE "$prog" segsize "$token"
step "ok"
