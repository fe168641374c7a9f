#!/usr/bin/env bash
# tests/layering_selftest.sh SRC_DIR -- tests/layering.sh fails where it
# must: on a copy of src/, (1) an include that goes up a layer, (2) a
# cycle between rooms made by two includes inside one layer's order,
# (3) a network transport's own header included outside src/transport/,
# (4) a client library (src/shmem) including a header of libgex's rooms.
# Each must give status 1 and name the file or the rooms; the unchanged
# copy must pass.
set -uo pipefail
src=${1:?usage: layering_selftest.sh SRC_DIR}
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
check() { # NAME EXPECT_STATUS PATTERN
  local out rc
  out=$(bash "$here/layering.sh" "$t/src" 2>&1)
  rc=$?
  if [[ $rc -ne $2 ]] || ! grep -q -- "$3" <<<"$out"; then
    echo "layering_selftest: FAIL: $1: status $rc (expected $2), output:"
    echo "$out"
    fails=1
  else
    echo "layering_selftest: ok: $1"
  fi
}
fresh() { rm -rf "$t/src" && cp -r "$src" "$t/src"; }

fresh
check "unchanged tree passes" 0 "layering: ok"

fresh
echo '#include "coll/coll_am.h"' >>"$t/src/sec/siphash.c"
check "an upward include fails" 1 "sec/siphash.c:.*may not include coll"

fresh
# transport/sock and transport/ofi share one layer rank: each may include
# the other by the layer rule alone, so two such includes make a cycle.
echo '#include "transport/ofi/ofi.h"' >>"$t/src/transport/sock/sock_lane.c"
echo '#include "transport/sock/sock.h"' >>"$t/src/transport/ofi/ofi_auth.c"
check "a cycle between rooms fails" 1 "include cycle (2): transport/ofi transport/sock"

fresh
echo '#include "transport/sock/sock.h"' >>"$t/src/vis/vis.c"
check "a network transport's header outside src/transport fails" 1 "vis/vis.c:.*network transport's own header"

fresh
echo '#include "core/context.h"' >>"$t/src/shmem/shmem_rma.c"
check "a client library including libgex's own header fails" 1 "shmem/shmem_rma.c:.*client library of the public API"
exit $fails
