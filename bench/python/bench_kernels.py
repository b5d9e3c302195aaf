#!/usr/bin/env python3
"""Python-written HPVM kernels against the same kernels written in C
(hpvm.compile_c), numpy, Numba @njit(parallel=True) and Taichi (CPU), in one
run, on the CPU.

    HPVM_DEVICES=cpu PYTHONPATH=build/python python3 bench/python/bench_kernels.py
    ... --quick          # small sizes, few repetitions (~20 s)
    ... --json out.json  # also write the numbers as JSON

Every implementation runs the same algorithm (sgemm: the naive triple loop
everywhere, except numpy's row, which is BLAS `a @ b`). Each result is checked
against numpy before it is timed. Times are medians of several calls after a
warm-up; ratios are X / hpvm-python (> 1: hpvm-python is faster). Each
framework runs in a process of its own (this script with --worker; the two
hpvm columns share one), so that one framework's idle worker threads never
compete with another's for the cores.
bench/python/README.md describes it and has results.
"""

import argparse
import importlib.metadata
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# Thread counts must be in the environment before hpvm-rt, Numba and BLAS
# start their pools: one count for everybody, the cores by default.
THREADS = int(os.environ.get("HPVM_NUM_THREADS")
              or len(os.sched_getaffinity(0)))
os.environ["HPVM_NUM_THREADS"] = str(THREADS)
os.environ.setdefault("NUMBA_NUM_THREADS", str(THREADS))
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, str(THREADS))  # numpy's BLAS (a @ b)
# A CPU comparison: without this hpvm-rt may also pick a Vulkan (lavapipe)
# or OpenCL device for some nodes.
os.environ.setdefault("HPVM_DEVICES", "cpu")

import numpy as np  # noqa: E402

try:
    import hpvm
except ImportError:  # run from a checkout without PYTHONPATH: use its build
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "build", "python"))
    import hpvm
from hpvm import In, InOut, Out, f32, f64, u8  # noqa: E402

CPU = ["cpu"]  # timed kernels are compiled for the CPU only, like compile_c's

# ---------------------------------------------------------------------------
# hpvm-python: the kernels of test/python/py_kernels.py, except that the
# pipeline computes in f32 throughout (annotated accumulators), as the C,
# Numba and Taichi versions do; the test's version accumulates in f64.


@hpvm.kernel(targets=CPU)
def hp_saxpy(a: f32, x: In[f32], y: InOut[f32]):
    for i in hpvm.parallel(len(x)):
        y[i] = a * x[i] + y[i]


@hpvm.kernel(targets=CPU)
def hp_stencil(src: In[f64, 2], dst: Out[f64, 2]):
    rows, cols = src.shape[0], src.shape[1]
    for r, c in hpvm.parallel(rows, cols):
        if r == 0 or c == 0 or r == rows - 1 or c == cols - 1:
            dst[r, c] = src[r, c]
        else:
            dst[r, c] = 0.25 * (src[r - 1, c] + src[r + 1, c]
                                + src[r, c - 1] + src[r, c + 1])


@hpvm.kernel(targets=CPU)
def hp_sgemm(a: In[f32, 2], b: In[f32, 2], c: Out[f32, 2]):
    for i, j in hpvm.parallel(c.shape[0], c.shape[1]):
        acc: f32 = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


@hpvm.kernel(targets=CPU)
def hp_pipeline(img: In[f32, 2], blurred: Out[f32, 2], edges: Out[f32, 2],
                mask: Out[u8, 2], threshold: f32):
    h = img.shape[0]
    w = img.shape[1]
    for r, c in hpvm.parallel(h, w, name="blur"):
        acc: f32 = 0.0
        count = 0
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                rr = r + dr
                cc = c + dc
                if 0 <= rr < h and 0 <= cc < w:
                    acc += img[rr, cc]
                    count += 1
        blurred[r, c] = acc / count
    for r, c in hpvm.parallel(h, w, name="gradient"):
        gx: f32 = 0.0
        gy: f32 = 0.0
        if 0 < c < w - 1:
            gx = blurred[r, c + 1] - blurred[r, c - 1]
        if 0 < r < h - 1:
            gy = blurred[r + 1, c] - blurred[r - 1, c]
        edges[r, c] = math.sqrt(gx * gx + gy * gy)
    for r, c in hpvm.parallel(h, w, name="threshold"):
        mask[r, c] = 255 if edges[r, c] > threshold else 0


