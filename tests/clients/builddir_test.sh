#!/usr/bin/env bash
# tests/clients/builddir_test.sh -- the GASNet build directory of the libgex
# build (build/gasnet), asked what UPC++'s configure --with-gasnet=DIR
# --enable-single=opt asks of a GASNet build directory, the way it asks:
#
#   1. DIR/gasnet_config.h exists, and grep finds
#      GASNETI_EX_SPEC_VERSION_MAJOR/MINOR (spec 0.14 or later needed);
#   2. make -C DIR echovar VARNAME=CONDUITS, eval'ed;
#   3. TOP_SRCDIR = S read from DIR/Makefile, S/other/gasnet_portable_platform.h
#      included by the C and the C++ compiler, their families compared;
#   4. CONFIG_FILES=out:in DIR/config.status fills a template;
#   5. DIR/<conduit>-conduit/<conduit>-{seq,par}.mak included for every
#      conduit: the variables UPC++ reads are defined, a client builds with
#      them and runs from the build tree (gasnetrun_ofi -n 2, and the smp
#      client alone with GASNET_PSHM_NODES=2);
#   6. UPC++'s upcxx-run, with GASNET_PREFIX=DIR, looks for the spawner
#      gasnetrun_<conduit> in DIR/bin, then DIR/<conduit>-conduit/contrib
#      (udp: amudprun in DIR/bin, then DIR/other/amudp): both must hold a
#      working one (a job runs through each); the conduit
#      lookup of the build directory's upcxx-run finds one name in a
#      program of two units;
#   7. make -C DIR all, then make -C DIR install prefix=P and the layout of P;
#   8. make -C DIR clean removes nothing.
#
# usage: builddir_test.sh <build dir> <token>
set -u
build=$1 token=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=$build/gasnet
work=$(mktemp -d "$build/builddir-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "builddir_test: FAIL: $*"; exit 1; }
step() { echo "builddir_test: $*"; }
mk() { make --no-print-directory "$@"; }

# ---- 1. recognised by gasnet_config.h; the spec version ----
[ -f "$dir/gasnet_config.h" ] || fail "$dir/gasnet_config.h is missing"
define() { sed -n "s/^#define $1 //p" "$dir/gasnet_config.h"; }
major=$(define GASNETI_EX_SPEC_VERSION_MAJOR) minor=$(define GASNETI_EX_SPEC_VERSION_MINOR)
step "GASNETI_EX_SPEC_VERSION_MAJOR=$major GASNETI_EX_SPEC_VERSION_MINOR=$minor"
[ "$major.$minor" = "0.19" ] || fail "spec version $major.$minor, expected 0.19"
[ "$major" -gt 0 ] || [ "$minor" -ge 14 ] || fail "spec version below 0.14"
for m in GASNETI_RELEASE_VERSION GASNETI_RELEASE_VERSION_MAJOR GASNET_RELEASE_VERSION_MAJOR \
         GASNETI_CONDUITS GASNETI_CONFIGURE_ARGS; do
  [ -n "$(define $m)" ] || fail "gasnet_config.h does not define $m"
done
[ "$(define GASNETI_RELEASE_VERSION)" = \
  "$(define GASNETI_RELEASE_VERSION_MAJOR).$(define GASNETI_RELEASE_VERSION_MINOR).$(define GASNETI_RELEASE_VERSION_PATCH)" ] ||
  fail "GASNETI_RELEASE_VERSION disagrees with its parts"

# ---- 2. the conduits ----
echovar=$(mk -C "$dir" echovar VARNAME=CONDUITS) || fail "make echovar VARNAME=CONDUITS"
step "make -C DIR echovar VARNAME=CONDUITS: $echovar"
[ "$(make -C "$dir" echovar VARNAME=CONDUITS | grep -c '^CONDUITS=')" = 1 ] ||
  fail "make -C DIR echovar does not print one CONDUITS= line"
CONDUITS=
eval "$echovar"
[ -n "$CONDUITS" ] || fail "echovar VARNAME=CONDUITS set nothing"
for c in $CONDUITS; do
  case " smp udp mpi ibv aries ucx ofi " in *" $c "*) ;; *) fail "conduit '$c' is not one UPC++ knows" ;; esac
