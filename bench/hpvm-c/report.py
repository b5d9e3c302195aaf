#!/usr/bin/env python3
"""bench/hpvm-c/report.py RESULTS MACHINE REPRO [RESULTS_MD]: HPVM-C against
#pragma hpvm from bench/hpvm-c/run.sh's RESULT lines (the median of the
rounds' medians for each kernel and variant), printed and written to the
"HPVM-C" section of RESULTS_MD (bench/report.py's section machinery)."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import report as cpu  # noqa: E402  (bench/report.py)

# (variant of the pragma build, of the HPVM-C build, device)
PAIRS = [("hpvm", "hpvmc", "cpu"), ("vulkan", "vulkan-hpvmc", "vulkan")]
KERNELS = ["sgemm-ikj", "sgemm", "sgemm-tiled", "stencil", "sweeps"]
# The goal: the same speed, within the rounds' noise; none for the tiled
# sgemm, HPVM's GPU kernel with local memory and barriers, which the pragma
# build runs as its plain product (C has no barriers): what running barriers
# costs, a work-group's phases in loops on the CPU and the device's own
# work-groups and barriers on Vulkan (docs/hpvm-c.md, "Barriers").
GOAL = (0.9, 1.1)
NO_GOAL = {"sgemm-tiled"}


def parse(path):
    runs = {}  # (bench, variant) -> [median_s]
    sizes, bad = {}, set()
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 4 or w[0] != "RESULT":
                continue
            rec = dict(x.split("=", 1) for x in w[3:] if "=" in x)
            key = (w[1], w[2])
            runs.setdefault(key, []).append(float(rec["median_s"]))
            sizes[key] = rec.get("size", "?")
            if rec.get("check") != "ok":
                bad.add(key)
    return runs, sizes, bad


def main():
    results, machine, repro = sys.argv[1:4]
    md_path = sys.argv[4] if len(sys.argv) > 4 else None
    runs, sizes, bad = parse(results)
    head = ["kernel", "device", "size", "#pragma hpvm (ms)", "HPVM-C (ms)",
            "HPVM-C speed / pragma"]
    rows, notes = [], []
    for k in KERNELS:
        for pragma, hpvmc, device in PAIRS:
            if (k, pragma) not in runs or (k, hpvmc) not in runs:
                continue
            tp = statistics.median(runs[(k, pragma)])
            tc = statistics.median(runs[(k, hpvmc)])
            ratio = tp / tc
            wrong = [v for v in (pragma, hpvmc) if (k, v) in bad]
            rows.append([k, device, sizes[(k, pragma)], f"{tp * 1e3:.3f}",
                         f"{tc * 1e3:.3f}",
                         f"{ratio:.2f}×" + (" (CHECK FAILED)" if wrong else "")])
            if k in NO_GOAL:
                notes.append((None, f"{k} on {device}: HPVM-C's tiles and "
                                    f"barriers at {ratio:.2f}× the pragma "
                                    f"build's plain product (no goal)"))
                continue
            ok = GOAL[0] <= ratio <= GOAL[1] and not wrong
            notes.append((ok, f"{k} on {device}: HPVM-C at {ratio:.2f}× the "
                              f"pragma version's speed (goal ≈ 1.0, "
                              f"{GOAL[0]}–{GOAL[1]})"))
    print(cpu.plain(head, rows))
    for ok, text in notes:
        print({True: "goal met: ", False: "goal NOT met: ",
               None: "measured: "}[ok] + text)
    if not md_path:
        return
    cpu.report_section(
        md_path, cpu.HPVMC_BEGIN, "HPVM-C", "bench/hpvm-c/run.sh", repro,
        "The kernels of `bench/kernels/` (`#pragma hpvm`) against the same "
        "loops written in HPVM-C (`bench/hpvm-c/`, hpvm.h's explicit graph "
        "calls, as HPVM's own sgemm and stencil are: sgemm as 16×16 "
        "work-groups of work-items, the stencil's grids tracked across "
        "launches, sweeps as 2000 small launches each waited for at once), "
        "with the same drivers, built by `hpvm-clang -O3 "
        "--hpvm-target=cpu,spirv` and run in the same rounds on the CPU "
        "backend and on the Vulkan device. Medians of the rounds' medians; "
        "the ratio is the pragma version's time over HPVM-C's (above 1: "
        "HPVM-C faster).",
        machine, head, rows, notes)
    print(f"(HPVM-C section written to {md_path})")


if __name__ == "__main__":
    main()