# A kernel compiled before the timed ones, so that no kernel's compile time
# carries the process's one-time LLVM set-up.
@hpvm.kernel(targets=CPU)
def hp_warmup(x: InOut[f32]):
    for i in hpvm.parallel(len(x)):
        x[i] = x[i] + 1


HP_KERNELS = {"saxpy": hp_saxpy, "stencil": hp_stencil, "sgemm": hp_sgemm,
              "pipeline": hp_pipeline}

# ---------------------------------------------------------------------------
# hpvm-C: the same loops in C, statement for statement. Arrays are flat, so
# a[i, j] is a[i * cols + j].

C_SOURCE = r"""
void saxpy(long n, float a, const float *x, float *y) {
#pragma hpvm parallel for name(saxpy) in(x[0:n]) inout(y[0:n])
  for (long i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

void stencil(long rows, long cols, const double *src, double *dst) {
#pragma hpvm parallel for collapse(2) name(stencil) in(src[0:rows*cols]) out(dst[0:rows*cols])
  for (long r = 0; r < rows; ++r)
    for (long c = 0; c < cols; ++c) {
      if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1)
        dst[r * cols + c] = src[r * cols + c];
      else
        dst[r * cols + c] = 0.25 * (src[(r - 1) * cols + c] + src[(r + 1) * cols + c]
                                    + src[r * cols + c - 1] + src[r * cols + c + 1]);
    }
}

void sgemm(long m, long n, long k, const float *a, const float *b, float *c) {
#pragma hpvm parallel for collapse(2) name(sgemm) in(a[0:m*k], b[0:k*n]) out(c[0:m*n])
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < n; ++j) {
      float acc = 0;
      for (long p = 0; p < k; ++p)
        acc += a[i * k + p] * b[p * n + j];
      c[i * n + j] = acc;
    }
}

void pipeline(long h, long w, const float *img, float *blurred, float *edges,
              unsigned char *mask, float threshold) {
  long n = h * w;
#pragma hpvm task name(pipeline) in(img[0:n]) out(blurred[0:n], edges[0:n], mask[0:n])
  {
#pragma hpvm parallel for collapse(2) name(blur) in(img[0:n]) out(blurred[0:n])
    for (long r = 0; r < h; ++r)
      for (long c = 0; c < w; ++c) {
        float acc = 0;
        long count = 0;
        for (long dr = -1; dr < 2; ++dr)
          for (long dc = -1; dc < 2; ++dc) {
            long rr = r + dr, cc = c + dc;
            if (0 <= rr && rr < h && 0 <= cc && cc < w) {
              acc += img[rr * w + cc];
              count += 1;
            }
          }
        blurred[r * w + c] = acc / count;
      }
#pragma hpvm parallel for collapse(2) name(gradient) in(blurred[0:n]) out(edges[0:n])
    for (long r = 0; r < h; ++r)
      for (long c = 0; c < w; ++c) {
        float gx = 0, gy = 0;
        if (0 < c && c < w - 1)
          gx = blurred[r * w + c + 1] - blurred[r * w + c - 1];
        if (0 < r && r < h - 1)
          gy = blurred[(r + 1) * w + c] - blurred[(r - 1) * w + c];
        edges[r * w + c] = __builtin_sqrtf(gx * gx + gy * gy);
      }
#pragma hpvm parallel for collapse(2) name(threshold) in(edges[0:n]) out(mask[0:n])
    for (long r = 0; r < h; ++r)
      for (long c = 0; c < w; ++c)
        mask[r * w + c] = edges[r * w + c] > threshold ? 255 : 0;
  }
}
"""


def c_calls(prog):
    """The C functions with the Python kernels' signatures."""
    return {
        "saxpy": lambda a, x, y: prog.saxpy(len(x), a, x, y),
        "stencil": lambda src, dst: prog.stencil(*src.shape, src, dst),
        "sgemm": lambda a, b, c: prog.sgemm(a.shape[0], b.shape[1],
                                            a.shape[1], a, b, c),
        "pipeline": lambda img, bl, ed, mask, thr: prog.pipeline(
            *img.shape, img, bl, ed, mask, thr),
    }

# ---------------------------------------------------------------------------
# numpy: idiomatic whole-array code computing the same values (the reference
# every other implementation is checked against).


def np_saxpy(a, x, y):
    y += a * x


