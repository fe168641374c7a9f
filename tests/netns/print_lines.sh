#!/usr/bin/env bash
# tests/netns/print_lines.sh -- a rank that prints N lines to stdout and N to
# stderr, "OUT <rank> <i> <pad>" and "ERR <rank> <i> <pad>", with pads of up
# to PAD bytes (several lines per write, some lines longer than a pipe's
# atomic write size).  For the --label tests; see label_check.sh.
# usage: print_lines.sh N PAD [ignored...]
set -u
n=$1 pad=$2
r=${GEX_RANK:?not started by gexrun}
x=$(printf "%${pad}s" "" | tr ' ' x)
for ((i = 0; i < n; i++)); do
  len=$(( (i * 997 + r * 131) % pad + 1 ))
  if ((i % 3 == 0 && i + 1 < n)); then # two lines in one printf
    printf 'OUT %d %d %s\nOUT %d %d %s\n' "$r" "$i" "${x:0:len}" "$r" $((i + 1)) "${x:0:5}"
    printf 'ERR %d %d %s\nERR %d %d %s\n' "$r" "$i" "${x:0:len}" "$r" $((i + 1)) "${x:0:5}" >&2
    i=$((i + 1))
  else
    printf 'OUT %d %d %s\n' "$r" "$i" "${x:0:len}"
    printf 'ERR %d %d %s\n' "$r" "$i" "${x:0:len}" >&2
  fi
done
