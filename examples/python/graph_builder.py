"""A dataflow graph built node by node in Python (docs/python.md, "Building
graphs"): a leaf sums a vector and hands the sum over a value edge to a
replicated leaf that divides every element by it.

    PYTHONPATH=build/python python3 examples/python/graph_builder.py
"""
import sys

import numpy as np

import hpvm
from hpvm import In, Out, f64, i64


@hpvm.leaf
def total(x: In[f64], n: i64) -> f64:
    s = 0.0
    for i in range(n):
        s += x[i]
    return s


@hpvm.leaf
def divide(x: In[f64], y: Out[f64], by: f64):
    i = hpvm.instance_id(0)
    y[i] = x[i] / by


def build():
    g = hpvm.GraphBuilder("normalise")
    g.buffer("x", "in", f64).buffer("y", "out", f64).value("n")
    # A leaf with a result returns it to the host side of the launch: the
    # GPU backends cannot, so it runs on the CPU.
    s = g.leaf("sum", total).on("cpu")
    d = g.leaf("divide", divide, dims=["n"])  # x, y, n bind by name
    g.value_edge(s, d, "by")
    return g


def main():
    g = build()
    print(g.text()[0])
    run = g.compile()
    x = np.arange(1, 1001, dtype=np.float64)
    y = np.empty_like(x)
    run(x=x, y=y, n=len(x))
    ok = np.allclose(y, x / x.sum(), rtol=1e-15)
    print("sum of y:", y.sum(), "(matches numpy)" if ok else "(WRONG)")
    for path, devices in sorted(hpvm.statistics().devices("normalise")
                                .items()):
        print(f"  {path:<18} {', '.join(sorted(devices))}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())  # (an output directory argument is ignored)
