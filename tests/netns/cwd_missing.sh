#!/usr/bin/env bash
# tests/netns/cwd_missing.sh -- the working directory does not exist on the
# remote host: the proxy must say so and the job must end at once.
#
# usage: cwd_missing.sh <gexrun> <program>
# Runs in a fresh directory D/sub.  The "remote shell" (this script, called
# back with --rsh) starts the proxy in a new mount namespace where an empty
# tmpfs hides D, so D/sub is missing there: what happens when the file
# systems of the hosts differ.  Needs root (exit 77 with a SKIP line if not).
set -u
if [ "${1:-}" = --rsh ]; then # GEX_RSH: --rsh <dir to hide> host command...
  hide=$2
  shift 3
  exec unshare -m sh -c 'mount -t tmpfs gexcwd "$0" && exec "$@"' "$hide" "$@"
fi
gexrun=$1 prog=$2
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: cannot hide a directory in a mount namespace (not root)"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare command"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/gex_cwd.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/sub"
cd "$dir/sub" || exit 1
GEX_RSH="bash $here/cwd_missing.sh --rsh $dir" bash "$here/../expect.sh" --nonzero --within 10 \
  --grep "^gexrun: host gexcwd: cannot change to the working directory '$dir/sub': No such file" \
  --grep "^gexrun: lost host gexcwd with rank 1: the remote shell exited with status 1" \
  -- "$gexrun" -n 2 --hosts localhost:1,gexcwd:1 "$prog" @TOKEN@
