"""Graphs built in Python (hpvm.GraphBuilder, @hpvm.leaf) and graph-form
modules loaded from .ll files: structure, verification errors with rule
names, and runs against numpy on every device kind."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

import hpvm
from conftest import REPO, device_kinds, devices_that_ran
from hpvm import In, InOut, Out, f32, f64, i64

KINDS = sorted(device_kinds())


@hpvm.leaf
def scale(x: In[f32], y: Out[f32], a: f32):
    i = hpvm.instance_id(0)
    y[i] = a * x[i]


@hpvm.leaf
def shift(y: In[f32], z: Out[f32], b: f32):
    i = hpvm.instance_id(0)
    z[i] = y[i] + b


@hpvm.leaf
def transpose_cell(src: In[f64], dst: Out[f64], rows: i64, cols: i64):
    # A leaf of a replicated internal node: the row is the parent's id.
    r = hpvm.instance_id(0, 1)
    c = hpvm.instance_id(0)
    dst[c * rows + r] = src[r * cols + c]


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


def scale_shift(name):
    g = hpvm.GraphBuilder(name)
    g.buffer("x", "in", f32).buffer("tmp", "inout", f32)
    g.buffer("out", "out", f32)
    g.value("n").value("a", f32).value("b", f32)
    first = g.leaf("scale", scale, dims=["n"], y="tmp")
    second = g.leaf("shift", shift, dims=["n"], y="tmp", z="out")
    g.edge(first, second)
    return g


@pytest.mark.parametrize("kind", KINDS)
def test_two_leaf_pipeline_on_each_device(kind):
    name = f"scale_shift_{kind}"
    run = scale_shift(name).compile()
    n = 10_001
    x = np.linspace(-3, 3, n, dtype=np.float32)
    tmp, out = np.empty_like(x), np.empty_like(x)
    run.run(x=x, tmp=tmp, out=out, n=n, a=2.5, b=-1.0, devices=[kind],
            strict=True)
    np.testing.assert_allclose(out, np.float32(2.5) * x - 1, rtol=1e-6)
    ran = devices_that_ran(name)
    assert set(ran) == {f"{name}/scale", f"{name}/shift"}, hpvm.stats()
    assert {d.split(":")[0] for v in ran.values() for d in v} == {kind}


def test_positional_call_and_parameters():
    run = scale_shift("scale_shift_positional").compile()
    assert run.parameters == ["x", "tmp", "out", "n", "a", "b"]
    x = np.arange(8, dtype=np.float32)
    tmp, out = np.empty_like(x), np.empty_like(x)
    run(x, tmp, out, 8, 3.0, 0.5)
    np.testing.assert_array_equal(out, 3 * x + 0.5)
    with pytest.raises(TypeError, match="missing 'b'"):
        run(x, tmp, out, 8, 3.0)
    with pytest.raises(TypeError, match="no parameter 'c'"):
        run(x, tmp, out, 8, 3.0, 1.0, c=2)


def test_replicated_internal_node_with_parent_ids():
    g = hpvm.GraphBuilder("transpose")
    g.buffer("src", "in", f64).buffer("dst", "out", f64)
    g.value("rows").value("cols")
    rows = g.internal("rows")
    rows.buffer("src", "in", f64).buffer("dst", "out", f64)
    rows.value("cols").value("rows").replicate("rows")
    rows.leaf("cell", transpose_cell, dims=["cols"])
    run = g.compile()
    a = np.arange(35, dtype=np.float64).reshape(5, 7)
    out = np.empty((7, 5))
    run(src=a, dst=out, rows=5, cols=7)
    np.testing.assert_array_equal(out, a.T)


@hpvm.leaf
def smooth(src: In[f64], dst: InOut[f64], n: i64):
    # dst[i] for 1 <= i < n - 1 from three neighbours of src; the step
    # number (the parent's id) is added, so every step's order shows.
    i = hpvm.instance_id(0) + 1
    t = hpvm.instance_id(0, 1)
    dst[i] = (src[i - 1] + src[i] + src[i + 1]) / 4.0 + t


@pytest.mark.parametrize("kind", KINDS)
def test_time_steps_run_in_order(kind):
    name = f"steps_{kind}"
    g = hpvm.GraphBuilder(name)
    g.buffer("a", "inout", f64).buffer("b", "inout", f64)
    g.value("n").value("steps").value("inner")
    steps = g.internal("steps")
    steps.buffer("a", "inout", f64).buffer("b", "inout", f64)
    steps.value("n").value("inner").replicate("steps").in_order()
    ab = steps.leaf("ab", smooth, dims=["inner"], src="a", dst="b")
    ba = steps.leaf("ba", smooth, dims=["inner"], src="b", dst="a")
    steps.edge(ab, ba)
    run = g.compile()
    n, count = 300, 25
    a = np.cos(np.arange(n, dtype=np.float64))
    b = np.zeros(n)
    ra, rb = a.copy(), b.copy()
    run.run(a=a, b=b, n=n, steps=count, inner=n - 2, devices=[kind],
            strict=True)
    for t in range(count):
        rb[1:-1] = (ra[:-2] + ra[1:-1] + ra[2:]) / 4.0 + t
        ra[1:-1] = (rb[:-2] + rb[1:-1] + rb[2:]) / 4.0 + t
    np.testing.assert_allclose(a, ra, rtol=1e-12)
    np.testing.assert_allclose(b, rb, rtol=1e-12)
    assert "\n    sequential\n" in g.text()[0]
    # The loop runs on the host (the executor), its leaves on the device.
    ran = devices_that_ran(name)
    assert ran.get(f"{name}/steps") == {"host"}, hpvm.stats()
    for leaf in ("ab", "ba"):
        devices = {d.split(":")[0] for d in ran.get(f"{name}/steps/{leaf}", ())}
        assert devices == {kind}, hpvm.stats()


def test_in_order_needs_an_internal_node():
    g = hpvm.GraphBuilder("not_in_order")
    g.buffer("x", "in", f32).buffer("y", "out", f32).value("n").value("a", f32)
    leaf = g.leaf("scale", scale, dims=["n"])
    with pytest.raises(ValueError, match="cannot run in order"):
        leaf.in_order()


def test_value_edge_carries_a_leaf_result():
    g = hpvm.GraphBuilder("normalise")
    g.buffer("x", "in", f64).buffer("y", "out", f64).value("n")
    # Leaves with outputs run on the CPU: a GPU kernel cannot return one.
    s = g.leaf("sum", total).on("cpu")
    d = g.leaf("divide", divide, dims=["n"])
    g.value_edge(s, d, "by")
    g.edge(s, d)
    run = g.compile()
    x = np.arange(1, 101, dtype=np.float64)
    y = np.empty_like(x)
    run(x=x, y=y, n=100)
    np.testing.assert_allclose(y, x / x.sum(), rtol=1e-15)


def test_constant_bindings():
    g = hpvm.GraphBuilder("constants")
    g.buffer("x", "in", f32).buffer("y", "out", f32).value("n")
    g.leaf("scale", scale, dims=["n"], a=0.5)
    run = g.compile(targets=["cpu", "spirv"])
    x = np.arange(6, dtype=np.float32)
    y = np.empty_like(x)
    run(x=x, y=y, n=6)
    np.testing.assert_array_equal(y, x / 2)


def test_verify_errors_name_the_rule():
    g = hpvm.GraphBuilder("writes_input")
    g.buffer("x", "in", f32).value("n").value("a", f32)
    g.leaf("scale", scale, dims=["n"], y="x")
    with pytest.raises(hpvm.GraphVerifyError) as e:
        g.verify()
    assert e.value.rule == "write-to-input"
    assert "'scale'" in str(e.value)

    g = hpvm.GraphBuilder("cycle")
    g.buffer("x", "in", f32).buffer("y", "out", f32).value("n")
    g.value("a", f32)
    a, b = g.leaf("a", scale, dims=["n"]), g.leaf("b", scale, dims=["n"])
    g.edge(a, b).edge(b, a)
    with pytest.raises(hpvm.GraphVerifyError) as e:
        g.compile()
    assert [p[0] for p in e.value.problems] == ["edge-cycle"]

    g = hpvm.GraphBuilder("unbound")
    g.buffer("x", "in", f32).buffer("y", "out", f32).value("n")
    g.leaf("scale", scale, dims=["n"])
    with pytest.raises(hpvm.GraphVerifyError, match="'a'.*not bound") as e:
        g.verify()
    assert e.value.rule == "binding"
    assert isinstance(e.value, hpvm.CompileError)


def test_builder_misuse_raises_at_once():
    g = hpvm.GraphBuilder("misuse")
    g.buffer("x", "in", f32).value("n")
    with pytest.raises(ValueError, match="already has a parameter 'x'"):
        g.buffer("x", "out")
    with pytest.raises(ValueError, match="mode must be"):
        g.buffer("z", "readwrite")
    with pytest.raises(TypeError, match="@hpvm.leaf"):
        g.leaf("plain", lambda x: x)
    leaf = g.leaf("scale", scale, dims=["n"])
    with pytest.raises(ValueError, match="already has a child 'scale'"):
        g.leaf("scale", scale)
    with pytest.raises(ValueError, match="no parameter 'q'"):
        g.bind(leaf, "a", "q")
    with pytest.raises(ValueError, match="cannot have children"):
        leaf.leaf("inner", scale)
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        leaf.replicate(1, 2, 3, 4)
    with pytest.raises(ValueError, match="no output"):
        g.value_edge(leaf, leaf, "a")


def test_leaf_function_errors_are_kernel_errors():
    @hpvm.leaf
    def parallel_inside(x: Out[f32]):
        for i in hpvm.parallel(4):
            x[i] = 0.0

    g = hpvm.GraphBuilder("bad_leaf")
    g.buffer("x", "out", f32)
    with pytest.raises(hpvm.KernelError, match="no hpvm.parallel loops"):
        g.leaf("p", parallel_inside)


def test_dot_and_text():
    g = scale_shift("shown")
    dot = g.to_dot()
    assert 'digraph "shown"' in dot and "scale [n]" in dot and "->" in dot
    text = g.text()[0]
    assert text.startswith("hpvm-graphs 1\ngraph internal \"shown\"")
    assert "edge dep 0 1" in text


def extract(source, tmp_path):
    opt = os.environ.get("HPVM_OPT")
    if not opt or not os.path.exists(opt):
        pytest.skip("HPVM_OPT does not name hpvm-opt (CTest sets it)")
    out = tmp_path / "graph.ll"
    subprocess.run([opt, "--extract", str(source), "-S", "-o", str(out)],
                   check=True)
    return out


def test_load_graph_form_ll(tmp_path):
    path = extract(REPO / "test/lit/cpu/saxpy.ll", tmp_path)
    module = hpvm.load_ll(path)
    graph = module.graph("saxpy")
    names = [p["name"] for p in graph.params]
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    given = {"x": x, "y": y, "alpha": 2.0, "shift": 1, "n": n,
             "bytes": 4 * n}
    module.launch("saxpy", *[given[name] for name in names])
    np.testing.assert_array_equal(y, (2 * x + 1) * 2)
    given["y"] = np.ones(n // 2, np.float32)
    with pytest.raises(ValueError, match="uses 4000 bytes.*has 2000"):
        module.launch("saxpy", *[given[name] for name in names])
    with pytest.raises(KeyError, match="no graph 'nope'"):
        module.launch("nope")
