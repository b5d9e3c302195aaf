#!/usr/bin/env bash
# scripts/gpu-python-pack.sh INCLUDE DIR: the Python binding, packed for a
# lent GPU machine that has another Python and no LLVM 19.
#
#   INCLUDE  that machine's Python headers: a copy of the folder that
#            `python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])"`
#            names there (e.g. python3.12; on Debian and Ubuntu its
#            pyconfig.h includes <x86_64-linux-gnu/python3.X/pyconfig.h>:
#            copy that one too, into INCLUDE/../x86_64-linux-gnu/python3.X)
#   DIR      gets pkg/hpvm (the package, its extension module built against
#            INCLUDE) and llvm-root.tar.xz: libLLVM, libclang-cpp, the
#            libraries they need that a stock Ubuntu lacks, and clang's
#            builtin headers, at the paths this build looks for them.
#
# There, from the repository root:
#   xz -dc DIR/llvm-root.tar.xz | tar xf - -C /
#   LD_LIBRARY_PATH=/usr/lib/llvm-19/lib PYTHONPATH=DIR/pkg \
#     HPVM_DEVICES=cuda HPVM_TEST_DEVICE=cuda python3 -m pytest test/python
#
# The module is compiled with the same command as build/'s, with INCLUDE in
# place of this machine's Python headers, and linked with the same command.
# About 60 MB: within what a lent machine's call carries.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/gpu-python-pack.sh INCLUDE DIR" >&2; exit 2; }
INCLUDE=$(cd "$1" && pwd)
DIR=$(mkdir -p "$2" && cd "$2" && pwd)
BUILD=${HPVM_BUILD_DIR:-build}
[ -f "$INCLUDE/Python.h" ] || { echo "no Python.h in $INCLUDE" >&2; exit 1; }
VERSION=$(sed -n 's/^#define PY_VERSION *"\([0-9]*\)\.\([0-9]*\).*/\1\2/p' "$INCLUDE/patchlevel.h")
ninja -C "$BUILD" hpvm-python-package >/dev/null

# The module's compile and link commands, from the build.
OLD_SO=$(cd "$BUILD" && ls python/hpvm/_hpvm.cpython-*.so)
NEW_SO=_hpvm.cpython-$VERSION-x86_64-linux-gnu.so
compile=$(python3 -c '
import json, sys
for e in json.load(open(sys.argv[1])):
    if e["file"].endswith("bindings/python/src/module.cpp"):
        print(e["command"])' "$BUILD/compile_commands.json")
link=$(ninja -C "$BUILD" -t commands "$OLD_SO" | tail -1)
OBJ=$DIR/module.o
rm -rf "$DIR/pkg" && mkdir -p "$DIR/pkg"
cp -r "$BUILD/python/hpvm" "$DIR/pkg/"
rm -f "$DIR/pkg/hpvm/$(basename "$OLD_SO")"
# shellcheck disable=SC2001 # (sed on whole command lines)
(cd "$BUILD" &&
  eval "$(echo "$compile" | sed -e "s|-isystem [^ ]*/include/python3[.0-9]*|-isystem $INCLUDE -isystem $(dirname "$INCLUDE")|" \
    -e "s| -o [^ ]*module.cpp.o| -o $OBJ|")" &&
  eval "$(echo "$link" | sed -e "s|[^ ]*module.cpp.o|$OBJ|" -e "s|[^ ]*$OLD_SO|$DIR/pkg/hpvm/$NEW_SO|g")")
rm -f "$OBJ"

# The libraries and clang's headers.
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
LIB=$ROOT/usr/lib/llvm-19/lib
mkdir -p "$LIB/clang"
for l in libLLVM.so.19.1 libclang-cpp.so.19.1 libz3.so.4 libedit.so.2 libxml2.so.2 \
  libicuuc.so.72 libicudata.so.72; do
  cp -L "/usr/lib/x86_64-linux-gnu/$l" "$LIB/$l"
done
ln -s libLLVM.so.19.1 "$LIB/libLLVM.so.1"
cp -r /usr/lib/llvm-19/lib/clang/19 "$LIB/clang/"
tar cf - -C "$ROOT" usr | xz -9 -T"$(nproc)" >"$DIR/llvm-root.tar.xz"
echo "ok: $DIR ($(du -sh "$DIR" | cut -f1)): pkg/hpvm/$NEW_SO and llvm-root.tar.xz"
