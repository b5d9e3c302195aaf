#!/usr/bin/env bash
# bench/movement/run.sh: the bytes hpvm-rt moves between host and device
# memory against the least each program needs, next to the time, for three
# workloads on Vulkan and on OpenCL; prints the table and writes the "Data
# movement" section of bench/RESULTS.md (bench/movement/report.py).
#
#   bench/movement/run.sh               build dir: build/ (or $HPVM_BUILD_DIR)
#   bench/movement/run.sh --smoke DIR   CTest's bench.movement: small sizes,
#                                       one timed call, nothing written but
#                                       DIR; fails on a wrong result or a
#                                       data-region stencil above 1.01x its
#                                       minimum; "SKIP: " without a device
#
# The workloads (bench/movement/*.c, see bench/README.md), each built once
# with hpvm-clang -O3 --hpvm-target=cpu,spirv:
#   chain            produce (cpu) -> left (spirv) -> combine (cpu)
#                    HPVM_DEVICES=cpu,vulkan and cpu,opencl
#   pipeline         examples/image-pipeline/pipeline.c, HPVM_DEVICES=vulkan, opencl
#   stencil          bench/kernels/stencil.c: T Jacobi steps, one launch each,
#                    HPVM_DEVICES=vulkan, opencl
#   stencil-region   the same inside #pragma hpvm data
# Each of BENCH_MOVE_RUNS (3) runs of a program: HPVM_STATS=1
# HPVM_DEVICES_STRICT=1, one untimed call (it also compiles the kernels)
# whose statistics give the bytes one call moves, then BENCH_MOVE_REPS timed
# calls (5); every call checked against a scalar reference. The statistics
# at exit must show every call moving the same, and every run must agree;
# the time is the median of all the timed calls.
#
# Settings (environment): BENCH_MOVE_RUNS, BENCH_MOVE_REPS, BENCH_MOVE_CHAIN_N (2^22),
# BENCH_MOVE_PIPELINE_H / _W (1024), BENCH_MOVE_STENCIL_H / _W (512),
# BENCH_MOVE_STENCIL_T (20), BENCH_QUIET_WAIT (seconds to wait for an idle
# machine, 120), BENCH_JOBS (ninja -j, 2), BENCH_RESULTS_MD (where the
# section goes instead of bench/RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH_SCRIPT=bench/movement/run.sh
# shellcheck source=bench/lib.sh
. bench/lib.sh
BUILD=${HPVM_BUILD_DIR:-build}
CLANG=${BENCH_CLANG:-clang-19}
SMOKE=""
if [ "${1:-}" = --smoke ]; then
  SMOKE=1
  OUT=${2:?--smoke takes the directory to work in}
  export BENCH_MOVE_RUNS=1 BENCH_MOVE_REPS=1 BENCH_MOVE_CHAIN_N=65536 BENCH_MOVE_PIPELINE_H=67 \
    BENCH_MOVE_PIPELINE_W=61 BENCH_MOVE_STENCIL_H=45 BENCH_MOVE_STENCIL_W=77 \
    BENCH_MOVE_STENCIL_T=6
else
  OUT=$BUILD/bench/movement
fi
BIN=$OUT/bin
LOG=$OUT/logs
RESULTS=$OUT/results.txt
RESULTS_MD=${BENCH_RESULTS_MD:-bench/RESULTS.md}
QUIET_WAIT=${BENCH_QUIET_WAIT:-120}
RUNS=${BENCH_MOVE_RUNS:-3}
REPRO=$(repro_command bench/movement/run.sh HPVM_BUILD_DIR BENCH_MOVE_RUNS BENCH_MOVE_REPS \
  BENCH_MOVE_CHAIN_N BENCH_MOVE_PIPELINE_H BENCH_MOVE_PIPELINE_W BENCH_MOVE_STENCIL_H \
  BENCH_MOVE_STENCIL_W BENCH_MOVE_STENCIL_T BENCH_RESULTS_MD)

# --- build -------------------------------------------------------------------------
require_tools
if [ -n "$SMOKE" ]; then
  HPVM_CLANG=$BUILD/bin/hpvm-clang # CTest runs after the build
  [ -x "$HPVM_CLANG" ] || die "no hpvm-clang at $HPVM_CLANG"
else
  build_toolchain
