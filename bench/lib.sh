# shellcheck shell=bash
# bench/lib.sh: what bench/run.sh (CPU) and bench/gpu/run.sh (GPU) share,
# sourced by both: the toolchain build, the drivers' objects, the idle-machine
# checks and the loop that runs one variant of one benchmark. Not a program
# of its own.
#
# A script that sources it sets first:
#   BENCH_SCRIPT   its own name, for messages
#   BUILD          the build directory (relative to the repository root)
#   OUT BIN LOG    where objects, executables and logs go
#   RESULTS        the raw results file run_variant appends to
#   CLANG          the C compiler of the drivers (clang-19)
# and may define, before calling run_variant:
#   variant_env <bench> <variant>   prints NAME=VALUE words, one per line: the
#                                   environment of that variant's runs
#   variant_extra <bench> <variant> <stdout file> <stderr file> <RESULT line>
#                                   prints lines to record with the run kept
#                                   (after its RESULT line), or nothing

say() { printf '== %s\n' "$*"; }
die() { printf '%s: error: %s\n' "${BENCH_SCRIPT:-bench}" "$*" >&2; exit 1; }

# The command that reproduces a run: the settings given in the environment
# in front of the script's name.
repro_command() { # $1 = the script; rest = variable names
  local cmd=$1 var
  shift
  for var in "$@"; do
    if [ -n "${!var:-}" ]; then cmd="$var=${!var} $cmd"; fi
  done
  echo "$cmd"
}
# The settings both scripts read (the drivers' sizes and timing).
# shellcheck disable=SC2034 # (used by the scripts that source this)
BENCH_COMMON_SETTINGS="HPVM_BUILD_DIR BENCH_ROUNDS BENCH_SAXPY_N BENCH_SGEMM_N \
BENCH_STENCIL_N BENCH_STENCIL_STEPS BENCH_PIPELINE_N BENCH_LAUNCH_N \
BENCH_SWEEPS_N BENCH_SWEEPS_STEPS BENCH_JACOBI2D_N BENCH_JACOBI2D_STEPS BENCH_ASYNC_N BENCH_FRAMES_N BENCH_FRAMES_W BENCH_FRAMES_H \
BENCH_BUDGET_S BENCH_MIN_REPS BENCH_MAX_REPS BENCH_RETRIES"

# GNU time, for each run's CPU times (BENCH_TIME: another copy of it, e.g.
# one carried to a machine that lacks it).
TIME=${BENCH_TIME:-/usr/bin/time}
require_tools() {
  command -v "$CLANG" >/dev/null || die "$CLANG not found (scripts/install-deps.sh installs it)"
  [ -x "$TIME" ] || die "$TIME not found: apt-get install time"
  mkdir -p "$BIN" "$LOG"
}

# Builds hpvm-clang and hpvm-rt in $BUILD (configuring it first if needed)
# and sets HPVM_CLANG.
build_toolchain() {
  say "building hpvm-clang and hpvm-rt in $BUILD"
  [ -f "$BUILD/build.ninja" ] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$BUILD" -j "${BENCH_JOBS:-2}" hpvm-clang hpvm-rt >"$LOG/ninja.txt" 2>&1 ||
    { tail -30 "$LOG/ninja.txt"; die "the build failed (log: $LOG/ninja.txt)"; }
  HPVM_CLANG=$PWD/$BUILD/bin/hpvm-clang
  [ -x "$HPVM_CLANG" ] || HPVM_CLANG=$BUILD/bin/hpvm-clang
  [ -x "$HPVM_CLANG" ] || die "no hpvm-clang at $BUILD/bin/hpvm-clang"
}

# The timing driver and the per-benchmark drivers, compiled once with clang:
# the same object code in every variant of a benchmark.
build_drivers() { # $@ = benchmarks
  local k
  "$CLANG" -O2 -Wall -c bench/common/bench.c -o "$OUT/bench.o"
  for k in "$@"; do
    "$CLANG" -O2 -Wall -c "bench/drivers/$k.c" -o "$OUT/driver-$k.o"
  done
}

# Builds the HPVM variant of one benchmark: its kernel by hpvm-clang -O3 with
# the extra flags given, linked with the driver objects. The output goes to
# $LOG/build-<bench>.hpvm.txt; returns hpvm-clang's status.
build_hpvm() { # $1 = bench, $2 = executable, $3... = hpvm-clang flags
  local k=$1 exe=$2
  shift 2
  "$HPVM_CLANG" -O3 "$@" "bench/kernels/$k.c" "$OUT/driver-$k.o" "$OUT/bench.o" -lm \
    -o "$exe" >"$LOG/build-$k.hpvm.txt" 2>&1
}

# --- an idle machine -------------------------------------------------------------
# Fraction of CPU time spent by anything over the next second (from /proc/stat).
busy_percent() {
  local a b
  read -r -a a < <(grep '^cpu ' /proc/stat)
  sleep 1
  read -r -a b < <(grep '^cpu ' /proc/stat)
  local total=0 idle i
  for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
  idle=$(((b[4] - a[4]) + (b[5] - a[5])))
  echo $(((100 * (total - idle)) / (total > 0 ? total : 1)))
}
# Waits (up to QUIET_WAIT seconds in all) until the machine is idle; records
# what it saw. Numbers taken while something else runs are not comparable.
WAITED=0
wait_quiet() { # $1 = label
  local busy
  busy=$(busy_percent)
  while [ "$busy" -gt 10 ] && [ "$WAITED" -lt "$QUIET_WAIT" ]; do
    echo "   machine busy ($busy% CPU), waiting..."
    sleep 4
    WAITED=$((WAITED + 5))
    busy=$(busy_percent)
  done
  echo "BUSY $1 $busy" >>"$RESULTS"
  [ "$busy" -le 10 ] || echo "   WARNING: still $busy% busy; $1 runs on a loaded machine"
}

