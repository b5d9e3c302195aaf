"""Per-call device and policy choices (run(devices=..., scheduler=...,
strict=...), hpvm.launch_options) and asynchronous launches (submit),
for Python kernels and C functions, on the device kinds present."""
import warnings

import numpy as np
import pytest

import hpvm
from conftest import devices_that_ran, device_kinds
from hpvm import In, Out, f64
from kernels import TASKS

KINDS = sorted(device_kinds())
# The policy tests mix the CPU with one other kind.
OTHER_KINDS = sorted(device_kinds() - {"cpu"}) if "cpu" in KINDS else []


@hpvm.kernel
def two_steps_probe(x: In[f64], t: Out[f64], y: Out[f64]):
    for i in hpvm.parallel(len(x), name="first"):
        t[i] = x[i] * 2
    for i in hpvm.parallel(len(x), name="second"):
        y[i] = t[i] + 1


def probe(graph):
    """two_steps_probe as a kernel of its own whose graph is called graph,
    so that the statistics of a test are its own."""
    fn = two_steps_probe.py_func
    renamed = type(fn)(fn.__code__, fn.__globals__, graph)
    renamed.__annotations__ = fn.__annotations__
    return hpvm.kernel(renamed)


def run_probe(kernel_call, n=1000):
    x = np.arange(n, dtype=np.float64)
    t, y = np.empty(n), np.empty(n)
    kernel_call(x, t, y)
    np.testing.assert_array_equal(y, 2 * x + 1)


def kinds_used(graph):
    ran = devices_that_ran(graph)
    return {d.split(":")[0] for devs in ran.values() for d in devs}


@pytest.mark.parametrize("kind", KINDS)
def test_devices_per_call(kind):
    only_here = probe(f"only_{kind}")
    run_probe(lambda x, t, y: only_here.run(x, t, y, devices=[kind],
                                            strict=True))
    assert kinds_used(f"only_{kind}") == {kind}, hpvm.stats()


@pytest.mark.skipif(not OTHER_KINDS,
                    reason="needs the CPU and another device kind")
@pytest.mark.parametrize("policy", ["hint", "round-robin", "heft", "dmda",
                                    "auto"])
def test_scheduler_per_call_uses_the_allowed_devices(policy):
    kind = OTHER_KINDS[0]
    # A graph name of its own per policy, so its statistics are its own.
    policy_probe = probe("policy_probe_" + policy.replace("-", "_"))
    for _ in range(4):
        run_probe(lambda x, t, y: policy_probe.run(
            x, t, y, devices=["cpu", kind], scheduler=policy, strict=True))
    used = kinds_used("policy_probe_" + policy.replace("-", "_"))
    assert used <= {"cpu", kind}, hpvm.stats()
    if policy == "round-robin":
        assert used == {"cpu", kind}, hpvm.stats()


def test_missing_device_falls_back_with_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_probe(lambda x, t, y: two_steps_probe.run(x, t, y,
                                                      devices=["tpu"]))
    messages = [str(w.message) for w in caught
                if issubclass(w.category, hpvm.DeviceFallbackWarning)]
    assert messages[0].startswith("no device 'tpu' here"), messages
    assert any("'two_steps_probe/first' can run on none" in m
               for m in messages), messages


def test_missing_device_in_strict_mode_raises():
    with pytest.raises(hpvm.LaunchError, match="no device 'tpu'") as e:
        run_probe(lambda x, t, y: two_steps_probe.run(
            x, t, y, devices=["tpu"], strict=True))
    assert e.value.code == 4


def test_unknown_scheduler_raises():
    with pytest.raises(hpvm.LaunchError, match="unknown scheduler 'fast'"):
        run_probe(lambda x, t, y: two_steps_probe.run(x, t, y,
                                                      scheduler="fast"))


def test_bad_devices_argument():
    with pytest.raises(TypeError, match="device kinds or names"):
        two_steps_probe.run(np.ones(2), np.ones(2), np.ones(2), devices=[3])


def test_c_functions_under_launch_options():
    prog = hpvm.compile_c(TASKS.replace("name(graph)", "name(c_options)"),
                          targets="all")
    n = 500
    x = np.linspace(-1, 1, n)
    t1, t2, y = (np.empty(n) for _ in range(3))
    kind = KINDS[-1]
    with hpvm.launch_options(devices=[kind], strict=True):
        assert hpvm._hpvm.launch_options() == ([kind], "", True)
        prog.combine(n, x, t1, t2, y)
    assert hpvm._hpvm.launch_options() is None
    np.testing.assert_array_equal(y, (2 * x) * (x + 3))
    assert kinds_used("c_options") == {kind}, hpvm.stats()


def test_launch_options_nest_and_restore():
    with hpvm.launch_options(devices=["cpu"]):
        with hpvm.launch_options(scheduler="heft", strict=True):
            assert hpvm._hpvm.launch_options() == ([], "heft", True)
        assert hpvm._hpvm.launch_options() == (["cpu"], "", False)
    assert hpvm._hpvm.launch_options() is None