fi
say "building the workloads into $BIN"
build() { # $1 = program, rest = sources
  local exe=$BIN/$1
  shift
  "$HPVM_CLANG" -O3 --hpvm-target=cpu,spirv "$@" -lm -o "$exe" >"$LOG/build-${exe##*/}.txt" 2>&1 ||
    { cat "$LOG/build-${exe##*/}.txt"; die "hpvm-clang failed on $*"; }
}
# The references of the pipeline and the stencil: the same sources as the
# sequential program (plain clang ignores the pragmas), under another name.
sequential() { # $1 = source, $2 = its function
  "$CLANG" -O2 -Wno-unknown-pragmas -Wno-source-uses-openmp "-D$2=$2_sequential" -c "$1" \
    -o "$OUT/$2-sequential.o"
}
sequential examples/image-pipeline/pipeline.c pipeline
sequential bench/kernels/stencil.c kernel_stencil
build chain bench/movement/chain.c
build pipeline bench/movement/pipeline.c examples/image-pipeline/pipeline.c "$OUT/pipeline-sequential.o"
build stencil bench/movement/stencil.c bench/kernels/stencil.c "$OUT/kernel_stencil-sequential.o"

# --- run -----------------------------------------------------------------------------
# BENCH_MOVE_RUNS runs of a workload on a device set; appends to $RESULTS
# per run
#   MOVED <workload> <devices> <the MOVE line's words> bytes=<one call>
#         total=<every call> placed=ok|<leaves that ran on the CPU>
# or, when the accelerator is missing or a run failed (and no more runs),
#   SKIPPED|FAILED <workload> <devices> <why>
DEVICE_NAMES=()
run_one() { # $1 = workload, $2 = program, $3 = HPVM_DEVICES, $4... = arguments
  local name=$1 prog=$2 devices=$3 accel=${3##*,}
  shift 3
  local run log move first total dev placed
  for run in $(seq 1 "$RUNS"); do
    log=$LOG/run-$name.$accel.$run
    env HPVM_STATS=1 HPVM_DEVICES="$devices" HPVM_DEVICES_STRICT=1 \
      "$BIN/$prog" "$@" >"$log.out" 2>"$log.err" || true
    move=$(grep -m1 "^MOVE $name " "$log.out") || {
      if grep -q "'$accel' has no device" "$log.err"; then
        echo "SKIPPED $name $devices $(grep -m1 "has no device" "$log.err" | cut -c1-300)"
      else
        echo "FAILED $name $devices $( (grep -m1 -i error "$log.err" || tail -1 "$log.err") | cut -c1-300)"
      fi | tee -a "$RESULTS"
      return 0
    }
    # The coherence line of the first call's statistics, and of the ones at exit.
    first=$(sed -n '/^movement: statistics after the first call/,/^movement: end of/s/^coherence: \([0-9]*\) bytes moved.*/\1/p' "$log.err")
    total=$(sed -n 's/^coherence: \([0-9]*\) bytes moved.*/\1/p' "$log.err" | tail -1)
    dev=$(sed -n "s/^hpvm-rt stats:.*devices: \(cpu ([0-9]* threads) \)*//p" "$log.err" | head -1)
    # Every leaf that may run on the accelerator ran there (chain's produce
    # and combine are target(cpu)); the statistics at exit, every call.
    placed=$(awk -v accel="$accel" '
      /^buffer / { exit }
      $2 ~ "^" accel ":[0-9]+$" && $3 > 0 { on = 1 }
      $2 == "cpu" && $1 !~ /\/(produce|combine)$/ { off = off "," $1 "@cpu" }
      END { print off ? substr(off, 2) : (on ? "ok" : "nothing-on-" accel) }' \
      <(sed -n '/^movement: end of/,$p' "$log.err"))
    [ -n "$dev" ] && DEVICE_NAMES+=("$accel: $dev")
    echo "MOVED $name $devices ${move#MOVE "$name" } bytes=${first:-0} total=${total:-0} placed=$placed" >>"$RESULTS"
  done
  echo "   $name on $devices: $RUNS run(s), ${first:-?} bytes per call"
}

: >"$RESULTS"
rm -f "$LOG"/run-*
START=$(date +%s)
for accel in vulkan opencl; do
  say "on $accel"
  [ -n "$SMOKE" ] || wait_quiet "$accel"
  run_one chain chain "cpu,$accel"
  run_one pipeline pipeline "$accel"
  run_one stencil stencil "$accel" plain
  run_one stencil-region stencil "$accel" region
done
echo "RUNTIME $(($(date +%s) - START))" >>"$RESULTS"

if [ -n "$SMOKE" ]; then
  python3 bench/movement/report.py --smoke "$RESULTS"
  exit
fi

# --- the report ------------------------------------------------------------------------
{
  machine_lines
  printf '%s\n' "${DEVICE_NAMES[@]}" | sort -u
} >"$OUT/machine.txt"
say "results"
python3 bench/movement/report.py "$RESULTS" "$OUT/machine.txt" "$REPRO" "$RESULTS_MD"
echo "(written to $RESULTS_MD; raw lines in $RESULTS, statistics and errors in $LOG/)"
