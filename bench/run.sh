#!/usr/bin/env bash
# bench/run.sh: build every benchmark three ways from one source, run the
# builds side by side, print the table and write bench/RESULTS.md.
#
#   bench/run.sh                          build dir: build/ (or $HPVM_BUILD_DIR)
#
# The three variants of each kernel in bench/kernels/ (see bench/README.md):
#   hpvm  hpvm-clang -O3                            HPVM_NUM_THREADS=$BENCH_THREADS
#   omp   clang-19 -O3 -march=native -fopenmp       OMP_NUM_THREADS=$BENCH_THREADS
#   seq   clang-19 -O3 -march=native                one thread
# plus an OpenMP STREAM triad (bench/stream/triad.c) for the bandwidth the
# machine gives a plain parallel loop.
#
# And each kernel once more, built with --hpvm-target=cpu,spirv, run from
# that one binary with HPVM_DEVICES=cpu (the CPU backend) and with
# HPVM_DEVICES=vulkan (whatever Vulkan device the machine has: Mesa's
# lavapipe on the CPU here), at smaller sizes: BENCH_VK_SAXPY_N (2^22),
# BENCH_VK_STENCIL_N (1024), BENCH_VK_PIPELINE_N (1024), BENCH_VK_SGEMM_N
# (200), BENCH_VK_SWEEPS_STEPS (50); the launch benchmark as above.
# Skipped, saying why, without a Vulkan device (or a build without the
# spirv target).
#
# Settings (environment): BENCH_THREADS (2), BENCH_ROUNDS (3: each round runs
# every variant once, in rotating order; the table takes the lowest median
# of the rounds), BENCH_QUIET_WAIT (seconds to wait for an idle machine, 120),
# BENCH_RETRIES (runs of a variant that other processes disturbed, 3),
# BENCH_JOBS (ninja -j, 2), and the sizes the drivers read (BENCH_SAXPY_N,
# BENCH_SGEMM_N, BENCH_STENCIL_N, BENCH_STENCIL_STEPS, BENCH_PIPELINE_N,
# BENCH_LAUNCH_N, BENCH_SWEEPS_N, BENCH_SWEEPS_STEPS, BENCH_ASYNC_N) and BENCH_BUDGET_S /
# BENCH_MIN_REPS / BENCH_MAX_REPS
# (bench/common/bench.h); BENCH_RESULTS_MD: where the report goes instead of
# bench/RESULTS.md. What this script shares with bench/gpu/run.sh is in
# bench/lib.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_SCRIPT=bench/run.sh
# shellcheck source=bench/lib.sh
. bench/lib.sh
# shellcheck disable=SC2086 # (a list of names)
REPRO=$(repro_command bench/run.sh BENCH_THREADS $BENCH_COMMON_SETTINGS BENCH_RESULTS_MD \
  BENCH_VK_SAXPY_N BENCH_VK_STENCIL_N BENCH_VK_PIPELINE_N BENCH_VK_SGEMM_N BENCH_VK_SWEEPS_STEPS)
BUILD=${HPVM_BUILD_DIR:-build}
THREADS=${BENCH_THREADS:-2}
ROUNDS=${BENCH_ROUNDS:-3}
# Each program times repetitions for about this long (bench/common/bench.h);
# more short rounds rather than a few long ones, for a shared machine whose
# speed drifts.
export BENCH_BUDGET_S=${BENCH_BUDGET_S:-0.5}
QUIET_WAIT=${BENCH_QUIET_WAIT:-120}
CLANG=${BENCH_CLANG:-clang-19}
OUT=$BUILD/bench
BIN=$OUT/bin
LOG=$OUT/logs
RESULTS=$OUT/results.txt
RESULTS_MD=${BENCH_RESULTS_MD:-bench/RESULTS.md}
BENCHES="saxpy stencil pipeline sgemm sweeps steps jacobi2d syrk atax launch async frames"

