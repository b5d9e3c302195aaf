#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (CTest:
# GoogleTest and lit), then the runtime and IR unit tests under
# AddressSanitizer and UndefinedBehaviorSanitizer (scripts/asan.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD=${HPVM_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
ninja -C "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure -j2
./scripts/asan.sh
