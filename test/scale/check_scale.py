#!/usr/bin/env python3
"""Inputs that are large in one direction, compiled within a time bound.

Each case generates its input, runs one tool on it and fails if the tool
fails, gives a wrong result or runs past its bound. The bounds are
generous (several times what a 2-core machine takes); what they catch is
an algorithm that is quadratic or worse in the size of the graph, which
takes minutes at these sizes.

  check_scale.py --hpvm-opt <path> --hpvm-clang <path> --work <dir> CASE

Cases:
  sibling-regions   1000 sibling leaf regions, each an unrotated loop, in
                    one function: hpvm-opt --verify --extract (SCEV's exit
                    counts used to gather every earlier loop's condition:
                    79 s for 500 regions).
  sibling-tasks     2000 `#pragma hpvm task` children of one task, each
                    updating its own element: hpvm-clang builds and the
                    program computes the sum (every pair of siblings on one
                    buffer used to get an edge: 2 million edges, 47 s); the
                    graph of 500 of them has fewer than 2 edges a child.
"""
import argparse
import os
import re
import subprocess
import sys
import time


def run(cmd, bound, what):
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=bound)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAIL {what}: still running after {bound} s: {' '.join(cmd)}")
    took = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"FAIL {what}: exit status {proc.returncode}\n{proc.stderr[-4000:]}")
    print(f"{what}: {took:.2f} s (bound {bound} s)")
    return proc


def sibling_regions(n):
    out = ["declare token @llvm.directive.region.entry()",
           "declare void @llvm.directive.region.exit(token)"]
    for k in range(n):
        out.append(f'@.n{k} = private unnamed_addr constant '
                   f'[{len(str(k)) + 2} x i8] c"n{k}\\00"')
    out.append("define void @f(ptr %x, i64 %n) {")
    out.append("entry:\n  %bytes = shl i64 %n, 2\n  br label %r0")
    for k in range(n):
        out.append(f"""r{k}:
  %t{k} = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.n{k}), "hpvm.dims"(i64 %n), "hpvm.inout"(ptr %x, i64 %bytes) ]
  br label %l{k}
l{k}:
  %i{k} = phi i64 [ 0, %r{k} ], [ %i{k}.next, %b{k} ]
  %c{k} = icmp slt i64 %i{k}, %n
  br i1 %c{k}, label %b{k}, label %e{k}
b{k}:
  %p{k} = getelementptr inbounds float, ptr %x, i64 %i{k}
  %v{k} = load float, ptr %p{k}, align 4
  %w{k} = fadd float %v{k}, 1.0
  store float %w{k}, ptr %p{k}, align 4
  %i{k}.next = add nsw i64 %i{k}, 1
  br label %l{k}
e{k}:
  call void @llvm.directive.region.exit(token %t{k})
  br label %r{k + 1}""")
    out.append(f"r{n}:\n  ret void\n}}")
    return "\n".join(out) + "\n"


def sibling_tasks(n):
    out = ["#include <stdio.h>", "#include <stdlib.h>",
           "static void work(float *a, long n) {",
           "#pragma hpvm task name(root) inout(a[0:n])", "  {"]
    for k in range(n):
        out.append(f"#pragma hpvm task name(t{k}) inout(a[{k}:1])")
        out.append(f"    a[{k}] += {k}.0f;")
    out.append("  }\n}")
    out.append(f"""int main(void) {{
  long n = {n};
  float *a = calloc(n, sizeof *a);
  work(a, n);
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i];
  printf("sum %.0f\\n", s);
  return s != {n * (n - 1) // 2}.0;
}}""")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hpvm-opt", required=True)
    ap.add_argument("--hpvm-clang", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("case", choices=["sibling-regions", "sibling-tasks"])
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if a.case == "sibling-regions":
        path = os.path.join(a.work, "sibling-regions.ll")
        with open(path, "w") as f:
            f.write(sibling_regions(1000))
        run([a.hpvm_opt, "--verify", "--extract", "-disable-output", path],
            30, "1000 sibling regions, --verify --extract")
    else:
        small = os.path.join(a.work, "tasks-500.c")
        with open(small, "w") as f:
            f.write(sibling_tasks(500))
        ir = os.path.join(a.work, "tasks-500.ll")
        run([a.hpvm_clang, "-O2", "--hpvm-target=cpu", "-emit-hpvm-ir", "-S",
             small, "-o", ir], 60, "500 sibling tasks, region form")
        graph = run([a.hpvm_opt, "--extract", "-S", ir], 60,
                    "500 sibling tasks, --extract").stdout
        edges = len(re.findall(r'!"dep"', graph))
        print(f"500 sibling tasks: {edges} edges")
        if edges >= 2 * 500:
            sys.exit(f"FAIL: {edges} edges for 500 children")
        src = os.path.join(a.work, "tasks-2000.c")
        exe = os.path.join(a.work, "tasks-2000")
        with open(src, "w") as f:
            f.write(sibling_tasks(2000))
        run([a.hpvm_clang, "-O2", "--hpvm-target=cpu", src, "-o", exe], 120,
            "2000 sibling tasks, hpvm-clang")
        print(run([exe], 60, "2000 sibling tasks, run").stdout.strip())
    print("PASS", a.case)


if __name__ == "__main__":
    main()
