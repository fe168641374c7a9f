#!/usr/bin/env bash
# tests/clients/cmake_client.sh -- a CMake client that finds the installed
# libgex the way Legion/Realm's FindGASNet.cmake finds GASNet-EX
# (tests/clients/cmake_project), links gasnet-ofi-par (and gasnet-smp-par),
# and runs: under gasnetrun_ofi -n 2 and -n 4 with every peer reached
# through the network, and the smp build alone with GASNET_PSHM_NODES=4.
# Each rank checks the bytes it moved; the job's status is checked.
#
# usage: cmake_client.sh <cmake> <build dir> <token>
set -u
cmake=$1 build=$2 token=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "$build/cmake-client.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "cmake_client: FAIL: $*"; exit 1; }
step() { echo "cmake_client: $*"; }

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
  cat "$work/install.log"; fail "cmake --install"; }

for c in ofi smp; do
  step "configure and build the project with -DGASNET_ROOT=$prefix -DGASNet_CONDUIT=$c"
  "$cmake" -S "$here/cmake_project" -B "$work/build-$c" -DGASNET_ROOT="$prefix" -DGASNet_CONDUIT=$c \
    -DCLIENT_SOURCE="$here/../install/client.c" >"$work/configure-$c.log" 2>&1 || {
    cat "$work/configure-$c.log"; fail "configuring the CMake client ($c)"; }
  grep -E "GASNet: conduits|Found GASNet" "$work/configure-$c.log"
  grep -q "GASNet: conduits ofi;smp;udp; using $c-par: $prefix/lib[^ ]*/libgasnet-$c-par\\.\\(so\\|a\\)" \
    "$work/configure-$c.log" || fail "FindGASNet did not find the three conduits and libgasnet-$c-par in $prefix"
  "$cmake" --build "$work/build-$c" >"$work/build-$c.log" 2>&1 || {
    cat "$work/build-$c.log"; fail "building the CMake client ($c)"; }
  strings "$work/build-$c/client" | grep -qxF "\$GASNetConduitName: ${c^^} \$" ||
    fail "the $c client lacks \$GASNetConduitName: ${c^^} \$"
done

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
ofi=$work/build-ofi/client smp=$work/build-smp/client
if ldd "$ofi" | grep -q libfabric; then
  net=(env GEX_SUPERNODE_MAXSIZE=1 "GEX_OFI_PROVIDER=tcp;ofi_rxm")
  run 2 0 "${net[@]}" "$prefix/bin/gasnetrun_ofi" -n 2 "$ofi" "$token"
  run 4 0 "${net[@]}" "$prefix/bin/gasnetrun_ofi" -n 4 "$ofi" "$token"
  run 4 6 "${net[@]}" "$prefix/bin/gasnetrun_ofi" -n 4 "$ofi" "$token" exit=6
else
  step "SKIP: libgex is built without libfabric: the ofi client runs on one host only"
  run 4 0 "$prefix/bin/gasnetrun_ofi" -n 4 "$ofi" "$token"
fi
run 4 0 env GASNET_PSHM_NODES=4 "$smp" "$token"
run 4 7 env GASNET_PSHM_NODES=4 "$smp" "$token" exit=7
step "ok"
