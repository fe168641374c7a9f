#!/usr/bin/env bash
# tests/install/install_test.sh -- the installed layout, used as the reference
# implementation's users use it (label install).
#
# usage: install_test.sh <cmake> <build dir> <token>
#
# Installs the build into a fresh temporary prefix, checks the files of the
# reference's layout, builds tests/install/client.c (C, and as C++) with a
# Makefile that includes <prefix>/include/<conduit>-conduit/<conduit>-<mode>.mak
# (ofi-par, smp-seq, udp-seq) and with pkg-config gasnet-ofi-par, runs the
# clients under gasnetrun_ofi (2 ranks on the host; 2 and 4 ranks with every
# peer over tcp;ofi_rxm), the smp one under gasnetrun_smp and alone with
# GASNET_PSHM_NODES=4 (it starts its ranks itself), and the udp one under
# amudprun (on the host, and with every peer over the network transport's
# default), checks the bytes they moved
# (each rank checks and reports), the job's status (also a gasnet_exit(N) of
# one rank) and the ident strings embedded in the executables.  <token> is passed to the
# clients (which ignore it) so that tests/expect.sh can find their processes.
set -u
cmake=$1 build=$2 token=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "$build/install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "install_test: FAIL: $*"; exit 1; }
step() { echo "install_test: $*"; }

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
  cat "$work/install.log"; fail "cmake --install"; }

# ---- the files of the layout ----
lib=$(sed -n 's/^libdir=//p' "$(find "$prefix" -name gasnet-ofi-par.pc -print -quit)")
[ -n "$lib" ] || fail "no lib/pkgconfig/gasnet-ofi-par.pc"
for c in ofi smp udp; do
  for m in seq par; do
    for f in "$lib/libgasnet-$c-$m.a" "$lib/libgasnet-$c-$m.so" "$lib/pkgconfig/gasnet-$c-$m.pc" \
             "$prefix/include/$c-conduit/$c-$m.mak"; do
      [ -f "$f" ] || fail "missing $f"
    done
    grep -q "^GASNET_DEFINES = .*-DGASNET_${m^^}\b" "$prefix/include/$c-conduit/$c-$m.mak" ||
      fail "$c-$m.mak: GASNET_DEFINES lacks -DGASNET_${m^^}"
    grep -q "^GASNET_INCLUDES = -I$prefix/include -I$prefix/include/$c-conduit\$" \
      "$prefix/include/$c-conduit/$c-$m.mak" || fail "$c-$m.mak: GASNET_INCLUDES is not for $prefix"
  done
  for m in seq par; do
    grep -qx 'GASNET_LD_REQUIRES_MPI = 0' "$prefix/include/$c-conduit/$c-$m.mak" ||
      fail "$c-$m.mak: no GASNET_LD_REQUIRES_MPI = 0"
  done
  # Realm's FindGASNet.cmake reads every *.mak here as <conduit>-<mode>.mak
  for f in "$prefix/include/$c-conduit/"*.mak; do
    case "${f##*/}" in
      "$c-seq.mak" | "$c-par.mak") ;;
      *) fail "$f: a *.mak in a conduit directory other than $c-{seq,par}.mak" ;;
    esac
  done
  [ -f "$prefix/include/$c-conduit/gex_conduit.h" ] || fail "missing $c-conduit/gex_conduit.h"
  spawner=gasnetrun_$c
  [ "$c" = udp ] && spawner=amudprun # (the reference has no gasnetrun_udp)
  [ -x "$prefix/bin/$spawner" ] || fail "missing bin/$spawner"
done
[ ! -e "$prefix/bin/gasnetrun_udp" ] || fail "bin/gasnetrun_udp is installed (the udp spawner is amudprun)"
for m in seq par; do # the tools fragments come with the tools libraries
  if [ -f "$lib/libgasnet_tools-$m.a" ]; then
    [ -f "$prefix/include/gasnet_tools-$m.mak" ] && [ -f "$lib/pkgconfig/gasnet_tools-$m.pc" ] ||
      fail "libgasnet_tools-$m.a is installed without gasnet_tools-$m.mak / .pc"
  else
    step "no libgasnet_tools-$m.a in this build: its fragments are not installed"
  fi
