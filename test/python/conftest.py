"""Shared fixtures of the Python binding's tests.

CTest runs this folder with PYTHONPATH at the built package. HPVM_DEVICES
(set per CTest entry) decides which devices hpvm-rt has; tests that need a
particular kind skip, saying so, where it is missing.
"""
import os
import pathlib
import tempfile

import pytest

# Each test session compiles afresh (test_cache.py tests the cache in
# processes of its own), and leaves the user's cache alone.
if "HPVM_CACHE_DIR" not in os.environ:
    os.environ["HPVM_CACHE_DIR"] = tempfile.mkdtemp(prefix="hpvm-test-cache-")

hpvm = pytest.importorskip(
    "hpvm", reason="the hpvm package is not built (see CMake's output)")

REPO = pathlib.Path(__file__).resolve().parents[2]

#: Every target this build compiles for: cpu, nvptx, spirv.
ALL_TARGETS = ["cpu", "nvptx", "spirv"]


def device_kinds():
    """The kinds of device hpvm-rt found ("cpu", "vulkan", "opencl", ...)."""
    return {d["name"].split(":")[0] for d in hpvm.devices()}


@pytest.fixture(scope="session")
def kinds():
    return device_kinds()


@pytest.fixture(scope="session")
def test_device():
    """The device kind this run is about (HPVM_TEST_DEVICE), or None."""
    return os.environ.get("HPVM_TEST_DEVICE")


def require_kind(kind):
    if kind not in device_kinds():
        pytest.skip(f"no {kind} device here "
                    f"(found: {', '.join(sorted(device_kinds()))})")


def devices_that_ran(graph):
    """{node path: set of device names} for the nodes of graph, from
    hpvm-rt's statistics (rows "graph/node  device  launches ...")."""
    ran = {}
    for line in hpvm.stats().splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0].startswith(graph + "/") \
                and fields[2].isdigit() and int(fields[2]) > 0:
            ran.setdefault(fields[0], set()).add(fields[1])
    return ran


def rss_kib():
    """This process's resident memory, in KiB."""
    import resource
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


def assert_no_leak(step, runs=10_000, windows=3):
    """Calls step() runs times per window until a window leaves resident
    memory within 1 MiB of where it started: a leak of even 100 bytes a call
    grows every window by that much. A one-time allocation (a device's
    lazily made buffers when the scheduler first puts this launch there,
    as heft may at any point) grows one window only. Returns the calls
    made."""
    growth = []
    for _ in range(windows):
        before = rss_kib()
        for _ in range(runs):
            step()
        growth.append(rss_kib() - before)
        if growth[-1] < 1024:
            return runs * len(growth)
    raise AssertionError(f"resident memory grew by {growth} KiB over "
                         f"windows of {runs} calls")