done
case " $CONDUITS " in *" ofi "*) ;; *) fail "no ofi in CONDUITS" ;; esac
case " $CONDUITS " in *" smp "*) ;; *) fail "no smp in CONDUITS" ;; esac
# UPC++ makes the last conduit listed its default network: the network one.
[ "${CONDUITS##* }" = ofi ] || fail "CONDUITS=\"$CONDUITS\" does not end with ofi (UPC++'s default network)"
[ "$(define GASNETI_CONDUITS)" = "\"$CONDUITS\"" ] || fail "GASNETI_CONDUITS disagrees with CONDUITS"

# ---- 3. TOP_SRCDIR and the compilers' families ----
srcdir=$(sed -n 's/^TOP_SRCDIR *= *//p' "$dir/Makefile")
step "TOP_SRCDIR = $srcdir"
[ -f "$srcdir/other/gasnet_portable_platform.h" ] || fail "no $srcdir/other/gasnet_portable_platform.h"
var() { # <fragment> <variable>
  printf 'include %s\nv:\n\t@echo $(%s)\n' "$1" "$2" | mk -f - v
}
frag=$dir/ofi-conduit/ofi-par.mak
cc=$(var "$frag" GASNET_CC) cxx=$(var "$frag" GASNET_CXX)
cat >"$work/family.c" <<EOT
#include "$srcdir/other/gasnet_portable_platform.h"
#include <stdio.h>
#define STR_(x) #x
#define STR(x) STR_(x)
int main(void) { printf("%d %s\\n", PLATFORM_COMPILER_FAMILYID, STR(PLATFORM_COMPILER_FAMILYNAME)); return 0; }
EOT
cp "$work/family.c" "$work/family.cc"
$cc -o "$work/family-c" "$work/family.c" || fail "$cc cannot compile with other/gasnet_portable_platform.h"
cfam=$("$work/family-c")
step "C compiler $cc: family $cfam"
if [ -n "$cxx" ]; then
  $cxx -o "$work/family-cxx" "$work/family.cc" || fail "$cxx cannot compile with other/gasnet_portable_platform.h"
  cxxfam=$("$work/family-cxx")
  step "C++ compiler $cxx: family $cxxfam"
  [ "${cfam%% *}" = "${cxxfam%% *}" ] || fail "the C and C++ compilers are of different families"
else
  step "SKIP: no C++ compiler in the fragments: the C++ family is not compared"
  cxxfam="0 UNKNOWN"
fi

# ---- 4. config.status ----
cat >"$work/t.in" <<'EOT'
PERL=@PERL@
CONDUITS=@CONDUITS@
EXESUFFIX=[@EXESUFFIX@]
CC_FAMILY=@CC_FAMILY@ CXX_FAMILY=@CXX_FAMILY@
CC_SUBFAMILY=@CC_SUBFAMILY@ CXX_SUBFAMILY=@CXX_SUBFAMILY@
GASNET_THREAD_DEFINES=@GASNET_THREAD_DEFINES@
GASNET_THREAD_LIBS=@GASNET_THREAD_LIBS@
UNKNOWN=@NOT_A_GASNET_VARIABLE@
EOT
printf 'second=@CONDUITS@\n' >"$work/t2.in"
(cd "$work" && CONFIG_FILES="t.out:t.in t2.out:t.in:t2.in" "$dir/config.status") ||
  fail "CONFIG_FILES=out:in DIR/config.status"