def test_submit_returns_futures():
    n = 20_000
    xs = [np.full(n, float(k)) for k in range(6)]
    outs = [(np.empty(n), np.empty(n)) for _ in xs]
    futures = [two_steps_probe.submit(x, t, y) for x, (t, y) in
               zip(xs, outs)]
    for k, f in enumerate(futures):
        assert f.result(timeout=60) is None
        np.testing.assert_array_equal(outs[k][1], np.full(n, 2.0 * k + 1))


def test_submit_reports_failures_through_the_future():
    f = two_steps_probe.submit(np.ones(3), np.ones(3), np.ones(3),
                               devices=["tpu"], strict=True)
    with pytest.raises(hpvm.LaunchError, match="no device 'tpu'"):
        f.result(timeout=60)


def test_decorator_launch_options():
    @hpvm.kernel(devices=["tpu"], strict=True)
    def pinned_nowhere(x: Out[f64]):
        for i in hpvm.parallel(len(x)):
            x[i] = 1.0

    with pytest.raises(hpvm.LaunchError, match="no device 'tpu'"):
        pinned_nowhere(np.zeros(4))
    x = np.zeros(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pinned_nowhere.run(x, devices=["cpu"])
    np.testing.assert_array_equal(x, np.ones(4))


def test_statistics_and_trace_are_python_objects():
    observed = probe("observed")

    kind = KINDS[-1]
    with hpvm.trace() as t:
        for _ in range(2):
            run_probe(lambda x, tt, y: observed.run(x, tt, y, devices=[kind],
                                                    strict=True))
    executions = [e for e in t.nodes() if e["name"].startswith("observed/")]
    assert {e["name"] for e in executions} == {"observed/first",
                                               "observed/second"}
    assert all(e["cat"].startswith(kind) for e in executions), executions
    assert all(e["dur"] >= 0 and e["args"]["instances"] == 1000
               for e in executions)
    assert '"traceEvents"' in t.json
    stats = hpvm.statistics()
    rows = [n for n in stats.of_graph("observed") if n.path != "observed"]
    assert {n.path for n in rows} == {"observed/first", "observed/second"}
    assert sum(n.launches for n in rows) == 4
    assert all(n.instances == 2000 and n.seconds >= 0 for n in rows)
    assert stats.devices("observed") == {
        "observed/first": {n.device for n in rows
                           if n.path == "observed/first"},
        "observed/second": {n.device for n in rows
                            if n.path == "observed/second"}}
    assert "observed/first" in str(stats)
    # A block collects its own events only.
    with hpvm.trace() as empty:
        pass
    assert empty.nodes() == []


def test_runtimes_of_ones_own():
    own_runtime = probe("own_runtime")

    kind = KINDS[-1]
    only_cpu = hpvm.Runtime(devices="cpu", threads=1)
    other = hpvm.Runtime(devices=[kind], scheduler="round-robin",
                         strict=True)
    assert [d["name"] for d in only_cpu.devices()] == ["cpu"]
    assert {d["name"].split(":")[0] for d in other.devices()} == {kind}
    with only_cpu:
        run_probe(lambda x, t, y: own_runtime(x, t, y))
        with other:  # blocks nest
            run_probe(lambda x, t, y: own_runtime(x, t, y))
            future = own_runtime.submit(np.arange(5.0), np.empty(5),
                                        np.empty(5))
            assert future.result(timeout=60) is None
        run_probe(lambda x, t, y: own_runtime(x, t, y))

    def launches(runtime):
        return {n.device.split(":")[0]: n.launches
                for n in runtime.statistics().of_graph("own_runtime")
                if n.path == "own_runtime/first"}

    assert launches(only_cpu) == {"cpu": 2}
    assert launches(other) == {kind: 2}  # the future ran there too
    assert not [n for n in hpvm.statistics().of_graph("own_runtime")
                if n.launches]  # the process's runtime saw none
    with pytest.raises(hpvm.Error, match="scheduler 'fastest'"):
        hpvm.Runtime(scheduler="fastest")
    with pytest.raises(ValueError, match="threads"):
        hpvm.Runtime(threads=0)


@pytest.mark.skipif("vulkan" not in KINDS, reason="no Vulkan device here")
@pytest.mark.parametrize("policy", ["hint", "round-robin", "heft", "dmda",
                                    "auto"])
def test_a_node_with_more_parameters_than_push_constants_runs_on_vulkan(
        policy):
    # 19 parameters: more than 128 bytes of push constants hold, so the
    # kernel reads them from a parameter block in device memory
    # (docs/backends.md); every policy may pick Vulkan or the CPU for it.
    import py_kernels as PK
    arrays = [np.zeros(100, np.float32) for _ in range(9)]
    for _ in range(3):
        PK.many_arrays.run(*arrays, devices=["vulkan", "cpu"],
                           scheduler=policy, strict=True)
    PK.many_arrays.run(*arrays, devices=["vulkan"], strict=True)
    for n, a in enumerate(arrays, 1):
        np.testing.assert_array_equal(a, np.full(100, 4.0 * n))
    # (A one-leaf graph's row is the graph's own: devices() leaves it out.)
    ran = [n.device for n in hpvm.statistics().of_graph("many_arrays")
           if n.launches]
    assert any(d.startswith("vulkan") for d in ran), hpvm.stats()
