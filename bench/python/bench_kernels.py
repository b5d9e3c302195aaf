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
warm-up; ratios are X / hpvm-python (> 1: hpvm-python is faster).
bench/python/README.md describes it and has results.
"""

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
import warnings

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

try:
    import numba
    from numba import njit, prange
except ImportError:
    numba = None

try:
    import taichi as ti
except ImportError:
    ti = None

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

    warmup(np.zeros(16, np.float32))  # Numba's one-time set-up, untimed
    return {"saxpy": saxpy, "stencil": stencil, "sgemm": sgemm,
            "pipeline": pipeline}

# ---------------------------------------------------------------------------
# Taichi: the same loops; the outermost for of a kernel is its parallel one,
# and a kernel's top-level fors run one after the other (the pipeline).


def taichi_kernels():
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

    warmup(np.zeros(16, np.float32))  # Taichi's one-time set-up, untimed
    ti.sync()

    def synced(kernel):
        # Taichi may return before the kernel has finished.
        def call(*args):
            kernel(*args)
            ti.sync()
        return call

    return {name: synced(k) for name, k in [
        ("saxpy", saxpy), ("stencil", stencil), ("sgemm", sgemm),
        ("pipeline", pipeline)]}

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
# Timing


def timed(call):
    t = time.perf_counter()
    call()
    return time.perf_counter() - t


def median_time(call, reps, budget):
    """Median of reps calls; fewer (at least 3) once they took budget s."""
    times = []
    while len(times) < reps and (len(times) < 3 or sum(times) < budget):
        times.append(timed(call))
    return statistics.median(times), len(times)


def run_column(fn, prob, reps, budget):
    """(first-call seconds, median seconds, calls timed) for one cell; the
    first call's result is checked, one more call warms up."""
    args = prob.args()
    first = timed(lambda: fn(*args))
    prob.check(args)
    fn(*args)
    med, n = median_time(lambda: fn(*args), reps, budget)
    return first, med, n

# ---------------------------------------------------------------------------


COLUMNS = ["hpvm-python", "hpvm-C", "numpy", "numba-parallel", "taichi-cpu"]


def versions():
    v = {"python": platform.python_version(), "numpy": np.__version__,
         "hpvm": hpvm.__version__,
         "numba": numba.__version__ if numba else None,
         "taichi": ".".join(map(str, ti.__version__)) if ti else None}
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    v["cpu"] = cpu
    return v


