#!/usr/bin/env bash
# Builds the runtime and IR libraries and their unit tests (hpvm-rt-tests,
# hpvm-unit-tests, hpvm-ir-tests) with AddressSanitizer and
# UndefinedBehaviorSanitizer in a build folder of their own, and runs them:
#
#   ./scripts/asan.sh                      build-asan/, every test
#   ./scripts/asan.sh --gtest_filter='Coherence*'   arguments go to the tests
#
# Everything these tests link from this repository is instrumented; LLVM,
# GoogleTest, the Vulkan loader with lavapipe and the OpenCL runtimes are
# not. Undefined behaviour stops the test at once (-fno-sanitize-recover),
# as does a memory error. Leaks are reported for the test processes, except
# what the suppressions file lists with its reason (objects that live until
# the process ends by design).
#
#   ./scripts/asan.sh --all [ctest arguments]
#       the whole project and its whole test suite (CTest) instead, built
#       with clang-19 in build-asan-all/: tools, runtime, backends, the
#       programs the tests compile (hpvm-clang links them with the
#       sanitizers' runtimes: HPVM_RUNTIME_SANITIZERS). Leaks are left to
#       the unit-test run above: every program keeps its runtime until it
#       exits, by design. Not run by CI (it takes about half an hour on two
#       cores); the fuzz tests have a build of their own and the Python
#       tests would need the sanitizer runtime preloaded into python, so
#       both are left out.
#
# Exit status: non-zero if a test failed or a sanitizer reported anything.
# CI runs the first form (scripts/test.sh) after the main test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
sanitizers=address,undefined

if [[ ${1:-} == --all ]]; then
  shift
  BUILD=${HPVM_ASAN_BUILD_DIR:-build-asan-all}
  # Clang's -fsanitize=function (in undefined; GCC has no such check)
  # compares a callee's C++ type with the pointer's by reading the bytes
  # before the callee: hpvm-rt's indirect calls go to C drivers, JIT-compiled
  # kernels and stand-in drivers, where there is nothing to compare and the
  # read may fault (a kernel at the start of a page).
  flags="-fsanitize=$sanitizers -fno-sanitize=function -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=$sanitizers" \
    "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=$sanitizers" \
    "-DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=$sanitizers" \
    "-DHPVM_RUNTIME_SANITIZERS=$sanitizers" >/dev/null
  ninja -C "$BUILD" -j"${HPVM_ASAN_JOBS:-2}"
  # The project's code stops at undefined behaviour anyway
  # (-fno-sanitize-recover); programs the tests build with a recoverable
  # -fsanitize=undefined of their own must go on after a report.
  export ASAN_OPTIONS="detect_leaks=0 handle_segv=0 ${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1 ${UBSAN_OPTIONS:-}"
  exec ctest --test-dir "$BUILD" -j"${HPVM_ASAN_JOBS:-2}" -LE 'fuzz|python' \
    --output-on-failure "$@"
fi
BUILD=${HPVM_ASAN_BUILD_DIR:-build-asan}
JOBS=${HPVM_ASAN_JOBS:-2}

flags="-fsanitize=$sanitizers -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
  "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined" \
  "-DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=address,undefined" >/dev/null
ninja -C "$BUILD" -j"$JOBS" hpvm-rt-tests hpvm-unit-tests hpvm-ir-tests

# handle_segv=0: a death test expects a fault to kill the process with
# SIGSEGV, which ASan's own handler would turn into exit status 1.
export ASAN_OPTIONS="handle_segv=0 ${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$ROOT/test/unit/asan-leaks.txt print_suppressions=0 ${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"
# LeakSanitizer's stop-the-world tracer sometimes crashes at exit itself
# ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal
# error") while it walks the threads of uninstrumented drivers (lavapipe's,
# the OpenCL runtime's): a known, intermittent fault of the sanitizer, not a
# finding. Such a run is repeated once; a leak report, a failed test or a
# second crash still fails.
run_with_leak_check() {
  local log rc
  log=$(mktemp)
  ASAN_OPTIONS="detect_leaks=1 $ASAN_OPTIONS" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" != 0 ] &&
    grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
    ! grep -q -e 'detected memory leaks' -e '^\[  FAILED  \]' "$log"; then
    echo "== the leak checker itself crashed at exit; running $1 once more"
    ASAN_OPTIONS="detect_leaks=1 $ASAN_OPTIONS" "$@"
    rc=$?
  fi
  rm -f "$log"
  return "$rc"
}

status=0
for t in test/unit/hpvm-unit-tests test/unit/hpvm-ir-tests \
  test/unit/runtime/hpvm-rt-tests; do
  echo "== $t under ASan+UBSan"
  # Leaks are looked for in the tests themselves; a death test's child
  # ends with exit() while the process's runtime (never destroyed, by
  # design: docs/runtime.md §10) still holds its launches' memory.
  run_with_leak_check "$BUILD/$t" --gtest_filter=-*DeathTest* "$@" || status=1
  ASAN_OPTIONS="detect_leaks=0 $ASAN_OPTIONS" \
    "$BUILD/$t" --gtest_filter=*DeathTest* "$@" || status=1
done
echo "== ASan+UBSan: $([ $status = 0 ] && echo clean || echo FAILED)"
exit $status
