"""hpvm-rt's statistics and trace as Python objects."""

import contextlib
import json
from typing import NamedTuple

from . import _hpvm


class NodeStat(NamedTuple):
    """One node on one device ("host" for internal nodes)."""
    path: str
    device: str
    launches: int
    instances: int
    seconds: float          # run time, without compiling or moving data
    bytes_in: int           # copied into the device's memory for it
    compile_seconds: float  # compiling or loading its code there


class BufferStat(NamedTuple):
    name: str  # "<graph>:<buffer>"
    to_devices: int
    to_host: int


class Statistics:
    """A snapshot of hpvm-rt's statistics (what HPVM_STATS=1 prints)."""

    def __init__(self):
        nodes, buffers = _hpvm.stats_rows()
        self.nodes = [NodeStat(**n) for n in nodes]
        self.buffers = [BufferStat(**b) for b in buffers]

    def of_graph(self, graph):
        """The rows of graph's nodes (and of the graph itself)."""
        return [n for n in self.nodes
                if n.path == graph or n.path.startswith(graph + "/")]

    def devices(self, graph):
        """{node path: {device names}} of the nodes of graph that ran."""
        ran = {}
        for n in self.of_graph(graph):
            if n.path != graph and n.launches:
                ran.setdefault(n.path, set()).add(n.device)
        return ran

    def __str__(self):
        return _hpvm.stats_text()


def statistics():
    """hpvm-rt's statistics so far, as a Statistics object."""
    return Statistics()


def reset_statistics():
    """Zeroes hpvm-rt's statistics."""
    _hpvm.stats_reset()


class Trace:
    """The events of a trace block (Chrome trace-event format, which
    chrome://tracing and ui.perfetto.dev open): dicts with name (node path
    or "upload"/"download"/"compile"), cat (device or "copy"/"compile"),
    ts and dur in microseconds, args."""

    def __init__(self):
        self.events = []
        self.json = ""

    def nodes(self):
        """The node executions, in start order."""
        return sorted((e for e in self.events if e.get("ph") == "X" and
                       e.get("cat") not in ("copy", "compile")),
                      key=lambda e: e["ts"])

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.json)


@contextlib.contextmanager
def trace():
    """Collects hpvm-rt's trace events of the block:

        with hpvm.trace() as t:
            kernel(...)
        t.events, t.save("run.json")
    """
    t = Trace()
    was_on, before = _hpvm.trace_start()
    try:
        yield t
    finally:
        t.json = _hpvm.trace_stop(was_on)
        events = json.loads(t.json).get("traceEvents", [])
        # Metadata events (thread names) first, then ours.
        t.events = [e for e in events if e.get("ph") == "M"] + \
            [e for e in events if e.get("ph") != "M"][before:]
