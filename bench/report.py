#!/usr/bin/env python3
"""Turns the RESULT lines of bench/run.sh into the table it prints and
bench/RESULTS.md (all of it but the data movement and GPU sections, which
bench/movement/report.py and bench/gpu/report.py write with the functions
here).

    report.py results.txt machine.txt "<reproducing command>" RESULTS.md

results.txt holds, in any order:
    RESULT <bench> <variant> size=.. median_s=.. min_s=.. max_s=.. reps=..
           bytes=.. flops=.. check=ok|FAIL          (bench/common/bench.c)
    BUSY <label> <percent of CPU busy just before>  (run.sh's idle check)
    RUNTIME <seconds>
    NOVULKAN <why>                                  (no Vulkan comparison)
Each (bench, variant) has one RESULT per round; the table takes the lowest
of the rounds' medians (interference only ever slows a run down) and the
round-by-round section shows them all.
"""
import sys
from collections import defaultdict

VARIANTS = ["seq", "omp", "hpvm"]
# The Vulkan comparison: one binary built for cpu and spirv, on each device.
VK_VARIANTS = ["cpu", "vulkan"]
TITLES = {"seq": "sequential", "omp": "OpenMP", "hpvm": "HPVM",
          "cpu": "HPVM, HPVM_DEVICES=cpu", "vulkan": "HPVM, HPVM_DEVICES=vulkan"}
ORDER = ["saxpy", "stencil", "pipeline", "sgemm-ikj", "sgemm", "sweeps", "steps",
         "jacobi2d", "syrk", "atax", "launch", "async", "frames"]
# Kernels whose speed is set by memory bandwidth: compared with STREAM.
MEMORY_BOUND = {"saxpy", "stencil", "pipeline"}
# Kernels for which a ratio to the sequential loop means nothing (a loop that
# stores two ints is not a launch).
NO_SEQ_RATIO = {"launch", "async"}
# Kernels whose launches are too small to share among threads: the goal is
# the sequential loop's time, which pays nothing for a launch.
SEQ_GOAL = {"sweeps", "steps"}
WHAT = {
    "saxpy": "y = a x + y",
    "stencil": "5-point Jacobi, one launch per step",
    "pipeline": "blur -> gradient -> threshold, one graph",
    "sgemm-ikj": "C = A B, i-k-j (one node instance per row)",
    "sgemm": "C = A B, i-j-k (collapse(2): one instance per element)",
    "sweeps": "1-D 3-point stencil, launches too small to share out",
    "steps": "the same stencil, its time-step loop in one graph (one launch)",
    "jacobi2d": "PolyBench jacobi-2d, medium: 250x250, 2 launches per step",
    "syrk": "PolyBench syrk, a collapsed triangle (j <= i)",
    "atax": "PolyBench atax, medium: y = A^T (A x) by rows, reduction(+: y[0:m])",
    "launch": "launch of a near-empty node / parallel loop",
    "async": "nowait launch of a one-instance graph / OpenMP task, then one wait",
    "frames": "decode -> filter -> reduce per frame: a stream / one frame at a time",
}
# Kernels whose HPVM build also reports a second variant, the baseline its
# HPVM time is compared with: async's synchronous launches of the same
# graphs, the frames launched one at a time instead of streamed.
HPVM_BASELINE = {"async": ("hpvm-sync", "nowait launches"),
                 "frames": ("hpvm-serial", "streamed frames")}


def parse(path):
    results = defaultdict(list)  # (bench, variant) -> [record]
    busy, runtime = [], None
    global NO_VULKAN
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "RESULT":
                rec = dict(w.split("=", 1) for w in words[3:])
                for key in ("median_s", "min_s", "max_s", "bytes", "flops"):
                    rec[key] = float(rec[key])
                results[(words[1], words[2])].append(rec)
            elif words[0] == "BUSY":
                busy.append((words[1], int(words[2])))
            elif words[0] == "RUNTIME":
                runtime = int(words[1])
            elif words[0] == "NOVULKAN":
                NO_VULKAN = " ".join(words[1:])
    return results, busy, runtime


NO_VULKAN = None


def fmt_time(s):
    if s < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    return f"{s:.3g} s"


def fmt_ratio(x):
    return f"{x:.2f}×"


def best(recs):
    """The record with the lowest median over the rounds."""
    return min(recs, key=lambda r: r["median_s"])