done
grep -q "Installing: $lib/pkgconfig/gasnet-ofi-par.pc" "$work/install.log" ||
  fail "cmake --install does not report the .pc files"

# ---- clients built from the makefile fragments ----
cp "$here/client.c" "$work/client.c"
cp "$here/client.c" "$work/client.cc"
cp "$here/client_part.c" "$work/client_part.c"
for cm in ofi:par smp:seq udp:seq; do
  c=${cm%:*} m=${cm#*:}
  step "make -f Makefile.client CONDUIT=$c MODE=$m (includes $c-$m.mak)"
  make -s -C "$work" -f "$here/Makefile.client" prefix="$prefix" CONDUIT=$c MODE=$m checkvars all \
    MANUAL_CFLAGS="-Wall -Wextra -Werror" MANUAL_CXXFLAGS="-Wall -Wextra -Werror" ||
    fail "building the client with $c-$m.mak"
done

# ---- which implementation this is (UPC++'s 'upcxx --version' prints it) ----
grep -Eqx 'libgex-[0-9]+\.[0-9]+\.[0-9]+(-g[0-9a-f]+)?' "$prefix/share/doc/GASNet/version.git" ||
  fail "share/doc/GASNet/version.git: not one line libgex-<release>[-g<commit>]"

# ---- a client built with pkg-config ----
export PKG_CONFIG_PATH=$lib/pkgconfig
pcc=$(pkg-config --variable=GASNET_CC gasnet-ofi-par) || fail "pkg-config gasnet-ofi-par"
step "pkg-config gasnet-ofi-par: $pcc $(pkg-config --cflags gasnet-ofi-par) ... $(pkg-config --libs gasnet-ofi-par)"
# shellcheck disable=SC2046
$pcc $(pkg-config --cflags gasnet-ofi-par) -Wall -Wextra -Werror -o "$work/client-pc" "$work/client.c" \
  $(pkg-config --libs gasnet-ofi-par) || fail "building the client with pkg-config gasnet-ofi-par"

# ---- ident strings ----
ident() { # <exe> <conduit> <model>
  strings "$1" | grep -qxF "\$GASNetConduitName: $2 \$" || fail "$1 lacks \$GASNetConduitName: $2 \$"
  strings "$1" | grep -qxF "\$GASNetThreadModel: GASNET_$3 \$" || fail "$1 lacks \$GASNetThreadModel: GASNET_$3 \$"
  [ "$(strings "$1" | grep -c 'GASNetConduitName')" = 1 ] || fail "$1 carries more than one conduit name"
}
ident "$work/client-ofi-par" OFI PAR
ident "$work/clientxx-ofi-par" OFI PAR
ident "$work/client-smp-seq" SMP SEQ
ident "$work/client2-ofi-par" OFI PAR
ident "$work/client2-smp-seq" SMP SEQ
ident "$work/client-pc" OFI PAR
ident "$work/client-udp-seq" UDP SEQ
ident "$work/clientxx-udp-seq" UDP SEQ
# Three translation units that include gasnetex.h (C, C++, and C again with
# -flto, where the compiler joins units into one object), one conduit name:
# UPC++'s build-directory upcxx-run hands every match to make.
printf '#include <gasnetex.h>\nint gexi_test_part_%s(void) { return 0; }\n' c >"$work/part_c.c"
printf '#include <gasnetex.h>\nextern "C" int gexi_test_part_%s(void) { return 0; }\n' cc >"$work/part_cc.cc"
printf '#include <gasnetex.h>\nint gexi_test_part_%s(void) { return 0; }\n' lto >"$work/part_lto.c"
cxx=$(pkg-config --variable=GASNET_CXX gasnet-ofi-par) || fail "pkg-config --variable=GASNET_CXX gasnet-ofi-par"
# shellcheck disable=SC2046
{ $pcc $(pkg-config --cflags gasnet-ofi-par) -Wall -Wextra -Werror -c -o "$work/part_c.o" "$work/part_c.c" &&
  $cxx $(pkg-config --cflags gasnet-ofi-par) -Wall -Wextra -Werror -c -o "$work/part_cc.o" "$work/part_cc.cc" &&
  $pcc $(pkg-config --cflags gasnet-ofi-par) -Wall -Wextra -Werror -flto -o "$work/client-parts" \
    "$work/client.c" "$work/part_lto.c" "$work/part_c.o" "$work/part_cc.o" $(pkg-config --libs gasnet-ofi-par) -lstdc++
} || fail "building the client of four translation units"
ident "$work/client-parts" OFI PAR
step "ident strings: OFI/PAR, SMP/SEQ, UDP/SEQ as built, once in a program of four units"

# ---- runs: every rank must report its bytes correct ----
run() { # <ranks> <expected status> <command...>
  local n=$1 want=$2; shift 2
  step "run: $*"
  "$@" >"$work/run.out" 2>&1
  local rc=$?
  cat "$work/run.out"
  [ "$rc" = "$want" ] || fail "status $rc (expected $want): $*"
  [ "$(grep -c 'moved .* bytes, all correct' "$work/run.out")" = "$n" ] ||
    fail "not every one of the $n ranks reported its bytes correct"
}
net=(env GEX_SUPERNODE_MAXSIZE=1 "GEX_OFI_PROVIDER=tcp;ofi_rxm")
run 2 0 "$prefix/bin/gasnetrun_ofi" -n 2 "$work/client-ofi-par" "$token"
run 2 0 "$prefix/bin/gasnetrun_smp" -n 2 "$work/client-smp-seq" "$token"
if [ -n "$(find "$prefix" -path '*/lib*/libgex*' -name '*fabric*' 2>/dev/null)" ] || ldd "$lib/libgasnet-ofi-par.so" | grep -q libfabric; then
  # every client with every peer reached through the network
  for c in client-ofi-par clientxx-ofi-par client-pc; do
    run 2 0 "${net[@]}" "$prefix/bin/gasnetrun_ofi" -n 2 "$work/$c" "$token"
    run 4 0 "${net[@]}" "$prefix/bin/gasnetrun_ofi" -n 4 "$work/$c" "$token"
  done
  run 4 0 "$prefix/bin/gasnetrun_ofi" -n 4 -N 2 -E GEX_OFI_PROVIDER "$work/client-pc" "$token"
  run 2 3 "${net[@]}" "$prefix/bin/gasnetrun_ofi" -n 2 "$work/client-ofi-par" "$token" exit=3
else
  step "SKIP: libgex is built without libfabric: no network runs"
  run 2 0 "$prefix/bin/gasnetrun_ofi" -n 2 "$work/clientxx-ofi-par" "$token"
  run 2 0 "$prefix/bin/gasnetrun_ofi" -n 2 "$work/client-pc" "$token"
fi

# ---- the udp identity: amudprun, as the reference's udp conduit is started ----
run 2 0 env GASNET_SPAWNFN=L "$prefix/bin/amudprun" -np 2 "$work/client-udp-seq" "$token"
run 4 0 env GEX_SUPERNODE_MAXSIZE=1 "$prefix/bin/amudprun" -np 4 "$work/clientxx-udp-seq" "$token"
run 2 4 env GEX_SUPERNODE_MAXSIZE=1 "$prefix/bin/amudprun" -spawn L -np 2 "$work/client2-udp-seq" "$token" exit=4
GASNET_SPAWN_VERBOSE=1 "$prefix/bin/amudprun" -np 2 -depth 64 "$work/client-udp-seq" "$token" >"$work/run.out" 2>&1 ||
  { cat "$work/run.out"; fail "amudprun -np 2 -depth 64 with GASNET_SPAWN_VERBOSE=1"; }
grep -q "^amudprun: running: $prefix/bin/gexrun -n 2 -- $work/client-udp-seq $token\$" "$work/run.out" ||
  { cat "$work/run.out"; fail "amudprun did not say that it runs the installed gexrun"; }
# a spawn function libgex lacks, or hosts too few for one rank each: one line, status 2
for bad in "GASNET_SPAWNFN=C" "GASNET_SPAWNFN=S GASNET_SSH_SERVERS=hostx"; do
  env $bad "$prefix/bin/amudprun" -np 2 "$work/client-udp-seq" "$token" >"$work/run.out" 2>&1
  rc=$?
  [ "$rc" = 2 ] && [ "$(wc -l <"$work/run.out")" = 1 ] && grep -q "^amudprun: " "$work/run.out" ||
    { cat "$work/run.out"; fail "amudprun with $bad: status $rc, not one line and status 2"; }
done
step "amudprun: udp clients on the host and over the network, exit status, one-line refusals"

# ---- the smp identity: the program started alone starts its ranks ----
run 4 0 env GASNET_PSHM_NODES=4 GASNET_SPAWN_VERBOSE=1 "$work/client-smp-seq" "$token"
grep -q "^libgex: GASNET_PSHM_NODES=4: running $prefix/bin/gexrun -n 4 -- $work/client-smp-seq $token\$" \
  "$work/run.out" || fail "GASNET_PSHM_NODES=4 did not run the installed gexrun with the program's arguments"
run 4 5 env GASNET_PSHM_NODES=4 "$work/client-smp-seq" "$token" exit=5
run 1 0 env GASNET_PSHM_NODES=1 "$work/client-smp-seq" "$token"
# the ofi identity ignores it (a job of one rank)
run 1 0 env GASNET_PSHM_NODES=4 "$work/client-ofi-par" "$token"

# ---- OpenSHMEM: the installed oshcc and oshrun, pkg-config gexshmem, C++ ----
cat >"$work/shmem_client.c" <<'SHMEM'
#include <shmem.h>
#include <stdio.h>
static long ring[64];
int main(int argc, char **argv) {
  (void)argc; (void)argv;
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes(), ok = 1;
  long *h = (long *)shmem_malloc(64 * sizeof(long)), src[64];
  for (int i = 0; i < 64; i++) src[i] = me * 100 + i;
  shmem_long_put(h, src, 64, (me + 1) % n);
  shmem_long_put(ring, src, 64, (me + 1) % n);
  shmem_barrier_all();
  for (int i = 0; i < 64; i++)
    ok = ok && h[i] == ((me + n - 1) % n) * 100 + i && ring[i] == h[i];
  if (ok) printf("PE %d: moved 1024 bytes, all correct\n", me);
  shmem_free(h);
  shmem_finalize();
  return ok ? 0 : 1;
}
SHMEM
"$prefix/bin/oshcc" -std=c11 -Wall -Wextra -Werror -o "$work/shmem-c" "$work/shmem_client.c" ||
  fail "oshcc of an OpenSHMEM program"
# the extensions header and the deprecated locations compile
printf '#include <shmemx.h>\n#include <mpp/shmem.h>\n#include <mpp/shmemx.h>\n#include <pshmem.h>\nint main(void) { shmem_init(); pshmem_barrier_all(); shmem_finalize(); return 0; }\n' >"$work/shmem_hdrs.c"
"$prefix/bin/oshcc" -std=c11 -Wall -Wextra -Werror -o "$work/shmem-hdrs" "$work/shmem_hdrs.c" ||
  fail "oshcc with shmemx.h, mpp/shmem.h, mpp/shmemx.h and pshmem.h"
# with CC=oshcc in its environment, as `make CC=oshcc` gives every recipe:
# one compile, not oshcc calling itself without end
timeout 120 env CC="$prefix/bin/oshcc" "$prefix/bin/oshcc" -std=c11 -Wall -Wextra -Werror \
  -o "$work/shmem-c-cc" "$work/shmem_client.c" || fail "oshcc with CC=oshcc in its environment"
run 2 0 "$prefix/bin/oshrun" -n 2 "$work/shmem-c-cc" "$token"
cp "$work/shmem_client.c" "$work/shmem_client.cc"
# shellcheck disable=SC2046
g++ -Wall -Wextra -Werror $(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags gexshmem) \
  -o "$work/shmem-cxx" "$work/shmem_client.cc" \
  $(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --libs gexshmem) -Wl,-rpath,"$lib" -lpthread -ldl ||
  fail "g++ with pkg-config gexshmem"
run 2 0 "$prefix/bin/oshrun" -n 2 "$work/shmem-c" "$token"
run 4 0 env GEX_SUPERNODE_MAXSIZE=1 "$prefix/bin/oshrun" -np 4 "$work/shmem-cxx" "$token"
step "OpenSHMEM: oshcc (also with CC=oshcc), pkg-config gexshmem (C++), oshrun on the host and over the network"
step "ok"
