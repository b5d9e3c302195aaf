"""The Python kernel frontend: a decorated function's AST becomes LLVM IR
in HPVM's marker form (frontends/c/include/hpvm.h), which the native core
lowers to region form, EXTRACTs into a dataflow graph and compiles for
every target, as it does for C.

Each top-level ``for ... in hpvm.parallel(...)`` loop is a leaf node; a
kernel with several is an internal node holding them, ordered by the
arrays they share. Locals live in stack slots, which SROA turns into SSA
form before the markers are lowered. The semantics (types, promotions,
division) are written down in docs/python.md; what is outside the subset
raises KernelError naming the file, line and construct.
"""

import ast
import inspect
import math
import struct
import textwrap

import numpy as np

from . import lang as L
from ._hpvm import CompileError


#: The hidden array parameter of a bounds-checked kernel.
OOB = "__hpvm_oob"


def host_symbol(name):
    """The LLVM name of a kernel's host function: never one of libm's or
    libc's (a kernel called `asin` or `free`), which the JIT would bind."""
    return "__hpvm_py_" + name


class KernelError(CompileError):
    """A Python kernel uses something outside the kernel language.

    ``filename``, ``lineno`` and ``construct`` say where and what."""

    def __init__(self, message, filename=None, lineno=None, construct=None):
        super().__init__(message)
        self.filename, self.lineno, self.construct = filename, lineno, construct


_DESCRIPTIONS = {
    ast.With: "a 'with' statement", ast.Try: "a 'try' statement",
    ast.Raise: "'raise'", ast.Assert: "'assert'", ast.Global: "'global'",
    ast.Nonlocal: "'nonlocal'", ast.Delete: "'del'", ast.Import: "'import'",
    ast.ImportFrom: "'import'", ast.FunctionDef: "a nested function",
    ast.AsyncFunctionDef: "a nested function", ast.ClassDef: "a class",
    ast.Lambda: "a lambda", ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension", ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression", ast.List: "a list",
    ast.Dict: "a dict", ast.Set: "a set", ast.Tuple: "a tuple",
    ast.Yield: "'yield'", ast.YieldFrom: "'yield'", ast.Await: "'await'",
    ast.JoinedStr: "an f-string", ast.Starred: "'*' unpacking",
    ast.Slice: "a slice", ast.NamedExpr: "':='", ast.Return: "'return'",
    ast.Match: "'match'", ast.AsyncFor: "'async for'",
    ast.AsyncWith: "'async with'",
}

_INTRINSIC_MATH = {"sqrt", "fabs", "floor", "ceil", "trunc", "pow", "exp",
                   "exp2", "log", "log2", "log10", "sin", "cos", "tan",
                   "copysign"}
_LIBM_MATH = {"asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
              "acosh", "atanh", "hypot", "fmod", "cbrt"}
_ARITY = {"pow": 2, "atan2": 2, "hypot": 2, "fmod": 2, "copysign": 2}


def _math_functions():
    """Python objects that name a math function in a kernel -> its name."""
    table = {}
    for name in sorted(_INTRINSIC_MATH | _LIBM_MATH):
        for module in (math, np):
            if hasattr(module, name):
                table[getattr(module, name)] = name
    numpy_names = {"arcsin": "asin", "arccos": "acos", "arctan": "atan",
                   "arctan2": "atan2", "arcsinh": "asinh",
                   "arccosh": "acosh", "arctanh": "atanh", "power": "pow"}
    for np_name, name in numpy_names.items():
        table[getattr(np, np_name)] = name
    return table


_MATH = _math_functions()
_MIN_MAX = {min: "min", max: "max", np.minimum: "min", np.maximum: "max"}
_ABS = {abs, np.abs, np.absolute}


class Val:
    """A value: its IR operand and type; const holds the Python value of a
    compile-time constant. A *weak* constant (ty None: a Python int or float
    literal) takes the type of what it meets, as numpy's scalars do."""

    __slots__ = ("ref", "ty", "const")

    def __init__(self, ref, ty, const=None):
        self.ref, self.ty, self.const = ref, ty, const

    @property
    def weak(self):
        return self.ty is None


class Var:
    __slots__ = ("slot", "ty", "line", "readonly")

    def __init__(self, slot, ty, line, readonly=False):
        self.slot, self.ty, self.line, self.readonly = slot, ty, line, readonly


class ArrayParam:
    __slots__ = ("name", "spec")

    def __init__(self, name, spec):
        self.name, self.spec = name, spec

    def shape(self, k):
        return f"%{self.name}.shape{k}"


def _int_fits(v, ty):
    if ty.kind == "b":
        return v in (0, 1)
    if ty.kind == "u":
        return 0 <= v < (1 << ty.bits)
    return -(1 << (ty.bits - 1)) <= v < (1 << (ty.bits - 1))


def _promote_int(ty):
    """C's integer promotion: anything narrower than 32 bits computes as i32."""
    return L.i32 if ty.kind in "biu" and ty.bits < 32 else ty


def _common(a, b):
    """C's usual arithmetic conversions of two (strong) types."""
    if a.is_float or b.is_float:
        floats = [t for t in (a, b) if t.is_float]
        return max(floats, key=lambda t: t.bits)
    a, b = _promote_int(a), _promote_int(b)
    if a is b:
        return a
    if a.kind == b.kind:
        return a if a.bits > b.bits else b
    u, s = (a, b) if a.kind == "u" else (b, a)
    return u if u.bits >= s.bits else s


class _Loop:
    """Where break and continue go in the innermost loop."""

    def __init__(self, brk, cont, parallel=False):
        self.brk, self.cont, self.parallel = brk, cont, parallel


