#!/usr/bin/env bash
# tests/configure_without.sh -- CMake configures libgex, tests and
# benchmarks included, on a machine that lacks an optional dependency:
# the directories that hold it are hidden from CMake's searches
# (CMAKE_IGNORE_PATH), and the configure must succeed and say it goes
# without.
#
# usage: configure_without.sh <cmake> <source dir> <what> <expected line> <dir>...
#   <what>           names the dependency in messages (libfabric)
#   <expected line>  a regular expression the configure output must match
#   <dir>...         the directories to hide (where its header and library are)
set -u
cmake=$1 src=$2 what=$3 expect=$4
shift 4
ignore=$(IFS=';'; echo "$*")
work=$(mktemp -d "${TMPDIR:-/tmp}/gex-configure-without.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
if ! "$cmake" -S "$src" -B "$work" -DCMAKE_IGNORE_PATH="$ignore" >"$work/log" 2>&1; then
  echo "FAIL: configuring without $what failed:"
  tail -20 "$work/log"
  exit 1
fi
if ! grep -Eq "$expect" "$work/log"; then
  echo "FAIL: configuring without $what did not say so (no line matches: $expect)"
  exit 1
fi
echo "PASS configure without $what"
