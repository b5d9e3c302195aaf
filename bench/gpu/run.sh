#!/usr/bin/env bash
# bench/gpu/run.sh: every benchmark of bench/kernels/ on an NVIDIA GPU, HPVM
# against a hand-written CUDA version of the same algorithm, side by side;
# prints the table and writes the GPU section of bench/RESULTS.md.
#
#   bench/gpu/run.sh                       build dir: build/ (or $HPVM_BUILD_DIR)
#   bench/gpu/run.sh --cuda-build-only DIR only the CUDA programs, into DIR
#                                          (what CTest's bench.gpu.build runs)
#
# The variants (see bench/README.md, "On a GPU"):
#   hpvm  hpvm-clang -O3 --hpvm-target=cpu,nvptx  HPVM_DEVICES=cuda HPVM_DEVICES_STRICT=1
#   cuda  nvcc -O3 -arch=sm_XX bench/gpu/<name>.cu
# both linked with the same driver (bench/drivers/) and timing loop
# (bench/common/bench.c), plus launch-raw: cuLaunchKernel of an empty PTX
# kernel through the Driver API (bench/gpu/launch_raw.c).
#
# Without a GPU (no libcuda.so.1, or no device) it builds everything, says
# "no GPU: <reason>; built everything, ran nothing" and exits 0; a build
# without hpvm-clang's nvptx target builds and runs the CUDA side only and
# says so. Exit status: 0 when every program that could run ran and passed
# its check.
#
# Settings (environment): BENCH_ROUNDS (3), BENCH_GPU_SM (the SM to compile
# for, e.g. 90; default: the first GPU's, else 80), BENCH_NVCC (nvcc; default
# the one on PATH, else /usr/local/cuda/bin/nvcc), BENCH_RESULTS_MD (where the
# GPU section goes instead of bench/RESULTS.md), and the sizes and timing
# settings of bench/run.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH_SCRIPT=bench/gpu/run.sh
# shellcheck source=bench/lib.sh
. bench/lib.sh
BENCHES="saxpy stencil pipeline sgemm launch"
CLANG=${BENCH_CLANG:-clang-19}
NVCC=${BENCH_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

have_nvcc() { [ -x "$NVCC" ] || command -v "$NVCC" >/dev/null 2>&1; }

# --- the CUDA programs ---------------------------------------------------------
# Needs OUT, BIN, LOG, SM and the drivers' objects. Every .cu is compiled
# and linked in one nvcc call.
build_cuda() {
  local k cuda_include
  cuda_include=$(dirname "$(dirname "$(readlink -f "$(command -v "$NVCC")")")")/include
  for k in $BENCHES; do
    "$NVCC" -O3 -arch="sm_$SM" -Xcompiler -Wall "bench/gpu/$k.cu" "$OUT/driver-$k.o" \
      "$OUT/bench.o" -o "$BIN/$k.cuda" >"$LOG/build-$k.cuda.txt" 2>&1 ||
      { cat "$LOG/build-$k.cuda.txt"; die "nvcc failed on bench/gpu/$k.cu"; }
  done
  # The empty kernel as PTX, and as a cubin for a driver too old for the
  # toolkit's PTX version (launch_raw falls back to it and says so).
  "$NVCC" -ptx -arch="sm_$SM" bench/gpu/empty.cu -o "$BIN/empty.ptx"
  "$NVCC" -cubin -arch="sm_$SM" bench/gpu/empty.cu -o "$BIN/empty.cubin"
  build_probe "$cuda_include"
}
build_probe() { # $1 = the CUDA include directory (cuda.h: types only)
  "$CLANG" -O2 -Wall -I"$1" bench/gpu/launch_raw.c "$OUT/bench.o" -ldl \
    -o "$BIN/launch-raw.cuda"
}

if [ "${1:-}" = --cuda-build-only ]; then
  [ $# -eq 2 ] || die "usage: bench/gpu/run.sh --cuda-build-only DIR"
  OUT=$2 BIN=$2/bin LOG=$2/logs SM=${BENCH_GPU_SM:-80}
  if ! have_nvcc; then
    echo "SKIP: no nvcc ($NVCC; the CUDA toolkit is not installed): the CUDA benchmarks were not compiled"
    exit 0
  fi
  command -v "$CLANG" >/dev/null || die "$CLANG not found"
  mkdir -p "$BIN" "$LOG"
  # shellcheck disable=SC2086 # (a list of names)
  build_drivers $BENCHES
  build_cuda
  # Warnings are not fatal on a GPU machine, where the figures matter more;
  # here they fail the build check, so that they are fixed.
  if grep -l -i 'warning' "$LOG"/build-*.cuda.txt; then
    cat "$LOG"/build-*.cuda.txt
    die "nvcc warned (above)"
  fi
  # It runs, whether or not there is a GPU: 0 with one, 1 saying why not.
  rc=0
  "$BIN/launch-raw.cuda" --probe >"$LOG/probe.txt" 2>&1 || rc=$?
  [ "$rc" -le 1 ] || { cat "$LOG/probe.txt"; die "launch-raw --probe crashed (status $rc)"; }
  programs=("$BIN"/*.cuda)
  echo "ok: built ${#programs[@]} CUDA programs for sm_$SM with $("$NVCC" --version | tail -1)"
  exit 0
fi

# A GPU machine that cannot build HPVM (offline, no LLVM 19) runs the HPVM
# side built elsewhere: --hpvm-pack DIR builds it into DIR (the drivers'
# objects, <bench>.hpvm for cpu,nvptx, and GNU time), BENCH_GPU_PACK=DIR
# runs from it. The CUDA side is always built where it runs.
if [ "${1:-}" = --hpvm-pack ]; then
  [ $# -eq 2 ] || die "usage: bench/gpu/run.sh --hpvm-pack DIR"
  BUILD=${HPVM_BUILD_DIR:-build}
  OUT=$2 BIN=$2 LOG=$2/logs
  require_tools
  build_toolchain
  # shellcheck disable=SC2086 # (a list of names)
  build_drivers $BENCHES
  for k in $BENCHES; do
    build_hpvm "$k" "$BIN/$k.hpvm" --hpvm-target=cpu,nvptx ||
      { cat "$LOG/build-$k.hpvm.txt"; die "hpvm-clang failed on bench/kernels/$k.c"; }
  done
  cp "$TIME" "$OUT/time"
  "$CLANG" --version | head -1 >"$OUT/compiler.txt"
  echo "ok: the HPVM side of $BENCHES in $OUT"
  exit 0
fi
PACK=${BENCH_GPU_PACK:-}
if [ -n "$PACK" ]; then
  [ -f "$PACK/bench.o" ] || die "BENCH_GPU_PACK=$PACK: no bench.o there (made by --hpvm-pack)"
  PACK=$(cd "$PACK" && pwd)
  # Only the probe is compiled here with a C compiler, against cuda.h.
  command -v "$CLANG" >/dev/null || CLANG=cc
  [ -x "$TIME" ] || TIME=$PACK/time
  BENCH_DRIVER_COMPILER="$(cat "$PACK/compiler.txt") (the drivers, in $PACK)"
fi

# shellcheck disable=SC2086 # (a list of names)
REPRO=$(repro_command bench/gpu/run.sh $BENCH_COMMON_SETTINGS BENCH_GPU_SM BENCH_RESULTS_MD BENCH_GPU_PACK)
BUILD=${HPVM_BUILD_DIR:-build}
ROUNDS=${BENCH_ROUNDS:-3}
export BENCH_BUDGET_S=${BENCH_BUDGET_S:-0.5}
QUIET_WAIT=${BENCH_QUIET_WAIT:-120}
OUT=$BUILD/bench/gpu
BIN=$OUT/bin
LOG=$OUT/logs
RESULTS=$OUT/results.txt
RESULTS_MD=${BENCH_RESULTS_MD:-bench/RESULTS.md}

# --- tools -----------------------------------------------------------------
require_tools
have_nvcc || die "no nvcc ($NVCC): install the CUDA toolkit or set BENCH_NVCC"
CUDA_INCLUDE=$(dirname "$(dirname "$(readlink -f "$(command -v "$NVCC")")")")/include
[ -f "$CUDA_INCLUDE/cuda.h" ] || die "no cuda.h in $CUDA_INCLUDE"

# --- build the toolchain -----------------------------------------------------
[ -n "$PACK" ] || build_toolchain

# --- is there a GPU? ---------------------------------------------------------
# The probe is the Driver API program itself (it dlopens libcuda.so.1, as
# hpvm-rt does): a GPU the driver cannot use is no GPU here either.
if [ -n "$PACK" ]; then
  cp "$PACK"/*.o "$OUT/"
else
  "$CLANG" -O2 -Wall -c bench/common/bench.c -o "$OUT/bench.o"
fi
build_probe "$CUDA_INCLUDE"
GPU_REASON=""
if ! "$BIN/launch-raw.cuda" --probe >"$OUT/probe.txt" 2>"$LOG/probe.txt"; then
  GPU_REASON=$(head -1 "$LOG/probe.txt")
  command -v nvidia-smi >/dev/null || GPU_REASON="$GPU_REASON (and no nvidia-smi)"
fi
SM=${BENCH_GPU_SM:-}
if [ -z "$SM" ] && [ -z "$GPU_REASON" ]; then
  SM=$(sed -n 's/^GPU 0 sm_\([0-9]*\) .*/\1/p' "$OUT/probe.txt")
fi
if [ -z "$SM" ] && command -v nvidia-smi >/dev/null; then
  SM=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
fi
SM=${SM:-80}
"$NVCC" --list-gpu-code | grep -qx "sm_$SM" ||
  die "$("$NVCC" --version | tail -1) cannot compile for sm_$SM (it knows $("$NVCC" --list-gpu-code | tr '\n' ' '))"

# --- build the variants --------------------------------------------------------
say "building the benchmarks into $BIN (CUDA for sm_$SM)"
# shellcheck disable=SC2086 # (a list of names)
[ -n "$PACK" ] || build_drivers $BENCHES
build_cuda
: >"$RESULTS"
HPVM_MISSING=""
HPVM_FAILED=0
for k in $BENCHES; do
  rm -f "$BIN/$k.hpvm"
  [ -n "$HPVM_MISSING" ] && continue
  if [ -n "$PACK" ]; then
    cp "$PACK/$k.hpvm" "$BIN/$k.hpvm" || HPVM_FAILED=1
  elif ! build_hpvm "$k" "$BIN/$k.hpvm" --hpvm-target=cpu,nvptx; then
    if grep -q "target 'nvptx' is not available in this build" "$LOG/build-$k.hpvm.txt"; then
      HPVM_MISSING="hpvm-clang has no nvptx target in this build"
      echo "NOTE HPVM side not built: $HPVM_MISSING" >>"$RESULTS"
    else
      cat "$LOG/build-$k.hpvm.txt"
      echo "   hpvm-clang --hpvm-target=cpu,nvptx failed on $k (log: $LOG/build-$k.hpvm.txt)"
      echo "NOTE $k: hpvm-clang --hpvm-target=cpu,nvptx failed: $(grep -m1 'error' "$LOG/build-$k.hpvm.txt" || echo 'see the log')" >>"$RESULTS"
      HPVM_FAILED=1
    fi
  fi
done
[ -z "$HPVM_MISSING" ] || echo "   $HPVM_MISSING: the HPVM side is not built (the CUDA side is)"

if [ -n "$GPU_REASON" ]; then
  echo "no GPU: $GPU_REASON; built everything, ran nothing"
  [ -z "$HPVM_MISSING" ] || echo "(and $HPVM_MISSING)"
  exit "$HPVM_FAILED"
fi

# An hpvm-rt without a CUDA device would fail every HPVM run the same way:
# said once instead.
if [ -z "$HPVM_MISSING" ] && [ -x "$BIN/launch.hpvm" ] &&
  ! HPVM_DEVICES=cuda HPVM_DEVICES_STRICT=1 BENCH_MIN_REPS=1 BENCH_MAX_REPS=1 \
    "$BIN/launch.hpvm" hpvm >/dev/null 2>"$LOG/hpvm-preflight.txt" &&
  grep -q "'cuda' is not a device kind" "$LOG/hpvm-preflight.txt"; then
  HPVM_MISSING="hpvm-rt has no cuda device in this build"
  echo "NOTE HPVM side not run: $HPVM_MISSING" >>"$RESULTS"
  echo "   $HPVM_MISSING: the HPVM side is not run (the CUDA side is)"
  rm -f "$BIN"/*.hpvm
fi

# --- run -------------------------------------------------------------------------
variant_env() { # $1 = bench, $2 = variant
  [ "$2" = hpvm ] && printf '%s\n' HPVM_DEVICES=cuda HPVM_DEVICES_STRICT=1 HPVM_STATS=1
  return 0
}
# The kernel times of the run kept, for the second table: the CUDA programs
# print KERNEL lines (bench/gpu/cuda_bench.h); for HPVM they are the rows of
# hpvm-rt's statistics whose device is a CUDA one. Leaves that ran anywhere
# else are reported (OFFGPU) and fail the row; COHERENCE gives the bytes
# hpvm-rt moved and the launches of the graph's root.
variant_extra() { # $1 = bench, $2 = variant, $3 = stdout, $4 = stderr, $5 = RESULT line
  local bench
  bench=$(echo "$5" | awk '{print $2}')
  case $2 in
  cuda) sed -n "s/^KERNEL /KERNEL $bench cuda /p" "$3" ;;
  hpvm)
    awk -v bench="$bench" '
      /^node +device/ { table = 1; next }
      /^buffer / { table = 0; next }
      /^coherence:/ {
        printf "COHERENCE %s hpvm bytes=%s launches=%s\n", bench, $2, root; table = 0; next }
      table && $3 ~ /^[0-9]+$/ {
        if ($1 !~ /\// && $3 > root) root = $3
        if ($2 ~ /^cuda(:[0-9]+)?$/)
          printf "KERNEL %s hpvm %s launches=%s total_s=%.9g\n", bench, $1, $3, $5 / 1e3
        else if ($2 != "host" && $3 > 0)
          printf "OFFGPU %s hpvm %s %s\n", bench, $1, $2
      }' "$4"
    ;;
  esac
}

rm -f "$LOG"/run-*.txt
START=$(date +%s)
# The two variants take turns at going first.
ORDERS=("cuda hpvm" "hpvm cuda")
for round in $(seq 1 "$ROUNDS"); do
  order=${ORDERS[$(((round - 1) % 2))]}
  say "round $round of $ROUNDS (order: $order)"
  for k in saxpy stencil pipeline sgemm-ikj sgemm launch; do
    wait_quiet "round$round-$k"
    for v in $order; do
      base=${k%-ikj}
      [ -x "$BIN/$base.$v" ] || continue
      case $k in
      sgemm-ikj) run_variant sgemm "$v" ikj ;;
      *) run_variant "$k" "$v" ;;
      esac
    done
  done
  wait_quiet "round$round-launch-raw"
  run_variant launch-raw cuda
done
echo "RUNTIME $(($(date +%s) - START))" >>"$RESULTS"

# --- the machine -----------------------------------------------------------------
{
  machine_lines
  sed -n 's/^GPU \([0-9]*\) \(sm_[0-9]*\) \(.*\)/gpu \1: \3 (\2)/p' "$OUT/probe.txt"
  if command -v nvidia-smi >/dev/null; then
    echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,pcie.link.gen.max,pcie.link.width.max \
      --format=csv,noheader 2>/dev/null | head -1)" \
      "(name, driver, memory, max SM clock, PCIe generation, width)"
  fi
  echo "cuda driver: $(sed -n 's/^DRIVER //p' "$OUT/probe.txt"); nvcc: $("$NVCC" --version | tail -1); compiled for sm_$SM"
  echo "hpvm: ${HPVM_MISSING:-hpvm-clang -O3 --hpvm-target=cpu,nvptx}; rounds: $ROUNDS"
} >"$OUT/machine.txt"

say "results"
python3 bench/gpu/report.py "$RESULTS" "$OUT/machine.txt" "$REPRO" "$RESULTS_MD"
echo "(GPU section written to $RESULTS_MD; raw lines in $RESULTS, HPVM_STATS and errors in $LOG/)"
# Failed checks, failed or missing runs, leaves off the GPU: the report has
# them; the exit status says so too.
if [ "$HPVM_FAILED" = 1 ] || grep -q '^RESULT.*check=[^o]' "$RESULTS" ||
  grep -q '^OFFGPU\|^FAILED' "$RESULTS"; then
  exit 1
fi
