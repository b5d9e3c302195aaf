#!/usr/bin/env python3
"""Random HPVM-C kernels with work-group barriers, checked against an
interpreter of their own meaning.

    barriers.py --hpvm-clang build/bin/hpvm-clang --seeds 1-5 [--kernels 8]
                [--work-dir DIR] [--keep]

Each seed writes a C program of kernels in HPVM-C: a work-group node
replicated over 1 to 3 dims, with two allocation nodes (local arrays A and B
of one word per work-item) and a leaf of work-items over as many dims (ids
made linear, x fastest) whose body is random straight-line
code, `if`s on ids and data, and loops (a parameter's count, or halving from
the group's size) between `__hpvm__barrier()` calls, nested two deep. Values
cross barriers in variables and through the local arrays. Code between two
barriers either writes each item's own slot of an array or reads any slot
of it, never both, so the program has no race and one meaning, which this
script computes itself (every item of a group runs each stretch between
barriers, one after another) and writes into the program as the expected
output. The program is built with hpvm-clang (-O0, -O2 or -O3 by seed) and
run on the CPU, and, where they are present, on Vulkan and OpenCL alone and
mixed with the CPU (round-robin, heft); each run checks every output word. A failing seed's program stays in the
work directory.
"""
import argparse
import os
import random
import subprocess
import sys

MASK = 0xFFFFFFFF


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            seeds.extend(range(int(lo), int(hi) + 1))
        else:
            seeds.append(int(part))
    return seeds


def prod(values):
    out = 1
    for v in values:
        out *= v
    return out


def extents(values):
    return ", ".join(f"(long){v}" for v in values)


