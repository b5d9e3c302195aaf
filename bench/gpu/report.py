#!/usr/bin/env python3
"""The GPU section of bench/RESULTS.md from bench/gpu/run.sh's results, with
bench/report.py's machinery (parsing, formats, tables, the section splice).

    report.py results.txt machine.txt "<reproducing command>" RESULTS.md
    report.py --pending "<why>" RESULTS.md

The second form writes a section saying that there are no GPU figures yet,
and why. results.txt holds what bench/report.py reads (RESULT, BUSY,
RUNTIME), with variants "cuda" and "hpvm", plus (bench/gpu/run.sh):
    KERNEL <bench> <variant> <node> launches=<n> total_s=<s>
    COHERENCE <bench> hpvm bytes=<moved> launches=<launches of the root>
    OFFGPU <bench> hpvm <node> <device>     an HPVM leaf that ran elsewhere
    FAILED <bench> <variant> <why>          a run without a RESULT line
    NOTE <text>
"""
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import report as cpu  # noqa: E402  (bench/report.py)

VARIANTS = ["cuda", "hpvm"]
ORDER = ["saxpy", "stencil", "pipeline", "sgemm-ikj", "sgemm", "launch",
         "launch-raw"]
WHAT = dict(cpu.WHAT, **{
    "launch": "launch of a near-empty node / kernel, result copied back",
    "launch-raw": "cuLaunchKernel + cuStreamSynchronize of an empty PTX "
                  "kernel (Driver API) against the HPVM launch above",
})
# What one timed run (one call of the kernel function) copies between host
# and GPU. HPVM's side follows hpvm-rt's coherence rules (docs/runtime.md
# §5): host memory is the truth between launches, so every hpvm_launch
# copies its buffers in — an out() one only where the leaf does not
# provably write all of it, and only around the rows it writes — and what
# it wrote back out.
COPIES = {
    "saxpy": ("x, y in; y out",
              "x, y in; y out"),
    "stencil": ("a, b in once; 5 steps on the GPU; a, b out",
                "per step (one hpvm_launch each): src and dst's borders in; "
                "dst out"),
    "pipeline": ("img, blurred, grad in (their borders are kept); "
                 "blurred, grad, mask out",
                 "img and the borders of blurred and grad in; "
                 "blurred, grad, mask out"),
    "sgemm-ikj": ("A, B in; C out", "A, B, C in; C out"),
    "sgemm": ("A, B in; C out", "A, B in; C out"),
    "launch": ("flag out (8 bytes)", "flag out (8 bytes)"),
    "launch-raw": ("nothing", "–"),
}


def parse_extra(path):
    kernels = defaultdict(list)  # (bench, variant, node) -> [mean s]
    launches = {}                # (bench, variant, node) -> launches
    coherence = {}               # bench -> bytes moved per root launch
    offgpu = defaultdict(list)   # bench -> ["node on device"]
    failed = defaultdict(list)   # (bench, variant) -> [why], runs without a result
    notes = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "KERNEL":
                rec = dict(x.split("=", 1) for x in w[4:])
                n = int(rec["launches"])
                if n:
                    kernels[(w[1], w[2], w[3])].append(
                        float(rec["total_s"]) / n)
                    launches[(w[1], w[2], w[3])] = n
            elif w[0] == "COHERENCE":
                rec = dict(x.split("=", 1) for x in w[3:])
                if int(rec["launches"] or 0):
                    coherence[w[1]] = int(rec["bytes"]) / int(rec["launches"])
            elif w[0] == "OFFGPU":
                offgpu[w[1]].append(f"{w[3]} on {w[4]}")
            elif w[0] == "FAILED":
                failed[(w[1], w[2])].append(" ".join(w[3:]) or "no result")
            elif w[0] == "NOTE":
                notes.append(line.split(None, 1)[1].strip())
    return kernels, launches, coherence, offgpu, failed, notes


def fmt_bytes(b):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b:.0f} B"