cat "$work/t.out"
perl=$(sed -n 's/^PERL=//p' "$work/t.out")
[ -x "$perl" ] || [ "$perl" = perl ] || fail "@PERL@ is '$perl'"
grep -qx "CONDUITS=$CONDUITS" "$work/t.out" || fail "@CONDUITS@ is not '$CONDUITS'"
grep -qx 'EXESUFFIX=\[\]' "$work/t.out" || fail "@EXESUFFIX@ is not empty"
grep -q "^CC_FAMILY=${cfam#* } " "$work/t.out" || fail "@CC_FAMILY@ is not ${cfam#* }"
[ -z "$cxx" ] || grep -q " CXX_FAMILY=${cxxfam#* }\$" "$work/t.out" || fail "@CXX_FAMILY@ is not ${cxxfam#* }"
grep -qx 'CC_SUBFAMILY=NONE CXX_SUBFAMILY=NONE' "$work/t.out" || fail "@CC_SUBFAMILY@/@CXX_SUBFAMILY@"
grep -qx 'GASNET_THREAD_DEFINES=-D_REENTRANT' "$work/t.out" || fail "@GASNET_THREAD_DEFINES@"
grep -qx 'GASNET_THREAD_LIBS=-lpthread' "$work/t.out" || fail "@GASNET_THREAD_LIBS@"
grep -qx 'UNKNOWN=@NOT_A_GASNET_VARIABLE@' "$work/t.out" || fail "an unknown placeholder was changed"
[ "$(tail -1 "$work/t2.out")" = "second=$CONDUITS" ] && [ "$(wc -l <"$work/t2.out")" = 9 ] ||
  fail "out:in1:in2 is not the two inputs concatenated"

# ---- 5. the fragments of every conduit, and a client from the build tree ----
cp "$here/../install/client.c" "$work/client.c"
cp "$here/../install/client.c" "$work/client.cc"
cp "$here/../install/client_part.c" "$work/client_part.c"
for c in $CONDUITS; do
  for m in seq par; do
    f=$dir/$c-conduit/$c-$m.mak
    [ -f "$f" ] || fail "no $f"
    mk -C "$dir/$c-conduit" "$c-$m.mak" >/dev/null || fail "make -C DIR/$c-conduit $c-$m.mak"
    out=$(mk -s -C "$work" -f "$here/../install/Makefile.client" GASNET_MAK="$f" CONDUIT=$c MODE=$m checkvars) ||
      fail "the variables of $f"
    echo "$out" | grep -q "^GASNET_DEFINES=.*-DGASNET_${m^^}\b" || fail "$f: GASNET_DEFINES lacks -DGASNET_${m^^}"
  done
