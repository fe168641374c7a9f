#!/usr/bin/env bash
# tests/misuse.sh -- run misuse_prog in one mode and check libgex's verdict.
#
# usage: misuse.sh <gexrun | -> <ranks> <misuse_prog> <mode>
#   ('-' runs the program directly, as a job of one rank)
#
# Passes when: the job ends (within 60 s) with a non-zero status; every
# "EXPECT <regex>" line the program printed matches a line of the output
# (the libgex diagnostic names the call and the offending value); the
# diagnostic line of the offending call appears exactly once; the program
# never printed "NOT DETECTED"; and (via expect.sh) no process of the job
# survives and /dev/shm gains nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
gexrun=$1 n=$2 prog=$3 mode=$4

if [ "$gexrun" = "-" ]; then
  cmd=("$prog" "$mode" @TOKEN@)
else
  cmd=("$gexrun" -n "$n" "$prog" "$mode" @TOKEN@)
fi

out=$(bash "$here/expect.sh" --nonzero --within 60 --nogrep '^NOT DETECTED' -- "${cmd[@]}" 2>&1)
rc=$?
echo "$out"
fail=0
[ "$rc" = 0 ] || fail=1

mapfile -t expects < <(printf '%s\n' "$out" | sed -n 's/^EXPECT //p')
if [ "${#expects[@]}" = 0 ]; then
  echo "misuse.sh: FAILED: the program printed no EXPECT line (mode '$mode' not reached?)"
  fail=1
fi
for re in "${expects[@]}"; do
  n_match=$(printf '%s\n' "$out" | grep -v '^EXPECT ' | grep -cE -- "$re")
  if [ "$n_match" = 0 ]; then
    echo "misuse.sh: FAILED: no diagnostic line matches: $re"
    fail=1
  elif [ "$n_match" != 1 ] && ! { [ "$mode" = before_init ] && [ "$n_match" -le "$n" ]; }; then
    # (before init a rank does not know its rank: each of the n may report)
    echo "misuse.sh: FAILED: $n_match lines match (want exactly one): $re"
    fail=1
  fi
done
# every libgex diagnostic is one line "libgex: ..." -- none may be empty
if printf '%s\n' "$out" | grep -qE '^libgex: *$'; then
  echo "misuse.sh: FAILED: empty libgex diagnostic line"
  fail=1
fi
if [ "$fail" = 0 ]; then
  echo "misuse.sh: ok ($mode)"
  exit 0
fi
exit 1
