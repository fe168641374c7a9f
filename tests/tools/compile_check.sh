#!/usr/bin/env bash
# tests/tools/compile_check.sh [--needs-others] -- COMPILER ARGS...
# Compiles one translation unit (the arguments are a complete compiler
# command) and passes if it compiles.
#
# --needs-others: the unit also needs names that other parts of libgex
# provide (the reference test.h uses GASNet-1 barriers, configuration
# strings, ...).  When every error is about such a name -- an identifier
# outside the tools' gasnett_/GASNETT_/PLATFORM_ prefixes -- the test is
# skipped (exit 77) and lists them; an error about a tools name, or one
# naming no identifier, fails.
set -u
others=0
if [ "${1:-}" = "--needs-others" ]; then others=1; shift; fi
[ "${1:-}" = "--" ] && shift
out=$("$@" 2>&1)
rc=$?
[ -n "$out" ] && echo "$out"
if [ $rc = 0 ]; then
  echo "PASS compiled: $*"
  exit 0
fi
if [ $others = 1 ]; then
  # (a compiler's "did you mean ..." suggestion is not a missing name)
  errors=$(echo "$out" | grep -E '(error|Error):' | sed -E 's/; did you mean .*//' || true)
  names=$(echo "$errors" | grep -oE "[‘'][A-Za-z_][A-Za-z0-9_]*[’']" | tr -d "‘’'" | sort -u)
  unexplained=$(echo "$errors" | grep -vE "[‘'][A-Za-z_][A-Za-z0-9_]*[’']" || true)
  tools_names=$(echo "$names" | grep -E '^(gasnett_|GASNETT_|PLATFORM_|gexti_)' || true)
  if [ -n "$errors" ] && [ -z "$unexplained" ] && [ -z "$tools_names" ]; then
    echo "SKIP: needs names not (yet) in libgex, none of them tools names: $(echo $names)"
    exit 77
  fi
  [ -n "$tools_names" ] && echo "FAIL: errors about tools names: $(echo $tools_names)"
fi
echo "FAIL: did not compile: $*"
exit 1
