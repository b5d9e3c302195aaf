#!/usr/bin/env python3
"""The data movement section of bench/RESULTS.md from bench/movement/run.sh's
results, with bench/report.py's machinery (formats, tables, the section
splice).

    report.py results.txt machine.txt "<reproducing command>" RESULTS.md
    report.py --smoke results.txt

The second form is CTest's bench.movement: it prints the table and fails
(exit status 1) on a wrong result, a leaf off its device, calls that moved
different amounts, or a data-region stencil above 1.01x its minimum; it
prints "SKIP: " when neither accelerator was there. results.txt holds
(bench/movement/run.sh):
    MOVED <workload> <HPVM_DEVICES> size=.. min_bytes=.. border_bytes=..
          calls=.. check=ok|FAIL times_s=<timed calls, comma-separated>
          bytes=<one call> total=<every call> placed=ok|<leaves elsewhere>
          (one line per run: process)
    SKIPPED|FAILED <workload> <HPVM_DEVICES> <why>
    BUSY <label> <percent of CPU busy just before>, RUNTIME <seconds>
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import report as cpu  # noqa: E402  (bench/report.py)

ORDER = ["chain", "pipeline", "stencil", "stencil-region"]
WHAT = {
    "chain": "produce (cpu) → left (spirv) → combine (cpu)",
    "pipeline": "blur → gradient → threshold, one device",
    "stencil": "T Jacobi steps, one launch each",
    "stencil-region": "the same inside `#pragma hpvm data`",
}
MINIMUM = {
    "chain": "a up, b down: 8n",
    "pipeline": "img up; blurred, grad, mask down: 13n",
    "stencil": "a and b's borders up, both grids down: 12hw + borders",
    "stencil-region": "a and b's borders up, both grids down: 12hw + borders",
}
# Where the bytes beyond (or below) the minimum come from, by the runtime's
# rules (docs/runtime.md §5, §5.1): a function of the size that gives the
# bytes one call should move, and the words that say why.
WHY = {
    "chain": "b is not copied up (left writes all of it, writes-all); "
             "c never leaves host memory",
    "pipeline": "blurred and grad go up as their borders alone (writes-rows: "
                "blur and gradient write the interior rows), which must keep "
                "their values; mask is not copied up (writes-all)",
    "stencil": "every launch leaves host memory up to date: each step moves "
               "its source up and its result down, and the result's borders "
               "up (T/2 round trips of both grids)",
    "stencil-region": "a goes up at the first step; b's interior never goes "
                      "up (the first step writes it: writes-rows), only its "
                      "borders; both come down at the end of the region: "
                      "the minimum",
}


def dims(size):
    """The numbers in a size word: "512x512,20-steps" -> [512, 512, 20]."""
    return [int(x) for x in re.findall(r"\d+", size)]


def predicted(name, rec):
    """The bytes one call moves by the runtime's rules."""
    d, borders = dims(rec["size"]), rec["border_bytes"]
    if name == "chain":
        return 8 * d[0]
    if name == "pipeline":
        return 13 * d[0] * d[1] + borders
    h, w, steps = d
    if name == "stencil":
        return steps * 8 * h * w + borders
    # Inside the region: a up, b's borders up, whatever was modified down
    # (a is only read when there is one step).
    return (4 * h * w + borders + 4 * h * w * min(steps, 2)) if steps else 0


def parse(path):
    """(the runs of each workload on each device set, merged: a list of
    records; the skipped and failed ones; BUSY lines; RUNTIME)."""
    runs, other, busy, runtime = {}, [], [], None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "MOVED":
                rec = dict(x.split("=", 1) for x in w[3:])
                for key in ("min_bytes", "border_bytes", "calls", "bytes",
                            "total"):
                    rec[key] = int(rec[key])
                rec["times"] = [float(t) for t in rec.pop("times_s").split(",")]
                runs.setdefault((w[1], w[2]), []).append(rec)
            elif w[0] in ("SKIPPED", "FAILED"):
                other.append((w[0], w[1], w[2], " ".join(w[3:])))
            elif w[0] == "BUSY":
                busy.append((w[1], int(w[2])))
            elif w[0] == "RUNTIME":
                runtime = int(w[1])
    recs = [merge(name, devices, rs) for (name, devices), rs in runs.items()]
    # By workload, each in the order it ran (a stable sort).
    key = {n: i for i, n in enumerate(ORDER)}
    recs.sort(key=lambda r: key.get(r["name"], len(ORDER)))
    return recs, other, busy, runtime


def merge(name, devices, runs):
    """One record of the runs of a workload on a device set: the first run's
    figures, the median of every timed call, and what went wrong in any."""
    rec = dict(runs[0], name=name, devices=devices, runs=len(runs),
               times=[t for r in runs for t in r["times"]])
    rec["median_s"] = statistics.median(rec["times"])
    bad = []
    if any(r["check"] != "ok" for r in runs):
        bad.append("wrong results")
    bad += sorted({f"leaves elsewhere: {r['placed']}" for r in runs
                   if r["placed"] != "ok"})
    bad += [f"{r['calls']} calls moved {r['total']} bytes, not "
            f"{r['calls']} × {r['bytes']}" for r in runs
            if r["total"] != r["bytes"] * r["calls"]]
    if len({r["bytes"] for r in runs}) > 1:
        bad.append("the runs moved " + ", ".join(str(r["bytes"]) for r in runs)
                   + " bytes per call")
    rec["problems"] = bad
    return rec