class Kernel:
    """One kernel: its C source and its output, computed here."""

    def __init__(self, rng, index):
        self.rng = rng
        self.name = f"k{index}"
        # Work-groups of 1 to 3 dims (HPVM-C's x first), and as many of them.
        dims = rng.choice([1, 1, 2, 3])
        self.local = [rng.choice([1, 2, 4, 7, 16, 33]) if dims == 1 else
                      rng.choice([1, 2, 3, 4]) for _ in range(dims)]
        self.groups = [rng.choice([1, 2, 3, 5]) for _ in range(dims)]
        self.L = prod(self.local)
        self.G = prod(self.groups)
        self.trips = rng.choice([0, 1, 2, 3])
        self.body = self.block(depth=0, loop=None)

    # -- generation: expressions and statements as tuples ---------------------

    def expr(self, depth, modes, loop):
        r = self.rng
        leaves = [("var", "v0"), ("var", "v1"), ("var", "v2"), ("var", "l"),
                  ("var", "g"), ("const", r.randrange(1, 1000))]
        if loop:
            leaves.append(("var", loop))
        for a in ("A", "B"):
            if modes[a] == "read":
                leaves.append(("load", a, r.randrange(0, 40)))
            elif modes[a] == "write":
                leaves.append(("load", a, None))
        if depth > 2 or r.random() < 0.3:
            return r.choice(leaves)
        op = r.choice(["+", "-", "*", "^", "&", "|", ">>", "<<", "?"])
        a = self.expr(depth + 1, modes, loop)
        if op in (">>", "<<"):
            return ("shift", op, a, r.randrange(1, 8))
        b = self.expr(depth + 1, modes, loop)
        if op == "?":
            return ("select", a, b, self.expr(depth + 1, modes, loop))
        return ("bin", op, a, b)

    def segment(self, loop):
        """Statements between two barriers: per array, only its own slot
        written (and read), or any slot read."""
        r = self.rng
        modes = {a: r.choice(["read", "write", "none"]) for a in ("A", "B")}
        stmts = []
        for _ in range(r.randrange(1, 4)):
            targets = ["v0", "v1", "v2"] + [a for a in ("A", "B")
                                            if modes[a] == "write"]
            kind = r.random()
            cond = (("below", r.randrange(0, self.L + 1)) if kind < 0.2 else
                    ("even",) if kind < 0.3 else None)
            stmts.append((r.choice(targets), self.expr(0, modes, loop), cond))
        return ("segment", stmts)

    def block(self, depth, loop):
        r = self.rng
        items = [self.segment(loop)]
        for _ in range(r.randrange(1, 4)):
            items.append(("barrier",))
            if depth < 2 and r.random() < 0.35:
                var = "t" if depth == 0 else "u"
                # (The body ends at a barrier: its last stretch and the
                # next iteration's first would be one, and might race.)
                items.append(("loop", var, r.choice(["count", "halve"]),
                              self.block(depth + 1, var) + [("barrier",)]))
                items.append(("barrier",))
            items.append(self.segment(loop))
        return items

    # -- C ----------------------------------------------------------------------

    def c_expr(self, e):
        kind = e[0]
        if kind == "var":
            return e[1]
        if kind == "const":
            return f"{e[1]}u"
        if kind == "load":
            return (f"{e[1]}[l]" if e[2] is None else
                    f"{e[1]}[(l + {e[2]}u) % {self.L}u]")
        if kind == "shift":
            return f"({self.c_expr(e[2])} {e[1]} {e[3]}u)"
        if kind == "select":
            a, b, c = (self.c_expr(x) for x in e[1:])
            return f"({a} < {b} ? {c} : {a})"
        return f"({self.c_expr(e[2])} {e[1]} {self.c_expr(e[3])})"

    def c_block(self, items, indent):
        pad = " " * indent
        out = []
        for item in items:
            if item[0] == "segment":
                for target, e, cond in item[1]:
                    lhs = f"{target}[l]" if target in ("A", "B") else target
                    stmt = f"{lhs} = {self.c_expr(e)};"
                    if cond and cond[0] == "below":
                        stmt = f"if (l < {cond[1]}u) {{ {stmt} }}"
                    elif cond:
                        stmt = f"if ((v0 & 1u) == 0u) {{ {stmt} }}"
                    out.append(pad + stmt)
            elif item[0] == "barrier":
                out.append(pad + "__hpvm__barrier();")
            else:
                _, var, kind, body = item
                if kind == "count":
                    head = (f"for (unsigned {var} = 0; {var} < (unsigned)trips; "
                            f"++{var}) {{")
                else:
                    head = (f"for (unsigned {var} = (unsigned)("
                            f"__hpvm__getNumNodeInstances_x(self) * "
                            f"__hpvm__getNumNodeInstances_y(self) * "
                            f"__hpvm__getNumNodeInstances_z(self)) / 2u; "
                            f"{var} > 0u; {var} >>= 1) {{")
                out.append(pad + head)
                out += self.c_block(body, indent + 2)
                out.append(pad + "}")
        return out

    def c_source(self):
        n, L = self.name, self.L
        body = "\n".join(self.c_block(self.body, 2))
        return f"""
void {n}_memory(void) {{
  void *p = __hpvm__malloc({L} * sizeof(unsigned));
  __hpvm__return(2, p, (size_t)({L} * sizeof(unsigned)));
}}

void {n}_leaf(unsigned *in, size_t bytes_in, unsigned *out, size_t bytes_out,
              int trips, unsigned *A, size_t bytes_A, unsigned *B,
              size_t bytes_B) {{
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, in, 1, out);
  void *self = __hpvm__getNode();
  void *parent = __hpvm__getParentNode(self);
  // Linear ids, x fastest.
  unsigned l = (unsigned)((__hpvm__getNodeInstanceID_z(self) *
                               __hpvm__getNumNodeInstances_y(self) +
                           __hpvm__getNodeInstanceID_y(self)) *
                              __hpvm__getNumNodeInstances_x(self) +
                          __hpvm__getNodeInstanceID_x(self));
  unsigned g = (unsigned)((__hpvm__getNodeInstanceID_z(parent) *
                               __hpvm__getNumNodeInstances_y(parent) +
                           __hpvm__getNodeInstanceID_y(parent)) *
                              __hpvm__getNumNodeInstances_x(parent) +
                          __hpvm__getNodeInstanceID_x(parent));
  unsigned v0 = in[g * {L}u + l], v1 = l * 7u + g, v2 = 12345u;
  A[l] = v0 ^ 0x55u;
  B[l] = v0 + l;
  __hpvm__barrier();
{body}
  out[g * {L}u + l] = v0 ^ (v1 * 3u) ^ (v2 << 1);
}}

void {n}_group(unsigned *in, size_t bytes_in, unsigned *out,
               size_t bytes_out, int trips) {{
  void *a = __hpvm__createNodeND(0, {n}_memory);
  void *b = __hpvm__createNodeND(0, {n}_memory);
  void *leaf = __hpvm__createNodeND({len(self.local)}, {n}_leaf, {extents(self.local)});
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(a, leaf, 1, 0, 5, 0);
  __hpvm__edge(a, leaf, 1, 1, 6, 0);
  __hpvm__edge(b, leaf, 1, 0, 7, 0);
  __hpvm__edge(b, leaf, 1, 1, 8, 0);
}}

void {n}_root(unsigned *in, size_t bytes_in, unsigned *out, size_t bytes_out,
              int trips) {{
  void *groups = __hpvm__createNodeND({len(self.groups)}, {n}_group, {extents(self.groups)});
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}}
"""

    # -- meaning: every item of a group runs each stretch, one after another --

    def inputs(self):
        return [(i * 2654435761 + 17) & MASK for i in range(self.G * self.L)]

    def run(self):
        L, G = self.L, self.G
        ins = self.inputs()
        out = [0] * (G * L)
        for g in range(G):
            items = [{"v0": ins[g * L + l], "v1": (l * 7 + g) & MASK,
                      "v2": 12345, "l": l, "g": g} for l in range(L)]
            mem = {"A": [(s["v0"] ^ 0x55) & MASK for s in items],
                   "B": [(s["v0"] + s["l"]) & MASK for s in items]}
            self.run_block(self.body, items, mem)
            for s in items:
                out[g * L + s["l"]] = (s["v0"] ^ ((s["v1"] * 3) & MASK) ^
                                       ((s["v2"] << 1) & MASK))
        return out

    def run_block(self, code, items, mem):
        for item in code:
            if item[0] == "segment":
                for s in items:
                    for target, e, cond in item[1]:
                        if cond and cond[0] == "below" and not s["l"] < cond[1]:
                            continue
                        if cond and cond[0] == "even" and s["v0"] & 1:
                            continue
                        v = self.value(e, s, mem)
                        if target in ("A", "B"):
                            mem[target][s["l"]] = v
                        else:
                            s[target] = v
            elif item[0] == "loop":
                _, var, kind, body = item
                if kind == "count":
                    values = list(range(self.trips))
                else:
                    values, t = [], self.L // 2
                    while t > 0:
                        values.append(t)
                        t >>= 1
                for v in values:
                    for s in items:
                        s[var] = v
                    self.run_block(body, items, mem)

    def value(self, e, s, mem):
        kind = e[0]
        if kind == "var":
            return s[e[1]]
        if kind == "const":
            return e[1]
        if kind == "load":
            at = s["l"] if e[2] is None else (s["l"] + e[2]) % self.L
            return mem[e[1]][at]
        if kind == "shift":
            a = self.value(e[2], s, mem)
            return (a << e[3]) & MASK if e[1] == "<<" else a >> e[3]
        if kind == "select":
            a, b, c = (self.value(x, s, mem) for x in e[1:])
            return c if a < b else a
        a, b = self.value(e[2], s, mem), self.value(e[3], s, mem)
        return {"+": a + b, "-": a - b, "*": a * b, "^": a ^ b, "&": a & b,
                "|": a | b}[e[1]] & MASK


