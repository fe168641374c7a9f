#!/usr/bin/env bash
# tests/shm_pid_lengths.sh -- a job over libfabric's shm provider whose
# ranks' pids have different numbers of digits (9999 and 10000).  The shm
# provider's addresses are names containing the pid, so the ranks' addresses
# differ in length; every rank must still reach every other (t_rma checks
# the bytes it moves).
#
# Usage: shm_pid_lengths.sh GEXRUN T_RMA
# Needs root (it steers the next pid through /proc/sys/kernel/ns_last_pid).
# Other processes may take pids meanwhile: it tries a few times and reports
# SKIP (77) if no run straddled 10000.
set -u
gexrun=$1 prog=$2
knob=/proc/sys/kernel/ns_last_pid
if [[ $(id -u) != 0 || ! -w $knob ]]; then
  echo "SKIP: needs root to set $knob"
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for try in 1 2 3 4 5 6; do
  echo 9995 >"$knob"
  GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER=shm timeout 60 "$gexrun" -n 3 \
    sh -c 'echo "rank pid $$"; exec "$0" "$@"' "$prog" >"$out" 2>&1
  rc=$?
  pids=$(sed -n 's/^rank pid //p' "$out" | sort -n | paste -sd' ')
  short=$(sed -n 's/^rank pid //p' "$out" | awk 'length($0) == 4' | wc -l)
  long=$(sed -n 's/^rank pid //p' "$out" | awk 'length($0) == 5' | wc -l)
  if [[ $short -ge 1 && $long -ge 1 ]]; then
    if [[ $rc == 0 ]] && grep -q '^PASS' "$out"; then
      echo "PASS: ranks with pids $pids (4 and 5 digits) reached each other over shm"
      exit 0
    fi
    cat "$out"
    echo "FAIL: ranks with pids $pids (4 and 5 digits): exit status $rc"
    exit 1
  fi
done
echo "SKIP: no run got pids on both sides of 10000 (last: $pids)"
exit 77