def np_stencil(src, dst):
    dst[1:-1, 1:-1] = 0.25 * (src[:-2, 1:-1] + src[2:, 1:-1]
                              + src[1:-1, :-2] + src[1:-1, 2:])
    dst[0, :], dst[-1, :] = src[0, :], src[-1, :]
    dst[:, 0], dst[:, -1] = src[:, 0], src[:, -1]


def np_sgemm(a, b, c):
    np.matmul(a, b, out=c)  # BLAS, not the naive loop


def np_pipeline(img, blurred, edges, mask, threshold):
    h, w = img.shape
    # Zero padding adds exact zeros where the loops skip a neighbour, in the
    # loops' order, so the sums are the same floats.
    p = np.pad(img, 1)
    acc = np.zeros_like(img)
    for dr in range(3):
        for dc in range(3):
            acc += p[dr:dr + h, dc:dc + w]
    rows = np.full(h, 3, np.float32)
    rows[[0, -1]] = 2
    cols = np.full(w, 3, np.float32)
    cols[[0, -1]] = 2
    np.divide(acc, rows[:, None] * cols[None, :], out=blurred)
    gx = np.zeros_like(img)
    gy = np.zeros_like(img)
    gx[:, 1:-1] = blurred[:, 2:] - blurred[:, :-2]
    gy[1:-1, :] = blurred[2:, :] - blurred[:-2, :]
    np.sqrt(gx * gx + gy * gy, out=edges)
    mask[...] = np.where(edges > threshold, 255, 0)


NP_KERNELS = {"saxpy": np_saxpy, "stencil": np_stencil, "sgemm": np_sgemm,
              "pipeline": np_pipeline}

# ---------------------------------------------------------------------------
# Numba: the same loops, the outer one a prange.


def numba_kernels():
    # Imported here: only the numba worker process loads Numba. Globals, as
    # the kernels refer to prange.
    global numba, njit, prange
    import numba
    from numba import njit, prange

    @njit(parallel=True)
    def saxpy(a, x, y):
        for i in prange(len(x)):
            y[i] = a * x[i] + y[i]

    @njit(parallel=True)
    def stencil(src, dst):
        rows, cols = src.shape
        for r in prange(rows):
            for c in range(cols):
                if r == 0 or c == 0 or r == rows - 1 or c == cols - 1:
                    dst[r, c] = src[r, c]
                else:
                    dst[r, c] = 0.25 * (src[r - 1, c] + src[r + 1, c]
                                        + src[r, c - 1] + src[r, c + 1])

    @njit(parallel=True)
    def sgemm(a, b, c):
        for i in prange(c.shape[0]):
            for j in range(c.shape[1]):
                acc = np.float32(0.0)
                for k in range(a.shape[1]):
                    acc += a[i, k] * b[k, j]
                c[i, j] = acc

    @njit(parallel=True)
    def pipeline(img, blurred, edges, mask, threshold):
        h, w = img.shape
        for r in prange(h):
            for c in range(w):
                acc = np.float32(0.0)
                count = 0
                for dr in range(-1, 2):
                    for dc in range(-1, 2):
                        rr = r + dr
                        cc = c + dc
                        if 0 <= rr < h and 0 <= cc < w:
                            acc += img[rr, cc]
                            count += 1
                blurred[r, c] = acc / np.float32(count)
        for r in prange(h):
            for c in range(w):
                gx = np.float32(0.0)
                gy = np.float32(0.0)
                if 0 < c < w - 1:
                    gx = blurred[r, c + 1] - blurred[r, c - 1]
                if 0 < r < h - 1:
                    gy = blurred[r + 1, c] - blurred[r - 1, c]
                edges[r, c] = math.sqrt(gx * gx + gy * gy)
        for r in prange(h):
            for c in range(w):
                mask[r, c] = 255 if edges[r, c] > threshold else 0

    @njit(parallel=True)
    def warmup(x):
        for i in prange(len(x)):
            x[i] += 1

    # Numba's one-time set-up (the threading layer), on a throw-away kernel.
    first = timed(lambda: warmup(np.zeros(16, np.float32)))
    return {"saxpy": saxpy, "stencil": stencil, "sgemm": sgemm,
            "pipeline": pipeline}, first

# ---------------------------------------------------------------------------
# Taichi: the same loops; the outermost for of a kernel is its parallel one,
# and a kernel's top-level fors run one after the other (the pipeline).


