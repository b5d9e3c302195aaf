"""The on-disk cache of compiled Python kernels and built graphs: a second
process loads what the first compiled, a damaged entry is compiled again,
HPVM_CACHE=0 turns it off."""
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

SCRIPT = r'''
import json, sys
import numpy as np
import hpvm
import py_kernels as K
from hpvm import In, Out, f32

@hpvm.leaf
def twice(x: In[f32], y: Out[f32]):
    i = hpvm.instance_id(0)
    y[i] = 2 * x[i]

img = np.random.default_rng(1).random((30, 41), dtype=np.float32)
b, e = np.empty_like(img), np.empty_like(img)
o = np.empty(img.shape, np.uint8)
K.image_pipeline(img, b, e, o, 0.1)
g = hpvm.GraphBuilder("cached_twice")
g.buffer("x", "in", f32).buffer("y", "out", f32).value("n")
g.leaf("twice", twice, dims=["n"])
run = g.compile()
x = np.arange(5, dtype=np.float32); y = np.empty_like(x)
run(x=x, y=y, n=5)
print(json.dumps({"kernel": K.image_pipeline.from_cache,
                  "graph": run.from_cache, "mask": int(o.sum()),
                  "y": y.tolist()}))
'''


def run(env_extra):
    # Kernels are read from their source file: the script is a file.
    script = pathlib.Path(env_extra["HPVM_CACHE_DIR"]).parent / "script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, **env_extra)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, str(script)], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_loads_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    env = {"HPVM_CACHE_DIR": str(cache)}
    first = run(env)
    assert (first["kernel"], first["graph"]) == (False, False)
    entries = list(cache.glob("*.hpvm-cache"))
    assert len(entries) == 2
    second = run(env)
    assert (second["kernel"], second["graph"]) == (True, True)
    assert second["mask"] == first["mask"] and second["y"] == first["y"]
    assert second["y"] == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_damaged_entries_are_compiled_again(tmp_path):
    cache = tmp_path / "cache"
    env = {"HPVM_CACHE_DIR": str(cache)}
    first = run(env)
    for entry in cache.glob("*.hpvm-cache"):
        data = entry.read_bytes()
        entry.write_bytes(data[:len(data) // 3])
    again = run(env)
    assert (again["kernel"], again["graph"]) == (False, False)
    assert again["mask"] == first["mask"] and again["y"] == first["y"]
    assert run(env)["kernel"] is True  # rewritten whole


def test_cache_can_be_turned_off(tmp_path):
    cache = tmp_path / "cache"
    env = {"HPVM_CACHE_DIR": str(cache), "HPVM_CACHE": "0"}
    assert run(env)["kernel"] is False
    assert run(env)["kernel"] is False
    assert not cache.exists()


C_SCRIPT = r'''
import json, sys
import numpy as np
import hpvm
prog = hpvm.load_c(sys.argv[1], targets="all")
x = np.arange(4, dtype=np.float32)
y = np.empty_like(x)
prog.scale(4, x, y)
print(json.dumps({"cached": prog.from_cache, "y": y.tolist(),
                  "signature": prog.scale.signature,
                  "uncallable": prog.uncallable}))
'''


def run_c(tmp_path, env_extra):
    script = tmp_path / "c_script.py"
    script.write_text(C_SCRIPT)
    env = dict(os.environ, **env_extra)
    out = subprocess.run([sys.executable, str(script),
                          str(tmp_path / "src" / "scale.c")], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_c_programs_are_cached_until_a_header_changes(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "factor.h").write_text("#define FACTOR 2.0f\n")
    (src / "scale.c").write_text(
        '#include "factor.h"\n'
        "void scale(long n, const float *x, float *y) {\n"
        "#pragma hpvm parallel for in(x[0:n]) out(y[0:n])\n"
        "  for (long i = 0; i < n; ++i) y[i] = FACTOR * x[i];\n"
        "}\n"
        "void uncallable(float **p) { (void)p; }\n")
    env = {"HPVM_CACHE_DIR": str(tmp_path / "cache")}
    first = run_c(tmp_path, env)
    second = run_c(tmp_path, env)
    assert (first["cached"], second["cached"]) == (False, True)
    assert first["y"] == second["y"] == [0.0, 2.0, 4.0, 6.0]
    # What the compile found in the debug information comes back too.
    assert second["signature"] == first["signature"] == \
        "void scale(int64_t n, const float *x, float *y)"
    assert second["uncallable"] == first["uncallable"] != []
    # A header the source includes changed: compiled again, and right.
    (src / "factor.h").write_text("#define FACTOR 3.0f\n")
    third = run_c(tmp_path, env)
    assert third["cached"] is False and third["y"] == [0.0, 3.0, 6.0, 9.0]
    assert run_c(tmp_path, env)["cached"] is True
