"""Bad Python kernels and bad arguments: clear exceptions, never a crash."""
import pathlib

import numpy as np
import pytest

import hpvm
import bad_kernels
import py_kernels as K

BAD = bad_kernels.bad_lines()


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_kernel_names_file_line_and_construct(name):
    line, construct = BAD[name]
    kernel = bad_kernels.KERNELS[name]
    with pytest.raises(hpvm.KernelError) as info:
        kernel.compile()
    e = info.value
    assert pathlib.Path(e.filename).name == "bad_kernels.py"
    assert e.lineno == line, str(e)
    assert f"bad_kernels.py:{line}:" in str(e)
    if construct:
        assert e.construct == construct, str(e)
    assert isinstance(e, hpvm.CompileError)


def test_kernel_error_is_raised_again_on_every_call():
    for _ in range(2):
        with pytest.raises(hpvm.KernelError):
            bad_kernels.calls_print(np.zeros(3, np.float32))


def test_wrong_dtype():
    x = np.zeros(10, np.float64)
    with pytest.raises(TypeError, match="argument 'x' of saxpy.*float"):
        K.saxpy(1.0, x, np.zeros(10, np.float32))


def test_wrong_number_of_dimensions():
    with pytest.raises(ValueError, match="argument 'a' of sgemm.*2-D.*1-D"):
        K.sgemm(np.zeros(4, np.float32), np.zeros((2, 2), np.float32),
                np.zeros((2, 2), np.float32))


def test_not_an_array():
    with pytest.raises(TypeError, match="argument 'x' of saxpy.*list"):
        K.saxpy(1.0, [1.0, 2.0], np.zeros(2, np.float32))


def test_read_only_output():
    y = np.zeros(4, np.float32)
    y.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        K.saxpy(1.0, np.zeros(4, np.float32), y)


def test_non_contiguous_array():
    x = np.zeros((4, 4), np.float32)[:, 0]
    with pytest.raises(ValueError, match="contiguous"):
        K.saxpy(1.0, x, np.zeros(4, np.float32))


def test_bad_scalar_and_missing_argument():
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="expected a number"):
        K.saxpy("two", x, x.copy())
    with pytest.raises(TypeError, match="saxpy\\(\\).*missing"):
        K.saxpy(1.0, x)
    with pytest.raises(TypeError, match="saxpy\\(\\).*argument"):
        K.saxpy(1.0, x, x.copy(), 5)


def test_bad_decorator_use():
    with pytest.raises(TypeError, match="decorates functions"):
        hpvm.kernel(42)
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        hpvm.kernel(targets=["tpu"])(lambda: None)


def test_bad_annotations():
    with pytest.raises(TypeError, match="not a scalar type"):
        hpvm.In["float32x"]
    with pytest.raises(TypeError, match="1 to 3 dimensions"):
        hpvm.Out[hpvm.f32, 4]


def test_plain_python_runs_the_same_kernel():
    x = np.arange(5, dtype=np.float32)
    y = np.ones(5, np.float32)
    K.saxpy.py_func(2.0, x, y)
    np.testing.assert_array_equal(y, 2 * x + 1)