def fmt_time(s):
    if s is None:
        return "n/a"
    return f"{s * 1e3:.1f} ms" if s < 10 else f"{s:.1f} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="small sizes, few calls: a smoke run")
    ap.add_argument("--json", metavar="FILE", help="also write JSON here")
    ap.add_argument("--reps", type=int, help="timed calls per cell")
    opts = ap.parse_args()

    if opts.quick:
        sizes = {"saxpy": 1 << 22, "stencil": 1024, "sgemm": 256,
                 "pipeline": 1024}
        reps, budget = opts.reps or 5, 1.0
    else:
        sizes = {"saxpy": 1 << 24, "stencil": 2048, "sgemm": 512,
                 "pipeline": 2048}
        reps, budget = opts.reps or 11, 4.0

    info = versions()
    hpvm_devices = hpvm.devices()
    missing = {}
    if numba is None:
        missing["numba-parallel"] = "n/a (not installed)"
    if ti is None:
        missing["taichi-cpu"] = "n/a (not installed)"

    print("# HPVM Python kernels vs hpvm-C, numpy, Numba, Taichi (CPU)\n")
    print(f"- {time.strftime('%Y-%m-%d %H:%M')}, {info['cpu']}, "
          f"{len(os.sched_getaffinity(0))} cores available")
    print(f"- versions: " + ", ".join(f"{k} {v or 'not installed'}"
                                      for k, v in info.items() if k != "cpu"))
    print(f"- threads: HPVM_NUM_THREADS={THREADS} (hpvm-python and hpvm-C; "
          f"hpvm-rt devices: "
          + "; ".join(d["description"] for d in hpvm_devices)
          + f", HPVM_DEVICES={os.environ['HPVM_DEVICES']})"
          + (f", numba {THREADS}" if numba else "")
          + (f", taichi cpu_max_num_threads={THREADS}" if ti else "")
          + f", BLAS OPENBLAS/OMP/MKL_NUM_THREADS="
            f"{os.environ['OPENBLAS_NUM_THREADS']}")
    print(f"- median of up to {reps} calls (at least 3, fewer once a cell "
          f"took {budget:.0f} s) after one checked call and one warm-up\n",
          flush=True)

    if numba:
        numba.set_num_threads(THREADS)

    # Compile times. hp_warmup first takes the one-time LLVM set-up.
    hp_warmup.compile()
    compile_s = {}
    for name, k in HP_KERNELS.items():
        compile_s[name] = {"hpvm-python": timed(k.compile)}
        # The same kernel for every target (cpu, nvptx, spirv), the
        # decorator's default; only for its compile time.
        try:
            compile_s[name]["hpvm-python all targets"] = timed(
                hpvm.kernel(k.py_func).compile)
        except hpvm.CompileError as e:
            print(f"note: {name} does not compile for every target: {e}")
            compile_s[name]["hpvm-python all targets"] = None
    t = time.perf_counter()
    prog = hpvm.compile_c(C_SOURCE, targets=CPU)
    compile_c_s = time.perf_counter() - t

    check_reference()

    impls = {"hpvm-python": HP_KERNELS, "hpvm-C": c_calls(prog),
             "numpy": NP_KERNELS}
    if numba:
        impls["numba-parallel"] = numba_kernels()
    if ti:
        impls["taichi-cpu"] = taichi_kernels()

    results = {}
    for prob in problems(sizes, np.random.default_rng(1)):
        row = {}
        for col in COLUMNS:
            if col not in impls:
                continue
            first, med, n = run_column(impls[col][prob.name], prob, reps,
                                       budget)
            row[col] = {"median_s": med, "first_call_s": first, "calls": n}
            print(f"  {prob.label:24} {col:15} {fmt_time(med):>10}  "
                  f"(first call {fmt_time(first)}, {n} calls)", flush=True)
        base = row["hpvm-python"]["median_s"]
        for col, cell in row.items():
            cell["ratio_vs_hpvm_python"] = cell["median_s"] / base
        results[prob.name] = {"label": prob.label, "cells": row}
        if numba:
            compile_s[prob.name]["numba first call"] = \
                row["numba-parallel"]["first_call_s"]
        if ti:
            compile_s[prob.name]["taichi first call"] = \
                row["taichi-cpu"]["first_call_s"]

    # The table: time (X / hpvm-python).
    print("\n## Median time per call (ratio X / hpvm-python; > 1: "
          "hpvm-python is faster)\n")
    print("| kernel | " + " | ".join(
        c + (" (BLAS a @ b for sgemm)" if c == "numpy" else "")
        for c in COLUMNS) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    for name, r in results.items():
        cells = []
        for col in COLUMNS:
            if col in missing:
                cells.append(missing[col])
                continue
            c = r["cells"][col]
            cells.append(fmt_time(c["median_s"]) if col == "hpvm-python" else
                         f"{fmt_time(c['median_s'])} "
                         f"({c['ratio_vs_hpvm_python']:.2f}x)")
        print(f"| {r['label']} | " + " | ".join(cells) + " |")

    print("\n## Compile / first-call time\n")
    print("hpvm-python: `kernel.compile()` for the CPU (what the timed kernel "
          "used) and for all targets (cpu, nvptx, spirv). Numba and Taichi: "
          "the first call (compile + one run), after each one's one-time "
          f"set-up. hpvm-C: `hpvm.compile_c` of all four C functions: "
          f"{fmt_time(compile_c_s)}.\n")
    ccols = ["hpvm-python", "hpvm-python all targets", "numba first call",
             "taichi first call"]
    print("| kernel | " + " | ".join(ccols) + " |")
    print("|---|" + "---:|" * len(ccols))
    for name, r in results.items():
        cells = []
        for col in ccols:
            if col == "numba first call" and not numba or \
                    col == "taichi first call" and not ti:
                cells.append("n/a (not installed)")
            else:
                cells.append(fmt_time(compile_s[name][col]))
        print(f"| {r['label']} | " + " | ".join(cells) + " |")

    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%dT%H:%M:%S"),
                       "argv": sys.argv, "versions": info, "threads": THREADS,
                       "hpvm_devices": hpvm_devices, "sizes": sizes,
                       "reps": reps, "missing": missing,
                       "results": results, "compile_s": compile_s,
                       "compile_c_s": compile_c_s}, f, indent=2)
        print(f"\nwrote {opts.json}")


if __name__ == "__main__":
    warnings.simplefilter("ignore", DeprecationWarning)
    main()
