"""``@hpvm.kernel``: Python functions compiled for every target by the
kernel frontend (frontend.py) and called with arrays."""

import functools
import inspect
import threading

import numpy as np

from . import _hpvm
from . import frontend
from . import lang as L
from . import launch
from ._targets import cache_dir, target_mask


def _as_buffer(value):
    """value itself if it has the buffer protocol, a zero-copy numpy view of
    a DLPack object (CPU memory), or None."""
    try:
        memoryview(value).release()
        return value
    except TypeError:
        pass
    if hasattr(value, "__dlpack__"):
        try:
            return np.from_dlpack(value)
        except (TypeError, RuntimeError, BufferError) as e:
            raise TypeError(f"cannot use this DLPack object's memory: {e}") \
                from None
    return None


class Kernel:
    """A Python function compiled as an HPVM dataflow graph (one node per
    top-level ``hpvm.parallel`` loop) for the CPU, Vulkan, OpenCL and CUDA.

    Calling it compiles it the first time (``compile()`` does so ahead),
    then runs it: arrays are passed by reference (zero-copy on the CPU),
    hpvm-rt picks a device for every node and moves the data. The GIL is
    released while it runs. ``py_func`` is the undecorated function, which
    runs sequentially in plain Python.
    """

    def __init__(self, fn, targets, devices=None, scheduler=None,
                 strict=False, boundscheck=False):
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self._boundscheck = bool(boundscheck)
        self._mask = target_mask(targets)
        launch._check(devices, scheduler)
        self._options = (devices, scheduler, strict)
        self._lock = threading.Lock()
        self._compiled = None

    def compile(self):
        """Compiles the kernel now; raises KernelError or CompileError."""
        with self._lock:
            if self._compiled is None:
                name = self.py_func.__name__
                ir, signature, params = frontend.translate(
                    self.py_func, name, self._boundscheck)
                where = f"{inspect.getsourcefile(self.py_func)}:{name}"
                symbol = frontend.host_symbol(name)
                native = _hpvm.compile_ir(ir, where, self._mask,
                                          [(name, symbol, params)],
                                          cache_dir())
                self._compiled = (ir, signature, native,
                                  native.functions[name],
                                  inspect.signature(self.py_func))
        return self

    @property
    def from_cache(self):
        """Whether the compiled code came from the on-disk cache."""
        return self.compile()._compiled[2].from_cache

    @property
    def artifacts(self):
        """{node path: {target: code bytes}} of the compiled forms: "cpu",
        "nvptx" (PTX text), "spirv" (Vulkan SPIR-V), "opencl" (OpenCL
        SPIR-V). A node a target cannot express has no entry for it."""
        found = {}
        for node, target, size in self.compile()._compiled[2].artifacts:
            found.setdefault(node, {})[target] = size
        return found

    def code(self, node, target):
        """A node's PTX text (target "nvptx") or SPIR-V module ("spirv",
        "opencl") as bytes; None if it has none for that target."""
        return self.compile()._compiled[2].artifact_code(node, target)

    @property
    def ir(self):
        """The marker-form LLVM IR the frontend made of the function."""
        return self.compile()._compiled[0]

    @property
    def graph(self):
        """The kernel's dataflow graph (hpvm.Graph: to_dot(), params...)."""
        return self.compile()._compiled[2].graphs[0]

    @property
    def signature(self):
        """[(parameter, hpvm.Scalar or hpvm.Array)]."""
        return list(self.compile()._compiled[1])

    def __call__(self, *args, **kwargs):
        """Runs the kernel with the decorator's launch options, if any
        (otherwise the enclosing hpvm.launch_options block's)."""
        if self._options != (None, None, False):
            with launch.launch_options(*self._options):
                return self._run(args, kwargs)
        return self._run(args, kwargs)

    def run(self, *args, devices=None, scheduler=None, strict=False,
            **kwargs):
        """Runs the kernel on these devices under this policy (see
        hpvm.launch_options); the kernel's own parameters by position or
        name."""
        with launch.launch_options(devices, scheduler, strict):
            return self._run(args, kwargs)

    def submit(self, *args, devices=None, scheduler=None, strict=False,
               **kwargs):
        """Starts the kernel and returns a concurrent.futures.Future (see
        hpvm.submit); the arrays are the kernel's until it is done."""
        self.compile()  # compile errors raise here, not in the future
        if (devices, scheduler, strict) == (None, None, False):
            devices, scheduler, strict = self._options
        return launch.submit(self._run, args, kwargs, devices=devices,
                             scheduler=scheduler, strict=strict)

    def _run(self, args, kwargs):
        compiled = self._compiled or self.compile()._compiled
        _, signature, _, function, py_signature = compiled
        try:
            bound = py_signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        flat = []
        for (name, spec), value in zip(signature, bound.args):
            if not isinstance(spec, L.Array):
                flat.append(value)
                continue
            array = _as_buffer(value)
            if array is None:
                raise TypeError(f"argument '{name}' of {self.__name__} "
                                f"({spec!r}): expected an array (an object "
                                "with the buffer protocol or __dlpack__), "
                                f"got {type(value).__name__}")
            shape = memoryview(array).shape
            if len(shape) != spec.ndim:
                raise ValueError(f"argument '{name}' of {self.__name__} "
                                 f"({spec!r}): expected a {spec.ndim}-D "
                                 f"array, got {len(shape)}-D")
            flat.append(array)
            flat.extend(shape)
        if not self._boundscheck:
            return function(*flat)
        oob = np.zeros(1, np.int32)
        result = function(*flat, oob, 1)
        if oob[0]:
            raise IndexError(
                f"{self.__name__}: an index was out of bounds at "
                f"{inspect.getsourcefile(self.py_func)}:{int(oob[0])} (such "
                "accesses were skipped, reads of them gave 0)")
        return result

    def __repr__(self):
        return f"<hpvm.kernel {self.__name__}>"


def kernel(fn=None, *, targets="all", devices=None, scheduler=None,
           strict=False, boundscheck=False):
    """Decorates a Python kernel: ``@hpvm.kernel`` or
    ``@hpvm.kernel(targets=["cpu", "spirv"], devices=["vulkan"])``: the
    targets it is compiled for (every one by default) and the launch
    options its calls use (hpvm.launch_options). docs/python.md describes
    the language. boundscheck=True checks every array index: an
    out-of-bounds access is skipped and the call raises IndexError naming
    its line (slower; off by default, as in C and Numba)."""
    if fn is None:
        return lambda f: kernel(f, targets=targets, devices=devices,
                                scheduler=scheduler, strict=strict,
                                boundscheck=boundscheck)
    if not callable(fn) or not inspect.isfunction(fn):
        raise TypeError(f"hpvm.kernel decorates functions, not "
                        f"{type(fn).__name__}")
    return Kernel(fn, targets, devices, scheduler, strict, boundscheck)
