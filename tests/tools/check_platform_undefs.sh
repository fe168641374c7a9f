#!/usr/bin/env bash
# tests/tools/check_platform_undefs.sh HEADER
# Every macro gasnet_portable_platform.h defines must also be in its #undef
# list, or a newer copy could not replace an older one cleanly.
set -u
hdr=$1
defined=$(grep -E '^[[:space:]]*#[[:space:]]*define[[:space:]]+PLATFORM_' "$hdr" |
          sed -E 's/^[[:space:]]*#[[:space:]]*define[[:space:]]+([A-Za-z0-9_]+).*/\1/' | sort -u)
undefined=$(grep -E '^[[:space:]]*#[[:space:]]*undef[[:space:]]+PLATFORM_' "$hdr" |
            sed -E 's/^[[:space:]]*#[[:space:]]*undef[[:space:]]+([A-Za-z0-9_]+).*/\1/' | sort -u)
missing=$(comm -23 <(echo "$defined") <(echo "$undefined"))
n=$(echo "$defined" | wc -l)
if [ -n "$missing" ]; then
  echo "FAIL: defined but never #undef'd: $missing"
  exit 1
fi
echo "PASS all $n PLATFORM_ macros of $hdr are in its #undef list"