done
for cm in ofi:par smp:seq udp:seq; do
  c=${cm%:*} m=${cm#*:}
  step "build the client with DIR/$c-conduit/$c-$m.mak"
  mk -s -C "$work" -f "$here/../install/Makefile.client" GASNET_MAK="$dir/$c-conduit/$c-$m.mak" \
    CONDUIT=$c MODE=$m all MANUAL_CFLAGS="-Wall -Wextra -Werror" MANUAL_CXXFLAGS="-Wall -Wextra -Werror" ||
    fail "building the client with DIR/$c-conduit/$c-$m.mak"
done
run() { # <ranks> <command...>
  local n=$1; shift
  step "run: $*"
  "$@" >"$work/run.out" 2>&1
  local rc=$?
  cat "$work/run.out"
  [ "$rc" = 0 ] || fail "status $rc: $*"
  [ "$(grep -c 'moved .* bytes, all correct' "$work/run.out")" = "$n" ] ||
    fail "not every one of the $n ranks reported its bytes correct"
}
run 2 "$build/bin/gasnetrun_ofi" -n 2 "$work/client-ofi-par" "$token"
run 2 "$build/bin/gasnetrun_ofi" -n 2 "$work/clientxx-ofi-par" "$token"
run 2 env GASNET_PSHM_NODES=2 GASNET_SPAWN_VERBOSE=1 "$work/client-smp-seq" "$token"
grep -q "^libgex: GASNET_PSHM_NODES=2: running $(readlink -f "$build/bin/gexrun") -n 2 " "$work/run.out" ||
  fail "the smp client of the build tree did not run the build tree's gexrun"

# ---- 6. the spawner where upcxx-run looks for it ----
for c in $CONDUITS; do
  if [ "$c" = udp ]; then # (udp's spawner is amudprun, under other/amudp in a build directory)
    spawner=amudprun sdirs=("$dir/bin" "$dir/other/amudp")
  else
    spawner=gasnetrun_$c sdirs=("$dir/bin" "$dir/$c-conduit/contrib")
  fi
  for sdir in "${sdirs[@]}"; do
    [ -x "$sdir/$spawner" ] || fail "no executable $spawner in $sdir (upcxx-run looks there)"
  done
done
# The upcxx-run of UPC++'s build directory asks the installed one for the
# executable's fields between '$' signs and hands every GASNetConduitName
# among them to make as the conduit: there must be one, in a program of
# two units that include gasnetex.h.
for cm in ofi:OFI smp:SMP udp:UDP; do
  c=${cm%:*} name=${cm#*:} m=par
  [ "$c" != ofi ] && m=seq
  names=$(tr '$' '\n' <"$work/client2-$c-$m" | grep -a '^GASNetConduitName:' | tr -s ' ' | sed 's/ *$//')
  [ "$names" = "GASNetConduitName: $name" ] ||
    fail "client2-$c-$m: the conduit lookup finds '$(echo $names)', expected one GASNetConduitName: $name"
done
step "conduit lookup of the build directory's upcxx-run: one name per program"
run 2 "$dir/bin/gasnetrun_ofi" -n 2 "$work/client-ofi-par" "$token"
run 2 "$dir/ofi-conduit/contrib/gasnetrun_ofi" -n 2 "$work/clientxx-ofi-par" "$token"
run 2 "$dir/other/amudp/amudprun" -np 2 "$work/client2-udp-seq" "$token"

# ---- 7. make all, make install prefix=P ----
step "make -C DIR all"
mk -C "$dir" all >"$work/all.log" 2>&1 || { cat "$work/all.log"; fail "make -C DIR all"; }
prefix=$work/P
step "make -C DIR install prefix=$prefix"
mk -C "$dir" install prefix="$prefix" >"$work/install.log" 2>&1 || {
  cat "$work/install.log"; fail "make -C DIR install prefix=$prefix"; }
[ -d "$prefix/lib" ] || fail "no $prefix/lib"
for c in $CONDUITS; do
  for m in seq par; do
    [ -f "$prefix/include/$c-conduit/$c-$m.mak" ] || fail "no $prefix/include/$c-conduit/$c-$m.mak"
    grep -q "^GASNET_INCLUDES = -I$prefix/include " "$prefix/include/$c-conduit/$c-$m.mak" ||
      fail "$prefix/include/$c-conduit/$c-$m.mak does not describe $prefix"
    ls "$prefix"/lib*/libgasnet-$c-$m.* "$prefix"/lib/*/libgasnet-$c-$m.* 2>/dev/null | grep -q . ||
      fail "no libgasnet-$c-$m under $prefix/lib"
  done
  spawner=gasnetrun_$c
  [ "$c" = udp ] && spawner=amudprun
  [ -x "$prefix/bin/$spawner" ] || fail "no executable $prefix/bin/$spawner"
done
[ -f "$prefix/include/gasnet_config.h" ] || fail "no $prefix/include/gasnet_config.h"
step "installed: $(cd "$prefix" && ls -d include/*-conduit/*-*.mak bin/gasnetrun_* bin/amudprun | tr '\n' ' ')"

# ---- 8. make clean ----
mk -C "$dir" clean >/dev/null || fail "make -C DIR clean"
[ -f "$build/libgasnet-ofi-par.so" ] || fail "make -C DIR clean removed the libraries"
step "ok"
