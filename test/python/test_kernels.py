"""Python kernels (@hpvm.kernel): the language's semantics against numpy
and against the same function run as plain Python (py_func)."""
import threading

import numpy as np
import pytest

import hpvm
import py_kernels as K
from hpvm import Out, f32
from kernels import rng


def test_saxpy_matches_numpy():
    x = rng().standard_normal(100_003).astype(np.float32)
    y = rng(2).standard_normal(100_003).astype(np.float32)
    ref = np.float32(1.5) * x + y
    K.saxpy(1.5, x, y)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("m, n, k", [(64, 48, 32), (1, 7, 3), (33, 65, 17)])
def test_sgemm_matches_numpy(m, n, k):
    a = rng().standard_normal((m, k)).astype(np.float32)
    b = rng(3).standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    K.sgemm(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_stencil_matches_numpy():
    src = rng().standard_normal((65, 130))
    dst = np.zeros_like(src)
    K.stencil(src, dst)
    ref = src.copy()
    ref[1:-1, 1:-1] = 0.25 * (src[:-2, 1:-1] + src[2:, 1:-1]
                              + src[1:-1, :-2] + src[1:-1, 2:])
    np.testing.assert_allclose(dst, ref, rtol=1e-12)


def image_reference(img, threshold):
    h, w = img.shape
    padded = np.pad(img.astype(np.float64), 1)
    ones = np.pad(np.ones((h, w)), 1)
    acc = sum(padded[1 + dr:1 + dr + h, 1 + dc:1 + dc + w]
              for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    count = sum(ones[1 + dr:1 + dr + h, 1 + dc:1 + dc + w]
                for dr in (-1, 0, 1) for dc in (-1, 0, 1))
    blurred = (acc / count).astype(np.float32)
    gx = np.zeros((h, w), np.float32)
    gy = np.zeros((h, w), np.float32)
    gx[:, 1:-1] = blurred[:, 2:] - blurred[:, :-2]
    gy[1:-1, :] = blurred[2:, :] - blurred[:-2, :]
    edges = np.sqrt(gx * gx + gy * gy)
    return blurred, edges, np.where(edges > threshold, 255, 0).astype(np.uint8)


def test_image_pipeline_three_nodes():
    img = rng().random((48, 61), dtype=np.float32)
    blurred, edges = np.empty_like(img), np.empty_like(img)
    out = np.empty(img.shape, np.uint8)
    K.image_pipeline(img, blurred, edges, out, 0.1)
    rb, re, ro = image_reference(img, np.float32(0.1))
    np.testing.assert_allclose(blurred, rb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(edges, re, rtol=1e-4, atol=1e-5)
    # Pixels right at the threshold may fall either way by rounding.
    close = np.abs(re - np.float32(0.1)) < 1e-5
    np.testing.assert_array_equal(out[~close], ro[~close])
    g = K.image_pipeline.graph
    assert g.name == "image_pipeline"
    dot = g.to_dot()
    for node in ("blur", "gradient", "threshold"):
        assert node in dot


def test_histogram_atomics():
    pixels = rng().integers(0, 256, 200_000, dtype=np.uint8)
    hist = np.zeros(256, np.uint32)
    K.histogram(pixels, hist)
    np.testing.assert_array_equal(hist, np.bincount(pixels, minlength=256))


def test_float_atomic_max():
    m = rng().standard_normal((300, 17)).astype(np.float32)
    best = np.full(17, -np.inf, np.float32)
    K.column_max(m, best)
    np.testing.assert_array_equal(best, m.max(axis=0))


def test_integer_division_is_pythons():
    a = np.array([7, -7, 7, -7, 0, 5, -(2**63), 9, -9, 123456789], np.int64)
    b = np.array([2, 2, -2, -2, 3, 0, -1, 0, -4, 1000], np.int64)
    q, r, s = (np.empty_like(a) for _ in range(3))
    K.integer_ops(a, b, q, r, s)
    with np.errstate(divide="ignore", over="ignore"):
        np.testing.assert_array_equal(q, a // b)  # numpy: x // 0 == 0
        np.testing.assert_array_equal(r, a % b)
    np.testing.assert_array_equal(s, (a << 3) ^ (b >> 1) | (a & 255))


def test_float_semantics_match_numpy():
    a = rng().uniform(-10, 10, 1000)
    b = rng(5).uniform(-3, 3, 1000)
    b[::7] = -b[::7]
    q, r, p = (np.empty_like(a) for _ in range(3))
    K.float_ops(a, b, q, r, p)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_allclose(r, a % b, rtol=1e-12, atol=1e-12)
    ref = np.abs(a) ** 0.5 + a ** 3 - np.minimum(np.minimum(a, b), 0) \
        + np.maximum(a, b)
    np.testing.assert_allclose(p, ref, rtol=1e-12)


def test_math_functions_f32():
    x = rng().uniform(-4, 4, 513).astype(np.float32)
    out = np.empty((8, len(x)), np.float32)
    K.math_f32(x, out)
    ref = np.empty_like(out)
    K.math_f32.py_func(x, ref)
    np.testing.assert_allclose(out, ref, rtol=2e-5, atol=2e-5)


def test_kernel_without_a_vulkan_artifact_runs_elsewhere():
    import os
    if os.environ.get("HPVM_DEVICES") == "vulkan":
        with pytest.raises(hpvm.LaunchError, match="no device can run"):
            K.hypotenuse(np.ones(3), np.ones(3), np.empty(3))
        return
    x, y = rng().standard_normal(100), rng(1).standard_normal(100)
    out = np.empty(100)
    K.hypotenuse(x, y, out)
    np.testing.assert_allclose(out, np.hypot(x, y), rtol=1e-15)


def test_control_flow_matches_plain_python():
    x = rng().integers(-50, 500, 400, dtype=np.int32)
    x[0], x[1] = 1, 27
    out, ref = np.empty_like(x), np.empty_like(x)
    K.control_flow(x, out)
    K.control_flow.py_func(x, ref)
    np.testing.assert_array_equal(out, ref)


def test_mixed_types_follow_the_documented_promotions():
    a = rng().integers(0, 256, 100, dtype=np.uint8)
    b = rng(1).integers(-300, 300, 100, dtype=np.int32)
    c = rng(2).standard_normal(100).astype(np.float32) * 100
    out = np.empty((6, 100))
    flags = np.empty(100, np.bool_)
    K.mixed_types(a, b, c, out, flags)
    np.testing.assert_array_equal(out[0], a.astype(np.int32) + b)
    np.testing.assert_array_equal(out[1], a / 2)
    np.testing.assert_allclose(out[2], (c * np.float32(2)
                                        + b.astype(np.float32)), rtol=1e-6)
    np.testing.assert_allclose(out[3], c.astype(np.float64) / 3, rtol=1e-15)
    np.testing.assert_array_equal(out[4], np.trunc(c))
    np.testing.assert_array_equal(
        out[5], np.where(b > c, b.astype(np.float32), c))
    np.testing.assert_array_equal(flags, ((a > 100) & (b < 0)) | ~(c < 0))


def test_scalars_computed_before_the_loop():
    x = np.ones(1000)
    K.scale_by(x, 1.5, 3)
    np.testing.assert_array_equal(x, np.full(1000, 27.0))
    K.scale_by(x, 1.0, 0)
    np.testing.assert_array_equal(x, np.full(1000, 27.0))


def test_every_dtype_wraps_as_numpy_does():
    n = 300
    arrays = [rng(k).integers(0, 100, n).astype(t) for k, t in enumerate(
        [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
         np.int64, np.uint64])]
    arrays += [rng(9).standard_normal(n).astype(np.float32),
               rng(10).standard_normal(n)]
    arrays[0][:3] = [127, -128, 50]
    arrays[1][:3] = [255, 0, 90]
    expected = [(a * a.dtype.type(3) + a.dtype.type(1)) for a in arrays]
    K.narrow_ints(*arrays[:4])
    K.wide_ints(*arrays[4:8])
    K.floats(*arrays[8:])
    for got, want in zip(arrays, expected):
        np.testing.assert_array_equal(got, want, err_msg=str(got.dtype))


def test_empty_arrays_run_no_instances():
    x = np.empty(0, np.float32)
    K.saxpy(2.0, x, x.copy())
    c = np.empty((0, 5), np.float32)
    K.sgemm(np.empty((0, 3), np.float32), np.empty((3, 5), np.float32), c)


def test_dlpack_objects_are_buffers():
    class OnlyDLPack:
        def __init__(self, a):
            self._a = a

        def __dlpack__(self, **kw):
            return self._a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self._a.__dlpack_device__()

    x = np.arange(10, dtype=np.float32)
    y = np.zeros(10, np.float32)
    K.saxpy(2.0, OnlyDLPack(x), OnlyDLPack(y))
    np.testing.assert_array_equal(y, 2 * x)  # written in place: zero-copy


def test_two_threads_run_kernels_at_once():
    errors = []

    def work(seed):
        try:
            for _ in range(20):
                a = rng(seed).standard_normal((20, 30)).astype(np.float32)
                b = rng(seed + 1).standard_normal((30, 10)).astype(np.float32)
                c = np.empty((20, 10), np.float32)
                K.sgemm(a, b, c)
                np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_kernel_object():
    assert "saxpy" in repr(K.saxpy)
    assert K.saxpy.__doc__ is None and K.stencil.__doc__.startswith("Jacobi")
    names = [name for name, _ in K.sgemm.signature]
    assert names == ["a", "b", "c"]
    assert "__hpvm_region_begin" in K.saxpy.ir
    params = {p["name"]: p for p in K.saxpy.graph.params}
    assert params["x"]["access"] == "in" and params["y"]["access"] == "inout"


def test_kernel_nodes_run_where_the_run_says(test_device):
    """With HPVM_DEVICES naming one kind, every node of a Python kernel runs
    there; with round-robin over cpu and another kind, on both."""
    import os

    from conftest import devices_that_ran, require_kind
    if test_device:
        require_kind(test_device)
    img = rng().random((40, 50), dtype=np.float32)
    blurred, edges = np.empty_like(img), np.empty_like(img)
    out = np.empty(img.shape, np.uint8)
    for _ in range(3):
        K.image_pipeline(img, blurred, edges, out, 0.1)
    rb, re, _ = image_reference(img, np.float32(0.1))
    np.testing.assert_allclose(edges, re, rtol=1e-4, atol=1e-5)
    ran = devices_that_ran("image_pipeline")
    assert set(ran) == {"image_pipeline/blur", "image_pipeline/gradient",
                        "image_pipeline/threshold"}, hpvm.stats()
    used = {d.split(":")[0] for devices in ran.values() for d in devices}
    kinds = os.environ.get("HPVM_DEVICES", "").split(",")
    if test_device and kinds == [test_device]:
        assert used == {test_device}, hpvm.stats()
    if os.environ.get("HPVM_SCHEDULER") == "round-robin" and test_device:
        assert used == {"cpu", test_device}, hpvm.stats()


def test_every_target_gets_code():
    """targets="all": every node of a Python kernel has CPU code, PTX and
    both SPIR-V flavours; a node Vulkan cannot express lacks only that."""
    for kernel in (K.saxpy, K.sgemm, K.image_pipeline, K.histogram):
        for node, forms in kernel.artifacts.items():
            assert set(forms) == {"cpu", "nvptx", "spirv", "opencl"}, node
            assert forms["nvptx"] > 0 and forms["spirv"] > 0, node
    assert set(K.image_pipeline.artifacts) == {
        "image_pipeline/blur", "image_pipeline/gradient",
        "image_pipeline/threshold"}
    assert set(K.hypotenuse.artifacts["hypotenuse"]) == {"cpu", "nvptx",
                                                         "opencl"}


def test_targets_choose_the_artifacts():
    @hpvm.kernel(targets=["cpu"])
    def cpu_only(x: Out[f32]):
        for i in hpvm.parallel(len(x)):
            x[i] = 1.0

    @hpvm.kernel(targets="spirv")
    def spirv_only(x: Out[f32]):
        for i in hpvm.parallel(len(x)):
            x[i] = 2.0

    assert set(cpu_only.artifacts["cpu_only"]) == {"cpu"}
    assert set(spirv_only.artifacts["spirv_only"]) == {"spirv", "opencl"}


def test_python_kernels_do_not_leak_over_ten_thousand_runs():
    from conftest import assert_no_leak
    x = np.ones(256, np.float32)
    y = np.zeros(256, np.float32)
    for _ in range(500):  # warm-up: caches, pools
        K.saxpy(1.0, x, y)
    calls = assert_no_leak(lambda: K.saxpy(1.0, x, y))
    assert y[0] == 500 + calls


def test_boundscheck_reports_the_line_and_skips_the_access():
    import inspect
    line = next(n for n, text in enumerate(
        inspect.getsource(K).splitlines(), 1) if "# the checked line" in text)
    x = np.arange(10, dtype=np.float32)
    y = np.full(10, -1.0, np.float32)
    K.checked_shift(x, y, 0)  # in bounds: no error, the plain result
    np.testing.assert_array_equal(y, x)
    for by, good in ((2, slice(0, 8)), (-3, slice(3, 10))):
        y[:] = -1.0
        with pytest.raises(IndexError,
                           match=f"checked_shift: an index was out of bounds "
                                 f"at .*py_kernels.py:{line} "):
            K.checked_shift(x, y, by)
        # In-bounds instances ran; the others read 0.
        np.testing.assert_array_equal(y[good], x[good.start + by:
                                                 good.stop + by])
        assert (np.delete(y, np.arange(10)[good]) == 0).all()


def test_boundscheck_checks_each_dimension():
    a = rng().standard_normal((3, 5)).astype(np.float32)
    t = np.empty((5, 3), np.float32)
    K.checked_transpose(a, t)
    np.testing.assert_array_equal(t, a.T)
    with pytest.raises(IndexError, match="checked_transpose"):
        K.checked_transpose(a, np.empty((3, 5), np.float32))  # wrong shape


def test_kernels_may_be_named_like_c_library_functions():
    import math

    from hpvm import In, f32, f64

    # Their host functions get names of their own: a kernel called asin
    # does not clash with libm's asin it calls, nor one called free with
    # the C library's.
    @hpvm.kernel
    def asin(x: In[f32], y: Out[f32]):
        for i in hpvm.parallel(len(x)):
            y[i] = math.asin(x[i])

    @hpvm.kernel
    def free(x: In[f64], y: Out[f64]):
        for i in hpvm.parallel(len(x)):
            y[i] = x[i] * 2

    x = np.linspace(-1, 1, 101).astype(np.float32)
    y = np.empty_like(x)
    asin(x, y)
    # (Vulkan's asin is only good to about 1e-3: GLSL.std.450 says no more.)
    np.testing.assert_allclose(y, np.arcsin(x), rtol=0, atol=1e-3)
    xd, yd = x.astype(np.float64), np.empty(101)
    free(xd, yd)
    np.testing.assert_array_equal(yd, 2 * xd)
    with pytest.raises(TypeError, match="argument 'x' of asin "):
        asin(xd, y)


def _tool(name):
    import os
    import shutil
    return shutil.which(name) or (
        os.path.exists(f"/usr/local/cuda/bin/{name}")
        and f"/usr/local/cuda/bin/{name}")


KERNELS_WITH_CODE = ["saxpy", "sgemm", "stencil", "image_pipeline",
                     "histogram", "column_max", "integer_ops", "float_ops",
                     "math_f32", "control_flow", "mixed_types", "hypotenuse",
                     "narrow_ints", "wide_ints", "many_arrays"]


@pytest.mark.parametrize("name", KERNELS_WITH_CODE)
def test_ptx_of_python_kernels_assembles_with_ptxas(name, tmp_path):
    import subprocess
    ptxas = _tool("ptxas")
    if not ptxas:
        pytest.skip("no ptxas here (CUDA toolkit not installed)")
    kernel = getattr(K, name)
    for node in kernel.artifacts:
        ptx = kernel.code(node, "nvptx")
        assert ptx and ptx.startswith(b"//"), node
        path = tmp_path / (node.replace("/", "_") + ".ptx")
        path.write_bytes(ptx)
        out = subprocess.run([ptxas, "-arch=sm_80", str(path), "-o",
                              str(tmp_path / "out.cubin")],
                             capture_output=True, text=True)
        assert out.returncode == 0, f"{node}: {out.stderr}"


@pytest.mark.parametrize("name", KERNELS_WITH_CODE)
def test_spirv_of_python_kernels_validates(name, tmp_path):
    import subprocess
    val = _tool("spirv-val")
    if not val:
        pytest.skip("no spirv-val here (spirv-tools not installed)")
    kernel = getattr(K, name)
    for node, forms in kernel.artifacts.items():
        for target, env in (("spirv", "vulkan1.2"), ("opencl", "opencl2.1")):
            if target not in forms:
                continue
            path = tmp_path / f"{node.replace('/', '_')}.{target}.spv"
            path.write_bytes(kernel.code(node, target))
            out = subprocess.run([val, "--target-env", env, str(path)],
                                 capture_output=True, text=True)
            assert out.returncode == 0, f"{node} ({target}): {out.stderr}"
