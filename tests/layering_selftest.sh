#!/usr/bin/env bash
# tests/layering_selftest.sh SRC_DIR -- tests/layering.sh fails where it
# must: on a copy of src/, (1) an include that goes up a layer and is not
# listed, (2) a listed upward include that is gone (the first line of
# tests/layering.allow), (3) a network
# transport's own header included outside src/transport/.  Each must give
# status 1 and name the file; the unchanged copy must pass.
set -uo pipefail
src=${1:?usage: layering_selftest.sh SRC_DIR}
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
check() { # NAME EXPECT_STATUS PATTERN
  local out rc
  out=$(bash "$here/layering.sh" "$t/src" "$here/layering.allow" 2>&1)
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
check "an upward include not listed fails" 1 "sec/siphash.c:.*may not include coll"

fresh
read -r lfile _ lhdr < <(grep -v '^#' "$here/layering.allow" | grep -- ' -> ' | head -1)
if [[ -n ${lfile:-} ]]; then
  sed -i "s|^#include \"$lhdr\"|/* (removed by the self-test) */|" "$t/src/$lfile"
  check "a listed include that is gone fails ($lfile)" 1 "no longer there"
else
  echo "layering_selftest: ok: nothing is listed in layering.allow (no stale entry to try)"
fi

fresh
echo '#include "transport/sock/sock.h"' >>"$t/src/vis/vis.c"
check "a network transport's header outside src/transport fails" 1 "vis/vis.c:.*network transport's own header"
exit $fails