# --- tools -----------------------------------------------------------------
require_tools
printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' > "$OUT/omp-probe.c"
"$CLANG" -fopenmp "$OUT/omp-probe.c" -o "$OUT/omp-probe" 2>"$LOG/omp-probe.txt" ||
  die "$CLANG -fopenmp cannot build a program (omp.h or libomp missing): apt-get install libomp-19-dev"

# --- build the toolchain -----------------------------------------------------
build_toolchain

# --- each compiler reads only its own pragmas --------------------------------
# The trick that lets one source make all three variants; checked rather than
# assumed: blanking the other system's pragma lines (keeping the line numbers)
# must not change a single line of the IR a compiler makes of the kernel.
blank_pragmas() { # $1 = hpvm|omp; stdin -> stdout
  awk -v kind="$1" '
    cont { print ""; cont = /\\$/; next }
    $0 ~ "^[ \t]*#[ \t]*pragma[ \t]+" kind "([ \t]|$)" { print ""; cont = /\\$/; next }
    { print }'
}
ir_of() { # $1 = dir holding k.c; rest = compiler and flags -> prints the IR
  local dir=$1; shift
  (cd "$dir" && "$@" k.c -o k.ll >/dev/null 2>&1 && cat k.ll)
}
say "checking that each compiler ignores the other's pragmas"
V=$OUT/pragma-check
for k in $BENCHES; do
  rm -rf "$V" && mkdir -p "$V/orig" "$V/no-omp" "$V/no-hpvm" "$V/none"
  cp "bench/kernels/$k.c" "$V/orig/k.c"
  blank_pragmas omp <"bench/kernels/$k.c" >"$V/no-omp/k.c"
  blank_pragmas hpvm <"bench/kernels/$k.c" >"$V/no-hpvm/k.c"
  blank_pragmas omp <"$V/no-hpvm/k.c" >"$V/none/k.c"
  H=("$HPVM_CLANG" -O3 -emit-hpvm-ir -S)
  O=("$CLANG" -O3 -march=native -fopenmp -Wno-unknown-pragmas -S -emit-llvm)
  S=("$CLANG" -O3 -march=native -Wno-unknown-pragmas -Wno-source-uses-openmp -S -emit-llvm)
  ir_of "$V/orig" "${H[@]}" | grep -q 'call token @llvm.directive.region.entry' ||
    die "hpvm-clang makes no HPVM node of bench/kernels/$k.c"
  cmp -s <(ir_of "$V/orig" "${H[@]}") <(ir_of "$V/no-omp" "${H[@]}") ||
    die "hpvm-clang reads '#pragma omp' in bench/kernels/$k.c"
  cmp -s <(ir_of "$V/orig" "${O[@]}") <(ir_of "$V/no-hpvm" "${O[@]}") ||
    die "clang -fopenmp reads '#pragma hpvm' in bench/kernels/$k.c"
  cmp -s <(ir_of "$V/orig" "${S[@]}") <(ir_of "$V/none" "${S[@]}") ||
    die "clang without -fopenmp reads a pragma in bench/kernels/$k.c"
done
echo "ok: hpvm-clang ignores '#pragma omp', clang -fopenmp ignores '#pragma hpvm', plain clang both"

# --- build the variants --------------------------------------------------------
say "building the benchmarks into $BIN"
# shellcheck disable=SC2086 # (a list of names)
build_drivers $BENCHES
for k in $BENCHES; do
  objs=("$OUT/driver-$k.o" "$OUT/bench.o")
  build_hpvm "$k" "$BIN/$k.hpvm" || { cat "$LOG/build-$k.hpvm.txt"; die "hpvm-clang failed on $k"; }
  "$CLANG" -O3 -march=native -fopenmp -Wno-unknown-pragmas "bench/kernels/$k.c" "${objs[@]}" \
    -lm -o "$BIN/$k.omp"
  "$CLANG" -O3 -march=native -Wno-unknown-pragmas -Wno-source-uses-openmp \
    "bench/kernels/$k.c" "${objs[@]}" -lm -o "$BIN/$k.seq"
