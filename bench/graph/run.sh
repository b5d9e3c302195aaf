#!/usr/bin/env bash
# bench/graph/run.sh: how the runtime scales with the number of nodes (a
# graph of 10000 empty leaves in three shapes, bench/graph/scale.cpp): load,
# first launch and the launch under every policy; prints the table and
# writes the "Graph scale" section of bench/RESULTS.md.
#
#   bench/graph/run.sh          build dir: build/ (or $HPVM_BUILD_DIR)
#
# Settings (environment): BENCH_GRAPH_NODES (10000), BENCH_GRAPH_RUNS (3,
# the lowest of each measure is kept), BENCH_GRAPH_REPS (launches per
# policy, 20), BENCH_QUIET_WAIT, BENCH_JOBS, BENCH_RESULTS_MD.
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH_SCRIPT=bench/graph/run.sh
# shellcheck source=bench/lib.sh
. bench/lib.sh
BUILD=${HPVM_BUILD_DIR:-build}
CLANG=${BENCH_CLANG:-clang-19}
OUT=$BUILD/bench/graph
BIN=$OUT/bin
LOG=$OUT/logs
RESULTS=$OUT/results.txt
RESULTS_MD=${BENCH_RESULTS_MD:-bench/RESULTS.md}
QUIET_WAIT=${BENCH_QUIET_WAIT:-120}
NODES=${BENCH_GRAPH_NODES:-10000}
RUNS=${BENCH_GRAPH_RUNS:-3}
REPRO=$(repro_command bench/graph/run.sh HPVM_BUILD_DIR BENCH_GRAPH_NODES BENCH_GRAPH_RUNS \
  BENCH_GRAPH_REPS BENCH_RESULTS_MD)

require_tools
say "building hpvm-bench-graph in $BUILD"
[ -f "$BUILD/build.ninja" ] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" -j "${BENCH_JOBS:-2}" hpvm-bench-graph >"$LOG/ninja.txt" 2>&1 ||
  { tail -30 "$LOG/ninja.txt"; die "the build failed (log: $LOG/ninja.txt)"; }

: >"$RESULTS"
for run in $(seq 1 "$RUNS"); do
  wait_quiet "run$run"
  say "run $run of $RUNS: $NODES nodes"
  "$BUILD/bench/graph/hpvm-bench-graph" "$NODES" | tee -a "$RESULTS" | sed 's/^RESULT graph /   /'
done
machine_lines >"$OUT/machine.txt"
say "results"
python3 bench/graph/report.py "$RESULTS" "$OUT/machine.txt" "$REPRO" "$RESULTS_MD"
