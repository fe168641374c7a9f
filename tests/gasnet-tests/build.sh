#!/usr/bin/env bash
# tests/gasnet-tests/build.sh -- fixture of the gasnet-tests stage: build every
# program of the reference suite in one thread mode against the installed
# libgex, the way the reference's tests Makefile builds it.
#
# usage: build.sh <mode> <workdir> <suite> <python3> [<conduit>]
#
# <conduit> (default ofi) names the installed identity whose fragment the
# programs are built with: ofi into <workdir>/<mode>, any other into
# <workdir>/<mode>-<conduit> (identity_smp.sh builds with smp).
# <workdir>/<mode>/Makefile.ref is Makefile.in with its @...@ placeholders
# substituted (<workdir>/makefile.sed, written by CMake).  Not "Makefile":
# Makefile.in's own rule for "Makefile" would run the reference's
# config.status; and no name starting with "test" (its test% rule would try
# to remake it).  Each program is
# built by its own "make -f Makefile.ref configfile=<prefix>/include/ofi-conduit/
# ofi-<mode>.mak <prog>" in obj/<prog>/ (its log in logs/<prog>.log), two at a
# time and past failures (make -k -j2 over a small wrapper makefile), with
# MANUAL_CFLAGS/MANUAL_CXXFLAGS="-Wall -Wextra".  status/<prog> records:
#   compiled=1|0  rc=<make status>  warnings=<n>  header_warnings=<n>
# header_warnings counts warnings located in libgex's installed headers.
# The fixture fails only when the machinery fails, not when programs do:
# each program has its own ref_<mode>_<prog>_compile test.
set -u
mode=$1 work=$2 suite=$3 python=$4 conduit=${5:-ofi}
prefix=$work/prefix
configfile=$prefix/include/$conduit-conduit/$conduit-$mode.mak
d=$work/$mode
[ "$conduit" = ofi ] || d=$work/$mode-$conduit
start=$SECONDS

[ -f "$configfile" ] || { echo "FAIL: $configfile is missing (did ref_install run?)"; exit 1; }
rm -rf "$d"
mkdir -p "$d/obj" "$d/logs" "$d/status" "$d/run"
sed -f "$work/makefile.sed" "$suite/Makefile.in" >"$d/Makefile.ref" || exit 1
left=$(grep -o '@[A-Za-z_]*@' "$d/Makefile.ref" | sort -u | tr '\n' ' ')
if [ -n "$left" ]; then
  echo "FAIL: placeholders of Makefile.in with no substitution (add them to gasnet_tests.cmake): $left"
  exit 1
fi
progs=$("$python" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["programs"][sys.argv[2]]))' \
        "$work/plan.json" "$mode") || exit 1

# The wrapper: one sub-make per program, in a directory of its own (programs
# share object names such as delay.o), output to the program's log.
cat >"$d/build.mk" <<MK
PROGS = $progs
STAMPS = \$(PROGS:%=%.stamp)
all: \$(STAMPS)
\$(STAMPS): %.stamp:
	@mkdir -p obj/\$* && cd obj/\$* && \\
	  \$(MAKE) -f ../../Makefile.ref configfile=$configfile \\
	    MANUAL_CFLAGS="-Wall -Wextra" MANUAL_CXXFLAGS="-Wall -Wextra" \$* \\
	    >../../logs/\$*.log 2>&1; echo "rc=\$\$?" >../../status/\$*
.PHONY: all \$(STAMPS)
MK
(cd "$d" && make -k -j2 -f build.mk >"$d/build.log" 2>&1) || { cat "$d/build.log"; exit 1; }

ok=0 total=0 hw_progs=""
for p in $progs; do
  total=$((total + 1))
  log=$d/logs/$p.log st=$d/status/$p
  rc=$(sed -n 's/^rc=//p' "$st" 2>/dev/null)
  compiled=0
  if [ "$rc" = 0 ] && [ -x "$d/obj/$p/$p" ]; then compiled=1; ok=$((ok + 1)); fi
  warnings=$(grep -c ': warning:' "$log" 2>/dev/null)
  header_warnings=$(awk -v p="$prefix/include/" 'index($0, p) == 1 && /: warning:/' "$log" | wc -l)
  [ "$header_warnings" -gt 0 ] && hw_progs="$hw_progs $p"
  printf 'compiled=%s\nrc=%s\nwarnings=%s\nheader_warnings=%s\n' \
    "$compiled" "${rc:-none}" "${warnings:-0}" "$header_warnings" >"$st"
done
echo "gasnet-tests ($mode, $conduit): $ok of $total programs compiled against $prefix in $((SECONDS - start)) s"
[ -z "$hw_progs" ] || echo "gasnet-tests ($mode, $conduit): warnings from libgex's headers in:$hw_progs"
failed=""
for p in $progs; do grep -q '^compiled=0' "$d/status/$p" && failed="$failed $p"; done
[ -z "$failed" ] || echo "gasnet-tests ($mode, $conduit): did not compile:$failed"
exit 0
