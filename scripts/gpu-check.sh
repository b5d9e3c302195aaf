#!/usr/bin/env bash
# scripts/gpu-check.sh: the one command for a machine with an NVIDIA GPU.
#
#   scripts/gpu-check.sh                  build dir: build/ (or $HPVM_BUILD_DIR)
#   scripts/gpu-check.sh --make-pack DIR  here: build, then put into DIR what
#                                         a machine without LLVM 19 runs
#   scripts/gpu-check.sh --pack DIR       there: steps 2, 4-6 from DIR
#
# A lent GPU machine may be offline and have no LLVM 19: it can neither
# install nor build HPVM. Nothing HPVM compiled needs LLVM to run, so the
# pack holds it prebuilt: the CUDA-labelled tests (scripts/gpu_pack.py), the
# examples built for cpu,nvptx, and the HPVM side of the GPU benchmarks
# (bench/gpu/run.sh --hpvm-pack). With --pack, steps 1 and 3 are skipped and
# step 4 runs the packed tests.
#
#  1. installs what is missing (scripts/install-deps.sh; an offline machine
#     goes on with what it has)
#  2. looks for the GPU (nvidia-smi, libcuda.so.1)
#  3. builds everything (cmake, ninja)
#  4. runs the CUDA-labelled tests (ctest -L cuda)
#  5. builds every example with hpvm-clang --hpvm-target=cpu,nvptx and runs
#     it with HPVM_DEVICES=cpu and with HPVM_DEVICES=cuda: both must pass
#     their own check against the C reference, print the same output, and
#     hpvm-rt's statistics must show every leaf on the CUDA device
# 5c. times an empty-node launch on Vulkan and CUDA against the minimal
#     hand-written Vulkan program (bench/vulkan/launch_raw.c), three rounds
#  6. runs the benchmarks, HPVM against hand-written CUDA (bench/gpu/run.sh),
#     which writes the GPU section of bench/RESULTS.md
# and prints a summary: each step's outcome, what was skipped and why, and
# where the results are. Without a GPU (or before hpvm has its nvptx target
# and CUDA device) it still builds everything and says what it could not run.
#
# Settings: HPVM_GPU_CHECK_OUT (where logs and copies of the results go,
# default <build>/gpu-check: on a lent machine, a folder under its $OUT, so
# that they come back), GPU_CHECK_JOBS (ninja -j, default all CPUs),
# GPU_CHECK_BENCH=0 (skip step 6), GPU_CHECK_FULL_CTEST=1 (run every test,
# not only -L cuda); bench/gpu/run.sh's settings pass through.
#
# On a machine borrowed for a short time, point HPVM_GPU_CHECK_OUT at a
# folder that is copied back: it gets the logs and a copy of RESULTS.md. A
# fresh machine builds everything first (a few minutes); where one command
# has a time limit, a first call with GPU_CHECK_BENCH=0 leaves the build for
# the second.
#
# Exit status: 0 when nothing failed (skipped steps are not failures).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${HPVM_BUILD_DIR:-build}
MODE=full PACK=""
case "${1:-}" in
--make-pack | --pack)
  [ $# -eq 2 ] || { echo "usage: scripts/gpu-check.sh [--make-pack DIR | --pack DIR]" >&2; exit 2; }
  MODE=${1#--} PACK=$(mkdir -p "$2" && cd "$2" && pwd)
  ;;
"") ;;
*) echo "usage: scripts/gpu-check.sh [--make-pack DIR | --pack DIR]" >&2; exit 2 ;;
esac
CHECK_OUT=${HPVM_GPU_CHECK_OUT:-$BUILD/gpu-check}
JOBS=${GPU_CHECK_JOBS:-$(nproc)}
mkdir -p "$CHECK_OUT"
CHECK_OUT=$(cd "$CHECK_OUT" && pwd)
START=$(date +%s)

SUMMARY=()
FAILED=0
say() { printf '\n== %s\n' "$*"; }
# Records one line of the summary: outcome (ok | FAILED | skipped), step,
# detail.
record() {
  SUMMARY+=("$(printf '%-8s %-22s %s' "$1" "$2" "$3")")
  [ "$1" != FAILED ] || FAILED=1
}
finish() {
  say "summary ($(($(date +%s) - START)) s)"
  printf '%s\n' "${SUMMARY[@]}" | tee "$CHECK_OUT/summary.txt"
  echo
  echo "results: $CHECK_OUT (summary.txt, logs; RESULTS.md: a copy of bench/RESULTS.md)"
  [ -f bench/RESULTS.md ] && cp bench/RESULTS.md "$CHECK_OUT/RESULTS.md"
  exit "$FAILED"
}