def main_table(results, offgpu, failed, hpvm_missing):
    head = ["kernel", "size", "CUDA (nvcc -O3)", "HPVM (HPVM_DEVICES=cuda)",
            "CUDA / HPVM", "checks"]
    rows = []
    for bench in ORDER:
        # launch-raw's HPVM counterpart is the HPVM launch of the node.
        hb = "launch" if bench == "launch-raw" else bench
        recs = {"cuda": results.get((bench, "cuda")),
                "hpvm": results.get((hb, "hpvm"))}
        fails = failed.get((bench, "cuda"), []) + failed.get((hb, "hpvm"), [])
        if not any(recs.values()) and not fails:
            continue
        b = {v: cpu.best(r) for v, r in recs.items() if r}
        t = {v: r["median_s"] for v, r in b.items()}
        size = next(iter(b.values()))["size"] if b else "–"
        bad = [f"{v} {r['check']}" for v, rs in recs.items() if rs
               for r in rs if r["check"] != "ok"]
        bad += [f"HPVM leaf {x}" for x in offgpu.get(hb, [])]
        if fails:
            # The reasons, each once.
            bad.append(f"{len(fails)} run(s) failed: "
                       + "; ".join(dict.fromkeys(fails)))
        hpvm = cpu.fmt_time(t["hpvm"]) if "hpvm" in t else \
            (hpvm_missing or "–")
        ratio = cpu.fmt_ratio(t["cuda"] / t["hpvm"]) \
            if "cuda" in t and "hpvm" in t else "–"
        rows.append([f"{bench}: {WHAT.get(bench, '')}",
                     size.replace("-", " "),
                     cpu.fmt_time(t["cuda"]) if "cuda" in t else "–",
                     hpvm, ratio,
                     "**FAIL**: " + "; ".join(bad) if bad else "ok"])
    return head, rows


def kernel_table(kernels, launches):
    head = ["node", "launches (CUDA / HPVM)", "CUDA", "HPVM", "CUDA / HPVM"]
    rows = []
    nodes = sorted({(b, n) for (b, _, n) in kernels},
                   key=lambda x: (ORDER.index(x[0]) if x[0] in ORDER
                                  else len(ORDER), x[1]))
    for bench, node in nodes:
        t = {v: min(kernels[(bench, v, node)]) for v in VARIANTS
             if (bench, v, node) in kernels}
        n = [str(launches.get((bench, v, node), "–")) for v in VARIANTS]
        rows.append([f"{bench}: {node}", " / ".join(n)]
                    + [cpu.fmt_time(t[v]) if v in t else "–" for v in VARIANTS]
                    + [cpu.fmt_ratio(t["cuda"] / t["hpvm"])
                       if len(t) == 2 else "–"])
    return head, rows


def copies_table(coherence):
    head = ["kernel", "CUDA copies per run", "HPVM copies per run",
            "HPVM measured (coherence bytes per hpvm_launch)"]
    rows = [[bench, c, h, fmt_bytes(coherence[bench])
             if bench in coherence else "–"]
            for bench, (c, h) in COPIES.items()]
    return head, rows


