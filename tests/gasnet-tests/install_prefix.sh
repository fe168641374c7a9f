#!/usr/bin/env bash
# tests/gasnet-tests/install_prefix.sh -- fixture of the gasnet-tests stage:
# install the just-built libgex into a fresh prefix, as a user would, and
# write the GASNet build directory that the reference's tests Makefile
# expects (TOP_BUILDDIR, describing that prefix) and its source directory
# (TOP_SRCDIR: a directory whose tests/ is the reference suite).
# usage: install_prefix.sh <cmake> <build dir> <workdir> <suite> <layout config> <cmake dir>
set -eu
cmake=$1 build=$2 work=$3 suite=$4 config=$5 cmakedir=$6
prefix=$work/prefix
rm -rf "$prefix" "$work/gasnet"
mkdir -p "$work/src"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
  cat "$work/install.log"; echo "FAIL: cmake --install $build --prefix $prefix"; exit 1; }
for f in include/gasnetex.h include/ofi-conduit/ofi-seq.mak include/ofi-conduit/ofi-par.mak \
         bin/gasnetrun_ofi bin/gexrun; do
  [ -e "$prefix/$f" ] || { echo "FAIL: the install has no $f"; exit 1; }
done
echo "installed libgex into $prefix ($(grep -c 'Installing:' "$work/install.log") files)"
ln -sfn "$suite" "$work/src/tests"
# Three programs (testgasnet, testcxx, testlegacy) include testam.h from
# TOP_SRCDIR/other/amx: beside tests/ in a GASNet source tree (the release
# tarball), or copied into the suite's own directory.
rm -rf "$work/src/other"
if [ -f "$suite/../other/amx/testam.h" ]; then
  mkdir -p "$work/src/other/amx"
  ln -sfn "$(cd "$suite/../other/amx" && pwd)/testam.h" "$work/src/other/amx/testam.h"
elif [ -f "$suite/testam.h" ]; then
  mkdir -p "$work/src/other/amx"
  ln -sfn "$(cd "$suite" && pwd)/testam.h" "$work/src/other/amx/testam.h"
else
  echo "note: no testam.h beside the suite (../other/amx) or in it: testgasnet, testcxx and testlegacy will not compile"
fi
"$cmake" -DCONFIG="$config" -DPREFIX="$prefix" -DOUT="$work/gasnet" -DTOP_SRCDIR="$work/src" \
  -P "$cmakedir/gasnet_fragments_main.cmake"
echo "GASNet build directory: $work/gasnet (TOP_SRCDIR $work/src, tests -> $suite)"
