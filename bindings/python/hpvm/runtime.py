"""Runtimes of one's own: hpvm-rt set up from arguments instead of the
environment, several per process."""

import threading

from . import _hpvm
from . import observe

_state = threading.local()


def current():
    """The Runtime of the innermost `with` block on this thread, or None."""
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


class Runtime:
    """An hpvm-rt runtime with its own threads, devices, policy, statistics
    and trace, set up from these arguments alone (the environment's HPVM_*
    variables set up the process's default runtime only):

        rt = hpvm.Runtime(devices="cpu,vulkan", threads=2, scheduler="heft")
        with rt:                 # launches from this thread go to rt
            kernel(x, y)
        rt.statistics()

    devices: kinds as HPVM_DEVICES takes them (None: the CPU, and other kinds
    when a program needs them); strict: a named kind that is missing fails
    every launch; trace: a file the Chrome trace is written to on
    flush_trace(). Raises hpvm.Error if a setting means nothing. Blocks
    nest; a runtime must outlive the launches made on it.
    """

    def __init__(self, devices=None, threads=None, scheduler="auto",
                 strict=False, trace=None):
        if isinstance(devices, (list, tuple)):
            devices = ",".join(devices)
        if threads is not None and (not isinstance(threads, int)
                                    or not 1 <= threads <= 4096):
            raise ValueError(f"threads: a count from 1 to 4096, not "
                             f"{threads!r}")
        self._native = _hpvm.Runtime(devices or "", threads or 0,
                                     scheduler, bool(strict), trace or "")
        if self._native.config_error:
            raise _hpvm.Error(self._native.config_error)

    def __enter__(self):
        stack = getattr(_state, "stack", None)
        if stack is None:
            stack = _state.stack = []
        stack.append(self)
        _hpvm.set_current_runtime(self._native)
        return self

    def __exit__(self, *exc):
        stack = _state.stack
        stack.pop()
        _hpvm.set_current_runtime(stack[-1]._native if stack else None)
        return False

    @property
    def notes(self):
        """What device discovery reported (kinds skipped, and why)."""
        return list(self._native.notes)

    def devices(self):
        with self:
            return _hpvm.devices()

    def statistics(self):
        with self:
            return observe.Statistics()

    def stats(self):
        with self:
            return _hpvm.stats_text()

    def __repr__(self):
        return f"<hpvm.Runtime devices={[d['name'] for d in self.devices()]}>"