done
"$CLANG" -O3 -march=native -fopenmp bench/stream/triad.c "$OUT/bench.o" -o "$BIN/stream-triad.omp"

# --- Vulkan ----------------------------------------------------------------------
# The same kernels for cpu and spirv in one binary (<bench>.spirv), run on
# either device; only if this build has the spirv target and the machine a
# Vulkan device (the launch benchmark, run once, says).
VULKAN=""
rm -f "$BIN"/*.spirv
for k in $BENCHES; do
  "$HPVM_CLANG" -O3 --hpvm-target=cpu,spirv "bench/kernels/$k.c" "$OUT/driver-$k.o" \
    "$OUT/bench.o" -lm -o "$BIN/$k.spirv" >"$LOG/build-$k.spirv.txt" 2>&1 ||
    { VULKAN="no spirv build: $(head -1 "$LOG/build-$k.spirv.txt")"; break; }
done
if [ -z "$VULKAN" ] && ! HPVM_DEVICES=vulkan HPVM_DEVICES_STRICT=1 BENCH_MIN_REPS=1 \
  BENCH_MAX_REPS=1 BENCH_BUDGET_S=0 "$BIN/launch.spirv" probe >/dev/null 2>"$LOG/vulkan-probe.txt"; then
  VULKAN="no Vulkan device: $(grep -m1 'error' "$LOG/vulkan-probe.txt" || tail -1 "$LOG/vulkan-probe.txt")"
fi
VK_DEVICE=""
if [ -n "$VULKAN" ]; then
  echo "   Vulkan runs skipped: $VULKAN"
else
  VK_DEVICE=$(sed -n 's/^hpvm-rt stats:.*devices: //p' "$LOG/vulkan-probe.txt")
  [ -n "$VK_DEVICE" ] || VK_DEVICE=$(HPVM_DEVICES=vulkan HPVM_STATS=1 BENCH_MIN_REPS=1 \
    BENCH_MAX_REPS=1 BENCH_BUDGET_S=0 "$BIN/launch.spirv" probe 2>&1 >/dev/null |
    sed -n 's/^hpvm-rt stats:.*devices: //p')
  echo "ok: Vulkan device: $VK_DEVICE"
  # run_variant runs $BIN/<bench>.<variant>: the one binary under both names.
  for k in $BENCHES; do
    ln -f "$BIN/$k.spirv" "$BIN/$k.cpu"
    ln -f "$BIN/$k.spirv" "$BIN/$k.vulkan"
  done
  # The floor under a launch on this device: a minimal hand-written Vulkan
  # program (record, submit, wait for a 2-invocation store), blocking on the
  # fence as hpvm-rt does and polling it.
  spirv-as --target-env vulkan1.1 bench/vulkan/store2.spvasm -o "$BIN/store2.spv"
  "$CLANG" -O2 -Wall bench/vulkan/launch_raw.c "$OUT/bench.o" -ldl -o "$BIN/launch.vulkan-raw"
  ln -f "$BIN/launch.vulkan-raw" "$BIN/launch.vulkan-raw-poll"
fi
# Sizes of the Vulkan comparison: lavapipe runs these kernels 10-150 times
# slower than the CPU backend, so the main sizes would take minutes. sgemm
# i-k-j loops n^2 + 2n times per instance, which must stay below lavapipe's
# limit of 65535 loop iterations per invocation (docs/runtime.md 4.1): above
# it lavapipe silently stops the loops and the check fails.
VK_SIZES=(BENCH_SAXPY_N="${BENCH_VK_SAXPY_N:-4194304}" BENCH_STENCIL_N="${BENCH_VK_STENCIL_N:-1024}"
  BENCH_PIPELINE_N="${BENCH_VK_PIPELINE_N:-1024}" BENCH_SGEMM_N="${BENCH_VK_SGEMM_N:-200}"
  BENCH_SWEEPS_STEPS="${BENCH_VK_SWEEPS_STEPS:-50}")

# --- run -------------------------------------------------------------------------
variant_env() { # $1 = bench, $2 = variant
  case $2 in
  omp) echo "OMP_NUM_THREADS=$THREADS" ;;
  hpvm) printf '%s\n' "HPVM_NUM_THREADS=$THREADS" HPVM_STATS=1 ;;
  # The Vulkan comparison: one binary, two devices, the smaller sizes; at
  # least 3 timed runs, as the slowest take half a second each.
  cpu | vulkan)
    printf '%s\n' "HPVM_NUM_THREADS=$THREADS" HPVM_STATS=1 HPVM_DEVICES="$2" HPVM_DEVICES_STRICT=1 \
      BENCH_MIN_REPS="${BENCH_MIN_REPS:-3}" "${VK_SIZES[@]}"
    ;;
  esac
}

# The HPVM builds of async and frames also time their baselines (the same
# graphs launched synchronously, one frame at a time): their second RESULT
# line.
variant_extra() { # $1 = bench, $2 = variant, $3 = stdout
  if [ "$2" = hpvm ]; then
    case $1 in
    async) grep '^RESULT async hpvm-sync ' "$3" || true ;;
    frames) grep '^RESULT frames hpvm-serial ' "$3" || true ;;
    esac
  fi
}

: >"$RESULTS"
rm -f "$LOG"/run-*.txt
START=$(date +%s)
# The variants take turns at going first (a rotation per round), so that
# none is always the one after a sequential run, or always the first.
ORDERS=("omp hpvm seq" "hpvm seq omp" "seq omp hpvm")
for round in $(seq 1 "$ROUNDS"); do
  order=${ORDERS[$(((round - 1) % 3))]}
  say "round $round of $ROUNDS (order: $order)"
  wait_quiet "round$round-stream"
  run_variant stream-triad omp
  for k in saxpy stencil pipeline sgemm-ikj sgemm sweeps steps jacobi2d syrk atax launch async frames; do
    wait_quiet "round$round-$k"
    for v in $order; do
      # sgemm i-j-k sequentially takes ~20 s a round: once is enough.
      [ "$k" = sgemm ] && [ "$v" = seq ] && [ "$round" -gt 1 ] && continue
      case $k in
      sgemm-ikj) run_variant sgemm "$v" ikj ;;
      *) run_variant "$k" "$v" ;;
      esac
    done
  done
  [ -n "$VULKAN" ] && continue
  # The two devices take turns at going first.
  vk_order="cpu vulkan"
  [ $((round % 2)) -eq 0 ] && vk_order="vulkan cpu"
  for k in launch saxpy stencil pipeline sgemm-ikj sgemm sweeps; do
    wait_quiet "round$round-$k-vulkan"
    extra=""
    [ "$k" = launch ] && extra="vulkan-raw vulkan-raw-poll"
    for v in $vk_order $extra; do
      case $k in
      sgemm-ikj) run_variant sgemm "$v" ikj ;;
      *) run_variant "$k" "$v" ;;
      esac
    done
  done
done
[ -n "$VULKAN" ] && echo "NOVULKAN $VULKAN" >>"$RESULTS"
echo "RUNTIME $(($(date +%s) - START))" >>"$RESULTS"

# --- the machine -----------------------------------------------------------------
{
  machine_lines
  echo "threads: $THREADS (HPVM_NUM_THREADS, OMP_NUM_THREADS); rounds: $ROUNDS"
  if [ -n "$VK_DEVICE" ]; then
    echo "vulkan: $VK_DEVICE; $(vulkaninfo 2>/dev/null | sed -n 's/^[[:space:]]*driverInfo *= *//p' | head -1)"
  fi
} >"$OUT/machine.txt"

say "results"
python3 bench/report.py "$RESULTS" "$OUT/machine.txt" "$REPRO" "$RESULTS_MD"
echo "(written to $RESULTS_MD; raw lines in $RESULTS, HPVM_STATS and errors in $LOG/)"
