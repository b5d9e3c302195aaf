"""Per-launch device and policy choices, and asynchronous launches."""

import concurrent.futures
import contextlib
import os
import threading

from . import _hpvm


def _check(devices, scheduler):
    if devices is None:
        devices = []
    elif isinstance(devices, str):
        devices = [devices]
    devices = list(devices)
    for d in devices:
        if not isinstance(d, str) or not d:
            raise TypeError(f"devices: expected device kinds or names "
                            f"('cpu', 'vulkan', 'opencl:1'), got {d!r}")
    if scheduler is not None and not isinstance(scheduler, str):
        raise TypeError(f"scheduler: expected a policy name, got "
                        f"{scheduler!r}")
    return devices, scheduler or ""


@contextlib.contextmanager
def launch_options(devices=None, scheduler=None, strict=False):
    """Within the block, launches this thread starts (Python kernels and C
    functions alike) run their nodes only on ``devices`` (kinds such as
    "vulkan" or names such as "opencl:1"; None: any) under ``scheduler``
    ("hint", "round-robin", "heft", "dmda", "auto"; None: HPVM_SCHEDULER's). A node none of
    the devices can run, or a device that is not there, raises LaunchError
    with ``strict=True``; otherwise the node runs where it can and a
    DeviceFallbackWarning says so. Blocks nest; the inner one wins."""
    devices, scheduler = _check(devices, scheduler)
    previous = _hpvm.launch_options()
    _hpvm.set_launch_options(devices, scheduler, bool(strict))
    try:
        yield
    finally:
        if previous is None:
            _hpvm.clear_launch_options()
        else:
            _hpvm.set_launch_options(*previous)


_executor = None
_executor_lock = threading.Lock()


def executor():
    """The thread pool submit() runs launches on: launches release the GIL,
    so several run at once, the runtime placing their nodes."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=max(2, os.cpu_count() or 2),
                thread_name_prefix="hpvm-submit")
        return _executor


def submit(fn, *args, devices=None, scheduler=None, strict=False, **kwargs):
    """Runs fn(*args, **kwargs) (a kernel or a C function) on the submit
    pool under these launch options; returns a concurrent.futures.Future
    whose result() is fn's result or raises its exception. Arrays must not
    be touched until the future is done."""
    _check(devices, scheduler)
    from .runtime import current
    runtime = current()  # the worker launches where the caller would

    def run():
        with runtime or contextlib.nullcontext():
            with launch_options(devices, scheduler, strict):
                return fn(*args, **kwargs)

    return executor().submit(run)