def pending_section(why):
    return "\n".join([
        "## GPU", "",
        f"No GPU figures yet: {why}.", "",
        "On a machine with an NVIDIA GPU and its driver, `scripts/gpu-check.sh` "
        "builds everything, runs the CUDA tests and every example on the GPU, "
        "and runs `bench/gpu/run.sh`, which replaces this section with HPVM "
        "(`hpvm-clang --hpvm-target=cpu,nvptx`, `HPVM_DEVICES=cuda`) against "
        "hand-written CUDA versions of the same kernels (`bench/gpu/*.cu`, "
        "`nvcc -O3`) and a raw `cuLaunchKernel`. See bench/README.md, "
        "\"On a GPU\"."])


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--pending":
        cpu.write_gpu_section(sys.argv[3], pending_section(sys.argv[2]))
        return
    results_path, machine_path, repro, md_path = sys.argv[1:5]
    results, busy, runtime = cpu.parse(results_path)
    kernels, launches, coherence, offgpu, failed, notes = \
        parse_extra(results_path)
    with open(machine_path) as f:
        machine = [line.rstrip("\n") for line in f if line.strip()]
    # "HPVM side not built: ..." / "HPVM side not run: ...": the cell says
    # which.
    hpvm_missing = next((n.split(":")[0][len("HPVM side "):] for n in notes
                         if n.startswith("HPVM side not ")), "")
    head, rows = main_table(results, offgpu, failed, hpvm_missing)
    khead, krows = kernel_table(kernels, launches)
    chead, crows = copies_table(coherence)
    rounds = max((len(v) for v in results.values()), default=0)

    print(cpu.plain(head, rows))
    if krows:
        print("\nkernel time per launch (mean):")
        print(cpu.plain(khead, krows))
    for n in notes:
        print(f"note: {n}")

    md = ["## GPU", "",
          "Written by `bench/gpu/run.sh` (do not edit: the next GPU run "
          "replaces this section). To reproduce, from the repository root, "
          "on a machine with an NVIDIA GPU:", "",
          f"    {repro}", "",
          "### Machine", ""]
    md += cpu.machine_bullets(machine, runtime, busy)
    md += [f"- **note**: {n}" for n in notes]
    md += ["", "### Medians", "",
           f"Time per run: the median of a program's timed repetitions, the "
           f"lowest over {rounds} round(s); a run is one call of the kernel "
           f"function, from host arrays to results back in host memory "
           f"(copies below). *CUDA / HPVM* = CUDA's time / HPVM's (above 1: "
           f"HPVM is faster).", "",
           cpu.markdown(head, rows), ""]
    if krows:
        md += ["### Kernel time per launch", "",
               "Mean over every launch of the program (warm-up and check runs "
               "included), the lowest over the rounds. CUDA: CUDA events "
               "around each launch (GPU time). HPVM: hpvm-rt's statistics "
               "(`HPVM_STATS=1`): host time around the device's launch and "
               "wait, so it also holds the launch latency (microseconds) and "
               "whatever the device does inside its launch call; only "
               "kernels much longer than that compare closely.", "",
               cpu.markdown(khead, krows), ""]
    md += ["### What a run copies", "",
           cpu.markdown(chead, crows), ""]
    md += ["### Round by round", "",
           "| kernel | variant | " + " | ".join(
               f"round {i + 1}" for i in range(rounds)) + " | repetitions |",
           "|---|---|" + "---|" * rounds + "---|"]
    for bench in ORDER:
        for v in VARIANTS:
            recs = results.get((bench, v))
            if not recs:
                continue
            cells = [cpu.fmt_time(r["median_s"])
                     + (f" ({r['others']})"
                        if r.get("others", "0%") != "0%" else "")
                     for r in recs]
            cells += ["–"] * (rounds - len(cells))
            md.append(f"| {bench} | {v} | " + " | ".join(cells) + " | "
                      + ", ".join(r["reps"] for r in recs) + " |")
    md += ["", "### How it is measured", "",
           "- HPVM: the kernels of `bench/kernels/` compiled by `hpvm-clang "
           "-O3 --hpvm-target=cpu,nvptx`, run with `HPVM_DEVICES=cuda "
           "HPVM_DEVICES_STRICT=1`; a row fails if hpvm-rt's statistics show "
           "a leaf on any other device.",
           "- CUDA: `bench/gpu/<kernel>.cu`, the same algorithm written by "
           "hand (one thread per node instance, the same block shapes as "
           "hpvm's PTX kernels, no shared-memory tiling, not cuBLAS), "
           "`nvcc -O3 -arch=sm_XX` for the GPU found.",
           "- Both are linked with the same drivers (`bench/drivers/`) and "
           "timing loop (`bench/common/bench.c`): warm-up runs, then timed "
           "runs until BENCH_BUDGET_S (0.5 s), at least 5 and at most 50, "
           "checked against the same scalar reference on the host. Device "
           "memory is allocated once (hpvm-rt pools its allocations), so "
           "neither side times allocation.",
           "- launch: batches of 1000 calls, the median batch divided by "
           "1000; launch-raw: the same for `cuLaunchKernel` + "
           "`cuStreamSynchronize` of an empty kernel loaded from PTX "
           "(`nvcc -ptx`) through the Driver API (`bench/gpu/launch_raw.c`).",
           "- Rounds alternate which variant runs first."]
    cpu.write_gpu_section(md_path, "\n".join(md))


if __name__ == "__main__":
    main()