# --- 1. dependencies ------------------------------------------------------------
say "dependencies"
if [ "$MODE" = pack ]; then
  record skipped deps "--pack: nothing is installed or built here"
elif ./scripts/install-deps.sh >"$CHECK_OUT/install-deps.txt" 2>&1; then
  record ok deps "$(tail -1 "$CHECK_OUT/install-deps.txt")"
else
  tail -5 "$CHECK_OUT/install-deps.txt"
  record skipped deps "install-deps.sh failed (offline?); going on with what is installed (log: install-deps.txt)"
fi

# --- 2. the GPU -----------------------------------------------------------------
say "GPU"
GPU_REASON=""
if ! command -v nvidia-smi >/dev/null; then
  GPU_REASON="no nvidia-smi (no NVIDIA driver installed)"
elif ! nvidia-smi -L >"$CHECK_OUT/nvidia-smi.txt" 2>&1 || ! grep -q '^GPU ' "$CHECK_OUT/nvidia-smi.txt"; then
  GPU_REASON="nvidia-smi lists no GPU: $(head -1 "$CHECK_OUT/nvidia-smi.txt")"
elif ! python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>"$CHECK_OUT/libcuda.txt"; then
  # (dlopen, as hpvm-rt does: the loader's cache may not list a driver
  # that LD_LIBRARY_PATH provides)
  GPU_REASON="libcuda.so.1 (the CUDA driver library) cannot be loaded: $(tail -1 "$CHECK_OUT/libcuda.txt")"
fi
if [ -z "$GPU_REASON" ]; then
  nvidia-smi >>"$CHECK_OUT/nvidia-smi.txt" 2>&1
  record ok gpu "$(grep '^GPU 0' "$CHECK_OUT/nvidia-smi.txt" | head -1)"
else
  record skipped gpu "$GPU_REASON: the steps that need one only build"
fi
echo "${GPU_REASON:-$(grep '^GPU ' "$CHECK_OUT/nvidia-smi.txt")}"

# --- 3. build -------------------------------------------------------------------
# The examples of step 5: name | sources | runs (argument lists separated by
# ';'; "" = the defaults).
EXAMPLES=(
  "vector-add|vector-add/main.c|1000003;"
  "saxpy|saxpy/main.c|1000003;"
  "sgemm|sgemm/main.c|131 67 45;"
  "stencil|stencil/main.c|123 257 20;"
  "image-pipeline|image-pipeline/main.c image-pipeline/pipeline.c|241 319;"
)
# Examples whose graphs keep some nodes on the CPU (target(cpu)): step 5b
# only, on mixed device sets.
MIXED_EXAMPLES=(
  "frame-pipeline|frame-pipeline/main.c|320 200 24 3"
)
# Builds one example for cpu,spirv,nvptx (the same executable runs on the
# CPU, CUDA and Vulkan): $1 = sources (under examples/), $2 = the executable;
# hpvm-clang's output goes to $2.build.txt.
build_example() {
  local srcs=() s
  for s in $1; do srcs+=("examples/$s"); done
  "$HPVM_CLANG" -O3 --hpvm-target=cpu,spirv,nvptx "${srcs[@]}" -lm -o "$2" >"$2.build.txt" 2>&1
}
# Builds into $1 what step 5c runs: bench/kernels/launch.c for every target
# (launch), the hand-written Vulkan floor beside it (launch.vulkan-raw,
# store2.spv) and the CUDA launch's pieces (launch-parts,
# bench/gpu/launch_parts.c); its output goes to $1/build.txt.
build_launch_floor() {
  local clang=${BENCH_CLANG:-clang-19}
  mkdir -p "$1" && {
    "$clang" -O2 -c bench/common/bench.c -o "$1/bench.o" &&
      "$clang" -O2 -c bench/drivers/launch.c -o "$1/driver.o" &&
      "$HPVM_CLANG" -O3 --hpvm-target=cpu,spirv,nvptx bench/kernels/launch.c "$1/driver.o" \
        "$1/bench.o" -o "$1/launch" &&
      spirv-as --target-env vulkan1.1 bench/vulkan/store2.spvasm -o "$1/store2.spv" &&
      "$clang" -O2 bench/vulkan/launch_raw.c "$1/bench.o" -ldl -o "$1/launch.vulkan-raw" &&
      "$clang" -O2 bench/gpu/launch_parts.c "$1/bench.o" -ldl -o "$1/launch-parts"
  } >"$1/build.txt" 2>&1
}
if [ "$MODE" = pack ]; then
  record skipped build "--pack: prebuilt in $PACK (commit $(cat "$PACK/commit" 2>/dev/null))"
