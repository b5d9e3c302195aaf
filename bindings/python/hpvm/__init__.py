"""HPVM from Python: dataflow graphs whose nodes are compiled for the CPU,
Vulkan, OpenCL and CUDA, run through hpvm-rt, which picks a device for
every node and moves the data.

    import numpy as np, hpvm
    from hpvm import In, InOut, f32

    @hpvm.kernel
    def saxpy(a: f32, x: In[f32], y: InOut[f32]):
        for i in hpvm.parallel(len(x)):
            y[i] = a * x[i] + y[i]

    x = np.ones(1000, np.float32); y = np.zeros(1000, np.float32)
    saxpy(2.0, x, y)                          # wherever hpvm-rt decides
    saxpy.run(2.0, x, y, devices=["vulkan"])  # or where this call says

Kernels may also come from C (compile_c, load_c) and graphs may be built
node by node (GraphBuilder, leaf). docs/python.md is the guide.
"""

import os as _os

from ._hpvm import (
    CompileError,
    CProgram,
    Error,
    Function,
    Graph,
    LaunchError,
)
from . import _hpvm, _targets
from ._hpvm import DeviceFallbackWarning
from .frontend import KernelError
from .launch import launch_options, submit
from .program import Program, Stream
from .runtime import Runtime
from .observe import (
    BufferStat,
    NodeStat,
    Statistics,
    Trace,
    reset_statistics,
    statistics,
    trace,
)
from .graph import (
    CompiledGraph,
    GraphBuilder,
    GraphVerifyError,
    LeafFunction,
    leaf,
    load_ll,
)
from .kernel import Kernel, kernel
from .lang import (
    Array,
    In,
    InOut,
    Out,
    Scalar,
    atomic_add,
    atomic_and,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_sub,
    atomic_xor,
    bool_,
    instance_id,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    parallel,
    u8,
    u16,
    u32,
    u64,
)

__version__ = "0.1.0"

__all__ = [
    "Array",
    "BufferStat",
    "CompileError",
    "CompiledGraph",
    "DeviceFallbackWarning",
    "Error",
    "Function",
    "Graph",
    "GraphBuilder",
    "GraphVerifyError",
    "In",
    "InOut",
    "Kernel",
    "KernelError",
    "LaunchError",
    "LeafFunction",
    "NodeStat",
    "Out",
    "Program",
    "Runtime",
    "Scalar",
    "Stream",
    "Statistics",
    "Trace",
    "atomic_add",
    "atomic_and",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_sub",
    "atomic_xor",
    "bool_",
    "compile_c",
    "devices",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "instance_id",
    "kernel",
    "launch_options",
    "leaf",
    "load_c",
    "load_ll",
    "parallel",
    "reset_statistics",
    "statistics",
    "stats",
    "submit",
    "targets",
    "trace",
    "u8",
    "u16",
    "u32",
    "u64",
]

#: The targets kernels can be compiled for: "cpu" (x86 SIMD, all cores),
#: "nvptx" (CUDA GPUs) and "spirv" (Vulkan and OpenCL devices).
targets = _targets.NAMES
_target_mask = _targets.target_mask


def compile_c(source, *, flags=(), targets=("cpu",), name="<string>"):
    """Compiles C source with ``#pragma hpvm`` and loads it.

    flags: Clang's options (``-O3``, ``-DN=4``, ``-I...``, ``-std=...``);
    -O2 unless one is given.
    targets: what the leaves are compiled for: names from ``hpvm.targets``
    or "all"; the CPU alone by default, as with hpvm-clang.
    name: the file name diagnostics give the source.

    Raises CompileError with every diagnostic when it does not compile.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a str, not {type(source).__name__}")
    if isinstance(flags, str):
        raise TypeError("flags must be a list of options, not a str")
    flags = [str(f) for f in flags]
    if not any(f.startswith("-O") for f in flags):
        flags.insert(0, "-O2")
    native = _hpvm.compile_c(source, str(name), flags, _target_mask(targets),
                             _targets.cache_dir())
    return Program(native)


def load_c(path, *, flags=(), targets=("cpu",)):
    """compile_c of the file at path; its directory is on the include path."""
    path = _os.fspath(path)
    with open(path, encoding="utf-8") as f:
        source = f.read()
    directory = _os.path.dirname(_os.path.abspath(path))
    return compile_c(source, flags=["-I" + directory, *flags],
                     targets=targets, name=path)


def devices():
    """The devices hpvm-rt runs nodes on, as dicts with "name" and
    "description" (every device kind is looked for; HPVM_DEVICES limits
    them)."""
    return _hpvm.devices()


def stats():
    """hpvm-rt's statistics so far as text: per node the device, launches
    and time; bytes moved and copies avoided."""
    return _hpvm.stats_text()
