"""The vocabulary of Python kernels: scalar types, array annotations,
``parallel`` loops and atomics (docs/python.md, "Kernels in Python").

Everything here also works in plain Python, so that an undecorated kernel
(``kernel.py_func``) runs sequentially with numpy arrays: a reference to
check the compiled kernel against, and something a debugger can step.
"""

import itertools as _itertools

import numpy as _np


class Scalar:
    """A scalar type of the kernel language (hpvm.f32, hpvm.i64, ...).

    Calling one converts a value: ``hpvm.f32(x)`` in a kernel is a cast,
    in plain Python the numpy scalar.
    """

    __slots__ = ("name", "kind", "bits", "numpy")

    def __init__(self, name, kind, bits, numpy_type):
        self.name = name  # "f32"; also what the binding's core calls it
        self.kind = kind  # "b" bool, "i" signed, "u" unsigned, "f" float
        self.bits = bits
        self.numpy = _np.dtype(numpy_type)

    @property
    def is_float(self):
        return self.kind == "f"

    @property
    def is_int(self):
        return self.kind in "iu"

    @property
    def signed(self):
        return self.kind in "if"

    @property
    def ir(self):
        """The LLVM type of a value of this type."""
        if self.kind == "f":
            return {16: "half", 32: "float", 64: "double"}[self.bits]
        return f"i{self.bits}"

    @property
    def memory_ir(self):
        """The LLVM type of an array element (a numpy bool is a byte)."""
        return "i8" if self.kind == "b" else self.ir

    @property
    def itemsize(self):
        return self.numpy.itemsize

    def __call__(self, value):
        return self.numpy.type(value)

    def __repr__(self):
        return f"hpvm.{self.name}"


bool_ = Scalar("bool", "b", 1, _np.bool_)
i8 = Scalar("i8", "i", 8, _np.int8)
i16 = Scalar("i16", "i", 16, _np.int16)
i32 = Scalar("i32", "i", 32, _np.int32)
i64 = Scalar("i64", "i", 64, _np.int64)
u8 = Scalar("u8", "u", 8, _np.uint8)
u16 = Scalar("u16", "u", 16, _np.uint16)
u32 = Scalar("u32", "u", 32, _np.uint32)
u64 = Scalar("u64", "u", 64, _np.uint64)
f32 = Scalar("f32", "f", 32, _np.float32)
f64 = Scalar("f64", "f", 64, _np.float64)

SCALARS = (bool_, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64)


def scalar_of(obj):
    """The Scalar an annotation or cast names: a Scalar, Python's bool, int
    (i64) or float (f64), a numpy scalar type or dtype; None otherwise."""
    if isinstance(obj, Scalar):
        return obj
    if obj is bool:
        return bool_
    if obj is int:
        return i64
    if obj is float:
        return f64
    try:
        if isinstance(obj, type) and not issubclass(obj, _np.generic):
            return None
        dtype = _np.dtype(obj)
    except TypeError:
        return None
    for s in SCALARS:
        if s.numpy == dtype:
            return s
    return None


class Array:
    """An array parameter: its element type, its number of dimensions (1-3,
    row-major, C-contiguous) and what the kernel does with it: "in" (reads
    only), "out" (writes; elements it does not write keep their values) or
    "inout"."""

    __slots__ = ("dtype", "ndim", "mode")

    def __init__(self, dtype, ndim, mode):
        self.dtype, self.ndim, self.mode = dtype, ndim, mode

    def __repr__(self):
        mode = {"in": "In", "out": "Out", "inout": "InOut"}[self.mode]
        dims = "" if self.ndim == 1 else f", {self.ndim}"
        return f"hpvm.{mode}[{self.dtype!r}{dims}]"


class _Mode:
    def __init__(self, mode):
        self._mode = mode

    def __getitem__(self, key):
        if isinstance(key, tuple):
            if len(key) != 2:
                raise TypeError(f"{self!r}[dtype] or {self!r}[dtype, ndim]")
            dtype, ndim = key
        else:
            dtype, ndim = key, 1
        scalar = scalar_of(dtype)
        if scalar is None:
            raise TypeError(f"{self!r}[...]: {dtype!r} is not a scalar type "
                            "(hpvm.f32, numpy.int32, ...)")
        if not isinstance(ndim, int) or not 1 <= ndim <= 3:
            raise TypeError(f"{self!r}[...]: arrays have 1 to 3 dimensions, "
                            f"not {ndim!r}")
        return Array(scalar, ndim, self._mode)

    def __repr__(self):
        return "hpvm." + {"in": "In", "out": "Out", "inout": "InOut"}[self._mode]


#: Array annotations: ``In[f32]`` (1-D), ``Out[f64, 2]``, ``InOut[i32, 3]``.
In = _Mode("in")
Out = _Mode("out")
InOut = _Mode("inout")


def parallel(*extents, name=None):
    """``for i in parallel(n)`` / ``for i, j in parallel(n, m)``: a node of
    the dataflow graph, replicated over its extents; the loop variables are
    the instance ids. Instances run in any order, in parallel, on a device
    hpvm-rt chooses; they may share data only through atomics. In plain
    Python: the sequential loop nest."""
    if not 1 <= len(extents) <= 3:
        raise TypeError("parallel() takes 1 to 3 extents")
    ranges = [range(int(n)) for n in extents]
    if len(ranges) == 1:
        return iter(ranges[0])
    return _itertools.product(*ranges)


def instance_id(dim, level=0):
    """In a leaf function of a built graph (hpvm.leaf): this instance's
    index in dimension dim of its node (level 0) or of an ancestor (level
    1 = the parent, ...)."""
    raise RuntimeError("hpvm.instance_id() only has a value inside a leaf "
                       "function compiled by hpvm (hpvm.leaf)")


def _atomic(update):
    def atomic(array, index, value):
        old = array[index]
        array[index] = update(old, value)
        return old

    return atomic


#: Atomic read-modify-write of one array element: ``atomic_add(hist, k, 1)``
#: adds 1 to hist[k] and returns the old value. The index is an integer or
#: a tuple (one per dimension). In plain Python: the same, sequentially.
atomic_add = _atomic(lambda a, b: a + b)
atomic_sub = _atomic(lambda a, b: a - b)
atomic_min = _atomic(lambda a, b: min(a, b))
atomic_max = _atomic(lambda a, b: max(a, b))
atomic_and = _atomic(lambda a, b: a & b)
atomic_or = _atomic(lambda a, b: a | b)
atomic_xor = _atomic(lambda a, b: a ^ b)

ATOMICS = {
    atomic_add: "add",
    atomic_sub: "sub",
    atomic_min: "min",
    atomic_max: "max",
    atomic_and: "and",
    atomic_or: "or",
    atomic_xor: "xor",
}