else
  say "build ($BUILD, ninja -j$JOBS)"
  T=$(date +%s)
  if cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$CHECK_OUT/build.txt" 2>&1 &&
    ninja -C "$BUILD" -j "$JOBS" >>"$CHECK_OUT/build.txt" 2>&1; then
    record ok build "$(($(date +%s) - T)) s"
  else
    tail -30 "$CHECK_OUT/build.txt"
    record FAILED build "see build.txt"
    finish
  fi
  HPVM_CLANG=$PWD/$BUILD/bin/hpvm-clang
fi

if [ "$MODE" = make-pack ]; then
  say "pack: $PACK"
  git rev-parse --short HEAD >"$PACK/commit" 2>/dev/null || echo unknown >"$PACK/commit"
  if python3 scripts/gpu_pack.py make "$BUILD" "$PACK" --label cuda >"$CHECK_OUT/pack.txt" 2>&1; then
    record ok "pack tests" "$(tail -1 "$CHECK_OUT/pack.txt")"
  else
    cat "$CHECK_OUT/pack.txt"
    record FAILED "pack tests" "scripts/gpu_pack.py make failed"
  fi
  mkdir -p "$PACK/examples"
  for entry in "${EXAMPLES[@]}" "${MIXED_EXAMPLES[@]}"; do
    IFS='|' read -r name sources _ <<<"$entry"
    build_example "$sources" "$PACK/examples/$name" ||
      { cat "$PACK/examples/$name.build.txt"; record FAILED "pack examples" "$name does not build"; }
  done
  record ok "pack examples" "$((${#EXAMPLES[@]} + ${#MIXED_EXAMPLES[@]})) built for cpu,spirv,nvptx"
  # The Vulkan loader, for a machine whose driver comes without one.
  if loader=$(ldconfig -p | awk '/libvulkan.so.1 .*x86-64/ {print $NF; exit}') && [ -n "$loader" ]; then
    mkdir -p "$PACK/lib" && cp -L "$loader" "$PACK/lib/libvulkan.so.1"
  fi
  if HPVM_BUILD_DIR=$BUILD BENCH_JOBS=$JOBS bench/gpu/run.sh --hpvm-pack "$PACK/bench" >"$CHECK_OUT/pack-bench.txt" 2>&1; then
    record ok "pack bench" "$(tail -1 "$CHECK_OUT/pack-bench.txt")"
  else
    tail -20 "$CHECK_OUT/pack-bench.txt"
    record FAILED "pack bench" "bench/gpu/run.sh --hpvm-pack failed (log: pack-bench.txt)"
  fi
  if build_launch_floor "$PACK/launch"; then
    record ok "pack launch" "bench/kernels/launch.c for every target and the Vulkan floor"
  else
    tail -20 "$PACK/launch/build.txt"
    record FAILED "pack launch" "the launch floor programs do not build (log: $PACK/launch/build.txt)"
  fi
  echo "size: $(du -sh "$PACK" | cut -f1); run there: scripts/gpu-check.sh --pack $PACK"
  finish
fi

# --- 4. CUDA tests --------------------------------------------------------------
say "ctest -L cuda"
T=$(date +%s)
if [ "$MODE" = pack ]; then
  python3 scripts/gpu_pack.py run "$PACK" --log "$CHECK_OUT/ctest-cuda-full.txt" >"$CHECK_OUT/ctest-cuda.txt" 2>&1
else
  ctest --test-dir "$BUILD" -L cuda --output-on-failure -j "$JOBS" >"$CHECK_OUT/ctest-cuda.txt" 2>&1
