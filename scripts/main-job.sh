#!/usr/bin/env bash
# The main job: build the toolchain, compile the image pipeline (a
# three-level dataflow graph written in C with #pragma hpvm) with hpvm-clang,
# run it on every available device, and show the result check, where each
# node ran and how long it took. Writes the trace and the DFG picture to
# out/image-pipeline/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD=${HPVM_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" hpvm-clang hpvm-rt hpvm-opt

HPVM_CLANG="$BUILD/bin/hpvm-clang"
SRC=examples/image-pipeline
OUT=out/image-pipeline
mkdir -p "$OUT"

echo "== compile $SRC with hpvm-clang"
"$HPVM_CLANG" -O3 --hpvm-target=cpu,nvptx,spirv --dfg-dot="$OUT/pipeline.dot" \
  "$SRC/main.c" "$SRC/pipeline.c" -o "$OUT/image-pipeline"
dot -Tpng "$OUT/pipeline.dot" -o "$OUT/pipeline.png"
echo "DFG: $OUT/pipeline.dot, picture: $OUT/pipeline.png"

# Every device this machine has: the CPU always, CUDA where an NVIDIA driver
# and GPU are present, Vulkan where a driver is installed (Mesa's lavapipe
# here, a GPU in the field), OpenCL where a device ingests SPIR-V (Intel's
# CPU runtime here).
devices=cpu
for kind in cuda vulkan opencl; do
  if HPVM_DEVICES=$kind HPVM_DEVICES_STRICT=1 "$OUT/image-pipeline" 8 8 >/dev/null 2>&1; then
    devices="$devices $kind"
  else
    echo "(no usable $kind device: not running on $kind)"
  fi
done
for device in $devices; do
  echo "== run on $device (HPVM_DEVICES=$device)"
  HPVM_DEVICES=$device HPVM_DEVICES_STRICT=1 HPVM_STATS=1 \
    HPVM_TRACE="$OUT/trace-$device.json" "$OUT/image-pipeline" 960 1280
  echo "trace: $OUT/trace-$device.json (open in chrome://tracing or ui.perfetto.dev)"
done
