#!/usr/bin/env bash
# tests/netns/label_check.sh -- check the output of a gexrun -l job of
# print_lines.sh ranks.
# usage: label_check.sh <ranks> <lines> <output file>
#        label_check.sh --run <ranks> <lines> -- command...
#          (runs the command, normally expect.sh ..., shows its output and
#          checks it; fails if either the command or the check fails)
# The job's output (the part of the file before expect.sh's "----" line)
# must consist only of lines "[R] OUT R i x..." / "[R] ERR R i x..." whose
# label R is the rank in the line, and hold, for every rank and stream,
# exactly <lines> lines numbered 0 .. lines-1 in order.
set -u
if [ "$1" = --run ]; then
  n=$2 lines=$3
  shift 4
  file=$(mktemp "${TMPDIR:-/tmp}/gex_label.XXXXXX")
  trap 'rm -f "$file"' EXIT
  "$@" >"$file" 2>&1
  rc=$?
  cat "$file"
  [ "$rc" = 77 ] && exit 77
  bash "$0" "$n" "$lines" "$file" || exit 1
  exit "$rc"
fi
n=$1 lines=$2 file=$3
job=$(sed '/^---- expect.sh:/,$d' "$file")
fail=0
bad=$(printf '%s\n' "$job" | grep -Ev '^\[([0-9]+)\] (OUT|ERR) \1 [0-9]+ x+$' | head -5)
if [ -n "$bad" ]; then
  echo "label_check.sh: lines without a correct [rank] label (first 5, cut to 100 bytes):"
  printf '%s\n' "$bad" | cut -c1-100
  fail=1
fi
for ((r = 0; r < n; r++)); do
  for s in OUT ERR; do
    got=$(printf '%s\n' "$job" | grep -E "^\[$r\] $s $r " | cut -d' ' -f4 | tr '\n' ' ')
    want=$(seq 0 $((lines - 1)) | tr '\n' ' ')
    if [ "$got" != "$want" ]; then
      echo "label_check.sh: rank $r $s: line numbers '${got:0:200}', expected '${want:0:200}'"
      fail=1
    fi
  done
done
[ "$fail" = 0 ] && echo "label_check.sh: ok ($n ranks, $lines lines per stream each)"
exit "$fail"