def grouped(other):
    """The runs that were skipped or failed, one entry per (kind, device
    set, reason): (kind, devices, why, "workload, workload")."""
    groups = {}
    for kind, name, devices, why in other:
        groups.setdefault((kind.lower(), devices, why), []).append(name)
    return [(k, d, why, ", ".join(names))
            for (k, d, why), names in groups.items()]


def fmt_bytes(n):
    return f"{n:,}".replace("-", "−")


def table(recs):
    head = ["workload", "HPVM_DEVICES", "size", "bytes moved per call",
            "minimum", "moved / minimum", "moved − minimum",
            "unwritten borders among the bytes moved",
            "time per call (median)", "checks"]
    rows = []
    for r in recs:
        bad = r["problems"]
        rows.append([r["name"], r["devices"], r["size"].replace("-", " "),
                     fmt_bytes(r["bytes"]), fmt_bytes(r["min_bytes"]),
                     f"{r['bytes'] / r['min_bytes']:.3f}" if r["min_bytes"] else "–",
                     fmt_bytes(r["bytes"] - r["min_bytes"]),
                     fmt_bytes(r["border_bytes"]), f"{cpu.fmt_time(r['median_s'])} "
                     f"({len(r['times'])} in {r['runs']})",
                     "ok" if not bad else "**FAIL**: " + "; ".join(bad)])
    return head, rows


def smoke(path):
    recs, other, _, _ = parse(path)
    head, rows = table(recs)
    print(cpu.plain(head, rows))
    failed = [f"{r['name']} {r['devices']}: {'; '.join(r['problems'])}"
              for r in recs if r["problems"]]
    failed += [f"{n} {d}: {why}" for kind, n, d, why in other
               if kind == "FAILED"]
    for r in recs:
        if r["name"] == "stencil-region" and r["bytes"] > 1.01 * r["min_bytes"]:
            failed.append(f"stencil-region {r['devices']}: {r['bytes']} bytes "
                          f"moved, above 1.01 × the minimum {r['min_bytes']}")
    for kind, d, why, names in grouped(other):
        if kind == "skipped":
            print(f"note: skipped on {d} ({names}): {why}")
    if failed:
        print("FAIL:\n  " + "\n  ".join(failed))
        return 1
    if not recs:
        print("SKIP: no Vulkan or OpenCL device ran anything")
    return 0


def main():
    if sys.argv[1] == "--smoke":
        sys.exit(smoke(sys.argv[2]))
    results_path, machine_path, repro, md_path = sys.argv[1:5]
    recs, other, busy, runtime = parse(results_path)
    with open(machine_path) as f:
        machine = [line.rstrip("\n") for line in f if line.strip()]
    head, rows = table(recs)
    print(cpu.plain(head, rows))
    for kind, d, why, names in grouped(other):
        print(f"{kind} on {d} ({names}): {why}")

    md = ["## Data movement", "",
          "Written by `bench/movement/run.sh` (the rest of this file by "
          "`bench/run.sh` and `bench/gpu/run.sh`, which keep this section). "
          "To reproduce, from the repository root:", "",
          f"    {repro}", "",
          "The bytes hpvm-rt's coherence moved between host and device "
          "memory in one call of each workload (`HPVM_STATS=1`, the line "
          "`coherence: N bytes moved`, taken after the first call) against "
          "the least the program needs, next to the time. Each workload "
          "(`bench/movement/*.c`) is built with `hpvm-clang -O3 "
          "--hpvm-target=cpu,spirv` and run with `HPVM_DEVICES_STRICT=1`: "
          "in a few processes, each making one untimed call (it compiles the "
          "kernels), then timed calls; the time is the median of all the "
          "timed calls (in parentheses: how many, in how many processes), each from fresh inputs and checked against a scalar "
          "C reference; *checks* also requires every call to move the same "
          "bytes (the statistics at exit), every process the same, and every leaf to have run on the "
          "accelerator (chain's produce and combine on the CPU). Borders: "
          "the elements of an `out` grid that no node writes, 2h + 2w − 4 "
          "per grid, which must keep their values as in the sequential "
          "program, so they go up with the grid.", "",
          "Machine:", ""]
    md += cpu.machine_bullets(machine, runtime, busy)
    md += ["", cpu.markdown(head, rows), "",
           "Where the difference from the minimum comes from (docs/runtime.md "
           "§5, §5.1), and whether this run moved exactly that:", ""]
    for name in ORDER:
        mine = [r for r in recs if r["name"] == name]
        if not mine:
            continue
        exact = all(r["bytes"] == predicted(name, r) for r in mine)
        md.append(f"- **{name}** ({WHAT[name]}; minimum {MINIMUM[name]}): "
                  f"{WHY[name]} — "
                  + ("exactly these bytes on every device." if exact else
                     "**not exactly**: " + ", ".join(
                         f"{r['devices']} moved {fmt_bytes(r['bytes'])}, "
                         f"the rules say {fmt_bytes(predicted(name, r))}"
                         for r in mine) + "."))
    md += [f"- **{kind}** on {d} ({names}): {why}"
           for kind, d, why, names in grouped(other)]
    cpu.write_sections(md_path, begin=cpu.MOVEMENT_BEGIN, body="\n".join(md))


if __name__ == "__main__":
    main()