def machine_bullets(machine, runtime, busy):
    """The Machine section's list: machine.txt's lines, how long the runs
    took, and how busy the CPU was before the busiest benchmark."""
    md = [f"- {line}" for line in machine]
    if runtime is not None:
        md.append(f"- the runs took {runtime} s")
    if busy:
        worst = max(busy, key=lambda b: b[1])
        md.append(f"- CPU busy just before each benchmark (from /proc/stat, "
                  f"1 s): at most {worst[1]}% (before {worst[0]})")
    return md


def kernels(results, variants):
    """Per kernel with results, in ORDER: its name, its records per variant,
    each variant's best record and its time, its size, and whether every
    check passed."""
    for bench in ORDER:
        recs = {v: results.get((bench, v)) for v in variants}
        if not any(recs.values()):
            continue
        b = {v: best(r) for v, r in recs.items() if r}
        t = {v: r["median_s"] for v, r in b.items()}
        size = next(iter(b.values()))["size"]
        checks = all(r["check"] == "ok" for rs in recs.values() if rs
                     for r in rs)
        yield bench, recs, b, t, size, checks


def table(results, stream_gbs):
    head = ["kernel", "size", "sequential", "OpenMP", "HPVM",
            "HPVM vs OpenMP", "HPVM vs seq", "OpenMP vs seq",
            "HPVM throughput", "OpenMP throughput", "checks"]
    rows, goals = [], []
    for bench, recs, b, t, size, checks in kernels(results, VARIANTS):

        def ratio(a, c):
            if a not in t or c not in t or (bench in NO_SEQ_RATIO and "seq" in (a, c)):
                return "–"
            return fmt_ratio(t[a] / t[c])

        def throughput(v):
            if v not in b:
                return "–"
            r = b[v]
            if r["bytes"] and bench in MEMORY_BOUND:
                gbs = r["bytes"] / r["median_s"] / 1e9
                pct = f" = {100 * gbs / stream_gbs:.0f}% STREAM" if stream_gbs else ""
                return f"{gbs:.1f} GB/s{pct}"
            if r["flops"]:
                return f"{r['flops'] / r['median_s'] / 1e9:.1f} GFLOP/s"
            return "–"

        rows.append([f"{bench}: {WHAT.get(bench, '')}", size.replace("-", " ")]
                    + [fmt_time(t[v]) if v in t else "–" for v in VARIANTS]
                    + [ratio("omp", "hpvm"), ratio("seq", "hpvm"),
                       ratio("seq", "omp"), throughput("hpvm"),
                       throughput("omp"), "ok" if checks else "**FAIL**"])
        # (FAIL: a wrong result, or an "HPVM" run in which hpvm-rt ran no
        # node: see run.sh.)
        if "omp" in t and "hpvm" in t:
            speed = t["omp"] / t["hpvm"]
            goal = f"{bench}: HPVM at {speed:.3f}× OpenMP"
            met = speed >= 1.0
            # How much the two variants' medians moved between rounds: a
            # shortfall smaller than that is not a measured difference.
            noise = max(max(r["median_s"] for r in recs[v]) /
                        min(r["median_s"] for r in recs[v]) - 1
                        for v in ("omp", "hpvm"))
            if not met and 1 - speed <= noise:
                goal += (f" (within the {100 * noise:.1f}% the medians moved "
                         f"between rounds)")
            if bench in MEMORY_BOUND and stream_gbs and b["hpvm"]["bytes"]:
                pct = 100 * b["hpvm"]["bytes"] / t["hpvm"] / 1e9 / stream_gbs
                goal += f", {pct:.0f}% of STREAM"
                met = met and pct >= 80
            goals.append((met, goal))
        base = HPVM_BASELINE.get(bench)
        if base and "hpvm" in t and results.get((bench, base[0])):
            sync = best(results[(bench, base[0])])["median_s"]
            goals.append((sync / t["hpvm"] >= 1.0,
                          f"{bench}: {base[1]} at {sync / t['hpvm']:.3f}× "
                          f"{base[0]} ({fmt_time(sync)} each)"))
        if bench in SEQ_GOAL and "seq" in t and "hpvm" in t:
            speed = t["seq"] / t["hpvm"]
            goals.append((speed >= 1.0,
                          f"{bench}: HPVM at {speed:.3f}× the sequential loop"))
    return head, rows, goals


