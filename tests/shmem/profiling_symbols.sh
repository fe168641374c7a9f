#!/usr/bin/env bash
# tests/shmem/profiling_symbols.sh LIB... -- the profiling interface's
# symbols (docs/openshmem.md, "Profiling") in each library given, shared or
# static: every OpenSHMEM call is a weak NAME and a global pNAME at the same
# address, and nothing else the library defines globally is outside its
# own prefixes (gexs*).  Fails on a call with one name only, and on a
# library with fewer than 1500 calls (the check would prove nothing).
set -u
fail=0
for lib in "$@"; do
  # Per object of an archive the addresses are per object, so the pairs are
  # made within each object: nm prints "name.o:" lines for archives.
  case "$lib" in *.a) dyn= ;; *) dyn=-D ;; esac
  out=$(nm --defined-only $dyn "$lib" | awk -v lib="$lib" '
    /:$/ { obj = $0; next }
    NF == 3 && ($2 == "T" || $2 == "W") {
      key = obj SUBSEP $3; addr[key] = $1; kind[key] = $2; names[++n] = key
    }
    END {
      pairs = 0; bad = 0
      for (i = 1; i <= n; i++) {
        key = names[i]; split(key, kp, SUBSEP); o = kp[1]; s = kp[2]
        if (s ~ /^gexs/) continue
        if (kind[key] == "W") {
          pk = o SUBSEP "p" s
          if (!(pk in addr) || kind[pk] != "T" || addr[pk] != addr[key]) {
            print "FAIL " lib ": weak " s " has no global p" s " at its address"; bad++
          } else pairs++
        } else if (s ~ /^p/) {
          wk = o SUBSEP substr(s, 2)
          if (!(wk in addr) || kind[wk] != "W") { print "FAIL " lib ": " s " has no weak " substr(s, 2); bad++ }
        } else { print "FAIL " lib ": " s " is a strong global name (a profiling library could not replace it)"; bad++ }
      }
      print "pairs " pairs " bad " bad
    }')
  echo "$out" | grep '^FAIL' | head -20
  pairs=$(echo "$out" | sed -n 's/^pairs \([0-9]*\) bad \([0-9]*\)$/\1/p')
  bad=$(echo "$out" | sed -n 's/^pairs \([0-9]*\) bad \([0-9]*\)$/\2/p')
  if [ "${bad:-1}" != 0 ] || [ "${pairs:-0}" -lt 1500 ]; then
    echo "FAIL $lib: $pairs calls with both names, $bad faults"; fail=1
  else
    echo "ok $lib: $pairs calls, each a weak shmem_ name and a pshmem_ one"
  fi
done
[ $fail = 0 ] && echo "PASS profiling_symbols"
exit $fail