class Translator:
    """One kernel function -> one IR module in marker form."""

    def __init__(self, fn, name, leaf_mode=False, boundscheck=False):
        self.fn, self.name, self.leaf_mode = fn, name, leaf_mode
        self.boundscheck = boundscheck
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise KernelError(f"cannot read the source of {name}: {e} "
                              "(kernels must be defined in a file)") from None
        tree = ast.parse(textwrap.dedent("".join(lines)))
        ast.increment_lineno(tree, first - 1)
        self.fdef = tree.body[0]
        if not isinstance(self.fdef, ast.FunctionDef):
            raise KernelError(f"{name} is not a function definition")
        self.env = dict(fn.__globals__)
        closure = inspect.getclosurevars(fn)
        self.env.update(closure.nonlocals)
        self.globals_ir = []
        self.declarations = {}  # callee -> its declaration
        self.strings = 0
        self.lines = []
        self.allocas = []
        self.n = 0
        self.block = "entry"
        self.terminated = False
        self.top = {}        # kernel-level variables (and scalar params)
        # Names certainly assigned on every path to this point: reading
        # another local is Python's UnboundLocalError, refused here.
        self.defined = set()
        self.in_bounds = None  # of the element element() addressed last
        self.leaf = None     # the current parallel loop's variables
        self.loops = []
        self.arrays = {}     # name -> ArrayParam
        self.params = []     # (name, scalar name, pointer, const) for the core

    # -- errors --------------------------------------------------------------

    def error(self, node, message, construct=None):
        line = getattr(node, "lineno", self.fdef.lineno)
        col = getattr(node, "col_offset", 0) + 1
        raise KernelError(f"{self.filename}:{line}:{col}: {message}",
                          self.filename, line, construct)

    def unsupported(self, node, what=None):
        what = what or _DESCRIPTIONS.get(type(node), type(node).__name__)
        try:
            text = ast.unparse(node).splitlines()[0][:60]
        except Exception:  # pragma: no cover - unparse knows every node
            text = ""
        self.error(node, f"{what} is not supported in an hpvm kernel"
                   + (f": `{text}`" if text else ""), what)

    # -- emission ------------------------------------------------------------

    def tmp(self):
        self.n += 1
        return f"%t{self.n}"

    def label(self, what):
        self.n += 1
        return f"{what}{self.n}"

    def emit(self, text):
        if self.terminated:
            self.start(self.label("dead"))
        self.lines.append("  " + text)

    def op(self, text):
        t = self.tmp()
        self.emit(f"{t} = {text}")
        return t

    def start(self, label):
        if not self.terminated:
            self.lines.append(f"  br label %{label}")
        self.lines.append(f"{label}:")
        self.block = label
        self.terminated = False

    def br(self, label):
        self.emit(f"br label %{label}")
        self.terminated = True

    def condbr(self, cond, yes, no):
        self.emit(f"br i1 {cond.ref}, label %{yes}, label %{no}")
        self.terminated = True

    def alloca(self, ty, what):
        self.n += 1
        slot = f"%{what}.addr{self.n}"
        self.allocas.append(f"  {slot} = alloca {ty}")
        return slot

    def string(self, text):
        self.strings += 1
        name = f"@.hpvm.name.{self.strings}"
        data = text.encode() + b"\0"
        escaped = "".join(chr(c) if 32 <= c < 127 and c not in (34, 92)
                          else f"\\{c:02X}" for c in data)
        self.globals_ir.append(f"{name} = private unnamed_addr constant "
                               f"[{len(data)} x i8] c\"{escaped}\"")
        return name

    # -- constants and conversions --------------------------------------------

    @staticmethod
    def const_ref(value, ty):
        if ty.kind == "b":
            return "true" if value else "false"
        if ty.is_float:
            if ty.bits == 32:
                value = struct.unpack("<f", struct.pack("<f", value))[0]
            bits = struct.unpack("<Q", struct.pack("<d", value))[0]
            return f"0x{bits:016X}"
        value &= (1 << ty.bits) - 1
        if value >= 1 << (ty.bits - 1):
            value -= 1 << ty.bits
        return str(value)

    def typed_const(self, value, ty, node):
        if ty.is_float:
            value = float(value)
        elif ty.kind == "b":
            value = bool(value)
        else:
            if isinstance(value, float):
                if not math.isfinite(value):
                    self.error(node, f"{value} has no {ty.name} value")
                value = int(value)
            if not _int_fits(int(value), ty):
                self.error(node, f"the constant {value} does not fit in "
                                 f"{ty.name}")
            value = int(value)
        return Val(self.const_ref(value, ty), ty, value)

    def default_type(self, v):
        if not v.weak:
            return v.ty
        if isinstance(v.const, float):
            return L.f64
        return L.i64 if _int_fits(v.const, L.i64) else L.u64

    def convert(self, v, ty, node):
        """v as a value of ty (C's conversions)."""
        if v.weak or v.const is not None:
            return self.typed_const(v.const, ty, node)
        src = v.ty
        if src is ty:
            return v
        if ty.kind == "b":
            return self.truth(v)
        if src.kind == "b":
            opc = "uitofp" if ty.is_float else "zext"
        elif src.is_float and ty.is_float:
            opc = "fpext" if ty.bits > src.bits else "fptrunc"
        elif src.is_float:
            opc = "fptosi" if ty.signed else "fptoui"
        elif ty.is_float:
            opc = "sitofp" if src.signed else "uitofp"
        elif ty.bits == src.bits:
            return Val(v.ref, ty)
        elif ty.bits < src.bits:
            opc = "trunc"
        else:
            opc = "sext" if src.signed else "zext"
        return Val(self.op(f"{opc} {src.ir} {v.ref} to {ty.ir}"), ty)

    def truth(self, v):
        if v.const is not None:
            return Val("true" if v.const else "false", L.bool_, bool(v.const))
        if v.ty.kind == "b":
            return v
        if v.ty.is_float:
            return Val(self.op(f"fcmp une {v.ty.ir} {v.ref}, 0.0"), L.bool_)
        return Val(self.op(f"icmp ne {v.ty.ir} {v.ref}, 0"), L.bool_)

    def to_index(self, v, node):
        if v.weak and isinstance(v.const, float) or (v.ty and v.ty.is_float):
            self.error(node, "an index or extent must be an integer, not a "
                             "float (convert it with int())")
        return self.convert(v, L.i64, node)

    def unify(self, a, b, node):
        """The type two operands compute in."""
        if a.weak and b.weak:
            if isinstance(a.const, float) or isinstance(b.const, float):
                return L.f64
            return L.i64
        if a.weak or b.weak:
            strong, weak = (b, a) if a.weak else (a, b)
            ty = strong.ty
            if isinstance(weak.const, float):
                return ty if ty.is_float else L.f64
            if ty.is_float:
                return ty
            ty = _promote_int(ty)
            if _int_fits(weak.const, ty):
                return ty
            if _int_fits(weak.const, L.i64):
                return L.i64
            self.error(node, f"the constant {weak.const} does not fit in "
                             "64 bits")
        return _common(a.ty, b.ty)

    # -- the kernel ----------------------------------------------------------

    def parameters(self):
        """Reads the annotated parameters: (IR parameters, signature)."""
        fdef = self.fdef
        args = fdef.args
        what = "leaf function" if self.leaf_mode else "kernel"
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs \
                or args.defaults:
            self.error(fdef, f"{what} parameters must be plain positional "
                             "parameters (no defaults, *args or **kwargs)",
                       "parameters")
        try:
            hints = inspect.get_annotations(self.fn, eval_str=True)
        except Exception as e:
            raise KernelError(f"{self.filename}:{fdef.lineno}: cannot "
                              f"evaluate the annotations of {self.name}: "
                              f"{e}") from None
        self.hints = hints
        signature = []
        ir_params = []
        for a in args.args:
            spec = hints.get(a.arg)
            if isinstance(spec, L.Array):
                if self.leaf_mode and spec.ndim != 1:
                    self.error(a, f"parameter '{a.arg}': a leaf function's "
                                  "buffers are flat (1-D); index them with "
                                  "a computed offset", "parameter")
                self.arrays[a.arg] = ArrayParam(a.arg, spec)
                ir_params.append(f"ptr %{a.arg}")
                self.params.append((a.arg, spec.dtype.name, True,
                                    spec.mode == "in"))
                if not self.leaf_mode:
                    for k in range(spec.ndim):
                        ir_params.append(f"i64 %{a.arg}.shape{k}")
                        self.params.append((f"{a.arg}.shape{k}", "i64",
                                            False, False))
                signature.append((a.arg, spec))
                continue
            scalar = L.scalar_of(spec) if spec is not None else None
            if scalar is None:
                self.error(a, f"parameter '{a.arg}' needs an annotation: a "
                              "scalar type (hpvm.f32, int, float, ...) or an "
                              "array (hpvm.In[hpvm.f32], hpvm.Out[hpvm.f64, "
                              f"2], ...), not {spec!r}", "parameter")
            ir_params.append(f"{scalar.ir} %{a.arg}")
            self.params.append((a.arg, scalar.name, False, False))
            slot = self.alloca(scalar.ir, a.arg)
            self.lines.append(f"  store {scalar.ir} %{a.arg}, ptr {slot}")
            self.top[a.arg] = Var(slot, scalar, a.lineno)
            self.defined.add(a.arg)
            signature.append((a.arg, scalar))
        return ir_params, signature

    def body(self):
        body = list(self.fdef.body)
        if body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring
        return body

    def translate(self):
        """The kernel as a module in marker form."""
        ir_params, signature = self.parameters()
        if self.boundscheck:
            # Where an out-of-bounds access records its line (0: none).
            oob = ArrayParam(OOB, L.Array(L.i32, 1, "inout"))
            self.arrays[OOB] = oob
            ir_params += [f"ptr %{OOB}", f"i64 {oob.shape(0)}"]
            self.params += [(OOB, "i32", True, False),
                            (OOB + ".shape0", "i64", False, False)]
        for arr in self.arrays.values():
            size = f"{arr.spec.dtype.itemsize}"
            for k in range(arr.spec.ndim):
                size = self.op(f"mul i64 {size}, {arr.shape(k)}")
            self.lines.append(f"  %{arr.name}.bytes = add i64 {size}, 0")

        body = self.body()
        nodes = [s for s in body if self.parallel_call(s) is not None]
        if not nodes:
            self.error(self.fdef, f"{self.name} has no `for ... in "
                                  "hpvm.parallel(...)` loop: a kernel is "
                                  "made of parallel loops", "kernel")
        uses = [self.array_uses(s) for s in nodes]
        handle = None
        for s in body:
            if s is nodes[0] and len(nodes) > 1:
                handle = self.region_begin(self.name, [], self.merge(uses), s)
            if s in nodes:
                self.parallel_loop(s, nodes.index(s), len(nodes),
                                   uses[nodes.index(s)])
            else:
                self.top_statement(s)
            if s is nodes[-1] and handle:
                self.emit(f"call void @__hpvm_region_end(ptr {handle})")
        self.emit("ret void")
        self.terminated = True
        head = ["declare ptr @__hpvm_region_begin(ptr, ...)",
                "declare void @__hpvm_region_end(ptr)"]
        return self.module(head, "void", host_symbol(self.name),
                           ir_params), signature

    def translate_leaf(self, symbol, extra_params):
        """The function as the leaf function of a graph-form node:
        parameters as annotated, then an i64 `<array>.bytes` per array (the
        buffer's byte size in the graph), then extra_params (i64 values the
        node needs, such as extents)."""
        ir_params, signature = self.parameters()
        for arr in self.arrays.values():
            ir_params.append(f"i64 %{arr.name}.bytes")
            self.lines.append(f"  {arr.shape(0)} = udiv i64 %{arr.name}.bytes, "
                              f"{arr.spec.dtype.itemsize}")
        for name in extra_params:
            ir_params.append(f"i64 %{name}")
        ret = self.hints.get("return")
        self.result = None
        if ret is not None and ret is not type(None):
            self.result = L.scalar_of(ret)
            if self.result is None:
                self.error(self.fdef, "a leaf function returns one scalar "
                                      f"(its output), not {ret!r}", "result")
        self.leaf = {}
        for s in self.body():
            if self.parallel_call(s) is not None:
                self.error(s, "a leaf function is one instance of its node: "
                              "it has no hpvm.parallel loops (use "
                              "hpvm.instance_id(dim))", "hpvm.parallel")
            self.statement(s)
        if self.result is None:
            self.emit("ret void")
        else:  # falling off the end returns 0
            self.emit(f"ret {self.result.ir} "
                      f"{self.const_ref(0, self.result)}")
        self.terminated = True
        head = ["declare i64 @hpvm.instance.id(i32, i32) "
                "memory(none) nounwind"]
        ret_ir = self.result.ir if self.result else "void"
        return self.module(head, ret_ir, symbol, ir_params), signature

    def module(self, head, ret, symbol, ir_params):
        module = [f"; hpvm {'leaf function' if self.leaf_mode else 'kernel'}"
                  f" {self.name} from {self.filename}"]
        module += self.globals_ir + head + [""]
        module += self.declarations.values()
        module.append(f"define {ret} @\"{symbol}\"({', '.join(ir_params)}) {{")
        module.append("entry:")
        module += self.allocas
        module += self.lines
        module.append("}")
        return "\n".join(module) + "\n"

    # -- the graph -----------------------------------------------------------

    def resolve(self, node):
        """The Python object a name or attribute chain stands for, or None
        if it is a kernel variable or unknown."""
        if isinstance(node, ast.Name):
            if node.id in self.top or node.id in self.arrays or \
                    (self.leaf is not None and node.id in self.leaf):
                return None
            if node.id in self.env:
                return self.env[node.id]
            import builtins
            return getattr(builtins, node.id, None)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if base is not None and hasattr(base, node.attr):
                return getattr(base, node.attr)
        return None

    def callee(self, node):
        """What a call calls, if it is something a table can hold."""
        fn = self.resolve(node)
        try:
            hash(fn)
        except TypeError:
            return None
        return fn

    def parallel_call(self, stmt):
        if isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Call) and \
                self.resolve(stmt.iter.func) is L.parallel:
            return stmt.iter
        return None

    def array_uses(self, loop):
        """{array: "in" | "out" | "inout"} for the arrays a loop touches."""
        reads, writes = set(), set()

        def array_name(node):
            if isinstance(node, ast.Name) and node.id in self.arrays:
                return node.id
            return None

        for node in ast.walk(loop):
            if isinstance(node, ast.Subscript):
                name = array_name(node.value)
                if name:
                    (writes if isinstance(node.ctx, ast.Store)
                     else reads).add(name)
            elif isinstance(node, ast.AugAssign) and \
                    isinstance(node.target, ast.Subscript):
                name = array_name(node.target.value)
                if name:
                    reads.add(name)
            elif isinstance(node, ast.Call) and \
                    self.callee(node.func) in L.ATOMICS and node.args:
                name = array_name(node.args[0])
                if name:
                    reads.add(name)
                    writes.add(name)
        bad = [n for n in ast.walk(loop) if isinstance(n, ast.Subscript)
               and isinstance(n.ctx, ast.Store) and array_name(n.value)
               and self.arrays[n.value.id].spec.mode == "in"]
        bad += [n for n in ast.walk(loop) if isinstance(n, ast.Call)
                and self.callee(n.func) in L.ATOMICS and n.args
                and array_name(n.args[0])
                and self.arrays[n.args[0].id].spec.mode == "in"]
        if bad:
            node = min(bad, key=lambda n: (n.lineno, n.col_offset))
            name = node.value.id if isinstance(node, ast.Subscript) \
                else node.args[0].id
            self.error(node, f"'{name}' is declared "
                             f"{self.arrays[name].spec!r} and cannot be "
                             "written; declare it hpvm.InOut or hpvm.Out",
                       "write to an input")
        if self.boundscheck:
            reads.add(OOB)
            writes.add(OOB)
        uses = {}
        for name in self.arrays:  # in parameter order
            if name in reads or name in writes:
                uses[name] = ("inout" if name in reads and name in writes
                              else "out" if name in writes else "in")
        return uses

    def merge(self, uses):
        """What the internal node holding every loop does with each array:
        what its parameter says, or less."""
        merged = {}
        for name, arr in self.arrays.items():
            modes = {u[name] for u in uses if name in u}
            if not modes:
                continue
            writes = bool(modes & {"out", "inout"})
            reads = bool(modes & {"in", "inout"})
            mode = "inout" if writes and reads else "out" if writes else "in"
            if arr.spec.mode == "out" and writes:
                mode = "out"  # what a loop reads, an earlier loop wrote
            merged[name] = mode
        return merged

    def region_begin(self, name, extents, uses, node):
        tags = {"in": 2, "out": 3, "inout": 4}
        args = [f"ptr {self.string(name)}"]
        if extents:
            args += ["i32 1", f"i32 {len(extents)}"]
            args += [f"i64 {e.ref}" for e in extents]
        for array, mode in uses.items():
            spec = self.arrays[array].spec
            if spec.mode == "in" and mode != "in":
                self.error(node, f"the kernel writes '{array}', which is "
                                 f"declared {spec!r}; declare it hpvm.InOut "
                                 "or hpvm.Out", "write to an input")
            args += [f"i32 {tags[mode]}", f"ptr %{array}",
                     f"i64 %{array}.bytes"]
        args.append("i32 0")
        return self.op("call ptr (ptr, ...) @__hpvm_region_begin("
                       + ", ".join(args) + ")")

    def parallel_loop(self, node, index, count, uses):
        call = node.iter
        extents = call.args
        if not 1 <= len(extents) <= 3 or any(
                isinstance(e, ast.Starred) for e in extents):
            self.error(call, "hpvm.parallel takes 1 to 3 extents",
                       "hpvm.parallel")
        name = self.name if count == 1 else f"{self.name}_{index}"
        for kw in call.keywords:
            if kw.arg != "name" or not isinstance(kw.value, ast.Constant) \
                    or not isinstance(kw.value.value, str) \
                    or not kw.value.value.isidentifier():
                self.error(kw, "hpvm.parallel's only keyword is name=, an "
                               "identifier string", "hpvm.parallel keyword")
            name = kw.value.value
        targets = node.target.elts if isinstance(node.target, ast.Tuple) \
            else [node.target]
        if len(targets) != len(extents) or \
                not all(isinstance(t, ast.Name) for t in targets):
            self.error(node.target, f"hpvm.parallel with {len(extents)} "
                                    f"extent(s) needs {len(extents)} loop "
                                    "variable name(s)", "loop variables")
        if node.orelse:
            self.unsupported(node.orelse[0], "'else' on a for loop")
        ext = [self.to_index(self.expr(e), e) for e in extents]
        handle = self.region_begin(name, ext, uses, node)
        self.leaf = {}
        latches = []
        exit_label = None
        for k, (t, e) in enumerate(zip(targets, ext)):
            if t.id in self.arrays:
                self.error(t, f"'{t.id}' is an array parameter")
            slot = self.alloca("i64", t.id)
            self.emit(f"store i64 0, ptr {slot}")
            head, body, done = (self.label("par.head"), self.label("par.body"),
                                self.label("par.exit"))
            latch = self.label("par.latch")
            self.start(head)
            i = self.op(f"load i64, ptr {slot}")
            c = self.op(f"icmp slt i64 {i}, {e.ref}")
            self.condbr(Val(c, L.bool_), body, done)
            self.start(body)
            self.leaf[t.id] = Var(slot, L.i64, t.lineno, readonly=True)
            latches.append((slot, head, latch, done))
        self.loops.append(_Loop(None, latches[-1][2], parallel=True))
        before = set(self.defined)
        self.defined |= {t.id for t in targets}
        self.statements(node.body)
        self.defined = before
        self.loops.pop()
        for slot, head, latch, done in reversed(latches):
            self.start(latch)
            i = self.op(f"load i64, ptr {slot}")
            i1 = self.op(f"add nsw i64 {i}, 1")
            self.emit(f"store i64 {i1}, ptr {slot}")
            self.br(head)
            self.start(done)
        self.emit(f"call void @__hpvm_region_end(ptr {handle})")
        self.leaf = None

    def top_statement(self, s):
        """Kernel-level code: scalar computations between the loops."""
        for node in ast.walk(s):
            if isinstance(node, (ast.For, ast.While, ast.If)):
                self.error(node, "only scalar assignments and `for ... in "
                                 "hpvm.parallel(...)` loops may appear at the "
                                 "top level of a kernel; put loops and "
                                 "branches inside a parallel loop",
                           "top-level control flow")
        self.statement(s)

    # -- statements ----------------------------------------------------------

    def statements(self, body):
        for s in body:
            self.statement(s)

    def statement(self, s):
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            self.unsupported(s)
        method(s)

    def stmt_Pass(self, s):
        pass

    def stmt_Expr(self, s):
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return  # a string used as a comment
        self.expr(s.value)

    def stmt_Assign(self, s):
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple):
            target = s.targets[0]
            if not isinstance(s.value, ast.Tuple) or \
                    len(s.value.elts) != len(target.elts):
                self.error(s, "tuple assignment needs a tuple of as many "
                              "values on the right", "tuple assignment")
            values = [self.expr(e) for e in s.value.elts]
            for t, v in zip(target.elts, values):
                self.assign(t, v, s)
            return
        value = self.expr(s.value)
        for t in s.targets:
            self.assign(t, value, s)

    def stmt_AnnAssign(self, s):
        ty = L.scalar_of(self.resolve(s.annotation))
        if ty is None or not isinstance(s.target, ast.Name):
            self.error(s, "a local's annotation must be a scalar type "
                          "(hpvm.f32, int, ...)", "annotation")
        if s.value is None:
            self.error(s, f"'{s.target.id}' needs a value",
                       "declaration without a value")
        self.assign(s.target, self.expr(s.value), s, ty)

    def stmt_AugAssign(self, s):
        if isinstance(s.target, ast.Subscript):
            value = self.expr(s.value)  # before the guard: may index too
            arr, ptr = self.element(s.target, store=True)

            def update():
                old = self.load_element(arr, ptr)
                self.store_element(arr, ptr,
                                   self.binop(s.op, old, value, s), s)

            self.guarded(s.target, update)
            return
        if not isinstance(s.target, ast.Name):
            self.unsupported(s.target)
        old = self.load_name(s.target)
        self.assign(s.target, self.binop(s.op, old, self.expr(s.value), s), s)

    def assign(self, target, value, stmt, annotation=None):
        if isinstance(target, ast.Subscript):
            arr, ptr = self.element(target, store=True)
            self.guarded(target,
                         lambda: self.store_element(arr, ptr, value, stmt))
            return
        if not isinstance(target, ast.Name):
            self.unsupported(target, "assigning to " + _DESCRIPTIONS.get(
                type(target), type(target).__name__))
        name = target.id
        if name in self.arrays:
            self.error(target, f"'{name}' is an array parameter; assign to "
                               f"its elements ({name}[i] = ...)",
                       "array assignment")
        scope = self.top if self.leaf is None else self.leaf
        var = scope.get(name)
        if var is None and self.leaf is not None and name in self.top:
            self.error(target, f"'{name}' belongs to the kernel's top level "
                               f"(line {self.top[name].line}); every "
                               "instance of the parallel loop would write it "
                               "(use an array element, or an hpvm.atomic_*)",
                       "write to a shared variable")
        if var is None:
            ty = annotation or self.default_type(value)
            var = Var(self.alloca(ty.ir, name), ty, target.lineno)
            # Defined on every path, so that a read before the first
            # assignment on some path sees 0 rather than garbage.
            self.allocas.append(
                f"  store {ty.ir} {self.const_ref(0, ty)}, ptr {var.slot}")
            scope[name] = var
        elif var.readonly:
            self.error(target, f"'{name}' is a parallel loop's instance id "
                               "and cannot be assigned", "instance id")
        elif annotation is not None and annotation is not var.ty:
            self.error(stmt, f"'{name}' is already {var.ty.name} (line "
                             f"{var.line})", "redeclaration")
        src_float = value.ty.is_float if value.ty else \
            isinstance(value.const, float)
        if var.ty.is_int and src_float:
            self.error(stmt, f"'{name}' is {var.ty.name} (from line "
                             f"{var.line}); assigning a float would truncate "
                             f"it: start it as a float ({name} = 0.0), "
                             f"annotate it ({name}: hpvm.f32 = 0) or convert "
                             "with int()", "float to integer assignment")
        if var.ty.kind == "b" and (value.ty is None or value.ty.kind != "b"):
            self.error(stmt, f"'{name}' is a bool (line {var.line}); assign "
                             "a comparison or bool() of the value",
                       "assignment to a bool")
        v = self.convert(value, var.ty, stmt)
        self.emit(f"store {var.ty.ir} {v.ref}, ptr {var.slot}")
        self.defined.add(name)

    def stmt_If(self, s):
        cond = self.truth(self.expr(s.test))
        yes, no, done = self.label("then"), self.label("else"), \
            self.label("endif")
        self.condbr(cond, yes, no if s.orelse else done)
        before = set(self.defined)
        self.start(yes)
        self.statements(s.body)
        self.br(done)
        after_body, self.defined = self.defined, set(before)
        if s.orelse:
            self.start(no)
            self.statements(s.orelse)
            self.br(done)
        self.defined = before | (after_body & self.defined)
        self.start(done)

    def stmt_While(self, s):
        if s.orelse:
            self.unsupported(s.orelse[0], "'else' on a while loop")
        head, body, done = self.label("while"), self.label("do"), \
            self.label("wend")
        self.br(head)
        self.start(head)
        self.condbr(self.truth(self.expr(s.test)), body, done)
        self.start(body)
        self.loops.append(_Loop(done, head))
        before = set(self.defined)
        self.statements(s.body)
        self.defined = before  # the body may run no time
        self.loops.pop()
        self.br(head)
        self.start(done)

    def stmt_For(self, s):
        if self.parallel_call(s) is not None:
            self.error(s, "hpvm.parallel loops may not nest; write one loop "
                          "with several extents: `for i, j in "
                          "hpvm.parallel(n, m)`", "nested hpvm.parallel")
        if not (isinstance(s.iter, ast.Call)
                and self.resolve(s.iter.func) is range) or s.iter.keywords:
            self.unsupported(s.iter, "a for loop over anything but range() "
                                     "or hpvm.parallel()")
        if s.orelse:
            self.unsupported(s.orelse[0], "'else' on a for loop")
        if not isinstance(s.target, ast.Name):
            self.unsupported(s.target, "a for loop target other than a name")
        args = [self.to_index(self.expr(a), a) for a in s.iter.args]
        if not 1 <= len(args) <= 3:
            self.error(s.iter, "range() takes 1 to 3 arguments", "range")
        start, stop, step = (Val("0", L.i64, 0), args[0], Val("1", L.i64, 1)) \
            if len(args) == 1 else (args[0], args[1],
                                    args[2] if len(args) == 3
                                    else Val("1", L.i64, 1))
        if step.const == 0:
            self.error(s.iter, "range() step must not be zero", "range")
        counter = self.alloca("i64", "range")
        self.emit(f"store i64 {start.ref}, ptr {counter}")
        head, body, latch, done = (self.label("for"), self.label("body"),
                                   self.label("next"), self.label("endfor"))
        self.br(head)
        self.start(head)
        i = Val(self.op(f"load i64, ptr {counter}"), L.i64)
        if step.const is not None:
            pred = "slt" if step.const > 0 else "sgt"
            c = self.op(f"icmp {pred} i64 {i.ref}, {stop.ref}")
        else:  # the direction is known at run time; a zero step runs none
            up = self.op(f"icmp sgt i64 {step.ref}, 0")
            down = self.op(f"icmp slt i64 {step.ref}, 0")
            lt = self.op(f"icmp slt i64 {i.ref}, {stop.ref}")
            gt = self.op(f"icmp sgt i64 {i.ref}, {stop.ref}")
            a = self.op(f"and i1 {up}, {lt}")
            b = self.op(f"and i1 {down}, {gt}")
            c = self.op(f"or i1 {a}, {b}")
        self.condbr(Val(c, L.bool_), body, done)
        self.start(body)
        before = set(self.defined)
        self.assign(s.target, i, s)
        self.loops.append(_Loop(done, latch))
        self.statements(s.body)
        self.defined = before  # the body may run no time
        self.loops.pop()
        self.start(latch)
        i = self.op(f"load i64, ptr {counter}")
        self.emit(f"store i64 {self.op(f'add i64 {i}, {step.ref}')}, "
                  f"ptr {counter}")
        self.br(head)
        self.start(done)

    def stmt_Return(self, s):
        if not self.leaf_mode:
            self.unsupported(s)
        if self.result is None:
            if s.value is not None:
                self.error(s, "this leaf function has no output: annotate "
                              "its result (-> hpvm.f32) to return a value",
                           "'return'")
            self.emit("ret void")
        else:
            if s.value is None:
                self.error(s, f"the leaf function returns "
                              f"{self.result.name}: return a value",
                           "'return'")
            v = self.convert(self.expr(s.value), self.result, s)
            self.emit(f"ret {self.result.ir} {v.ref}")
        self.terminated = True

    def stmt_Break(self, s):
        if not self.loops or self.loops[-1].parallel:
            self.error(s, "'break' out of a parallel loop: instances cannot "
                          "stop each other", "break")
        self.br(self.loops[-1].brk)

    def stmt_Continue(self, s):
        if not self.loops:
            self.error(s, "'continue' outside a loop", "continue")
        self.br(self.loops[-1].cont)

    # -- arrays --------------------------------------------------------------

    def element(self, node, store=False):
        """(array, pointer to the element) of arr[i] / arr[i, j]."""
        if not (isinstance(node.value, ast.Name)
                and node.value.id in self.arrays):
            self.unsupported(node, "indexing anything but an array parameter")
        if self.leaf is None:
            self.error(node, "arrays may only be used inside `for ... in "
                             "hpvm.parallel(...)` loops", "array access")
        arr = self.arrays[node.value.id]
        if store and arr.spec.mode == "in":
            self.error(node, f"'{arr.name}' is declared {arr.spec!r} and "
                             "cannot be written", "write to an input")
        index = node.slice
        indices = index.elts if isinstance(index, ast.Tuple) else [index]
        for i in indices:
            if isinstance(i, ast.Slice):
                self.unsupported(i, "a slice")
        if len(indices) != arr.spec.ndim:
            self.error(node, f"'{arr.name}' has {arr.spec.ndim} "
                             f"dimension(s), indexed with {len(indices)}",
                       "index count")
        flat = None
        in_bounds = None  # indices may index arrays themselves: local
        for k, i in enumerate(indices):
            v = self.to_index(self.expr(i), i)
            if self.boundscheck:
                # Unsigned: a negative index is out of bounds too.
                ok = self.op(f"icmp ult i64 {v.ref}, {arr.shape(k)}")
                in_bounds = ok if in_bounds is None else self.op(
                    f"and i1 {in_bounds}, {ok}")
            if flat is None:
                flat = v.ref
            else:
                scaled = self.op(f"mul i64 {flat}, {arr.shape(k)}")
                flat = self.op(f"add i64 {scaled}, {v.ref}")
        inbounds = "" if self.boundscheck else "inbounds "
        ptr = self.op(f"getelementptr {inbounds}{arr.spec.dtype.memory_ir}, "
                      f"ptr %{arr.name}, i64 {flat}")
        self.in_bounds = in_bounds  # for guarded(), next
        return arr, ptr

    def guarded(self, node, access, ty=None):
        """Runs access() (which emits the load, store or atomic of the
        element element() just addressed) only if the indices were in
        bounds, with boundscheck; otherwise records node's line in the
        out-of-bounds slot and gives 0. Returns access()'s value."""
        ok = self.in_bounds if self.boundscheck else None
        if ok is None:
            return access()
        inside, outside, done = (self.label("inbounds"), self.label("oob"),
                                 self.label("access"))
        self.condbr(Val(ok, L.bool_), inside, outside)
        self.start(inside)
        v = access()
        inside_end = self.block
        self.br(done)
        self.start(outside)
        self.emit(f"store atomic i32 {node.lineno}, ptr %{OOB} monotonic, "
                  "align 4")
        outside_end = self.block
        self.br(done)
        self.start(done)
        if v is None:
            return None
        zero = self.const_ref(0, v.ty)
        return Val(self.op(f"phi {v.ty.ir} [ {v.ref}, %{inside_end} ], "
                           f"[ {zero}, %{outside_end} ]"), v.ty)

    def load_element(self, arr, ptr):
        ty = arr.spec.dtype
        v = self.op(f"load {ty.memory_ir}, ptr {ptr}")
        if ty.kind == "b":
            v = self.op(f"icmp ne i8 {v}, 0")
        return Val(v, ty)

    def store_element(self, arr, ptr, value, node):
        ty = arr.spec.dtype
        v = self.convert(value, ty, node).ref
        if ty.kind == "b":
            v = self.op(f"zext i1 {v} to i8")
        self.emit(f"store {ty.memory_ir} {v}, ptr {ptr}")

    # -- expressions ---------------------------------------------------------

    def expr(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            self.unsupported(node)
        return method(node)

    def expr_Constant(self, node):
        v = node.value
        if isinstance(v, bool):
            return Val("true" if v else "false", L.bool_, v)
        if isinstance(v, (int, float)):
            return Val(None, None, v)
        self.unsupported(node, f"a {type(v).__name__} constant")

    def python_value(self, obj, node):
        if isinstance(obj, (bool, np.bool_)):
            return Val("true" if obj else "false", L.bool_, bool(obj))
        if isinstance(obj, (int, float)):
            return Val(None, None, obj)
        if isinstance(obj, np.generic):
            ty = L.scalar_of(obj.dtype)
            if ty is not None:
                return self.typed_const(obj.item(), ty, node)
        what = type(obj).__name__
        self.error(node, f"'{ast.unparse(node)}' is a {what}; a kernel may "
                         "only use numbers from outside", "outside value")

    def load_name(self, node):
        name = node.id
        for scope in (self.leaf or {}), self.top:
            if name in scope:
                var = scope[name]
                if name not in self.defined:
                    self.error(node, f"'{name}' may be read before it is "
                                     "assigned: some path to here does not "
                                     f"assign it (line {var.line} does); "
                                     "assign it before the branch or loop",
                               "possibly unassigned variable")
                return Val(self.op(f"load {var.ty.ir}, ptr {var.slot}"),
                           var.ty)
        if name in self.arrays:
            self.error(node, f"'{name}' is an array; use its elements "
                             f"({name}[i]) or {name}.shape[k]", "array value")
        obj = self.resolve(node)
        if obj is None:
            self.error(node, f"name '{name}' is not defined (or is a local "
                             "of a parallel loop used outside it)",
                       "undefined name")
        return self.python_value(obj, node)

    def expr_Name(self, node):
        return self.load_name(node)

    def expr_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.arrays:
            arr = self.arrays[node.value.id]
            if node.attr == "ndim":
                return Val(None, None, arr.spec.ndim)
            if node.attr == "size":
                size = "1"
                for k in range(arr.spec.ndim):
                    size = self.op(f"mul i64 {size}, {arr.shape(k)}")
                return Val(size, L.i64)
            self.error(node, f"arrays have .shape, .size and .ndim, not "
                             f".{node.attr}", "array attribute")
        obj = self.resolve(node)
        if obj is None:
            self.unsupported(node, "this attribute")
        return self.python_value(obj, node)

    def expr_Subscript(self, node):
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape" and \
                isinstance(v.value, ast.Name) and v.value.id in self.arrays:
            arr = self.arrays[v.value.id]
            k = node.slice
            if not (isinstance(k, ast.Constant) and isinstance(k.value, int)
                    and -arr.spec.ndim <= k.value < arr.spec.ndim):
                self.error(node, f"{arr.name}.shape takes a constant index "
                                 f"below {arr.spec.ndim}", "shape index")
            return Val(arr.shape(k.value % arr.spec.ndim), L.i64)
        arr, ptr = self.element(node)
        return self.guarded(node, lambda: self.load_element(arr, ptr))

    def expr_UnaryOp(self, node):
        v = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            t = self.truth(v)
            if t.const is not None:
                return Val("false" if t.const else "true", L.bool_,
                           not t.const)
            return Val(self.op(f"xor i1 {t.ref}, true"), L.bool_)
        if isinstance(node.op, ast.UAdd):
            return v
        if v.weak:
            if isinstance(node.op, ast.USub):
                return Val(None, None, -v.const)
            if isinstance(v.const, float):
                self.error(node, "'~' of a float", "bitwise not of a float")
            return Val(None, None, ~v.const)
        if isinstance(node.op, ast.USub):
            if v.ty.is_float:
                return Val(self.op(f"fneg {v.ty.ir} {v.ref}"), v.ty)
            ty = _promote_int(v.ty)
            v = self.convert(v, ty, node)
            return Val(self.op(f"sub {ty.ir} 0, {v.ref}"), ty)
        if v.ty.is_float:
            self.error(node, "'~' of a float", "bitwise not of a float")
        if v.ty.kind == "b":
            return Val(self.op(f"xor i1 {v.ref}, true"), L.bool_)
        ty = _promote_int(v.ty)
        v = self.convert(v, ty, node)
        return Val(self.op(f"xor {ty.ir} {v.ref}, -1"), ty)

    def expr_BinOp(self, node):
        return self.binop(node.op, self.expr(node.left),
                          self.expr(node.right), node)

    def binop(self, op, a, b, node):
        if a.weak and b.weak:
            return self.fold(op, a.const, b.const, node)
        if isinstance(op, ast.Pow):
            return self.power(a, b, node)
        if isinstance(op, (ast.LShift, ast.RShift)):
            return self.shift(op, a, b, node)
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return self.bitwise(op, a, b, node)
        if isinstance(op, ast.MatMult):
            self.unsupported(node, "'@'")
        ty = self.unify(a, b, node)
        if isinstance(op, ast.Div) and not ty.is_float:
            ty = L.f64
        if ty.kind == "b":
            ty = L.i32
        a, b = self.convert(a, ty, node), self.convert(b, ty, node)
        t = ty.ir
        if ty.is_float:
            if isinstance(op, ast.FloorDiv):
                q = self.op(f"fdiv {t} {a.ref}, {b.ref}")
                return self.intrinsic("floor", ty, [Val(q, ty)])
            if isinstance(op, ast.Mod):
                return self.float_mod(a, b)
            name = {ast.Add: "fadd", ast.Sub: "fsub", ast.Mult: "fmul",
                    ast.Div: "fdiv"}[type(op)]
            return Val(self.op(f"{name} {t} {a.ref}, {b.ref}"), ty)
        if isinstance(op, (ast.FloorDiv, ast.Mod)):
            return self.int_div(op, a, b, ty)
        name = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}[type(op)]
        return Val(self.op(f"{name} {t} {a.ref}, {b.ref}"), ty)

    def fold(self, op, x, y, node):
        try:
            r = {ast.Add: lambda: x + y, ast.Sub: lambda: x - y,
                 ast.Mult: lambda: x * y, ast.Div: lambda: x / y,
                 ast.FloorDiv: lambda: x // y, ast.Mod: lambda: x % y,
                 ast.Pow: lambda: x ** y, ast.LShift: lambda: x << y,
                 ast.RShift: lambda: x >> y, ast.BitAnd: lambda: x & y,
                 ast.BitOr: lambda: x | y,
                 ast.BitXor: lambda: x ^ y}[type(op)]()
        except KeyError:
            self.unsupported(node)
        except (ArithmeticError, TypeError, ValueError) as e:
            self.error(node, f"{ast.unparse(node)}: {e}", "constant")
        if isinstance(r, complex) or (isinstance(r, int) and r.bit_length()
                                      > 64):
            self.error(node, f"{ast.unparse(node)} has no 64-bit value",
                       "constant")
        return Val(None, None, r)

    def int_div(self, op, a, b, ty):
        """Python's floor division and modulo (the remainder has the
        divisor's sign); x // 0 and x % 0 are 0, as numpy makes them."""
        t = ty.ir
        zero = self.op(f"icmp eq {t} {b.ref}, 0")
        if ty.kind == "u":
            d = self.op(f"select i1 {zero}, {t} 1, {t} {b.ref}")
            r = self.op(f"{'udiv' if isinstance(op, ast.FloorDiv) else 'urem'}"
                        f" {t} {a.ref}, {d}")
            return Val(self.op(f"select i1 {zero}, {t} 0, {t} {r}"), ty)
        # b == -1 would overflow sdiv on the smallest value: x // -1 = -x.
        m1 = self.op(f"icmp eq {t} {b.ref}, -1")
        bad = self.op(f"or i1 {zero}, {m1}")
        d = self.op(f"select i1 {bad}, {t} 1, {t} {b.ref}")
        r = self.op(f"srem {t} {a.ref}, {d}")
        nz = self.op(f"icmp ne {t} {r}, 0")
        signs = self.op(f"xor {t} {r}, {d}")
        differ = self.op(f"icmp slt {t} {signs}, 0")
        adjust = self.op(f"and i1 {nz}, {differ}")
        if isinstance(op, ast.Mod):
            fixed = self.op(f"add {t} {r}, {d}")
            m = self.op(f"select i1 {adjust}, {t} {fixed}, {t} {r}")
            return Val(self.op(f"select i1 {bad}, {t} 0, {t} {m}"), ty)
        q = self.op(f"sdiv {t} {a.ref}, {d}")
        q1 = self.op(f"sub {t} {q}, 1")
        q = self.op(f"select i1 {adjust}, {t} {q1}, {t} {q}")
        neg = self.op(f"sub {t} 0, {a.ref}")
        q = self.op(f"select i1 {m1}, {t} {neg}, {t} {q}")
        return Val(self.op(f"select i1 {zero}, {t} 0, {t} {q}"), ty)

    def float_mod(self, a, b):
        """Python's float %: the result has the divisor's sign."""
        t = a.ty.ir
        r = self.op(f"frem {t} {a.ref}, {b.ref}")
        nz = self.op(f"fcmp one {t} {r}, 0.0")
        rneg = self.op(f"fcmp olt {t} {r}, 0.0")
        bneg = self.op(f"fcmp olt {t} {b.ref}, 0.0")
        differ = self.op(f"xor i1 {rneg}, {bneg}")
        adjust = self.op(f"and i1 {nz}, {differ}")
        fixed = self.op(f"fadd {t} {r}, {b.ref}")
        return Val(self.op(f"select i1 {adjust}, {t} {fixed}, {t} {r}"), a.ty)

    def power(self, a, b, node):
        if b.weak and isinstance(b.const, int) and 0 <= b.const <= 64:
            ty = self.unify(a, Val(None, None, 1), node)
            if ty.kind == "b":
                ty = L.i32
            base = self.convert(a, ty, node)
            mul = "fmul" if ty.is_float else "mul"
            result, n, square = None, b.const, base
            while n:
                if n & 1:
                    result = square if result is None else Val(self.op(
                        f"{mul} {ty.ir} {result.ref}, {square.ref}"), ty)
                n >>= 1
                if n:
                    square = Val(self.op(f"{mul} {ty.ir} {square.ref}, "
                                         f"{square.ref}"), ty)
            return result or self.typed_const(1, ty, node)
        ty = self.unify(a, b, node)
        if not ty.is_float:
            self.error(node, "integer ** needs a constant exponent from 0 to "
                             "64; for others convert the base to a float",
                       "integer power")
        return self.intrinsic("pow", ty, [self.convert(a, ty, node),
                                          self.convert(b, ty, node)])

    def int_operands(self, a, b, node, what):
        for v in (a, b):
            if (v.ty and v.ty.is_float) or isinstance(v.const, float):
                self.error(node, f"{what} needs integers, not floats",
                           f"{what} of a float")

    def shift(self, op, a, b, node):
        self.int_operands(a, b, node, "a shift")
        ty = _promote_int(a.ty) if a.ty else self.unify(a, b, node)
        a, b = self.convert(a, ty, node), self.convert(b, ty, node)
        t = ty.ir
        big = self.op(f"icmp uge {t} {b.ref}, {ty.bits}")
        if isinstance(op, ast.LShift):
            r = self.op(f"shl {t} {a.ref}, {b.ref}")
            over = "0"
        elif ty.kind == "i":
            r = self.op(f"ashr {t} {a.ref}, {b.ref}")
            over = self.op(f"ashr {t} {a.ref}, {ty.bits - 1}")
        else:
            r = self.op(f"lshr {t} {a.ref}, {b.ref}")
            over = "0"
        # Counts past the width give what shifting one bit at a time would.
        return Val(self.op(f"select i1 {big}, {t} {over}, {t} {r}"), ty)

    def bitwise(self, op, a, b, node):
        self.int_operands(a, b, node, "a bitwise operator")
        name = {ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}[type(op)]
        if a.ty is L.bool_ and b.ty is L.bool_:
            return Val(self.op(f"{name} i1 {a.ref}, {b.ref}"), L.bool_)
        ty = self.unify(a, b, node)
        if ty.kind == "b":
            ty = L.i32
        a, b = self.convert(a, ty, node), self.convert(b, ty, node)
        return Val(self.op(f"{name} {ty.ir} {a.ref}, {b.ref}"), ty)

    def expr_BoolOp(self, node):
        """`and`/`or` on truth values, short-circuiting (a guard such as
        `i > 0 and x[i - 1] > 0` never reads x[-1]); the result is a bool."""
        is_and = isinstance(node.op, ast.And)
        done = self.label("bool")
        incoming = []
        for k, operand in enumerate(node.values):
            v = self.truth(self.expr(operand))
            if k == len(node.values) - 1:
                incoming.append((v.ref, self.block))
                self.br(done)
                break
            nxt = self.label("rhs")
            incoming.append(("false" if is_and else "true", self.block))
            if is_and:
                self.condbr(v, nxt, done)
            else:
                self.condbr(v, done, nxt)
            self.start(nxt)
        self.start(done)
        phi = ", ".join(f"[ {v}, %{b} ]" for v, b in incoming)
        return Val(self.op(f"phi i1 {phi}"), L.bool_)

    def expr_Compare(self, node):
        left = self.expr(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            c = self.compare(op, left, right, node)
            result = c if result is None else Val(
                self.op(f"and i1 {result.ref}, {c.ref}"), L.bool_)
            left = right
        return result

    def compare(self, op, a, b, node):
        preds = {ast.Eq: ("eq", "oeq"), ast.NotEq: ("ne", "une"),
                 ast.Lt: ("lt", "olt"), ast.LtE: ("le", "ole"),
                 ast.Gt: ("gt", "ogt"), ast.GtE: ("ge", "oge")}
        if type(op) not in preds:
            self.unsupported(node, f"the comparison '{ast.unparse(node)}'")
        if a.weak and b.weak:
            r = {ast.Eq: a.const == b.const, ast.NotEq: a.const != b.const,
                 ast.Lt: a.const < b.const, ast.LtE: a.const <= b.const,
                 ast.Gt: a.const > b.const,
                 ast.GtE: a.const >= b.const}[type(op)]
            return Val("true" if r else "false", L.bool_, r)
        ty = self.unify(a, b, node)
        if not ty.is_float and ty.kind != "b" and a.ty and b.ty and \
                a.ty.kind != b.ty.kind and "b" not in (a.ty.kind, b.ty.kind):
            # Mixed signedness compares the values, not C's conversions.
            if max(a.ty.bits, b.ty.bits) == 64 and \
                    (a.ty is L.u64 or b.ty is L.u64):
                self.error(node, "comparing uint64 with a signed integer: "
                                 "convert one of them first",
                           "mixed-sign comparison")
            ty = L.i64
        if ty.kind == "b":
            ty = L.i32
        a, b = self.convert(a, ty, node), self.convert(b, ty, node)
        ipred, fpred = preds[type(op)]
        if ty.is_float:
            return Val(self.op(f"fcmp {fpred} {ty.ir} {a.ref}, {b.ref}"),
                       L.bool_)
        if ipred not in ("eq", "ne"):
            ipred = ("s" if ty.kind == "i" else "u") + ipred
        return Val(self.op(f"icmp {ipred} {ty.ir} {a.ref}, {b.ref}"), L.bool_)

    def expr_IfExp(self, node):
        cond = self.truth(self.expr(node.test))
        yes, no, done = self.label("sel"), self.label("alt"), \
            self.label("endsel")
        self.condbr(cond, yes, no)
        self.start(yes)
        a = self.expr(node.body)
        a_at, a_block = len(self.lines), self.block
        self.br(done)
        self.start(no)
        b = self.expr(node.orelse)
        ty = self.unify(a, b, node)
        b = self.convert(b, ty, node)
        b_block = self.block
        self.br(done)
        # a's conversion goes at the end of its own branch.
        saved, self.lines = self.lines, []
        self.terminated = False
        a = self.convert(a, ty, node)
        self.lines, saved = saved[:a_at] + self.lines + saved[a_at:], None
        self.terminated = True
        self.start(done)
        return Val(self.op(f"phi {ty.ir} [ {a.ref}, %{a_block} ], "
                           f"[ {b.ref}, %{b_block} ]"), ty)

    # -- calls ---------------------------------------------------------------

    def expr_Call(self, node):
        fn = self.callee(node.func)
        if node.keywords:
            self.unsupported(node, "keyword arguments in a call")
        if fn is L.parallel or fn is range:
            self.error(node, f"{ast.unparse(node.func)}() may only be the "
                             "iterable of a for loop", "iterable call")
        if fn in L.ATOMICS:
            return self.atomic(L.ATOMICS[fn], node)
        if fn is L.instance_id:
            return self.instance_id(node)
        cast = L.scalar_of(fn) if fn is not None else None
        if cast is not None:
            if len(node.args) != 1:
                self.error(node, f"{ast.unparse(node.func)}() takes one "
                                 "value", "cast")
            v = self.expr(node.args[0])
            if cast.kind == "b":
                return self.truth(v)
            return self.convert(v, cast, node)
        if fn is len:
            arg = node.args[0] if len(node.args) == 1 else None
            if not (isinstance(arg, ast.Name) and arg.id in self.arrays):
                self.error(node, "len() takes an array parameter", "len")
            return Val(self.arrays[arg.id].shape(0), L.i64)
        args = [self.expr(a) for a in node.args]
        if fn in _ABS and len(args) == 1:
            return self.absolute(args[0], node)
        if fn in _MIN_MAX and len(args) >= 2:
            return self.min_max(_MIN_MAX[fn], args, node)
        if fn in _MATH:
            return self.math(_MATH[fn], args, node)
        self.error(node, f"call to '{ast.unparse(node.func)}' is not "
                         "supported in an hpvm kernel (kernels may call math "
                         "functions, casts, abs, min, max, len and hpvm's "
                         "atomics)", "call")

    def instance_id(self, node):
        if not self.leaf_mode:
            self.error(node, "hpvm.instance_id() is for leaf functions; a "
                             "kernel's instance ids are its hpvm.parallel "
                             "loop variables", "hpvm.instance_id")
        if node.keywords or not 1 <= len(node.args) <= 2 or not all(
                isinstance(a, ast.Constant) and isinstance(a.value, int)
                for a in node.args):
            self.error(node, "hpvm.instance_id(dim[, level]) takes constant "
                             "integers", "hpvm.instance_id")
        dim = node.args[0].value
        level = node.args[1].value if len(node.args) == 2 else 0
        if not (0 <= dim < 3 and level >= 0):
            self.error(node, "hpvm.instance_id: dim is 0, 1 or 2 and level "
                             "0 (this node) or more (its ancestors)",
                       "hpvm.instance_id")
        return Val(self.op(f"call i64 @hpvm.instance.id(i32 {level}, "
                           f"i32 {dim})"), L.i64)

    def absolute(self, v, node):
        if v.weak:
            return Val(None, None, abs(v.const))
        if v.ty.is_float:
            return self.intrinsic("fabs", v.ty, [v])
        ty = _promote_int(v.ty)
        v = self.convert(v, ty, node)
        if ty.kind == "u":
            return v
        neg = self.op(f"sub {ty.ir} 0, {v.ref}")
        lt = self.op(f"icmp slt {ty.ir} {v.ref}, 0")
        return Val(self.op(f"select i1 {lt}, {ty.ir} {neg}, {ty.ir} {v.ref}"),
                   ty)

    def min_max(self, which, args, node):
        """Python's min/max: the first of equal values; a NaN compares
        false, so it wins only in the first place."""
        result = args[0]
        for v in args[1:]:
            op = ast.Lt() if which == "min" else ast.Gt()
            ty = self.unify(result, v, node)
            c = self.compare(op, v, result, node)
            a, b = self.convert(v, ty, node), self.convert(result, ty, node)
            result = Val(self.op(f"select i1 {c.ref}, {ty.ir} {a.ref}, "
                                 f"{ty.ir} {b.ref}"), ty)
        return result

    def math(self, name, args, node):
        arity = _ARITY.get(name, 1)
        if len(args) != arity:
            self.error(node, f"{name}() takes {arity} argument(s)", name)
        ty = self.unify(args[0], args[1], node) if arity == 2 else (
            args[0].ty if args[0].ty else L.f64)
        if not ty.is_float:
            ty = L.f64  # as numpy's ufuncs: integers compute in double
        args = [self.convert(a, ty, node) for a in args]
        if name in _INTRINSIC_MATH:
            return self.intrinsic(name, ty, args)
        # libm's: sinhf for floats, sinh for doubles.
        return self.call(name + ("f" if ty is L.f32 else ""), ty, args)

    def intrinsic(self, name, ty, args):
        suffix = {32: "f32", 64: "f64", 16: "f16"}[ty.bits]
        return self.call(f"llvm.{name}.{suffix}", ty, args)

    def call(self, callee, ty, args):
        """A call of callee, which takes args (all of type ty) and returns
        ty; declared once per module."""
        params = ", ".join([ty.ir] * len(args))
        self.declarations.setdefault(
            callee, f"declare {ty.ir} @{callee}({params})")
        call_args = ", ".join(f"{ty.ir} {a.ref}" for a in args)
        return Val(self.op(f"call {ty.ir} @{callee}({call_args})"), ty)

    def atomic(self, op, node):
        if len(node.args) != 3:
            self.error(node, f"atomic_{op}(array, index, value) takes three "
                             "arguments", "atomic")
        target = ast.Subscript(value=node.args[0], slice=node.args[1],
                               ctx=ast.Store())
        ast.copy_location(target, node)
        if not (isinstance(node.args[0], ast.Name)
                and node.args[0].id in self.arrays):
            self.error(node, f"atomic_{op}'s first argument must be an array "
                             "parameter", "atomic")
        arr, ptr = self.element(target, store=True)
        ty = arr.spec.dtype
        if ty.kind == "b":
            self.error(node, "atomics on bool arrays are not supported",
                       "atomic")
        in_bounds = self.in_bounds
        value = self.convert(self.expr(node.args[2]), ty, node)
        self.in_bounds = in_bounds  # the value's own indexing is done
        if ty.is_float:
            if op not in ("add", "sub", "min", "max"):
                self.error(node, f"atomic_{op} needs an integer array",
                           "atomic")
            rmw = {"add": "fadd", "sub": "fsub", "min": "fmin",
                   "max": "fmax"}[op]
        else:
            rmw = op
            if op in ("min", "max") and ty.kind == "u":
                rmw = "u" + op
        return self.guarded(node, lambda: Val(self.op(
            f"atomicrmw {rmw} ptr {ptr}, {ty.ir} {value.ref} monotonic"), ty))


def translate(fn, name=None, boundscheck=False):
    """(IR text, [(param, Scalar | Array)], core parameter list) of the
    kernel fn. With boundscheck, the last two core parameters are the
    out-of-bounds slot (an int32 array of one element, 0 before the call;
    the line of an out-of-bounds access after) and its length."""
    t = Translator(fn, name or fn.__name__, boundscheck=boundscheck)
    ir, signature = t.translate()
    return ir, signature, t.params


def translate_leaf(fn, symbol, extra_params=()):
    """(IR text, [(param, Scalar | Array)], result Scalar or None) of fn as
    the leaf function `symbol` of a graph-form node (graph.py)."""
    t = Translator(fn, fn.__name__, leaf_mode=True)
    ir, signature = t.translate_leaf(symbol, list(extra_params))
    return ir, signature, t.result