def vulkan_table(results):
    """The kernels on the Vulkan device next to the CPU backend, same binary,
    same sizes."""
    head = ["kernel", "size", "CPU backend", "Vulkan", "Vulkan / CPU",
            "Vulkan throughput", "checks"]
    rows = []
    for bench, recs, b, t, size, checks in kernels(results, VK_VARIANTS):
        ratio = (f"{t['vulkan'] / t['cpu']:.1f}× slower" if len(t) == 2 else "–")
        thr = "–"
        if "vulkan" in b:
            r = b["vulkan"]
            if r["bytes"] and bench in MEMORY_BOUND:
                thr = f"{r['bytes'] / r['median_s'] / 1e9:.2f} GB/s"
            elif r["flops"]:
                thr = f"{r['flops'] / r['median_s'] / 1e9:.2f} GFLOP/s"
        rows.append([f"{bench}: {WHAT.get(bench, '')}", size.replace("-", " ")]
                    + [fmt_time(t[v]) if v in t else "–" for v in VK_VARIANTS]
                    + [ratio, thr, "ok" if checks else "**FAIL**"])
    return head, rows


def vulkan_floor(results):
    """HPVM's launch on the Vulkan device against the floor a minimal
    hand-written Vulkan program reaches there (bench/vulkan/launch_raw.c),
    same run: (text, goal met) or None."""
    recs = {v: results.get(("launch", v))
            for v in ("vulkan", "vulkan-raw", "vulkan-raw-poll")}
    if not recs["vulkan"] or not recs["vulkan-raw"]:
        return None
    hpvm = best(recs["vulkan"])["median_s"]
    floor = best(recs["vulkan-raw"])["median_s"]
    text = (f"launch on Vulkan: HPVM {fmt_time(hpvm)}, the floor of a minimal "
            f"Vulkan program (record, submit, blocking fence wait) "
            f"{fmt_time(floor)}: HPVM at {hpvm / floor:.2f}× the floor")
    if recs["vulkan-raw-poll"]:
        text += (f" (a program that polls the fence: "
                 f"{fmt_time(best(recs['vulkan-raw-poll'])['median_s'])})")
    return text + "; goal: within 1.2×", hpvm / floor <= 1.2


