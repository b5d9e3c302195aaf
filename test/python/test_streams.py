"""Streams from Python (Program.stream): a graph run once per frame, its
top-level nodes as pipeline stages, frames popped in order, each checked
against numpy. CTest also runs this file with every policy on cpu +
vulkan and cpu + opencl, where the stages of different frames may run on
different devices."""
import numpy as np
import pytest

import hpvm

SRC = r"""
void frame(const int *in, int *mid, int *out, long n, int k) {
#pragma hpvm task name(frame) in(in[0:n]) out(mid[0:n], out[0:n])
  {
#pragma hpvm parallel for name(twice) in(in[0:n]) out(mid[0:n])
    for (long i = 0; i < n; ++i)
      mid[i] = 2 * in[i] + k;
#pragma hpvm parallel for name(plus) in(mid[0:n]) out(out[0:n])
    for (long i = 0; i < n; ++i)
      out[i] = mid[i] * 3 + 1;
  }
}
"""


@pytest.fixture(scope="module")
def prog():
    return hpvm.compile_c(SRC, targets="all")


def frame_args(prog, ring, k):
    """The root's arguments for frame k in slot k % len(ring), by name."""
    inp, mid, out = ring[k % len(ring)]
    inp[:] = np.arange(len(inp), dtype=np.int32) * (k + 1)
    values = {"in": inp, "mid": mid, "out": out, "mid.bytes": mid.nbytes,
              "n": len(inp), "k": k}
    return [values[p["name"]] for p in prog.graph("frame").params]


def expected(n, k):
    return (2 * np.arange(n, dtype=np.int64) * (k + 1) + k) * 3 + 1


def make_ring(slots, n):
    return [tuple(np.zeros(n, np.int32) for _ in range(3))
            for _ in range(slots)]


def test_frames_come_out_in_order_and_right(prog):
    n, slots, frames = 1001, 3, 12
    ring = make_ring(slots, n)
    with prog.stream("frame", capacity=slots) as s:
        popped = 0
        for k in range(frames):
            if k >= slots:  # frees slot k % slots
                assert s.pop() == popped
                np.testing.assert_array_equal(ring[popped % slots][2],
                                              expected(n, popped))
                popped += 1
            s.push(*frame_args(prog, ring, k))
        s.end()
        for frame in s:
            assert frame == popped
            np.testing.assert_array_equal(ring[frame % slots][2],
                                          expected(n, frame))
            popped += 1
        assert popped == frames
        assert s.pop() is None  # ended, every frame popped


def test_a_bad_frame_is_refused_and_the_stream_goes_on(prog):
    n = 64
    ring = make_ring(2, n)
    with prog.stream("frame", capacity=2) as s:
        args = frame_args(prog, ring, 0)
        names = [p["name"] for p in prog.graph("frame").params]
        args[names.index("mid.bytes")] = 4 * (n + 1)  # more than mid holds
        with pytest.raises(ValueError, match="bytes"):
            s.push(*args)
        s.push(*frame_args(prog, ring, 1))
        assert s.pop() == 0  # the refused push was no frame
        np.testing.assert_array_equal(ring[1][2], expected(n, 1))
        s.end()
        assert s.pop() is None
        with pytest.raises(hpvm.LaunchError, match="ended"):
            s.push(*frame_args(prog, ring, 2))


def test_cancel_drops_what_has_not_started(prog):
    n, frames = 20000, 8
    ring = make_ring(frames, n)
    s = prog.stream("frame", capacity=frames)
    for k in range(frames):
        s.push(*frame_args(prog, ring, k))
    s.cancel()
    dropped = False
    for k in range(frames):
        try:
            assert s.pop() == k
            assert not dropped, f"frame {k} ran after a dropped one"
            np.testing.assert_array_equal(ring[k][2], expected(n, k))
        except hpvm.LaunchError as e:
            assert e.code == 9, e  # HPVM_ERR_CANCELLED
            dropped = True
    assert s.pop() is None
    s.close()
    with pytest.raises(ValueError, match="closed"):
        s.pop()


def test_a_stream_needs_a_graph_of_the_program(prog):
    with pytest.raises(KeyError):
        prog.stream("nope")
