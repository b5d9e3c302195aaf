#!/usr/bin/env python3
"""Assembles PTX modules with ptxas, one at a time, for the lit tests.

    ptxas-each.py <ptxas> [ptxas options] <file.ptx | folder>...

A folder stands for every .ptx file in it. Fails (exit status 1) if any
module does not assemble, printing ptxas's messages, or if there is no module
at all (an empty folder would otherwise pass without checking anything).
"""
import os
import subprocess
import sys


def main(argv):
    ptxas, args = argv[1], argv[2:]
    options = [a for a in args if a.startswith("-")]
    files = []
    for a in args:
        if a.startswith("-"):
            continue
        if os.path.isdir(a):
            files += sorted(os.path.join(a, f) for f in os.listdir(a)
                            if f.endswith(".ptx"))
        else:
            files.append(a)
    if not files:
        print("ptxas-each: no PTX module to assemble", file=sys.stderr)
        return 1
    failed = 0
    for f in files:
        r = subprocess.run([ptxas] + options + [f, "-o", os.devnull],
                           capture_output=True, text=True)
        status = "ok" if r.returncode == 0 else "FAILED"
        print("ptxas %s %s: %s" % (" ".join(options), f, status))
        if r.returncode != 0:
            sys.stdout.write(r.stdout + r.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