# --- run -------------------------------------------------------------------------
# Ticks (1/100 s) the whole machine has spent busy so far, from /proc/stat:
# user, nice, system, irq, softirq, steal.
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
NCPU=$(nproc)

variant_env() { :; }
variant_extra() { :; }

# Runs one variant of one benchmark ($BIN/<bench>.<variant>, given the
# variant's name as its first argument) and appends its RESULT line, plus
# others=<percent>: the CPU time other processes took while it ran, as a
# share of the machine (busy ticks of the machine minus the program's own),
# then what variant_extra prints for that run; a run that printed no RESULT
# line is recorded as "FAILED <bench> <variant> <its first error line>". A run that others disturbed
# by more than 5% is repeated (BENCH_RETRIES times in all, default 3) and the
# least disturbed one is kept.
run_variant() { # $1 = bench, $2 = variant, $3... = extra driver arguments
  local k=$1 v=$2 exe; shift 2
  exe=$BIN/$k.$v
  local env=() word
  while IFS= read -r word; do env+=("$word"); done < <(variant_env "$k" "$v")
  # sgemm i-j-k takes seconds per run (sequentially ~4 s): fewer repetitions.
  [ "$k" = sgemm ] && [ "${1:-}" != ikj ] && env+=(BENCH_MIN_REPS="${BENCH_SGEMM_MIN_REPS:-3}")
  local log=$LOG/run-$k$*.$v.txt best="" best_extra="" best_others=101
  for _ in $(seq 1 "${BENCH_RETRIES:-3}"); do
    local b0 b1 line others extra
    b0=$(busy_ticks)
    env "${env[@]}" "$TIME" -f 'TIME %e %U %S' -o "$log.time" \
      "$exe" "$v" "$@" >"$log.out" 2>"$log.last" || true
    line=$(grep -m1 '^RESULT' "$log.out") ||
      {
        cat "$log.out" "$log.last" >>"$log"
        echo "   $k $v failed (log: $log)"
        echo "FAILED $k${1:+-$1} $v $(grep -m1 -i 'error' "$log.last" | cut -c1-300)" >>"$RESULTS"
        return 0
      }
    b1=$(busy_ticks)
    cat "$log.last" >>"$log"
    # A result only counts as HPVM's if hpvm-rt ran nodes (HPVM_STATS output),
    # and as Vulkan's if they ran on the Vulkan device (the variants cpu and
    # vulkan are HPVM builds run on one device).
    # (hpvmc: an HPVM-C build, bench/hpvm-c/run.sh)
    case $v in
    hpvm | hpvmc | cpu | vulkan | vulkan-hpvmc)
      if ! grep -q '^hpvm-rt stats' "$log.last"; then
        line=${line/check=ok/check=NO-HPVM-LAUNCH}
      elif [[ $v == vulkan* ]] && ! grep -Eq '^[^ ]+ +vulkan:[0-9]+ +[1-9]' "$log.last"; then
        line=${line/check=ok/check=NOT-ON-VULKAN}
      fi
      ;;
    esac
    extra=$(variant_extra "$k" "$v" "$log.out" "$log.last" "$line")
    # (Runs shorter than 0.1 s are too short for tick counts to tell.)
    others=$(awk -v b0="$b0" -v b1="$b1" -v n="$NCPU" '/^TIME/ {
        o = (b1 - b0) - 100 * ($3 + $4); p = 0;
        if ($2 >= 0.1 && o > 0) p = 100 * o / (100 * $2 * n);
        if (p > 100) p = 100;
        printf "%d", p + 0.5 } END { if (!NR) print 0 }' "$log.time")
    if [ "$others" -lt "$best_others" ]; then
      best=$line best_extra=$extra best_others=$others
    fi
    [ "$others" -le 5 ] && break
    echo "   ($k $v: other processes took $others% of the machine; again)"
    sleep 3
  done
  rm -f "$log.last" "$log.time" "$log.out"
  echo "$best others=$best_others%" | tee -a "$RESULTS" | sed 's/^RESULT /   /'
  if [ -n "$best_extra" ]; then echo "$best_extra" >>"$RESULTS"; fi
}

# --- the machine -----------------------------------------------------------------
# The host's description, one "key: value" line each, for RESULTS.md.
machine_lines() {
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) CPUs online)"
  echo "caches: $(lscpu | sed -n 's/^L2 cache: *//p') L2, $(lscpu | sed -n 's/^L3 cache: *//p') L3"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "kernel: $(uname -sr); transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
  echo "compiler: ${BENCH_DRIVER_COMPILER:-$("$CLANG" --version | head -1)}"
  # (HPVM_COMMIT: the commit of a prebuilt pack, which is what runs on a lent
  # machine whatever history its copy of the tree has)
  if [ -n "${HPVM_COMMIT:-}" ]; then
    echo "hpvm: $HPVM_COMMIT (the prebuilt pack that ran)"
  elif git rev-parse --short HEAD >/dev/null 2>&1; then
    echo "hpvm: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + uncommitted changes')"
  else
    echo "hpvm: unknown (no git history here)"
  fi
}
