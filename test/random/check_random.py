#!/usr/bin/env python3
"""Differential test of random kernels: the CPU backend against the Vulkan
device (and both against the sequential C program).

For every seed: randkernels.py writes a C program with --kernels random
kernels; hpvm-clang builds it for cpu and spirv; it runs twice, with
HPVM_DEVICES=cpu and with HPVM_DEVICES=vulkan (strict), each writing every
output buffer of every kernel; the two must agree (integers and exact floats
exactly, approximate floats within a tolerance), and hpvm-rt's statistics
must show that every kernel's nodes ran on the device of that run. With a C
compiler (--cc), the same source built without HPVM (the pragmas ignored) is
a third opinion that says which side is wrong.

  check_random.py --hpvm-clang build/bin/hpvm-clang --seeds 1-50
  check_random.py ... --seeds 7 --only 12 --keep   # one kernel alone

Without a Vulkan device the CPU run is still checked against the sequential
one, and the run ends with "HPVM-RANDOM-SKIP: <why>". Exit status 0 when
every seed agrees, 1 otherwise; a mismatch names the seed, kernel, buffer
and first differing element, and the program stays in the work directory.
"""

import argparse
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import randkernels  # noqa: E402

# Tolerances of approximate floats: Vulkan allows 2^-11 absolute error for
# sin/cos and thousands of ULPs for atan; doubles only see division and sqrt
# (2.5 ULP, or what inversesqrt gives).
TOLERANCE = {"f32": 4e-3, "f64": 1e-9}
FORMATS = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I",
           "i64": "q", "u64": "Q", "f32": "f", "f64": "d"}


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            seeds += range(int(lo), int(hi) + 1)
        elif part:
            seeds.append(int(part))
    return seeds


def read_results(path):
    """{ "kernel.buffer": bytes } from a results file."""
    out = {}
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        nl = data.index(b"\n", pos)
        name, size = data[pos:nl].decode().split()
        size = int(size)
        out[name] = data[nl + 1:nl + 1 + size]
        pos = nl + 1 + size
    return out


def same(a, b, ty, approx):
    if ty.startswith("f"):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if not approx:
            return a == b  # +0 == -0: the sign of zero is not compared
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= TOLERANCE[ty] * max(1.0, abs(a), abs(b))
    return a == b


def first_difference(buf, a, b):
    """(index, value a, value b) of the first element that differs, or None."""
    fmt = "<%d%s" % (buf["count"], FORMATS[buf["type"]])
    va = struct.unpack(fmt, a)
    vb = struct.unpack(fmt, b)
    for k, (x, y) in enumerate(zip(va, vb)):
        if not same(x, y, buf["type"], buf["approx"]):
            return (k, x, y)
    return None


def stats_devices(stderr):
    """{ node path: set of devices } from hpvm-rt's statistics (HPVM_STATS)."""
    ran = {}
    lines = stderr.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("hpvm-rt stats:"):
            for row in lines[k + 2:]:
                m = re.match(r"(\S+)\s+([a-z]+(?::\d+)?)\s+(\d+)\s", row)
                if not m:
                    break
                if int(m.group(3)) > 0:
                    ran.setdefault(m.group(1), set()).add(m.group(2))
    return ran


class Failure(Exception):
    pass


def run(cmd, env=None, timeout=600):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)


