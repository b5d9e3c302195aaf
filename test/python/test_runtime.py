"""hpvm-rt seen from Python: devices, stats, threads, the GIL, memory."""
import threading
import time

import numpy as np
import pytest

import hpvm
from conftest import assert_no_leak
from kernels import SAXPY

# A kernel slow enough to measure: each instance loops `work` times.
SPIN = r"""
void spin(long n, long work, float *y) {
#pragma hpvm parallel for name(spin) inout(y[0:n])
  for (long i = 0; i < n; ++i) {
    float v = y[i];
    for (long k = 0; k < work; ++k) v = v * 0.999f + 0.001f;
    y[i] = v;
  }
}
"""


def test_devices_have_names_and_descriptions():
    devices = hpvm.devices()
    assert devices, "hpvm-rt found no device at all"
    for d in devices:
        assert d["name"] and d["description"].startswith(d["name"])


def test_stats_name_the_nodes_that_ran():
    prog = hpvm.compile_c(SAXPY.replace("name(saxpy)", "name(stats_probe)"),
                          targets="all")
    prog.saxpy(16, 1.0, np.ones(16, np.float32), np.ones(16, np.float32))
    text = hpvm.stats()
    assert text.startswith("hpvm-rt stats:")
    assert "stats_probe" in text


def spin_while_counting(prog, y, steps):
    """Runs prog.spin on another thread and counts, on this one, the ticks
    (each needs the GIL) until it ends: (ticks, seconds)."""
    ticks = 0
    done = threading.Event()

    def run():
        try:
            prog.spin(len(y), steps, y)
        finally:
            done.set()

    t = threading.Thread(target=run)
    start = time.perf_counter()
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    return ticks, time.perf_counter() - start


def test_the_gil_is_released_while_a_kernel_runs():
    prog = hpvm.compile_c(SPIN, targets="all")
    y = np.ones(4096, np.float32)
    # A kernel long enough to tell on this device: a GPU runs the first
    # size in milliseconds, a CPU in about a second.
    steps = 200_000
    ticks, elapsed = spin_while_counting(prog, y, steps)
    while elapsed < 0.05 and steps < 200_000 * 4**5:
        steps *= 4
        ticks, elapsed = spin_while_counting(prog, y, steps)
    assert abs(y[0] - 1.0) < 1e-3  # it ran: 1 is the fixed point
    assert elapsed > 0.05, f"the kernel was too fast to tell ({steps} steps)"
    # With the GIL held for the whole call this loop could not have run.
    assert ticks >= 10, (ticks, elapsed)


def test_two_threads_run_graphs_at_once():
    prog_a = hpvm.compile_c(SAXPY, targets="all")
    prog_b = hpvm.compile_c(SAXPY.replace("name(saxpy)", "name(other)"),
                            targets="all")
    errors = []

    def work(prog, a):
        try:
            for _ in range(50):
                x = np.arange(10_000, dtype=np.float32)
                y = np.ones_like(x)
                prog.saxpy(len(x), a, x, y)
                np.testing.assert_allclose(y, a * x + 1, rtol=1e-6)
        except Exception as e:  # reported below, in the test's thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(p, a))
               for p, a in ((prog_a, 2.0), (prog_b, -3.0), (prog_a, 0.5),
                            (prog_b, 7.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_no_leak_over_ten_thousand_runs():
    prog = hpvm.compile_c(SAXPY, targets="all")
    x = np.ones(256, np.float32)
    y = np.zeros(256, np.float32)
    for _ in range(500):  # warm-up: caches, pools
        prog.saxpy(256, 1.0, x, y)
    calls = assert_no_leak(lambda: prog.saxpy(256, 1.0, x, y))
    assert y[0] == 500 + calls


def test_failed_calls_do_not_leak_argument_views():
    prog = hpvm.compile_c(SAXPY, targets="all")
    x = np.ones(8, np.float32)
    y = np.ones(8, np.float64)  # wrong type: fails after x was taken
    for _ in range(1000):
        with pytest.raises(TypeError):
            prog.saxpy(8, 1.0, x, y)
    # Every view of x was released: numpy allows resizing again.
    x.resize(16, refcheck=False)
    assert x.shape == (16,)