def taichi_kernels():
    global ti  # a global: Taichi's kernel compiler looks names up there
    import taichi as ti

    start = time.perf_counter()
    # No offline cache, or a second run would time a cache hit as the
    # first call.
    ti.init(arch=ti.cpu, cpu_max_num_threads=THREADS, offline_cache=False,
            log_level=ti.WARN)
    nd = ti.types.ndarray

    @ti.kernel
    def saxpy(a: ti.f32, x: nd(dtype=ti.f32, ndim=1),
              y: nd(dtype=ti.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    @ti.kernel
    def stencil(src: nd(dtype=ti.f64, ndim=2), dst: nd(dtype=ti.f64, ndim=2)):
        rows, cols = src.shape[0], src.shape[1]
        for r, c in ti.ndrange(rows, cols):
            if r == 0 or c == 0 or r == rows - 1 or c == cols - 1:
                dst[r, c] = src[r, c]
            else:
                dst[r, c] = 0.25 * (src[r - 1, c] + src[r + 1, c]
                                    + src[r, c - 1] + src[r, c + 1])

    @ti.kernel
    def sgemm(a: nd(dtype=ti.f32, ndim=2), b: nd(dtype=ti.f32, ndim=2),
              c: nd(dtype=ti.f32, ndim=2)):
        for i, j in ti.ndrange(c.shape[0], c.shape[1]):
            acc = ti.f32(0.0)
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc

    @ti.kernel
    def pipeline(img: nd(dtype=ti.f32, ndim=2),
                 blurred: nd(dtype=ti.f32, ndim=2),
                 edges: nd(dtype=ti.f32, ndim=2),
                 mask: nd(dtype=ti.u8, ndim=2), threshold: ti.f32):
        h, w = img.shape[0], img.shape[1]
        for r, c in ti.ndrange(h, w):
            acc = ti.f32(0.0)
            count = 0
            for dr in range(-1, 2):
                for dc in range(-1, 2):
                    rr = r + dr
                    cc = c + dc
                    if 0 <= rr < h and 0 <= cc < w:
                        acc += img[rr, cc]
                        count += 1
            blurred[r, c] = acc / ti.f32(count)
        for r, c in ti.ndrange(h, w):
            gx = ti.f32(0.0)
            gy = ti.f32(0.0)
            if 0 < c < w - 1:
                gx = blurred[r, c + 1] - blurred[r, c - 1]
            if 0 < r < h - 1:
                gy = blurred[r + 1, c] - blurred[r - 1, c]
            edges[r, c] = ti.sqrt(gx * gx + gy * gy)
        for r, c in ti.ndrange(h, w):
            mask[r, c] = ti.u8(255) if edges[r, c] > threshold else ti.u8(0)

    @ti.kernel
    def warmup(x: nd(dtype=ti.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] += 1

    # Taichi's one-time set-up, on a throw-away kernel: with ti.init.
    warmup(np.zeros(16, np.float32))
    ti.sync()
    first = time.perf_counter() - start

    def synced(kernel):
        # Taichi may return before the kernel has finished.
        def call(*args):
            kernel(*args)
            ti.sync()
        return call

    return {name: synced(k) for name, k in [
        ("saxpy", saxpy), ("stencil", stencil), ("sgemm", sgemm),
        ("pipeline", pipeline)]}, first

# ---------------------------------------------------------------------------
# Problems: fresh inputs for every implementation, a checker against numpy.


class Problem:
    """One row: args() makes a fresh argument tuple; check(args) raises if
    the call left a wrong result in them."""

    def __init__(self, name, label, args, check):
        self.name, self.label, self.args, self.check = name, label, args, check


def problems(sizes, rng):
    n = sizes["saxpy"]
    x = rng.random(n, dtype=np.float32)
    y0 = rng.random(n, dtype=np.float32)
    a = np.float32(2.0)
    y_ref = y0.copy()
    np_saxpy(a, x, y_ref)

    def saxpy_check(args):
        np.testing.assert_allclose(args[2], y_ref, rtol=1e-6)

    s = sizes["stencil"]
    grid = rng.random((s, s))
    grid_ref = np.empty_like(grid)
    np_stencil(grid, grid_ref)

    def stencil_check(args):
        np.testing.assert_allclose(args[1], grid_ref, rtol=1e-14)

    m = sizes["sgemm"]
    ma = rng.random((m, m), dtype=np.float32) - 0.5
    mb = rng.random((m, m), dtype=np.float32) - 0.5
    mc_ref = ma.astype(np.float64) @ mb.astype(np.float64)

    def sgemm_check(args):
        # f32 sums of m products of [-0.25, 0.25]: compare with the f64
        # product to a few f32 ulps of the operands' scale.
        np.testing.assert_allclose(args[2], mc_ref, atol=1e-4 * math.sqrt(m))

    p = sizes["pipeline"]
    img = rng.random((p, p), dtype=np.float32)
    thr = np.float32(0.1)
    ref = [img, np.empty_like(img), np.empty_like(img),
           np.empty(img.shape, np.uint8), thr]
    np_pipeline(*ref)
    assert 0.05 < (ref[3] == 255).mean() < 0.95  # a threshold that decides

    def pipeline_check(args):
        np.testing.assert_allclose(args[1], ref[1], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(args[2], ref[2], rtol=1e-5, atol=1e-6)
        # The mask may differ only where an edge is within rounding of thr.
        differ = args[3] != ref[3]
        assert not np.any(differ & (np.abs(ref[2] - thr) > 1e-5)), \
            f"{int(differ.sum())} mask pixels differ"
        assert set(np.unique(args[3])) <= {0, 255}

    return [
        Problem("saxpy", f"saxpy {n} f32", lambda: (a, x, y0.copy()),
                saxpy_check),
        Problem("stencil", f"stencil {s}x{s} f64",
                lambda: (grid, np.zeros_like(grid)), stencil_check),
        Problem("sgemm", f"sgemm {m}x{m}x{m} f32",
                lambda: (ma, mb, np.zeros((m, m), np.float32)), sgemm_check),
        Problem("pipeline", f"pipeline {p}x{p} f32",
                lambda: (img, np.zeros_like(img), np.zeros_like(img),
                         np.zeros(img.shape, np.uint8), thr),
                pipeline_check),
    ]


def check_reference():
    """The numpy versions against the Python kernels run as plain Python
    (py_func), on small arrays: the reference must be the kernels' meaning."""
    rng = np.random.default_rng(7)
    for prob in problems({"saxpy": 50, "stencil": 9, "sgemm": 7,
                          "pipeline": 11}, rng):
        args = prob.args()
        HP_KERNELS[prob.name].py_func(*args)
        prob.check(args)

# ---------------------------------------------------------------------------
# Timing. The machine may be shared: /proc/stat tells how much CPU others
# used while a cell was timed, and a disturbed cell is measured again.

CORES = len(os.sched_getaffinity(0))
TICK = os.sysconf("SC_CLK_TCK")


def busy_seconds():
    """CPU seconds the whole machine has been busy (not idle or iowait)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / TICK


def own_seconds():
    t = os.times()  # this process, all its threads
    return t.user + t.system


def timed(call):
    t = time.perf_counter()
    call()
    return time.perf_counter() - t


def measure(calls, reps, budget, window):
    """Times the calls (by column) in turns, so that a change in the
    machine's state hits all of them alike. Per column, at least reps calls
    lasting window s in all, but 3 are enough once past budget s. Returns
    ({column: (median s, calls)}, others' share of the machine meanwhile)."""
    times = {col: [] for col in calls}

    def done(t):
        return (len(t) >= 3 and sum(t) >= budget
                or len(t) >= reps and sum(t) >= window)

    busy, own, start = busy_seconds(), own_seconds(), time.perf_counter()
    while not all(done(t) for t in times.values()):
        for col, call in calls.items():
            if not done(times[col]):
                times[col].append(timed(call))
    wall = time.perf_counter() - start
    others = (busy_seconds() - busy) - (own_seconds() - own)
    return ({col: (statistics.median(t), len(t)) for col, t in times.items()},
            max(0.0, others) / (wall * CORES))


def run_row(fns, prob, cfg):
    """One row for the columns fns (column: function), on the same arrays:
    per column a first call, whose result is checked, and a warm-up call;
    then the timed calls, once more if others took > 10% of the machine,
    keeping the less disturbed measurement."""
    args = prob.args()
    initial = prob.args()  # the outputs' starting values, to reset args
    first = {}
    for col, fn in fns.items():
        for a, v in zip(args, initial):
            if isinstance(a, np.ndarray) and a is not v:
                np.copyto(a, v)
        first[col] = timed(lambda: fn(*args))
        prob.check(args)
        fn(*args)
    best = None
    for _ in range(2):
        medians, share = measure({col: (lambda fn=fn: fn(*args))
                                  for col, fn in fns.items()},
                                 cfg["reps"], cfg["budget"], cfg["window"])
        if best is None or share < best[1]:
            best = (medians, share)
        if share <= 0.10:
            break
    medians, share = best
    return {col: {"median_s": medians[col][0], "calls": medians[col][1],
                  "first_call_s": first[col], "others_cpu": share}
            for col in fns}

# ---------------------------------------------------------------------------
# A worker: its columns, all rows, in a process of its own.

WARMUP_C = r"""
void warmup(long n, float *x) {
#pragma hpvm parallel for inout(x[0:n])
  for (long i = 0; i < n; ++i) x[i] += 1;
}
"""


def setup(column):
    """(the column's functions by row name, a description of its threads,
    compile times or None, seconds the framework's first, throw-away kernel
    took: its one-time set-up); raises ImportError for a missing package."""
    if column == "hpvm-python":
        return (HP_KERNELS, hpvm_threads()) + compile_python_kernels()
    if column == "hpvm-C":
        first = timed(lambda: hpvm.compile_c(WARMUP_C, targets=CPU))
        t = time.perf_counter()
        prog = hpvm.compile_c(C_SOURCE, targets=CPU)
        return c_calls(prog), hpvm_threads(), {
            "compile_c": time.perf_counter() - t}, first
    if column == "numpy":
        return NP_KERNELS, ("1 (elementwise); BLAS: OPENBLAS_NUM_THREADS="
                            + os.environ["OPENBLAS_NUM_THREADS"]), None, None
    if column == "numba-parallel":
        fns, first = numba_kernels()
        return fns, (f"{numba.get_num_threads()} "
                     f"({numba.threading_layer()} threading layer)"), None, \
            first
    if column == "taichi-cpu":
        fns, first = taichi_kernels()
        return fns, f"cpu_max_num_threads={THREADS}", None, first
    raise ValueError(column)


def compile_python_kernels():
    """Compiles HP_KERNELS; returns (per kernel the seconds kernel.compile()
    took: compiling for the CPU, for every target (the decorator's default),
    and loading the CPU code from hpvm's on-disk cache (what a second
    process does); the seconds the throw-away kernel's compiles took)."""
    # A cache of our own, so the first compile is never a hit on an entry
    # an earlier run left; "0" compiles without the cache.
    cache = tempfile.mkdtemp(prefix="hpvm-bench-cache-")
    os.environ["HPVM_CACHE_DIR"] = cache
    os.environ["HPVM_CACHE"] = "0"
    # The one-time set-up (LLVM, every backend) on a throw-away kernel.
    first = timed(hp_warmup.compile) + timed(hpvm.kernel(
        hp_warmup.py_func).compile)
    times = {}
    for name, k in HP_KERNELS.items():
        os.environ["HPVM_CACHE"] = "0"
        t = times[name] = {
            "cpu": timed(hpvm.kernel(k.py_func, targets=CPU).compile)}
        try:
            t["all targets"] = timed(hpvm.kernel(k.py_func).compile)
        except hpvm.CompileError as e:
            print(f"note: {name} does not compile for every target: {e}")
            t["all targets"] = None
        os.environ["HPVM_CACHE"] = "1"
        k.compile()  # the kernel the benchmark times; writes the entry
        hit = hpvm.kernel(k.py_func, targets=CPU)
        seconds = timed(hit.compile)
        t["cache hit"] = seconds if getattr(hit, "from_cache", False) \
            else None  # a build without the cache
    shutil.rmtree(cache, ignore_errors=True)
    return times, first


def hpvm_threads():
    return "; ".join(d["description"] for d in hpvm.devices())


def worker(columns, cfg):
    """Runs columns (all rows, the columns side by side per row) in this
    process; {column: {"cells", "threads", "compile_s"} or {"missing"}}."""
    out, fns = {}, {}
    for col in columns:
        try:
            fns[col], threads, compile_s, first = setup(col)
            out[col] = {"cells": {}, "threads": threads,
                        "compile_s": compile_s, "first_kernel_s": first}
        except ImportError:
            out[col] = {"missing": "n/a (not installed)"}
    if not fns:
        return out
    for prob in problems(cfg["sizes"], np.random.default_rng(1)):
        row = run_row({col: f[prob.name] for col, f in fns.items()}, prob, cfg)
        for col, cell in row.items():
            out[col]["cells"][prob.name] = cell
            print(f"  {prob.label:24} {col:15} "
                  f"{fmt_time(cell['median_s']):>9}  (first call "
                  f"{fmt_time(cell['first_call_s'])}, {cell['calls']} calls,"
                  f" others used {cell['others_cpu']:.0%} of the CPUs)",
                  flush=True)
    return out

# ---------------------------------------------------------------------------
# The parent: runs the workers one after the other, prints the tables.

COLUMNS = ["hpvm-python", "hpvm-C", "numpy", "numba-parallel", "taichi-cpu"]
# The processes. Both hpvm columns share one: the same arrays, the same
# runtime, so that their ratio does not depend on where each process's
# memory landed (sgemm's time varied 2x between identical processes).
WORKERS = {"hpvm": ["hpvm-python", "hpvm-C"], "numpy": ["numpy"],
           "numba": ["numba-parallel"], "taichi": ["taichi-cpu"]}


def package_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def hpvm_version():
    """hpvm's version, with the commit of the checkout it was built in."""
    where = os.path.dirname(os.path.abspath(hpvm.__file__))
    try:
        commit = subprocess.run(
            ["git", "-C", where, "describe", "--always", "--dirty"],
            capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return hpvm.__version__ + (f" (git {commit})" if commit else "")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or "unknown CPU"


def wait_idle(limit):
    """Waits up to limit s for a machine others leave idle (for 2 s);
    returns their share of it over the last 2 s."""
    end = time.perf_counter() + limit
    while True:
        busy = busy_seconds()
        time.sleep(2.0)
        share = (busy_seconds() - busy) / (2.0 * CORES)
        if share < 0.10 or time.perf_counter() > end:
            return share


def run_worker(name, opts):
    """Runs this script as worker name; its result, or {column: {"failed":
    its output's tail}}."""
    env = dict(os.environ)
    if name != "numpy":
        # Only numpy's row times BLAS; elsewhere the reference's f64 matmul
        # must not leave a BLAS thread pool beside the timed one.
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                    "MKL_NUM_THREADS"):
            env[var] = "1"
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", name,
               "--result", f.name] + (["--quick"] if opts.quick else []) \
            + (["--reps", str(opts.reps)] if opts.reps else [])
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("  ") or line.startswith("note:"):
                print(line, end="", flush=True)  # progress; not banners
        if proc.wait() != 0:
            return {col: {"failed": "".join(lines[-30:])}
                    for col in WORKERS[name]}
        return json.load(open(f.name))


def config(opts):
    if opts.quick:
        return {"sizes": {"saxpy": 1 << 22, "stencil": 1024, "sgemm": 250,
                          "pipeline": 1024},
                "reps": opts.reps or 5, "budget": 1.0, "window": 0.2,
                "idle_wait": 3.0}
    # sgemm: not 512, whose 2 KiB row stride makes the naive loop's walk
    # down a column of b conflict in the caches; its time then varied 2x
    # between identical processes, with the physical pages they got.
    return {"sizes": {"saxpy": 1 << 24, "stencil": 2048, "sgemm": 500,
                      "pipeline": 2048},
            "reps": opts.reps or 11, "budget": 3.0, "window": 1.0,
            "idle_wait": 10.0}


def fmt_time(s):
    if s is None:
        return "n/a"
    return f"{s * 1e3:.2f} ms" if s < 0.1 else \
        f"{s * 1e3:.0f} ms" if s < 10 else f"{s:.1f} s"


def print_tables(results, labels, cfg):
    print("\n## Median time per call (X / hpvm-python in parentheses; > 1: "
          "hpvm-python is faster)\n")
    heads = [c + (" (sgemm: BLAS a @ b)" if c == "numpy" else "")
             for c in COLUMNS] + ["others' CPU use (max)"]
    print("| kernel | " + " | ".join(heads) + " |")
    print("|---|" + "---:|" * len(heads))
    for name, label in labels.items():
        cells, others = [], 0.0
        base = results["hpvm-python"].get("cells", {}).get(name)
        for col in COLUMNS:
            r = results[col]
            if "missing" in r or "failed" in r:
                cells.append(r.get("missing") or "FAILED")
                continue
            c = r["cells"][name]
            others = max(others, c["others_cpu"])
            text = fmt_time(c["median_s"])
            if col != "hpvm-python" and base:
                text += f" ({c['median_s'] / base['median_s']:.2f}x)"
            cells.append(text)
        print(f"| {label} | " + " | ".join(cells) + f" | {others:.0%} |")

    print("\n## Compile / first-call time\n")
    hp, hc = results["hpvm-python"], results["hpvm-C"]
    if "compile_s" in hc and hc["compile_s"]:
        print("hpvm-C: `hpvm.compile_c` of the four C functions (cpu): "
              f"{fmt_time(hc['compile_s']['compile_c'])}.")
    print("hpvm-python: `kernel.compile()`, for the CPU (as timed above) and "
          "for all targets (cpu, nvptx, spirv), without hpvm's compile cache"
          " (HPVM_CACHE=0), and a hit in that cache (what a second process "
          "gets). Numba and Taichi: the first call (compile + one run; no "
          "cache). Every framework's one-time set-up was done on a throw-away"
          " kernel first; that kernel took: " + ", ".join(
              f"{col} {fmt_time(r['first_kernel_s'])}"
              for col, r in results.items()
              if r.get("first_kernel_s") is not None)
          + " (hpvm-python: its compile for the CPU and for all targets; "
          "Taichi: with ti.init).\n")
    keys = ["cpu", "all targets", "cache hit"]
    heads = ["hpvm-python compile (cpu)", "hpvm-python compile (all targets)",
             "hpvm-python from the disk cache", "numba first call",
             "taichi first call"]
    print("| kernel | " + " | ".join(heads) + " |")
    print("|---|" + "---:|" * len(heads))
    for name, label in labels.items():
        cells = []
        for key in keys:
            cells.append(fmt_time(hp["compile_s"][name][key])
                         if hp.get("compile_s") else "FAILED")
        for col in ("numba-parallel", "taichi-cpu"):
            r = results[col]
            cells.append(r.get("missing") or ("FAILED" if "failed" in r else
                         fmt_time(r["cells"][name]["first_call_s"])))
        print(f"| {label} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="small sizes, few calls: a smoke run")
    ap.add_argument("--json", metavar="FILE", help="also write JSON here")
    ap.add_argument("--reps", type=int, help="timed calls per cell (at least)")
    ap.add_argument("--idle-wait", type=float, metavar="S",
                    help="wait up to S s for an idle machine before each "
                         "process (default 10, 3 with --quick)")
    ap.add_argument("--worker", choices=WORKERS, help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    cfg = config(opts)
    if opts.idle_wait is not None:
        cfg["idle_wait"] = opts.idle_wait

    if opts.worker:
        with open(opts.result, "w") as f:
            json.dump(worker(WORKERS[opts.worker], cfg), f)
        return 0

    started = time.perf_counter()
    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "hpvm": hpvm_version(), "numba": package_version("numba"),
                "taichi": package_version("taichi")}
    print("# HPVM Python kernels vs hpvm-C, numpy, Numba, Taichi (CPU)\n")
    print(f"- {time.strftime('%Y-%m-%d %H:%M')}, {cpu_model()}, {CORES} "
          "cores")
    print("- versions: " + ", ".join(f"{k} {v or 'not installed'}"
                                     for k, v in versions.items()))
    print(f"- threads: {THREADS} for everybody (HPVM_NUM_THREADS, "
          "NUMBA_NUM_THREADS, Taichi's cpu_max_num_threads, "
          f"OPENBLAS_NUM_THREADS); HPVM_DEVICES={os.environ['HPVM_DEVICES']}")
    print(f"- per cell: a checked first call, a warm-up call, then the median "
          f"of at least {cfg['reps']} calls lasting {cfg['window']} s "
          f"(3 once past {cfg['budget']:.0f} s), again if others used > 10% of "
          "the CPUs meanwhile; a process per framework\n", flush=True)

    check_reference()
    labels = {p.name: p.label
              for p in problems(cfg["sizes"], np.random.default_rng(1))}
    results, waited = {}, []
    for name in WORKERS:
        share = wait_idle(cfg["idle_wait"])
        if share >= 0.10:
            waited.append(f"{name}: others used {share:.0%} of the CPUs when "
                          "it started")
        results.update(run_worker(name, opts))
        for col in WORKERS[name]:
            if "missing" in results[col]:
                print(f"  {col}: {results[col]['missing']}")
            if "failed" in results[col]:
                print(f"  {col} FAILED:\n{results[col]['failed']}")

    print("\nthreads as each worker saw them: " + "; ".join(
        f"{c}: {r['threads']}" for c, r in results.items() if "threads" in r))
    for line in waited:
        print(f"warning: {line}")
    print_tables(results, labels, cfg)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")

    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%dT%H:%M:%S"),
                       "argv": sys.argv, "cpu": cpu_model(), "cores": CORES,
                       "threads": THREADS, "versions": versions,
                       "config": cfg, "labels": labels, "results": results},
                      f, indent=2)
        print(f"wrote {opts.json}")
    return 1 if any("failed" in r for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
