#!/usr/bin/env bash
# tests/gasnet-tests/identity_smp.sh -- test ref_par_smp_identity: the
# reference suite against libgex's smp identity (the installed
# include/smp-conduit/smp-par.mak, as a single-node runtime builds with it)
# next to the ofi identity that the rest of the stage uses.
#
# usage: identity_smp.sh <workdir> <suite> <python3>
#
# 1. Every program, built by build.sh in par mode with smp-par.mak into
#    <workdir>/par-smp: each one that compiled against ofi-par.mak (the
#    ref_par fixture's <workdir>/par/status) must compile here too, with no
#    warning located in libgex's installed headers.
# 2. A few self-checking programs run under the smp identity's launcher,
#    gasnetrun_smp -n 2: each must exit 0 and print no line with ERROR (as
#    the reference's harness judges a run) and say "done".
set -u
work=$1 suite=$2 python=$3
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/build.sh" par "$work" "$suite" "$python" smp || exit 1

fail=0 checked=0
for st in "$work"/par/status/*; do
  p=$(basename "$st")
  grep -q '^compiled=1' "$st" || continue # its own ref_par_<prog>_compile test reports it
  checked=$((checked + 1))
  s=$work/par-smp/status/$p
  if ! grep -q '^compiled=1' "$s" 2>/dev/null; then
    echo "FAIL: $p compiles with ofi-par.mak but not with smp-par.mak (log: $work/par-smp/logs/$p.log)"
    fail=1
  elif ! grep -q '^header_warnings=0' "$s"; then
    echo "FAIL: $p: warnings located in libgex's headers with smp-par.mak (log: $work/par-smp/logs/$p.log)"
    fail=1
  fi
done
if [ "$checked" -eq 0 ]; then
  echo "FAIL: no program compiled against ofi-par.mak to compare with ($work/par/status)"
  exit 1
fi
echo "smp identity: $checked programs checked against their ofi build"

for p in testgasnet testam testcoll testteam testratomic; do
  exe=$work/par-smp/obj/$p/$p
  [ -x "$exe" ] || continue # reported above
  out=$(timeout 120 "$work/prefix/bin/gasnetrun_smp" -n 2 "$exe" 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ] || grep -q ERROR <<<"$out" || ! grep -q 'done' <<<"$out"; then
    echo "FAIL: gasnetrun_smp -n 2 $p: exit status $rc"
    tail -20 <<<"$out"
    fail=1
  else
    echo "ok: gasnetrun_smp -n 2 $p"
  fi
done
exit $fail