fi
rc=$?
tail -15 "$CHECK_OUT/ctest-cuda.txt"
if grep -q 'No tests were found' "$CHECK_OUT/ctest-cuda.txt"; then
  record skipped "ctest -L cuda" "no test is labelled cuda in this build (the CUDA device is not in it yet)"
else
  counts=$(grep -E 'tests passed|tests failed out of' "$CHECK_OUT/ctest-cuda.txt" | tail -1)
  skipped=$(grep -c '(Skipped)\| skipped (' "$CHECK_OUT/ctest-cuda.txt")
  if [ "$rc" -eq 0 ]; then
    record ok "ctest -L cuda" "$counts; $skipped skipped ($(($(date +%s) - T)) s, log: ctest-cuda.txt)"
  else
    record FAILED "ctest -L cuda" "$counts (log: ctest-cuda.txt)"
  fi
fi
if [ "${GPU_CHECK_FULL_CTEST:-0}" = 1 ]; then
  say "ctest (every test)"
  if ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" >"$CHECK_OUT/ctest-all.txt" 2>&1; then
    record ok ctest "$(grep 'tests passed' "$CHECK_OUT/ctest-all.txt" | tail -1)"
  else
    record FAILED ctest "$(grep 'tests failed out of' "$CHECK_OUT/ctest-all.txt" | tail -1) (log: ctest-all.txt)"
  fi
fi

# A driver without a Vulkan loader uses the pack's; the NVIDIA ICD may sit
# where the loader does not look.
if [ "$MODE" = pack ] && ! ldconfig -p | grep -q 'libvulkan.so.1 ' && [ -f "$PACK/lib/libvulkan.so.1" ]; then
  export LD_LIBRARY_PATH=$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$NVIDIA_ICD" ]; then
  export VK_DRIVER_FILES=$NVIDIA_ICD
fi

# The rows of hpvm-rt's node table (HPVM_STATS=1) in $1, an stderr file,
# that launched: "<path> <device> <launches> <total ms>".
stats_rows() {
  awk '/^node +device/ {t = 1; next} /^(buffer |coherence:)/ {t = 0}
    t && $3 ~ /^[0-9]+$/ && $3 > 0 {print $1, $2, $3, $5}' "$1"
}
# How many of those ran on a device matching the awk pattern $2.
leaf_rows() { stats_rows "$1" | awk -v dev="$2" '$2 ~ dev {n++} END {print n + 0}'; }

