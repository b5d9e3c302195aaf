#!/usr/bin/env python3
"""bench/graph/report.py RESULTS MACHINE REPRO [RESULTS_MD]: the graph scale
table from hpvm-bench-graph's RESULT lines (the lowest of the runs for each
measure), printed and written to the "Graph scale" section of RESULTS_MD
(bench/report.py's section machinery)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import report as cpu  # noqa: E402  (bench/report.py)

POLICIES = ["hint", "round-robin", "heft", "dmda", "auto"]
GOAL_MS = 20.0


def parse(path):
    best = {}  # (shape, what) -> ms
    nodes = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 4 or w[0] != "RESULT" or w[1] != "graph":
                continue
            rec = dict(x.split("=", 1) for x in w[4:])
            nodes = int(rec["nodes"])
            key = (w[2], w[3])
            best[key] = min(best.get(key, float("inf")), float(rec["ms"]))
    return best, nodes


def main():
    results, machine, repro = sys.argv[1:4]
    md_path = sys.argv[4] if len(sys.argv) > 4 else None
    best, nodes = parse(results)
    shapes = [s for s in ("independent", "chain", "layers")
              if (s, "load") in best]
    head = ["shape", "load (ms)", "first launch (ms)"] + \
        [f"launch, {p} (ms)" for p in POLICIES] + ["per node, hint (µs)"]
    rows, goals = [], []
    for s in shapes:
        launch = [best.get((s, "launch-" + p)) for p in POLICIES]
        rows.append([s, f"{best[(s, 'load')]:.2f}", f"{best[(s, 'first')]:.2f}"] +
                    [f"{t:.2f}" if t is not None else "–" for t in launch] +
                    [f"{launch[0] * 1e3 / nodes:.3f}"])
        worst = max(t for t in launch if t is not None)
        goals.append((worst <= GOAL_MS,
                      f"{s}: every launch of the {nodes}-node graph scheduled "
                      f"and run in at most {worst:.2f} ms (goal {GOAL_MS:g} ms, "
                      f"{GOAL_MS / worst:.1f}× under it)"))
        first = best[(s, "load")] + best[(s, "first")]
        goals.append((first <= GOAL_MS,
                      f"{s}: load and first launch together {first:.2f} ms "
                      f"(goal {GOAL_MS:g} ms)"))
    print(cpu.plain(head, rows))
    for ok, text in goals:
        print(("goal met: " if ok else "goal NOT met: ") + text)
    if not md_path:
        return
    cpu.report_section(
        md_path, cpu.GRAPH_BEGIN, "Graph scale", "bench/graph/run.sh", repro,
        f"A graph of {nodes} empty CPU leaves through the C ABI "
        "(`bench/graph/scale.cpp`): *load* is the program's first launch "
        "(its graph text read and verified, plans built), *first launch* "
        "the big graph's first (candidates found, every leaf scheduled and "
        "run), then the median launch under each policy. Every launch is "
        "checked to run every leaf once. The lowest of the runs.",
        machine, head, rows, goals)
    print(f"(graph scale section written to {md_path})")


if __name__ == "__main__":
    main()