def program(seed, count):
    rng = random.Random(seed)
    kernels = [Kernel(random.Random(rng.random()), i) for i in range(count)]
    parts = ["#include <hpvm.h>", "#include <stdio.h>", "#include <stdlib.h>",
             "typedef struct __attribute__((__packed__)) {",
             "  unsigned *in; size_t bytes_in; unsigned *out; size_t bytes_out;",
             "  int trips;", "} Args;"]
    main = ["int main(void) {", "  long bad = 0;"]
    for k in kernels:
        parts.append(k.c_source())
        n = k.G * k.L
        ins = ", ".join(f"{v}u" for v in k.inputs())
        want = ", ".join(f"{v}u" for v in k.run())
        main += [
            "  {",
            f"    static unsigned in[{n}] = {{{ins}}};",
            f"    static const unsigned want[{n}] = {{{want}}};",
            f"    unsigned *out = malloc({n} * sizeof(unsigned));",
            f"    for (int i = 0; i < {n}; ++i) out[i] = 0xdeadbeefu;",
            f"    Args args = {{in, sizeof in, out, {n} * sizeof(unsigned), "
            f"{k.trips}}};",
            f"    __hpvm__wait(__hpvm__launch(0, {k.name}_root, &args));",
            f"    for (int i = 0; i < {n}; ++i)",
            "      if (out[i] != want[i] && bad++ < 20)",
            f'        printf("{k.name} (groups {k.groups} of {k.local}): out[%d] = %u, '
            'want %u\\n", i, out[i], want[i]);',
            "    free(out);",
            "  }"]
    main += ['  printf(bad ? "FAIL: %ld wrong words\\n" : "PASS\\n", bad);',
             "  return bad != 0;", "}"]
    return "\n".join(parts + main) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hpvm-clang", required=True)
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--kernels", type=int, default=8)
    ap.add_argument("--work-dir", default="random-barriers")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    failed = []
    for seed in parse_seeds(args.seeds):
        src = os.path.join(args.work_dir, f"barriers-{seed}.c")
        exe = os.path.join(args.work_dir, f"barriers-{seed}")
        with open(src, "w") as f:
            f.write(program(seed, args.kernels))
        level = ["-O0", "-O2", "-O3"][seed % 3]
        build = subprocess.run([args.hpvm_clang, level, "--hpvm-target=cpu,spirv",
                                src, "-o", exe], capture_output=True, text=True)
        if build.returncode:
            print(f"seed {seed}: hpvm-clang {level} failed:\n{build.stderr[-3000:]}")
            failed.append(seed)
            continue
        ok = True
        # The devices hpvm-rt finds here (its statistics list them).
        probe = subprocess.run([exe], capture_output=True, text=True,
                               env=dict(os.environ, HPVM_STATS="1"), timeout=300)
        found = next((line for line in probe.stderr.splitlines()
                      if "devices:" in line), "")
        here = found.split("devices:", 1)[-1]
        # Each device alone, then mixed: a policy may put one phase of a
        # leaf on one device and the next on another.
        runs = [(d, "hint") for d in ("cpu", "vulkan", "opencl")]
        runs += [("cpu,vulkan", "round-robin"), ("cpu,opencl", "heft")]
        for device, policy in runs:
            missing = [d for d in device.split(",") if f" {d}" not in here]
            if missing:
                print(f"seed {seed} ({level}): {device} skipped: hpvm-rt finds "
                      f"no {missing[0]} device here")
                continue
            env = dict(os.environ, HPVM_DEVICES=device, HPVM_DEVICES_STRICT="1",
                       HPVM_SCHEDULER=policy)
            run = subprocess.run([exe], capture_output=True, text=True, env=env,
                                 timeout=300)
            text = run.stdout + run.stderr
            status = "PASS" if run.returncode == 0 and "PASS" in text else "FAIL"
            print(f"seed {seed} ({level}) on {device} ({policy}): {status}")
            if status != "PASS":
                print(text[-3000:])
                ok = False
        if not ok:
            failed.append(seed)
        elif not args.keep:
            os.remove(src)
            os.remove(exe)
    if failed:
        print(f"failing seeds: {failed} (programs in {args.work_dir})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