# --- 5. every example on the GPU, against the CPU -------------------------------
say "examples: HPVM_DEVICES=cuda against HPVM_DEVICES=cpu"
EX=$CHECK_OUT/examples
mkdir -p "$EX"
NVPTX_MISSING=""
ex_ok=0 ex_failed=0
for entry in "${EXAMPLES[@]}"; do
  IFS='|' read -r name sources runs <<<"$entry"
  if [ "$MODE" = pack ]; then
    cp "$PACK/examples/$name" "$EX/$name" ||
      { ex_failed=$((ex_failed + 1)); echo "FAILED: $name is not in the pack"; continue; }
  elif ! build_example "$sources" "$EX/$name"; then
    if grep -q "target 'nvptx' is not available in this build" "$EX/$name.build.txt"; then
      NVPTX_MISSING="hpvm-clang has no nvptx target in this build"
      break
    fi
    cat "$EX/$name.build.txt"
    echo "FAILED: $name does not build for cpu,spirv,nvptx"
    ex_failed=$((ex_failed + 1))
    continue
  fi
  [ -z "$GPU_REASON" ] || continue
  IFS=';' read -r -a arglists <<<"$runs"
  [ "${runs: -1}" = ";" ] && arglists+=("")
  for args in "${arglists[@]}"; do
    tag="$name${args:+ $args}"
    log=$EX/${name}${args:+-${args// /-}}
    # shellcheck disable=SC2086 # (the arguments are words)
    HPVM_DEVICES=cpu HPVM_DEVICES_STRICT=1 "$EX/$name" $args >"$log.cpu.out" 2>"$log.cpu.err"
    cpu_rc=$?
    # shellcheck disable=SC2086
    HPVM_DEVICES=cuda HPVM_DEVICES_STRICT=1 HPVM_STATS=1 "$EX/$name" $args \
      >"$log.cuda.out" 2>"$log.cuda.err"
    cuda_rc=$?
    off=$(stats_rows "$log.cuda.err" | awk '$2 != "host" && $2 !~ /^cuda(:[0-9]+)?$/ {print $1 " on " $2}')
    on=$(leaf_rows "$log.cuda.err" '^cuda(:[0-9]+)?$')
    why=""
    [ "$cpu_rc" -eq 0 ] || why="the CPU run failed (status $cpu_rc)"
    [ "$cuda_rc" -eq 0 ] || why="${why:+$why; }the CUDA run failed (status $cuda_rc: $(grep -m1 'error' "$log.cuda.err"))"
    [ -z "$why" ] && ! cmp -s "$log.cpu.out" "$log.cuda.out" && why="the output differs from the CPU run's"
    [ -z "$why" ] && [ -n "$off" ] && why="leaves ran off the GPU: $off"
    [ -z "$why" ] && [ "$on" -eq 0 ] && why="no leaf ran on the CUDA device"
    if [ -z "$why" ]; then
      echo "ok: $tag ($on leaves on the GPU; $(grep -m1 -v '^PASS' "$log.cuda.out"))"
      ex_ok=$((ex_ok + 1))
    else
      echo "FAILED: $tag: $why (logs: $log.*)"
      ex_failed=$((ex_failed + 1))
    fi
  done
done
if [ -n "$NVPTX_MISSING" ]; then
  echo "skipped: $NVPTX_MISSING"
  record skipped examples "$NVPTX_MISSING"
elif [ -n "$GPU_REASON" ]; then
  echo "built; not run: $GPU_REASON"
  record skipped examples "built for cpu,nvptx ($ex_failed failed to build); not run: $GPU_REASON"
elif [ "$ex_failed" -gt 0 ]; then
  record FAILED examples "$ex_failed failed, $ex_ok passed (logs: examples/)"
else
  record ok examples "$ex_ok runs equal to the CPU's, every leaf on the GPU"
fi
[ "$ex_failed" -eq 0 ] || [ -z "$GPU_REASON" ] || record FAILED "examples build" "$ex_failed examples do not build for cpu,nvptx (logs: examples/)"

# --- 5b. the examples on Vulkan, and on mixed devices under every policy ------
# Runs every example's first argument list with the environment given
# ($@: NAME=VALUE words; @RUN@ in a value becomes the run's tag) and counts
# the runs whose output equals the CPU run's: sets RUNS_OK, RUNS_FAILED and
# ROWS_<kind> (leaf rows per device kind, for the summary).
run_examples() { # $1 = tag, rest = environment
  local tag=$1 entry name runs args log out rc
  shift
  RUNS_OK=0 RUNS_FAILED=0 ROWS_cpu=0 ROWS_cuda=0 ROWS_vulkan=0
  for entry in "${RUN_EXAMPLES[@]}"; do
    IFS='|' read -r name _ runs <<<"$entry"
    [ -x "$EX/$name" ] || continue
    args=${runs%%;*}
    log=$EX/${name}${args:+-${args// /-}}
    out=$log.$tag
    # shellcheck disable=SC2086
    env "${@//@RUN@/$name}" HPVM_STATS=1 "$EX/$name" $args >"$out.out" 2>"$out.err"
    rc=$?
    ROWS_cpu=$((ROWS_cpu + $(leaf_rows "$out.err" '^cpu$')))
    ROWS_cuda=$((ROWS_cuda + $(leaf_rows "$out.err" '^cuda')))
    ROWS_vulkan=$((ROWS_vulkan + $(leaf_rows "$out.err" '^vulkan')))
    if [ "$rc" -eq 0 ] && cmp -s "$log.cpu.out" "$out.out"; then
      RUNS_OK=$((RUNS_OK + 1))
    else
      echo "FAILED: $name $args ($tag: $*): status $rc$(cmp -s "$log.cpu.out" "$out.out" || echo ', output differs from the CPU run') (logs: $out.*)"
      RUNS_FAILED=$((RUNS_FAILED + 1))
    fi
  done
}
POLICIES="hint round-robin heft dmda auto"
if [ -z "$GPU_REASON" ] && [ -z "$NVPTX_MISSING" ]; then
  # The mixed-only examples: built (or taken from the pack) and run on the
  # CPU alone first, the output the other runs must give.
  for entry in "${MIXED_EXAMPLES[@]}"; do
    IFS='|' read -r name sources args <<<"$entry"
    if [ "$MODE" = pack ]; then
      cp "$PACK/examples/$name" "$EX/$name" || continue
    elif ! build_example "$sources" "$EX/$name"; then
      cat "$EX/$name.build.txt"
      record FAILED "$name build" "does not build for cpu,spirv,nvptx"
      continue
    fi
    log=$EX/${name}${args:+-${args// /-}}
    # shellcheck disable=SC2086
    HPVM_DEVICES=cpu "$EX/$name" $args >"$log.cpu.out" 2>"$log.cpu.err" ||
      record FAILED "$name" "the CPU run failed (logs: $log.cpu.*)"
  done
  say "examples: HPVM_DEVICES=vulkan against HPVM_DEVICES=cpu"
  MIXED_SETS="cpu,cuda"
  RUN_EXAMPLES=("${EXAMPLES[@]}")
  run_examples vulkan HPVM_DEVICES=vulkan HPVM_DEVICES_STRICT=1
  RUN_EXAMPLES=("${EXAMPLES[@]}" "${MIXED_EXAMPLES[@]}")
  if [ "$RUNS_OK" -gt 0 ] && [ "$RUNS_FAILED" -eq 0 ] && [ "$ROWS_vulkan" -gt 0 ]; then
    record ok vulkan "$RUNS_OK runs equal to the CPU's, $ROWS_vulkan leaf rows on Vulkan ($(grep -h -m1 -o 'vulkan:0 ([^;]*' "$EX"/*.vulkan.err | head -1))"
    MIXED_SETS="cpu,cuda cpu,vulkan,cuda"
    VULKAN_OK=1
  elif [ "$RUNS_OK" -eq 0 ] && grep -q 'HPVM_DEVICES' "$EX"/*.vulkan.err; then
    record skipped vulkan "no Vulkan device: $(grep -h -m1 'HPVM_DEVICES' "$EX"/*.vulkan.err | head -1)"
  else
    record FAILED vulkan "$RUNS_FAILED failed, $RUNS_OK equal to the CPU's, $ROWS_vulkan leaf rows on Vulkan"
  fi
  for devices in $MIXED_SETS; do
    say "examples: HPVM_DEVICES=$devices under $POLICIES"
    ok=0 failed=0 rows=""
    for policy in $POLICIES; do
      # Twice: the second run of a policy that learns uses what it learnt.
      for run in 1 2; do
        run_examples "$devices-$policy-$run" HPVM_DEVICES="$devices" HPVM_DEVICES_STRICT=1 \
          HPVM_SCHEDULER="$policy" HPVM_PERF_MODELS="$EX/perf-models-$devices-@RUN@"
        ok=$((ok + RUNS_OK)) failed=$((failed + RUNS_FAILED))
        rows="$rows $policy/$run:cpu=$ROWS_cpu,cuda=$ROWS_cuda,vulkan=$ROWS_vulkan"
      done
    done
    echo "leaf rows per device:$rows"
    if [ "$failed" -gt 0 ]; then
      record FAILED "$devices policies" "$failed failed, $ok runs equal to the CPU's"
    else
      record ok "$devices policies" "$ok runs equal to the CPU's (leaf rows per policy/run in the log)"
    fi
  done
fi

# --- 5c. a launch against the hand-written floors ------------------------------
# An empty-node launch (2 instances storing a flag, copied home) on Vulkan
# and CUDA, alternating with the minimal Vulkan program (record, submit,
# wait for a 2-invocation store; blocking and polling the fence), three
# rounds in one call: issue 12's "within 1.2x of the floor" on this GPU.
# (The CUDA floor, cuLaunchKernel + sync, is bench/gpu/run.sh's launch-raw.)
# Each round also times the pieces of a CUDA launch (launch-parts: the
# floor with a store, plus the copy home, an event, context pushes, four
# streams), to tell what the runtime adds from what the launch needs.
median_us() { awk '/^RESULT/ {for (i = 1; i <= NF; i++) if ($i ~ /^median_s=/) {split($i, a, "="); printf "%.1f", a[2] * 1e6}}' "$1"; }
if [ -z "$GPU_REASON" ] && [ -z "$NVPTX_MISSING" ]; then
  say "launch against the hand-written floors"
  LF=$CHECK_OUT/launch
  if [ "$MODE" = pack ]; then
    mkdir -p "$LF" && cp "$PACK"/launch/launch "$PACK"/launch/launch.vulkan-raw "$PACK"/launch/store2.spv \
      "$PACK"/launch/launch-parts "$LF/"
  else
    build_launch_floor "$LF"
  fi
  if [ ! -x "$LF/launch" ] || [ ! -x "$LF/launch.vulkan-raw" ]; then
    record FAILED launch "the launch programs are missing (log: launch/build.txt)"
  else
    rows=""
    for round in 1 2 3; do
      line=""
      if [ -n "${VULKAN_OK:-}" ]; then
        HPVM_DEVICES=vulkan HPVM_DEVICES_STRICT=1 "$LF/launch" vulkan >"$LF/vulkan.$round" 2>&1
        "$LF/launch.vulkan-raw" vulkan-raw >"$LF/raw.$round" 2>&1
        "$LF/launch.vulkan-raw" vulkan-raw-poll >"$LF/poll.$round" 2>&1
        line="vulkan $(median_us "$LF/vulkan.$round") us, floor $(median_us "$LF/raw.$round") us (polling $(median_us "$LF/poll.$round") us), "
      fi
      HPVM_DEVICES=cuda HPVM_DEVICES_STRICT=1 "$LF/launch" cuda >"$LF/cuda.$round" 2>&1
      line="${line}cuda $(median_us "$LF/cuda.$round") us"
      if [ -x "$LF/launch-parts" ]; then
        parts=""
        for v in sync copy copy-blocking copy-event copy-event-ctx copy-event-streams; do
          "$LF/launch-parts" "$v" >"$LF/parts-$v.$round" 2>&1
          parts="$parts $v $(median_us "$LF/parts-$v.$round")"
        done
        line="$line (pieces, us:$parts)"
      fi
      echo "round $round: $line"
      rows="$rows; $line"
    done
    if grep -q 'check=ok' "$LF/cuda.1" && { [ -z "${VULKAN_OK:-}" ] ||
      { grep -q 'check=ok' "$LF/vulkan.1" && grep -q 'check=ok' "$LF/raw.1"; }; }; then
      record ok launch "medians per round${rows} (logs: launch/)"
    else
      record FAILED launch "a launch program failed its check (logs: launch/)"
    fi
  fi
fi

# --- 6. benchmarks ----------------------------------------------------------------
if [ "${GPU_CHECK_BENCH:-1}" = 0 ]; then
  record skipped bench "GPU_CHECK_BENCH=0"
else
  say "bench/gpu/run.sh"
  if [ "$MODE" = pack ]; then
    export BENCH_GPU_PACK=$PACK/bench HPVM_COMMIT
    HPVM_COMMIT=$(cat "$PACK/commit")
  fi
  HPVM_BUILD_DIR=$BUILD BENCH_JOBS=$JOBS bench/gpu/run.sh 2>&1 | tee "$CHECK_OUT/bench.txt"
  rc=${PIPESTATUS[0]}
  mkdir -p "$CHECK_OUT/bench"
  cp -r "$BUILD/bench/gpu/logs" "$BUILD/bench/gpu/results.txt" "$BUILD/bench/gpu/machine.txt" \
    "$CHECK_OUT/bench/" 2>/dev/null
  if grep -q '^no GPU: ' "$CHECK_OUT/bench.txt"; then
    record skipped bench "$(grep '^no GPU: ' "$CHECK_OUT/bench.txt")"
  elif [ "$rc" -ne 0 ]; then
    record FAILED bench "bench/gpu/run.sh exited with $rc (log: bench.txt)"
  else
    # ("...: the HPVM side is not built/run (the CUDA side is)")
    note=$(sed -n 's/^ *\(.*\): the HPVM side is not \([a-z]*\).*/; HPVM side not \2: \1/p' \
      "$CHECK_OUT/bench.txt" | head -1)
    record ok bench "GPU section of bench/RESULTS.md written$note (log: bench.txt)"
  fi
fi

finish
