#!/usr/bin/env bash
# tests/layering.sh SRC_DIR -- the layering rule of src/: no file outside
# src/transport/ includes a network transport's own header
# (src/transport/<name>/, every <name> but shm); the core reaches network
# transports only through src/transport/transport.h.  The shared-memory
# substrate (src/transport/shm) is still included directly by the layers
# that map peers' memory (rma, am, coll, vis, core): listed, not failed.
# Prints each offending line; status 1 if there is one.
set -uo pipefail
src=${1:?usage: layering.sh SRC_DIR}
bad=$(grep -rnE '#[[:space:]]*include[[:space:]]+"transport/[a-z0-9_]+/' "$src" --include='*.c' --include='*.h' |
  grep -v "^$src/transport/" | grep -v '"transport/shm/')
shm=$(grep -rlE '#[[:space:]]*include[[:space:]]+"transport/shm/' "$src" --include='*.c' --include='*.h' |
  grep -vc "^$src/transport/")
echo "layering: files outside src/transport/ that include the shared-memory substrate's header: $shm"
if [[ -n $bad ]]; then
  echo "layering: FAIL: a network transport's own header included outside src/transport/:"
  echo "$bad"
  exit 1
fi
echo "layering: ok: no network transport's own header is included outside src/transport/"
