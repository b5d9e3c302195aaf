#!/usr/bin/env python3
"""Tests that travel to a GPU machine without a toolchain.

A lent GPU machine may be offline and lack LLVM 19, so it can neither install
nor build HPVM. The CUDA-labelled tests need no compiler when they run: they
are prebuilt executables (gtest binaries, hpvm-clang outputs) driven by CTest
commands. This script moves them:

  gpu_pack.py make BUILD PACK [--label cuda]
      (here, after a build) copies every file under BUILD that the labelled
      tests name into PACK and writes PACK/tests.json: each test's command,
      environment, working directory, skip expression and timeout, with
      BUILD and the source tree written as placeholders.

  gpu_pack.py run PACK [--log FILE]
      (there, in the repository's copy) runs those tests as CTest would:
      placeholders point at PACK and the repository, `cmake` is the one on
      PATH, a test passes on exit status 0, is skipped where its output
      matches the skip expression
      (whatever its status, as in CTest). Prints one line per test and a CTest-like
      total; exit status 0 when none failed.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

BUILD_MARK = "@BUILD@"
SOURCE_MARK = "@SOURCE@"


def ctest_tests(build, label):
    out = subprocess.run(
        ["ctest", "--test-dir", build, "-L", label, "--show-only=json-v1"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tests"]


def properties(test):
    return {p["name"]: p["value"] for p in test.get("properties", [])}


def make(args):
    build = os.path.realpath(args.build)
    source = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
    pack = os.path.realpath(args.pack)
    path_in_build = re.compile(re.escape(build) + r"/[^\s\"';|]+")
    tests, files = [], set()

    def rewrite(text):
        files.update(m.group(0) for m in path_in_build.finditer(text))
        return text.replace(build, BUILD_MARK).replace(source, SOURCE_MARK)

    for t in ctest_tests(build, args.label):
        props = properties(t)
        if props.get("DISABLED"):
            continue
        command = list(t["command"])
        if os.path.basename(command[0]) == "cmake":
            command[0] = "cmake"  # the machine's own
        for f in props.get("REQUIRED_FILES", []):
            rewrite(f)
        tests.append({
            "name": t["name"],
            "command": [rewrite(c) for c in command],
            "environment": [rewrite(e) for e in props.get("ENVIRONMENT", [])],
            "directory": rewrite(props.get("WORKING_DIRECTORY", build)),
            "skip": props.get("SKIP_REGULAR_EXPRESSION", []),
            "timeout": props.get("TIMEOUT", 1500),
        })
    if not tests:
        sys.exit(f"gpu_pack.py: no test in {build} has the label '{args.label}'")
    for f in sorted(files):
        if os.path.isfile(f):
            dest = os.path.join(pack, os.path.relpath(f, build))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(f, dest)
    for t in tests:
        os.makedirs(t["directory"].replace(BUILD_MARK, pack), exist_ok=True)
    with open(os.path.join(pack, "tests.json"), "w") as out:
        json.dump({"label": args.label, "tests": tests}, out, indent=1)
    print(f"packed {len(tests)} tests labelled {args.label} "
          f"({len(files)} files) into {pack}")


def run(args):
    pack = os.path.realpath(args.pack)
    source = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
    with open(os.path.join(pack, "tests.json")) as f:
        spec = json.load(f)

    def place(text):
        return text.replace(BUILD_MARK, pack).replace(SOURCE_MARK, source)

    log = open(args.log, "w") if args.log else None
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failed = []
    for i, t in enumerate(spec["tests"], 1):
        env = dict(os.environ)
        for e in t["environment"]:
            name, _, value = place(e).partition("=")
            env[name] = value
        start = time.monotonic()
        try:
            r = subprocess.run([place(c) for c in t["command"]],
                               cwd=place(t["directory"]), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace",
                               timeout=t["timeout"])
            output, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as e:
            output, rc = (e.stdout or "") if isinstance(e.stdout, str) else "", "timeout"
        except OSError as e:
            output, rc = str(e), "not run"
        seconds = time.monotonic() - start
        if any(re.search(s, output) for s in t["skip"]):
            outcome = "skipped"
        else:
            outcome = "passed" if rc == 0 else "failed"
        counts[outcome] += 1
        line = f"{i:3}/{len(spec['tests'])} {t['name']:<60} {outcome} ({seconds:.2f} s)"
        print(line, flush=True)
        if log:
            log.write(f"{line}\n{output}\n")
        if outcome == "failed":
            failed.append(t["name"])
            print(output[-4000:])
    total = len(spec["tests"])
    print(f"\n{100 * counts['passed'] // max(total - counts['skipped'], 1)}% tests passed, "
          f"{counts['failed']} tests failed out of {total} "
          f"({counts['skipped']} skipped; label {spec['label']})")
    for name in failed:
        print(f"FAILED: {name}")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", required=True)
    m = sub.add_parser("make")
    m.add_argument("build")
    m.add_argument("pack")
    m.add_argument("--label", default="cuda")
    r = sub.add_parser("run")
    r.add_argument("pack")
    r.add_argument("--log")
    args = parser.parse_args()
    sys.exit(make(args) if args.verb == "make" else run(args))


if __name__ == "__main__":
    main()
