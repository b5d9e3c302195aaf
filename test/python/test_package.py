"""The package itself: import, version, stubs, what compile_c returns."""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import hpvm
from kernels import SAXPY, TASKS


def test_version_is_a_release_number():
    assert re.fullmatch(r"\d+\.\d+\.\d+", hpvm.__version__)


def test_import_works_from_any_directory(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", "import hpvm; print(hpvm.__version__)"],
        cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == hpvm.__version__


def test_type_stubs_and_docstrings_ship_with_the_package():
    package = pathlib.Path(hpvm.__file__).parent
    assert (package / "py.typed").exists()
    stub = (package / "_hpvm.pyi").read_text()
    for name in ("def compile_c", "class CProgram", "class Function",
                 "class Graph", "def devices", "def stats_text"):
        assert name in stub
    for obj in (hpvm.compile_c, hpvm.load_c, hpvm.devices, hpvm.stats,
                hpvm.Program, hpvm.Function.__call__, hpvm.Graph.to_dot):
        assert obj.__doc__, obj


def test_program_lists_functions_graphs_and_signatures():
    prog = hpvm.compile_c(SAXPY + "static int hidden(int x) { return x; }\n"
                          "int main(int argc, char **argv) { return 0; }")
    assert list(prog.functions) == ["saxpy"]
    assert prog.saxpy.signature == (
        "void saxpy(int64_t n, float a, const float *x, float *y)")
    assert prog.saxpy.params == [("n", "int64_t"), ("a", "float"),
                                 ("x", "const float *"), ("y", "float *")]
    assert prog.uncallable == ["main: parameter 2 is a pointer to a pointer"]
    assert [g.name for g in prog.graphs] == ["saxpy"]
    assert "saxpy" in dir(prog)
    assert "saxpy" in repr(prog)


def test_graph_views_text_dot_and_params():
    prog = hpvm.compile_c(TASKS)
    g = prog.graph("graph")
    dot = g.to_dot()
    assert dot.startswith('digraph "graph"')
    for node in ("twice", "plus3", "sum"):
        assert node in dot
        assert node in str(g)
    params = {p["name"]: p for p in g.params}
    assert params["x"]["kind"] == "buffer" and params["x"]["access"] == "in"
    assert params["y"]["access"] == "out"
    assert params["n"] == {"name": "n", "kind": "value", "type": "i64"}
    assert 'graph internal "graph"' in prog._native.graph_text
    with pytest.raises(KeyError, match="no graph 'nope'.*graphs: graph"):
        prog.graph("nope")


def test_load_c_reads_a_file_and_its_includes(tmp_path):
    (tmp_path / "scale.h").write_text("#define SCALE 3\n")
    src = tmp_path / "scale.c"
    src.write_text('#include "scale.h"\n'
                   "void scale(long n, int *v) {\n"
                   "#pragma hpvm parallel for in(v[0:n]) out(v[0:n])\n"
                   "  for (long i = 0; i < n; ++i) v[i] *= SCALE;\n"
                   "}\n")
    prog = hpvm.load_c(src)
    v = np.arange(10, dtype=np.int32)
    prog.scale(10, v)
    assert v.tolist() == [3 * i for i in range(10)]


def test_flags_reach_clang():
    prog = hpvm.compile_c("int get(void) { return N * 2; }", flags=["-DN=21"])
    assert prog.get() == 42


def test_plain_c_without_regions_runs_too():
    prog = hpvm.compile_c("double mean(long n, const double *x) {"
                          " double s = 0; for (long i = 0; i < n; ++i)"
                          " s += x[i]; return n ? s / n : 0; }")
    assert prog.graphs == []
    assert prog.mean(4, np.array([1.0, 2.0, 3.0, 6.0])) == 3.0


def test_every_target_compiles_together():
    prog = hpvm.compile_c(SAXPY, targets="all")
    x = np.linspace(-1, 1, 333, dtype=np.float32)
    y = np.ones_like(x)
    prog.saxpy(len(x), 0.5, x, y)
    np.testing.assert_allclose(y, 0.5 * x + 1, rtol=1e-6)


def test_several_programs_live_and_die_in_one_process():
    progs = [hpvm.compile_c(SAXPY, flags=[f"-DUNUSED={i}"]) for i in range(5)]
    x = np.ones(64, np.float32)
    for i, prog in enumerate(progs):
        y = np.zeros(64, np.float32)
        prog.saxpy(64, float(i), x, y)
        assert (y == i).all()
    fn = progs[2].saxpy
    del progs
    # A function keeps its program alive.
    y = np.zeros(64, np.float32)
    fn(64, 7.0, x, y)
    assert (y == 7).all()
