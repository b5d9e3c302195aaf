#!/usr/bin/env bash
# Builds hpvm-rt and its unit tests (hpvm-rt-tests) with ThreadSanitizer in a
# build folder of their own and runs them under it:
#
#   ./scripts/tsan.sh                      build-tsan/, every test
#   ./scripts/tsan.sh --gtest_filter='Coherence*'   arguments go to the tests
#   HPVM_TSAN_E2E=1 ./scripts/tsan.sh      also the mixed-device e2e programs,
#                                           time steps and array reductions
#
# Everything the tests link from this repository (hpvm-rt, hpvm-graph, the
# tests, the fake CUDA driver and Vulkan loader) is compiled with
# -fsanitize=thread; nothing LLVM-linked is built. GoogleTest, SPIRV-Tools,
# the Vulkan loader with Mesa's lavapipe and Intel's OpenCL CPU runtime are
# not instrumented: races TSan reports inside them are suppressed by
# test/unit/runtime/tsan-suppressions.txt, each with the reason. A report
# whose stack has a frame in runtime/ is about our code, and is never
# suppressed there.
#
# With HPVM_TSAN_E2E=1 (and build/bin/hpvm-clang built), the mixed-device
# programs of test/e2e are compiled with that hpvm-clang to objects, linked
# with the instrumented hpvm-rt instead of build/'s, and run with
# HPVM_DEVICES=cpu,vulkan and cpu,opencl under every policy: the executor,
# coherence and the devices' host side run instrumented (the kernels are not).
#
# Output: the tests' output on stdout, TSan's reports on stderr; the exit
# status is non-zero if a test failed or TSan reported anything. The
# summary at the end counts the reports and lists their first frames in
# runtime/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${HPVM_TSAN_BUILD_DIR:-build-tsan}
JOBS=${HPVM_TSAN_JOBS:-2}
SUPP=$ROOT/test/unit/runtime/tsan-suppressions.txt
LOG=$BUILD/tsan.log

flags="-fsanitize=thread -fno-omit-frame-pointer"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
  -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
  -DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=thread >/dev/null
# gtest_discover_tests lists the tests after the link, under TSan too.
# ignore_noninstrumented_modules=1: memcpy, free and the other interceptors
# called from code that is not instrumented (the drivers, the JIT code of
# Intel's OpenCL runtime, hpvm-clang's kernels and host code) record no
# accesses; their synchronisation (mutexes) still counts. Without it every
# buffer copy a driver thread makes is a report (see the suppressions file).
# handle_segv=0: a death test expects a fault to kill the process with
# SIGSEGV, which TSan's own handler would turn into exit status 66.
export TSAN_OPTIONS="suppressions=$SUPP ignore_noninstrumented_modules=1 halt_on_error=0 second_deadlock_stack=1 history_size=5 handle_segv=0 ${TSAN_OPTIONS:-}"
ninja -C "$BUILD" -j"$JOBS" hpvm-rt-tests

: >"$LOG"
status=0
echo "== hpvm-rt-tests under TSan"
"$BUILD"/test/unit/runtime/hpvm-rt-tests "$@" 2> >(tee -a "$LOG" >&2) ||
  status=1

if [[ ${HPVM_TSAN_E2E:-0} == 1 ]]; then
  if [[ ! -x build/bin/hpvm-clang ]]; then
    echo "HPVM_TSAN_E2E: no build/bin/hpvm-clang; build it first" >&2
    exit 2
  fi
  bin=$BUILD/e2e
  mkdir -p "$bin"
  declare -A args=([mixed_rows]="13 1001" [mixed_grid]="13 1001"
    [mixed_tasks]="10007" [mixed_nests]="9 777 3 5"
    [mixed_sections]="13 1001" [mixed_nowait]="10007"
    [time_steps]="257 9 2" [array_reduction]="97 13" [launch_sites]="1000")
  for p in "${!args[@]}"; do
    build/bin/hpvm-clang -O3 -g --hpvm-target=cpu,spirv -c \
      test/e2e/$p.c -o "$bin/$p.o"
    g++ -fsanitize=thread -o "$bin/$p" "$bin/$p.o" \
      "$BUILD"/runtime/libhpvm-rt.a "$BUILD"/hpvm-ir/libhpvm-graph.a \
      -lpthread -ldl -lm
    for devices in cpu,vulkan cpu,opencl; do
      for policy in hint round-robin heft dmda auto; do
        echo "== $p ${args[$p]} HPVM_DEVICES=$devices HPVM_SCHEDULER=$policy under TSan"
        # shellcheck disable=SC2086
        HPVM_DEVICES=$devices HPVM_SCHEDULER=$policy HPVM_NUM_THREADS=4 \
          "$bin/$p" ${args[$p]} 2> >(tee -a "$LOG" >&2) || status=1
      done
    done
  done
fi

sleep 1 # let tee finish
reports=$(grep -c '^WARNING: ThreadSanitizer' "$LOG" || true)
echo "== TSan: $reports report(s); log in $LOG"
if ((reports)); then
  status=1
  echo "Reports with a frame in runtime/ (first such frame of each):"
  awk -v ours="$ROOT/runtime/" '
    /^WARNING: ThreadSanitizer/ {w = $0; sub(/ \(pid=[0-9]+\)/, "", w); seen = 0}
    index($0, ours) && w != "" && !seen {
      f = $0; sub(/^ *#[0-9]+ /, "", f); sub(/ \([^)]*\+0x[0-9a-f]+\)$/, "", f)
      print w ": " f; seen = 1
    }' "$LOG" | sort | uniq -c | sort -rn
fi
exit $status
