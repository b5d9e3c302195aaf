"""Bad input is a Python exception with a clear message, never a crash."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hpvm
from kernels import SAXPY


@pytest.fixture(scope="module")
def saxpy():
    return hpvm.compile_c(SAXPY).saxpy


def test_syntax_errors_name_file_line_and_column():
    with pytest.raises(hpvm.CompileError) as e:
        hpvm.compile_c("void f(void) {\n  int x = ;\n}\n", name="broken.c")
    assert "broken.c:2:11: error: expected expression" in str(e.value)
    assert isinstance(e.value, hpvm.Error)


def test_pragma_errors_are_compile_errors():
    src = textwrap.dedent("""\
        void f(long n, float *y) {
        #pragma hpvm parallel for out(y[0:n]) frobnicate(y)
          for (long i = 0; i < n; ++i) y[i] = 0;
        }
        """)
    with pytest.raises(hpvm.CompileError, match=r"<string>:2:.*frobnicate"):
        hpvm.compile_c(src)


def test_a_failed_compile_does_not_poison_the_next_one():
    with pytest.raises(hpvm.CompileError):
        hpvm.compile_c("void f(void) { undeclared(); }")
    prog = hpvm.compile_c(SAXPY)
    y = np.zeros(4, np.float32)
    prog.saxpy(4, 1.0, np.ones(4, np.float32), y)
    assert (y == 1).all()


@pytest.mark.parametrize("targets, message", [
    (["gpu"], "unknown target 'gpu'"),
    ([], "name at least one"),
])
def test_bad_targets(targets, message):
    with pytest.raises(ValueError, match=message):
        hpvm.compile_c(SAXPY, targets=targets)


def test_source_must_be_text():
    with pytest.raises(TypeError, match="source must be a str"):
        hpvm.compile_c(b"void f(void) {}")
    with pytest.raises(TypeError, match="flags must be a list"):
        hpvm.compile_c(SAXPY, flags="-O2")


def test_wrong_dtype(saxpy):
    x = np.ones(8, np.float64)
    with pytest.raises(TypeError, match=r"argument 'x' of saxpy \(const float "
                       r"\*\): expected float32 elements, got a buffer of "
                       r"format 'd'"):
        saxpy(8, 1.0, x, np.ones(8, np.float32))


def test_read_only_array_for_a_written_pointer(saxpy):
    y = np.ones(8, np.float32)
    y.flags.writeable = False
    with pytest.raises(ValueError, match="argument 'y'.*read-only"):
        saxpy(8, 1.0, np.ones(8, np.float32), y)


def test_read_only_array_for_a_const_pointer_is_fine(saxpy):
    x = np.ones(8, np.float32)
    x.flags.writeable = False
    y = np.zeros(8, np.float32)
    saxpy(8, 2.0, x, y)
    assert (y == 2).all()


def test_non_contiguous_array(saxpy):
    x = np.ones(16, np.float32)[::2]
    with pytest.raises(ValueError, match="not C-contiguous"):
        saxpy(8, 1.0, x, np.ones(8, np.float32))


def test_not_an_array(saxpy):
    with pytest.raises(TypeError, match="expected an array.*got list"):
        saxpy(3, 1.0, [1.0, 2.0, 3.0], np.ones(3, np.float32))


@pytest.mark.parametrize("n, error, message", [
    (2.5, TypeError, "expected an integer, got float"),
    ("8", TypeError, "expected an integer, got str"),
    (True, TypeError, "expected an integer, got bool"),
    (2**63, OverflowError, "does not fit in 64 bits"),
])
def test_bad_scalars(saxpy, n, error, message):
    with pytest.raises(error, match=message):
        saxpy(n, 1.0, np.ones(8, np.float32), np.ones(8, np.float32))


def test_float_parameter_takes_no_string(saxpy):
    with pytest.raises(TypeError, match="argument 'a'.*expected a number"):
        saxpy(8, "2", np.ones(8, np.float32), np.ones(8, np.float32))


def test_argument_count_and_names(saxpy):
    x = y = np.ones(8, np.float32)
    with pytest.raises(TypeError, match="missing argument 'y'"):
        saxpy(8, 1.0, x)
    with pytest.raises(TypeError, match="takes 4 arguments, 5 were given"):
        saxpy(8, 1.0, x, y, y)
    with pytest.raises(TypeError, match="has no parameter 'z'"):
        saxpy(8, 1.0, x, y, z=y)
    with pytest.raises(TypeError, match="two values for 'n'"):
        saxpy(8, 1.0, x, y, n=8)


def test_small_integer_ranges():
    prog = hpvm.compile_c("#include <stdint.h>\n"
                          "int f(int8_t a, uint16_t b) { return a + b; }")
    assert prog.f(-128, 65535) == 65407
    with pytest.raises(OverflowError, match="argument 'a'.*128 does not fit "
                       "in 8 bits"):
        prog.f(128, 0)
    with pytest.raises(OverflowError, match="argument 'b'.*-1 does not fit"):
        prog.f(0, -1)


def test_unknown_function_and_uncallable_function():
    prog = hpvm.compile_c(SAXPY + "struct P { int x; };\n"
                          "int px(struct P p) { return p.x; }")
    with pytest.raises(AttributeError, match="no function 'saxpi'"):
        prog.saxpi
    with pytest.raises(AttributeError, match="px cannot be called from "
                       "Python: parameter 1 is a struct"):
        prog.px


def test_missing_device_is_a_launch_error_with_its_code():
    # Only Vulkan, and a program with no SPIR-V: no device can run it. A
    # fresh process, since the device set is chosen once per process.
    script = textwrap.dedent(f"""
        import numpy as np, hpvm
        prog = hpvm.compile_c({SAXPY!r}, targets=["cpu"])
        try:
            prog.saxpy(4, 1.0, np.ones(4, np.float32), np.ones(4, np.float32))
        except hpvm.LaunchError as e:
            print("code", e.code, e)
        """)
    env = {**__import__("os").environ, "HPVM_DEVICES": "vulkan"}
    out = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "code 4 no device can run node 'saxpy'" in out.stdout


def test_host_code_calls_of_the_runtime_link_and_report():
    # What generated host code calls of hpvm-rt besides launches: an array
    # reduction's private copies, and the check of an unsigned loop of more
    # than 2**63 - 1 instances, which is an error naming the node.
    prog = hpvm.compile_c(textwrap.dedent("""\
        void fill(unsigned long n, float *y) {
        #pragma hpvm parallel for out(y[0:n]) name(fill)
          for (unsigned long i = 0; i < n; i++) y[i] = 2;
        }
        void hist(int n, const int *v, int *h) {
        #pragma hpvm parallel for in(v[0:n]) reduction(+: h[0:4])
          for (int i = 0; i < n; i++) h[v[i] & 3] += 1;
        }
        """))
    y = np.zeros(8, np.float32)
    prog.fill(8, y)
    assert (y == 2).all()
    h = np.zeros(4, np.int32)
    prog.hist(100, np.arange(100, dtype=np.int32), h)
    assert list(h) == [25, 25, 25, 25]
    with pytest.raises(hpvm.Error, match=r"node 'fill': a loop of "
                       r"9223372036854775813 iterations"):
        prog.fill(2**63 + 5, y)
