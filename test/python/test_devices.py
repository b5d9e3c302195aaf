"""C kernels against numpy on every device: CTest runs this file once per
device kind (HPVM_DEVICES=cpu, vulkan, opencl) and once with all of them,
where the scheduler mixes devices inside one graph."""
import os

import numpy as np
import pytest

import hpvm
from conftest import REPO, devices_that_ran, require_kind
from kernels import HISTOGRAM, REDUCE, SAXPY, SGEMM, TASKS, rng


@pytest.fixture(autouse=True)
def device_of_this_run(test_device):
    if test_device:
        require_kind(test_device)


def compile_for_all(source, **kw):
    # SPIR-V for Vulkan and OpenCL, the CPU for the rest; PTX where a CUDA
    # device could take it.
    return hpvm.compile_c(source, targets="all", **kw)


def test_saxpy():
    prog = compile_for_all(SAXPY)
    x = rng().standard_normal(100_003).astype(np.float32)
    y = rng(2).standard_normal(100_003).astype(np.float32)
    ref = np.float32(1.5) * x + y
    prog.saxpy(len(x), 1.5, x, y)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("m, n, k", [(64, 48, 32), (1, 7, 3), (33, 65, 17)])
def test_sgemm(m, n, k):
    prog = compile_for_all(SGEMM)
    a = rng().standard_normal((m, k)).astype(np.float32)
    b = rng(3).standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    prog.sgemm(m, n, k, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_three_node_graph():
    prog = compile_for_all(TASKS)
    n = 10_000
    x = np.linspace(-5, 5, n)
    t1, t2, y = (np.empty(n) for _ in range(3))
    prog.combine(n, x, t1, t2, y)
    np.testing.assert_array_equal(y, (2 * x) * (x + 3))


def test_nodes_run_where_the_run_says(test_device):
    prog = compile_for_all(TASKS.replace("name(graph)", "name(where_probe)"))
    n = 1000
    x = np.arange(n, dtype=np.float64)
    t1, t2, y = (np.empty(n) for _ in range(3))
    for _ in range(4):
        prog.combine(n, x, t1, t2, y)
        np.testing.assert_array_equal(y, (2 * x) * (x + 3))
    ran = devices_that_ran("where_probe")
    assert set(ran) == {"where_probe/twice", "where_probe/plus3",
                        "where_probe/sum"}, hpvm.stats()
    used = {d.split(":")[0] for devices in ran.values() for d in devices}
    kinds = os.environ.get("HPVM_DEVICES", "").split(",")
    if test_device and kinds == [test_device]:
        assert used == {test_device}, hpvm.stats()
    if os.environ.get("HPVM_SCHEDULER") == "round-robin" and test_device:
        # Round-robin hands the leaves to every device in turn.
        assert used == {"cpu", test_device}, hpvm.stats()


def test_reduction_result_comes_back():
    prog = compile_for_all(REDUCE)
    v = rng().integers(-1000, 1000, 54_321, dtype=np.int32)
    assert prog.total(len(v), v) == int(v.sum(dtype=np.int64))


def test_atomics_histogram():
    prog = compile_for_all(HISTOGRAM)
    v = rng().integers(0, 256, 200_000, dtype=np.uint8)
    counts = np.zeros(256, np.int32)
    prog.histogram(len(v), v, counts)
    np.testing.assert_array_equal(counts, np.bincount(v, minlength=256))


def test_image_pipeline_example():
    prog = hpvm.load_c(REPO / "examples/image-pipeline/pipeline.c",
                       targets="all")
    h, w = 61, 83
    img = rng().random((h, w), dtype=np.float32)
    blurred = np.zeros_like(img)
    grad = np.zeros_like(img)
    mask = np.zeros((h, w), np.uint8)
    prog.pipeline(img, blurred, grad, mask, h, w, 0.25)

    ref_blur = np.zeros_like(img)
    ref_blur[1:-1, 1:-1] = sum(
        img[1 + dy:h - 1 + dy, 1 + dx:w - 1 + dx]
        for dy in (-1, 0, 1) for dx in (-1, 0, 1)) * np.float32(1 / 9)
    np.testing.assert_allclose(blurred, ref_blur, rtol=1e-5, atol=1e-6)
    ref_grad = np.zeros_like(img)
    ref_grad[1:-1, 1:-1] = (
        np.abs(blurred[1:-1, 2:] - blurred[1:-1, :-2]) +
        np.abs(blurred[2:, 1:-1] - blurred[:-2, 1:-1]))
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(mask, (grad > 0.25).astype(np.uint8))


@pytest.mark.parametrize("dtype, ctype", [
    (np.float64, "double"), (np.int32, "int"), (np.int64, "long"),
    (np.uint8, "unsigned char"), (np.int16, "short"), (np.uint32, "unsigned"),
])
def test_element_types(dtype, ctype):
    prog = compile_for_all(f"""
        void bump({ctype} *v, long n, {ctype} by) {{
        #pragma hpvm parallel for inout(v[0:n])
          for (long i = 0; i < n; ++i) v[i] = v[i] + by;
        }}""")
    v = np.arange(1000).astype(dtype)
    prog.bump(v, len(v), 3)
    np.testing.assert_array_equal(v, (np.arange(1000) + 3).astype(dtype))


def test_data_region_keeps_buffers_on_the_device():
    prog = compile_for_all(r"""
        void smooth(long n, long steps, float *a, float *b) {
        #pragma hpvm data inout(a[0:n], b[0:n])
          {
            for (long s = 0; s < steps; ++s) {
        #pragma hpvm parallel for in(a[0:n]) out(b[0:n])
              for (long i = 0; i < n; ++i)
                b[i] = 0.5f * (a[i] + a[i == n - 1 ? i : i + 1]);
        #pragma hpvm parallel for in(b[0:n]) out(a[0:n])
              for (long i = 0; i < n; ++i) a[i] = b[i];
            }
          }
        }""")
    a = rng().random(4096, dtype=np.float32)
    ref = a.copy()
    for _ in range(5):
        ref = np.float32(0.5) * (ref + np.append(ref[1:], ref[-1]))
    b = np.zeros_like(a)
    prog.smooth(len(a), 5, a, b)
    np.testing.assert_allclose(a, ref, rtol=1e-6)
    np.testing.assert_allclose(b, ref, rtol=1e-6)
