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