def markdown(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def plain(head, rows):
    cols = [[h] + [r[i] for r in rows] for i, h in enumerate(head)]
    widths = [max(len(c) for c in col) for col in cols]
    lines = []
    for r in [head] + rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if r is head:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main():
    results_path, machine_path, repro, md_path = sys.argv[1:5]
    results, busy, runtime = parse(results_path)
    with open(machine_path) as f:
        machine = [l.rstrip("\n") for l in f if l.strip()]
    stream = results.get(("stream-triad", "omp"))
    stream_gbs = None
    if stream:
        s = best(stream)
        stream_gbs = s["bytes"] / s["median_s"] / 1e9
    head, rows, goals = table(results, stream_gbs)
    rounds = max((len(v) for v in results.values()), default=0)

    print(plain(head, rows))
    if stream_gbs:
        print(f"\nSTREAM triad (OpenMP, same run): {stream_gbs:.1f} GB/s")
    for met, goal in goals:
        print(f"goal {'met' if met else 'NOT met'}: {goal}")
    vk_head, vk_rows = vulkan_table(results)
    floor = vulkan_floor(results)
    if floor:
        goals.append((floor[1], floor[0]))
    if vk_rows:
        print("\nVulkan against the CPU backend (one binary, smaller sizes):\n")
        print(plain(vk_head, vk_rows))
        if floor:
            print(f"goal {'met' if floor[1] else 'NOT met'}: {floor[0]}")
    elif NO_VULKAN:
        print(f"\nVulkan: not measured ({NO_VULKAN})")

    md = ["# Benchmark results", "",
          "Written by `bench/run.sh` (do not edit: its next run replaces all "
          "of this file but the data movement and GPU sections). "
          "To reproduce, from the repository root:", "",
          f"    {repro}", "",
          "## Machine", ""]
    md += machine_bullets(machine, runtime, busy)
    others = [int(r["others"].rstrip("%")) for recs in results.values()
              for r in recs if "others" in r]
    if others:
        md.append(f"- other processes during the runs kept in the table and "
                  f"rounds: at most {max(others)}% of the machine "
                  f"({sum(o > 5 for o in others)} of {len(others)} runs above "
                  f"5%)")
    md += ["", "## Medians", "",
           f"Time per run: the median of a program's timed repetitions, the "
           f"lowest over {rounds} round(s). *X vs Y* = time of Y / time of X "
           f"(above 1: X is faster). Throughput: the bytes a run must move "
           f"to or from memory per second, against the STREAM triad below; "
           f"for sgemm, floating-point operations per second.", "",
           markdown(head, rows), ""]
    if stream_gbs:
        s = best(stream)
        md.append(f"STREAM triad (`bench/stream/triad.c`, OpenMP, same run, "
                  f"{s['size'].replace('-', ' ')}, 12 bytes per element as "
                  f"STREAM counts): **{stream_gbs:.1f} GB/s**.")
        md.append("")
    md += ["## Goals", "",
           "HPVM at least as fast as the OpenMP baseline on every kernel; "
           "memory-bound kernels at 80% or more of STREAM.", ""]
    md += [f"- {'met' if met else '**not met**'}: {goal}" for met, goal in goals]
    md += ["", "## Vulkan next to the CPU backend", ""]
    if vk_rows:
        vk_machine = [l for l in machine if l.startswith("vulkan:")]
        md += [
            "Each kernel built once with `hpvm-clang -O3 --hpvm-target=cpu,spirv` and run from that "
            "binary with `HPVM_DEVICES=cpu` (the CPU backend, `HPVM_NUM_THREADS` threads) and with "
            "`HPVM_DEVICES=vulkan` (" + (vk_machine[0][len("vulkan: "):] if vk_machine else
                                         "the machine's Vulkan device") + "), in the same "
            "rounds as above, at sizes small enough for the device (BENCH_VK_*). "
            "*Vulkan / CPU* = how many times longer the Vulkan run takes. Times include what "
            "hpvm-rt does around the kernel: buffer copies into and out of the device's memory "
            "space (on lavapipe a memcpy into host-visible memory), the submit and the fence "
            "wait; the launch row is the whole launch of a node with two instances that each "
            "store one int, in a loop of 1000 launches.", "",
            markdown(vk_head, vk_rows), "",
            "lavapipe is Mesa's Vulkan driver that runs shaders on the CPU (compiled with LLVM "
            "for 8 lanes of 32 bits), on the same cores the CPU backend uses, shared with other "
            "processes here, so slower than the CPU backend is expected; these ratios are what "
            "the Vulkan path costs on this machine, not what a GPU would do with the same "
            "SPIR-V. hpvm-rt's device-side timestamps (`HPVM_TRACE`) put nearly all of a "
            "memory-bound kernel's time in the dispatch itself, not in the copies (saxpy at "
            "2^22 floats: about 124 of 127 ms when this was written); where lavapipe spends "
            "it (the kernels address buffers through 64-bit device addresses) was not "
            "investigated."]
    elif NO_VULKAN:
        md += [f"Not measured: {NO_VULKAN}."]
    md += ["", "## Round by round", "",
           "Each round runs every variant once (in rotating order; sequential "
           "sgemm i-j-k only in round 1); "
           "medians in each round, and in parentheses the share of the "
           "machine other processes used during the run where it was not 0 "
           "(a run above 5% is repeated up to 3 times and the least "
           "disturbed kept):", "",
           "| kernel | variant | " + " | ".join(
               f"round {i + 1}" for i in range(rounds)) + " | repetitions |",
           "|---|---|" + "---|" * rounds + "---|"]
    for bench in ["stream-triad"] + ORDER:
        for v in VARIANTS + VK_VARIANTS:
            recs = results.get((bench, v))
            if not recs:
                continue
            cells = [fmt_time(r["median_s"])
                     + (f" ({r['others']})" if r.get("others", "0%") != "0%" else "")
                     for r in recs]
            cells += ["–"] * (rounds - len(cells))  # runs a round left out
            md.append(f"| {bench} | {TITLES[v]} | " + " | ".join(cells) + " | "
                      + ", ".join(r["reps"] for r in recs) + " |")
    md += ["", "## How it is measured", "",
           "- One source per kernel (`bench/kernels/`) carries both "
           "`#pragma hpvm` and `#pragma omp parallel for` on the same loop; "
           "run.sh checks that each compiler ignores the other's pragmas (the "
           "IR is identical with them blanked out).",
           "- HPVM: `hpvm-clang -O3` (the CPU backend compiles nodes for the "
           "host CPU); OpenMP: `clang-19 -O3 -march=native -fopenmp`; "
           "sequential: `clang-19 -O3 -march=native`. Both parallel variants "
           "use the same number of threads (HPVM_NUM_THREADS, OMP_NUM_THREADS).",
           "- The drivers (`bench/drivers/`, `bench/common/bench.c`) are "
           "compiled once with `clang-19 -O2` and linked with each variant: "
           "warm-up runs, then timed runs (clock_gettime, CLOCK_MONOTONIC) "
           "until BENCH_BUDGET_S (0.5 s) has passed, at least 5 and at most "
           "50 (sgemm i-j-k at least 3); each result is checked against a "
           "scalar reference.",
           "- launch: batches of 1000 launches, the median batch divided by "
           "1000."]
    write_keeping_gpu_section(md_path, "\n".join(md) + "\n")


# The sections of RESULTS.md that other scripts write lie between these
# lines: the data movement section (bench/movement/report.py) and the GPU
# section (bench/gpu/report.py); each report rewrites only its own part of
# the file, and the sections follow the CPU report in this order.
MOVEMENT_BEGIN = "<!-- data movement section: written by bench/movement/run.sh -->"
MOVEMENT_END = "<!-- end of the data movement section -->"
GPU_BEGIN = "<!-- GPU section: written by bench/gpu/run.sh -->"
GPU_END = "<!-- end of the GPU section -->"
GRAPH_BEGIN = "<!-- graph scale section: written by bench/graph/run.sh -->"
GRAPH_END = "<!-- end of the graph scale section -->"
HPVMC_BEGIN = "<!-- HPVM-C section: written by bench/hpvm-c/run.sh -->"
HPVMC_END = "<!-- end of the HPVM-C section -->"
SECTIONS = [(MOVEMENT_BEGIN, MOVEMENT_END), (GRAPH_BEGIN, GRAPH_END),
            (HPVMC_BEGIN, HPVMC_END), (GPU_BEGIN, GPU_END)]


def split_section(text, begin, end_marker):
    """(text without the section, the section with its markers or "")."""
    start = text.find(begin)
    end = text.find(end_marker, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        return text, ""
    end += len(end_marker)
    return text[:start].rstrip("\n") + "\n" + text[end:].lstrip("\n"), \
        text[start:end]


def read_or_empty(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


def write_sections(path, main_text=None, begin=None, body=None):
    """Rewrites the file: main_text (None: the file's own text outside the
    sections) followed by the sections it had, the one starting with marker
    `begin` replaced by `body` (without markers)."""
    text = read_or_empty(path)
    sections = {}
    for b, e in SECTIONS:
        text, sections[b] = split_section(text, b, e)
        if b == begin:
            sections[b] = b + "\n" + body.rstrip("\n") + "\n" + e
    if main_text is not None:
        text = main_text
    parts = ([text.rstrip("\n")] if text.strip() else []) + \
        [sections[b] for b, _ in SECTIONS if sections[b]]
    with open(path, "w") as f:
        f.write("\n\n".join(parts) + "\n")


def report_section(md_path, begin, title, script, repro, intro, machine,
                   head, rows, goals):
    """Writes the section of md_path that starts with marker `begin`, as the
    scripts of bench/<part>/ write theirs: a title, who writes it and how to
    reproduce it, what it measures (`intro`), the machine (the lines of file
    `machine`), the table and the goals ((met, text) pairs; met None: a
    figure without a goal)."""
    with open(machine) as f:
        machine_lines = [line.rstrip("\n") for line in f if line.strip()]
    md = [f"## {title}", "",
          f"Written by `{script}` (do not edit: the next run replaces "
          "this section). To reproduce, from the repository root:", "",
          f"    {repro}", "", intro, ""]
    md += [f"- {line}" for line in machine_lines] + [""]
    md += markdown(head, rows).splitlines() + [""]
    md += [{True: "- met: ", False: "- **not met**: ",
            None: "- measured: "}[ok] + text for ok, text in goals]
    write_sections(md_path, begin=begin, body="\n".join(md))


def write_keeping_gpu_section(path, cpu_text):
    """Writes the CPU report, keeping the other scripts' sections."""
    write_sections(path, main_text=cpu_text)


def write_gpu_section(path, gpu_text):
    """Puts gpu_text (without markers) in the GPU section of the file,
    keeping everything else."""
    write_sections(path, begin=GPU_BEGIN, body=gpu_text)


if __name__ == "__main__":
    main()
