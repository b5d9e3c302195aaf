#!/usr/bin/env bash
# bench/hpvm-c/run.sh: HPVM-C programs (bench/hpvm-c/*.c, written with
# hpvm.h's explicit graph calls as HPVM's own sgemm and stencil are) against
# the same kernels written with #pragma hpvm (bench/kernels/*.c), with the
# same drivers, in the same rounds; prints the table and writes the "HPVM-C"
# section of bench/RESULTS.md (bench/hpvm-c/report.py).
#
#   bench/hpvm-c/run.sh          build dir: build/ (or $HPVM_BUILD_DIR)
#
# Both variants are built by hpvm-clang -O3 --hpvm-target=cpu,spirv and run
# on the CPU (HPVM_DEVICES=cpu, the main sizes of bench/run.sh) and on the
# machine's Vulkan device (HPVM_DEVICES=vulkan, bench/run.sh's Vulkan sizes);
# the variants take turns at going first; sweeps (2000 small launches) on
# the CPU only. Settings (environment):
# BENCH_ROUNDS (3), BENCH_THREADS (2), the drivers' BENCH_SGEMM_N,
# BENCH_STENCIL_N, BENCH_STENCIL_STEPS, BENCH_VK_SGEMM_N (200),
# BENCH_VK_STENCIL_N (1024), BENCH_QUIET_WAIT, BENCH_RESULTS_MD.
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH_SCRIPT=bench/hpvm-c/run.sh
# shellcheck source=bench/lib.sh
. bench/lib.sh
REPRO=$(repro_command bench/hpvm-c/run.sh HPVM_BUILD_DIR BENCH_ROUNDS BENCH_THREADS \
  BENCH_SGEMM_N BENCH_STENCIL_N BENCH_STENCIL_STEPS BENCH_VK_SGEMM_N BENCH_VK_STENCIL_N \
  BENCH_RESULTS_MD)
BUILD=${HPVM_BUILD_DIR:-build}
THREADS=${BENCH_THREADS:-2}
ROUNDS=${BENCH_ROUNDS:-3}
export BENCH_BUDGET_S=${BENCH_BUDGET_S:-0.5}
QUIET_WAIT=${BENCH_QUIET_WAIT:-120}
CLANG=${BENCH_CLANG:-clang-19}
OUT=$BUILD/bench/hpvm-c
BIN=$OUT/bin
LOG=$OUT/logs
RESULTS=$OUT/results.txt
RESULTS_MD=${BENCH_RESULTS_MD:-bench/RESULTS.md}
KERNELS="sgemm stencil sweeps"
VK_SIZES=(BENCH_SGEMM_N="${BENCH_VK_SGEMM_N:-200}" BENCH_STENCIL_N="${BENCH_VK_STENCIL_N:-1024}")

require_tools
build_toolchain
say "building the benchmarks into $BIN"
# shellcheck disable=SC2086 # (a list of names)
build_drivers $KERNELS
for k in $KERNELS; do
  for v in hpvm hpvmc; do
    src=bench/kernels/$k.c
    [ $v = hpvmc ] && src=bench/hpvm-c/$k.c
    "$HPVM_CLANG" -O3 --hpvm-target=cpu,spirv "$src" "$OUT/driver-$k.o" "$OUT/bench.o" -lm \
      -o "$BIN/$k.$v" >"$LOG/build-$k.$v.txt" 2>&1 ||
      { cat "$LOG/build-$k.$v.txt"; die "hpvm-clang failed on $src"; }
    # The Vulkan runs: the same binary on the other device.
    vk=vulkan
    [ $v = hpvmc ] && vk=vulkan-hpvmc
    ln -sf "$k.$v" "$BIN/$k.$vk"
  done
done

variant_env() { # $1 = bench, $2 = variant
  case $2 in
  hpvm | hpvmc) printf '%s\n' "HPVM_NUM_THREADS=$THREADS" HPVM_STATS=1 HPVM_DEVICES=cpu ;;
  vulkan | vulkan-hpvmc)
    printf '%s\n' "HPVM_NUM_THREADS=$THREADS" HPVM_STATS=1 HPVM_DEVICES=vulkan \
      HPVM_DEVICES_STRICT=1 BENCH_MIN_REPS="${BENCH_MIN_REPS:-3}" "${VK_SIZES[@]}"
    ;;
  esac
}

VULKAN=yes
HPVM_DEVICES=vulkan HPVM_DEVICES_STRICT=1 BENCH_SGEMM_N=16 BENCH_MIN_REPS=1 BENCH_MAX_REPS=1 \
  BENCH_BUDGET_S=0 "$BIN/sgemm.hpvm" probe >/dev/null 2>"$LOG/vulkan-probe.txt" || {
  VULKAN=""
  echo "   Vulkan runs skipped: $(grep -m1 error "$LOG/vulkan-probe.txt" || echo 'no device')"
}

: >"$RESULTS"
ORDERS=("hpvm hpvmc" "hpvmc hpvm")
for round in $(seq 1 "$ROUNDS"); do
  order=${ORDERS[$(((round - 1) % 2))]}
  say "round $round of $ROUNDS (order: $order)"
  for k in sgemm-ikj sgemm sgemm-tiled stencil sweeps; do
    wait_quiet "round$round-$k"
    for device in cpu vulkan; do
      [ $device = vulkan ] && [ -z "$VULKAN" ] && continue
      # (2000 launches of 4000 points: what a launch costs, on the CPU)
      [ $device = vulkan ] && [ $k = sweeps ] && continue
      for v in $order; do
        if [ $device = vulkan ]; then
          case $v in
          hpvm) v=vulkan ;;
          hpvmc) v=vulkan-hpvmc ;;
          esac
        fi
        case $k in
        sgemm-ikj) run_variant sgemm "$v" ikj ;;
        sgemm-tiled) run_variant sgemm "$v" tiled ;;
        *) run_variant "$k" "$v" ;;
        esac
      done
    done
  done
done
machine_lines >"$OUT/machine.txt"
say "results"
python3 bench/hpvm-c/report.py "$RESULTS" "$OUT/machine.txt" "$REPRO" "$RESULTS_MD"
