#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz with Clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz/, and runs each from its seed
# corpus for a while:
#
#   ./scripts/fuzz.sh                  every target, 30 s each
#   ./scripts/fuzz.sh --seconds 600    a longer campaign
#   ./scripts/fuzz.sh --seconds 60 region-ir    one target
#
# The corpus a run grows is kept in build-fuzz/corpus/<target> (seeded from
# test/fuzz/corpus/<target>, whose files are never changed), and an input
# that crashes a target is written to build-fuzz/crashes/<target>-*: add it
# to test/fuzz/corpus/ once fixed, so that every later run replays it.
# Exit status: non-zero if a target crashed, leaked or hit undefined
# behaviour. CTest runs it for 15 s per target (label fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${HPVM_FUZZ_BUILD_DIR:-build-fuzz}
JOBS=${HPVM_FUZZ_JOBS:-2}
SECONDS_EACH=30
if [[ ${1:-} == --seconds ]]; then
  SECONDS_EACH=$2
  shift 2
fi
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(graph-text region-ir pragma runtime-graph capi)

flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
  -DHPVM_FUZZ=ON >/dev/null
ninja -C "$BUILD" -j"$JOBS" "${TARGETS[@]/#/hpvm-fuzz-}"

export ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"
mkdir -p "$BUILD/crashes"
status=0
for t in "${TARGETS[@]}"; do
  corpus=$BUILD/corpus/$t
  mkdir -p "$corpus"
  echo "== fuzzing $t for ${SECONDS_EACH}s (corpus $corpus)"
  log=$BUILD/fuzz-$t.log
  rc=0
  "$BUILD/test/fuzz/hpvm-fuzz-$t" "$corpus" "$ROOT/test/fuzz/corpus/$t" \
    -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$BUILD/crashes/$t-" \
    >"$log" 2>&1 || rc=$?
  grep -E "stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY|runtime error|Test unit written" "$log" || true
  if [[ $rc != 0 ]]; then
    status=1
    echo "$t failed (exit status $rc); its log: $log"
  fi
done
echo "== fuzzing: $([ $status = 0 ] && echo no crash || echo 'CRASHED (inputs in '"$BUILD"'/crashes)')"
exit $status