def check_seed(args, seed, log):
    """Checks one program. Returns 'ok', 'skip: <why>' or raises Failure."""
    wd = os.path.join(args.work_dir, "seed-%d" % seed)
    os.makedirs(wd, exist_ok=True)
    c = os.path.join(wd, "prog.c")
    if args.source:
        # A program kept from an earlier run (or reduced by hand), with the
        # metadata written next to it.
        with open(args.source) as f:
            src = f.read()
        with open(args.source + ".json") as f:
            meta = json.load(f)
        seed = meta["seed"]
    else:
        only = {int(x) for x in args.only.split(",")} if args.only else None
        src, meta = randkernels.generate(seed, args.kernels, only)
        with open(c + ".json", "w") as f:
            json.dump(meta, f, indent=1)
    if os.path.abspath(c) != os.path.abspath(args.source or ""):
        with open(c, "w") as f:
            f.write(src)
    exe = os.path.join(wd, "prog")
    what = ("--source %s" % os.path.abspath(args.source) if args.source else
            "--seeds %d --kernels %d%s" % (seed, args.kernels,
                                           " --only %s" % args.only if args.only else ""))
    repro = "python3 %s %s --hpvm-clang %s --work-dir %s" % (
        os.path.abspath(__file__), what, args.hpvm_clang, os.path.abspath(args.work_dir))

    t0 = time.time()
    # No contraction: a*b+c stays two roundings in every build, so that
    # exact floats are exact everywhere (docs: randkernels.py).
    build = [args.hpvm_clang, "-O3", "--hpvm-target=cpu,spirv", "-ffp-contract=off", "-w",
             c, "-lm", "-o", exe]
    r = run(build)
    if r.returncode != 0:
        raise Failure("seed %d: hpvm-clang failed on %s:\n%s\n  %s\nreproduce: %s" % (
            seed, c, r.stderr[-4000:], " ".join(build), repro))
    t1 = time.time()
    results = {}
    outputs = {}
    if args.cc:
        seq = os.path.join(wd, "prog.seq")
        r = run([args.cc, "-O1", "-ffp-contract=off", "-w", c, "-lm", "-o", seq])
        if r.returncode != 0:
            raise Failure("seed %d: %s failed on %s:\n%s" % (seed, args.cc, c, r.stderr[-4000:]))
        out = os.path.join(wd, "seq.out")
        r = run([seq, out])
        if r.returncode != 0:
            raise Failure("seed %d: the sequential program failed (%d):\n%s" % (
                seed, r.returncode, r.stderr[-2000:]))
        results["seq"] = read_results(out)

    skip = None
    for device, env in (("cpu", {"HPVM_DEVICES": "cpu"}),
                        ("vulkan", {"HPVM_DEVICES": "vulkan", "HPVM_DEVICES_STRICT": "1"})):
        out = os.path.join(wd, "%s.out" % device)
        env.update({"HPVM_STATS": "1"})
        r = run([exe, out], env)
        outputs[device] = r.stderr
        with open(os.path.join(wd, "%s.log" % device), "w") as f:
            f.write(r.stdout + r.stderr)
        if r.returncode != 0:
            if device == "vulkan" and "HPVM_DEVICES" in r.stderr:
                why = [l for l in r.stderr.splitlines() if "error" in l] or [""]
                skip = "no Vulkan device on this machine (%s)" % why[0].strip()
                break
            raise Failure("seed %d: the program failed on %s (exit status %d):\n%s\nreproduce: %s" % (
                seed, device, r.returncode, r.stderr[-3000:], repro))
        # Every kernel's nodes ran on this run's device.
        ran = stats_devices(r.stderr)
        want = r"vulkan:\d+" if device == "vulkan" else "cpu"
        for k in meta["kernels"]:
            for node in k["nodes"]:
                if not any(re.fullmatch(want, d) for d in ran.get(node, ())):
                    # A kernel whose extents are all 0 never launches; ours are >= 1.
                    raise Failure("seed %d: kernel %s: node '%s' did not run on %s "
                                  "(hpvm-rt stats: %s)\nreproduce: %s" % (
                                      seed, k["name"], node, device,
                                      sorted(ran.get(node, ())) or "no launch", repro))
        results[device] = read_results(out)
    t2 = time.time()

    # Compare: cpu against vulkan, and each against the sequential program.
    pairs = [("cpu", "vulkan"), ("seq", "cpu"), ("seq", "vulkan")]
    problems = []
    for k in meta["kernels"]:
        for buf in k["buffers"]:
            key = "%s.%s" % (k["name"], buf["name"])
            diffs = {}
            for a, b in pairs:
                if a in results and b in results:
                    d = first_difference(buf, results[a][key], results[b][key])
                    if d:
                        diffs[(a, b)] = d
            if not diffs:
                continue
            slots = buf["slots"]
            lines = ["seed %d kernel %s (nodes %s, extents %s): buffer %s (%s%s)" % (
                seed, k["name"], ", ".join(k["nodes"]), "x".join(map(str, k["extents"])),
                buf["name"], buf["type"], ", approximate: within %g" % TOLERANCE[buf["type"]]
                if buf["approx"] else "")]
            for (a, b), (idx, x, y) in diffs.items():
                lines.append("  %s vs %s: first difference at element %d (instance %d, slot %d):"
                             " %s=%r %s=%r" % (a, b, idx, idx // slots, idx % slots, a, x, b, y))
            problems.append("\n".join(lines))
    log("seed %d: %d kernels, build %.1f s, runs %.1f s%s" % (
        seed, len(meta["kernels"]), t1 - t0, t2 - t1,
        "" if not problems else ", %d mismatching buffers" % len(problems)))
    if problems:
        raise Failure("MISMATCH\n" + "\n".join(problems) +
                      "\nsource: %s\nreproduce: %s (--only <index> for one kernel)" % (c, repro))
    if skip:
        return "skip: " + skip
    if not args.keep:
        for f in os.listdir(wd):
            if not f.startswith("prog.c"):
                os.remove(os.path.join(wd, f))
    return "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    ap.add_argument("--hpvm-clang", required=True)
    ap.add_argument("--cc", default=shutil.which("clang-19") or "",
                    help="C compiler for the sequential reference ('' for none)")
    ap.add_argument("--seeds", default="1", help="e.g. 1,2,5-9")
    ap.add_argument("--kernels", type=int, default=30, help="kernels per program")
    ap.add_argument("--only", help="comma-separated kernel indices: a program with just those")
    ap.add_argument("--source", help="check this kept program (and <file>.json) instead "
                    "of generating one")
    ap.add_argument("--work-dir", default="random-kernels")
    ap.add_argument("--keep", action="store_true", help="keep executables and results")
    args = ap.parse_args()

    def log(msg):
        print(msg, flush=True)

    failures = 0
    skips = []
    for seed in ([0] if args.source else parse_seeds(args.seeds)):
        try:
            verdict = check_seed(args, seed, log)
            if verdict.startswith("skip"):
                skips.append(verdict)
        except Failure as f:
            failures += 1
            print("FAIL: %s" % f, flush=True)
        except subprocess.TimeoutExpired as t:
            failures += 1
            print("FAIL: seed %d: timed out: %s" % (seed, " ".join(t.cmd)), flush=True)
    if failures:
        print("%d of %d seeds failed" % (failures, len(parse_seeds(args.seeds))))
        return 1
    if skips:
        print("HPVM-RANDOM-SKIP: %s" % skips[0][len("skip: "):])
        return 0
    print("PASS: %d seeds" % len(parse_seeds(args.seeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
