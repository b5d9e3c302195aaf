#!/usr/bin/env bash
# The main job: build the toolchain, extract the image pipeline's three-level
# dataflow graph with hpvm-opt, print it, render its picture, and run the
# program it describes (graph form -> PREPARE -> sequential code) against a
# plain C reference. Outputs land in out/image-pipeline/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD=${HPVM_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" hpvm-opt

HPVM_OPT="$BUILD/hpvm-ir/tools/hpvm-opt/hpvm-opt"
CLANG=/usr/lib/llvm-19/bin/clang
SRC=examples/image-pipeline
OUT=out/image-pipeline
mkdir -p "$OUT"

echo "== verify and extract $SRC/pipeline.ll"
"$HPVM_OPT" --verify --extract --verify "$SRC/pipeline.ll" -S -o "$OUT/pipeline.graph.ll"
echo "graph form written to $OUT/pipeline.graph.ll"

echo "== the graph"
"$HPVM_OPT" --print "$OUT/pipeline.graph.ll" -disable-output | tee "$OUT/pipeline.txt"

echo "== its picture"
"$HPVM_OPT" --dot "$OUT/pipeline.graph.ll" -disable-output > "$OUT/pipeline.dot"
dot -Tpng "$OUT/pipeline.dot" -o "$OUT/pipeline.png"
echo "DOT in $OUT/pipeline.dot, picture in $OUT/pipeline.png"

echo "== run the graph sequentially (PREPARE + strip) against the C reference"
"$HPVM_OPT" --strip "$OUT/pipeline.graph.ll" -S -o "$OUT/pipeline.seq.ll"
"$CLANG" -O2 -Wno-override-module "$OUT/pipeline.seq.ll" "$SRC/main.c" -lm -o "$OUT/pipeline"
"$OUT/pipeline"
