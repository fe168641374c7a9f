#!/usr/bin/env bash
# tests/repeat.sh -- run one test command several times; every run must pass.
#
# usage: repeat.sh <count> command [args...]
#
# For outcomes that a race decides (which rank of a job gets where first),
# one run proves little: the command (normally expect.sh or fault.sh, which
# judge a run and bound its time) runs <count> times in a row, and the
# first run that fails fails the test.  Each run's report is shown.
set -u
count=${1:?usage: repeat.sh <count> command [args...]}
shift
[ $# -gt 0 ] || { echo "repeat.sh: no command" >&2; exit 2; }
for i in $(seq 1 "$count"); do
  echo "==== repeat.sh: run $i of $count"
  "$@"
  rc=$?
  [ "$rc" = 77 ] && exit 77
  if [ "$rc" != 0 ]; then
    echo "repeat.sh: FAILED: run $i of $count (status $rc)"
    exit 1
  fi
done
echo "repeat.sh: ok ($count runs)"
