"""Building dataflow graphs in Python: the model of docs/ir.md §1 (nodes,
replication, parameters, bindings, edges) with leaves written as Python
leaf functions (``@hpvm.leaf``), compiled for every target and launched
through hpvm-rt. The builder writes the graph text format (docs/runtime.md
§2); the native core verifies it (rule names as in docs/ir.md), attaches
it to the leaf functions' module and compiles that like any graph-form
module.
"""

import shutil
import subprocess
import threading

from . import _hpvm
from . import frontend
from . import lang as L
from ._targets import cache_dir, target_mask


class GraphVerifyError(_hpvm.CompileError):
    """A built graph breaks a rule of the graph model. ``rule`` is the first
    broken rule's name (docs/ir.md §1.1), ``problems`` every one as
    (rule, node, message)."""

    def __init__(self, problems):
        self.problems = list(problems)
        self.rule = self.problems[0][0]
        super().__init__("\n".join(
            f"[{rule}] {where + ': ' if where else ''}{message}"
            for rule, where, message in self.problems))


class LeafFunction:
    """A Python function that is one instance of a leaf node
    (``@hpvm.leaf``): its parameters become the node's (an array ``x`` also
    gives an i64 parameter ``x.bytes``, its size in the graph), its instance
    ids come from ``hpvm.instance_id(dim)``, and an annotated result is the
    node's one output. Compiled when a graph using it is."""

    def __init__(self, fn):
        self.py_func = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def signature(self):
        """[(parameter, Scalar | Array)] and the result's Scalar or None,
        read without compiling."""
        _, signature, result = frontend.translate_leaf(self.py_func, "probe")
        return signature, result

    def __repr__(self):
        return f"<hpvm.leaf {self.__name__}>"


def leaf(fn):
    """Decorates a leaf function for GraphBuilder.leaf()."""
    if not callable(fn):
        raise TypeError(f"hpvm.leaf decorates functions, not "
                        f"{type(fn).__name__}")
    return LeafFunction(fn)


def _graph_type(scalar):
    """The graph model's type of a scalar: signless integers (i1 for bool)
    and floats by their width."""
    return ("f" if scalar.is_float else "i") + str(scalar.bits)


def _quote(name):
    out = []
    for ch in name.encode():
        c = chr(ch)
        if c in '\\"':
            out.append("\\" + c)
        elif 32 <= ch < 127:
            out.append(c)
        else:
            out.append(f"\\x{ch:02X}")
    return '"' + "".join(out) + '"'


class _Param:
    __slots__ = ("name", "kind", "type", "mode", "bytes", "dtype")

    def __init__(self, name, kind, type_=None, mode=None, bytes_=None,
                 dtype=None):
        self.name, self.kind, self.type = name, kind, type_
        self.mode, self.bytes, self.dtype = mode, bytes_, dtype


class Node:
    """A node of a graph being built: internal (children, edges, bindings)
    or a leaf (a leaf function). Parameters are referred to by name."""

    def __init__(self, kind, name, parent=None, function=None):
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(f"node names are non-empty and have no '/': "
                             f"{name!r}")
        self.kind, self.name, self.parent = kind, name, parent
        self.function = function
        self.params = []
        self.outputs = []
        self.dims = []
        self.sequential = False
        self.targets = None
        self.children = []
        self.edges = []
        self.bindings = []  # (child, child param, ("param", i) | ("int"|"float", v))

    # -- interface -----------------------------------------------------------

    def _index(self, name):
        for i, p in enumerate(self.params):
            if p.name == name:
                return i
        return None

    def _add(self, param):
        if self._index(param.name) is not None:
            raise ValueError(f"node '{self.path}' already has a parameter "
                             f"'{param.name}'")
        self.params.append(param)
        return len(self.params) - 1

    def buffer(self, name, mode, dtype=L.u8):
        """Adds a buffer parameter (mode "in", "out" or "inout") of elements
        of dtype, and the i64 value parameter `<name>.bytes`, its byte size
        (filled in from the array when the graph is called)."""
        if mode not in ("in", "out", "inout"):
            raise ValueError(f"buffer mode must be 'in', 'out' or 'inout', "
                             f"not {mode!r}")
        scalar = L.scalar_of(dtype)
        if scalar is None:
            raise TypeError(f"buffer '{name}': {dtype!r} is not a scalar type")
        index = self._add(_Param(name, "buffer", mode=mode, dtype=scalar))
        self._add(_Param(name + ".bytes", "value", type_=L.i64))
        self.params[index].bytes = name + ".bytes"
        return self

    def value(self, name, type_=L.i64):
        """Adds a value parameter of a scalar type."""
        scalar = L.scalar_of(type_)
        if scalar is None:
            raise TypeError(f"value '{name}': {type_!r} is not a scalar type")
        self._add(_Param(name, "value", type_=scalar))
        return self

    def output(self, name, type_):
        """Adds an output (internal nodes: bind it with bind_output)."""
        scalar = L.scalar_of(type_)
        if scalar is None:
            raise TypeError(f"output '{name}': {type_!r} is not a scalar type")
        self.outputs.append((name, scalar))
        return self

    def replicate(self, *extents):
        """1-3 extents, outermost first: constants or names of this node's
        integer value parameters (added as i64 if missing)."""
        if not 1 <= len(extents) <= 3:
            raise ValueError("a node has 1 to 3 dimensions")
        dims = []
        for e in extents:
            if isinstance(e, int) and not isinstance(e, bool):
                if e < 0:
                    raise ValueError(f"extent {e} is negative")
                dims.append(e)
            elif isinstance(e, str):
                if self._index(e) is None:
                    self.value(e, L.i64)
                dims.append(e)
            else:
                raise TypeError(f"an extent is an int or a parameter name, "
                                f"not {e!r}")
        self.dims = dims
        return self

    def in_order(self):
        """The instances of this replicated internal node run one after
        another, each child graph finished before the next starts: a
        time-step loop around the children (docs/ir.md, `sequential`)."""
        if self.kind != "internal":
            raise ValueError(f"leaf '{self.path}' cannot run in order: only "
                             f"an internal node's instances can")
        self.sequential = True
        return self

    def on(self, *targets):
        """Restricts the targets this node may run on (cpu, nvptx, spirv)."""
        target_mask(list(targets))
        self.targets = list(targets)
        return self

    # -- children ------------------------------------------------------------

    def _child(self, node, dims, bind):
        if self.kind != "internal":
            raise ValueError(f"leaf '{self.path}' cannot have children")
        if any(c.name == node.name for c in self.children):
            raise ValueError(f"node '{self.path}' already has a child "
                             f"'{node.name}'")
        self.children.append(node)
        if dims:
            node.replicate(*dims)
        for child_param, source in bind.items():
            self.bind(node, child_param, source)
        return node

    def internal(self, name, dims=(), **bind):
        """Adds an internal child; declare its parameters, then its
        children. bind: as for leaf()."""
        return self._child(Node("internal", name, self), dims, bind)

    def leaf(self, name, function, dims=(), **bind):
        """Adds a leaf running function (an hpvm.leaf) in each instance,
        replicated over dims. Its parameters are the function's, then
        `<array>.bytes` per array, then dims' names it lacks. bind maps a
        child parameter to a parameter name of this node or a constant;
        binding an array binds its `.bytes` too; parameters left unbound
        take this node's parameter of the same name when build() runs."""
        if not isinstance(function, LeafFunction):
            raise TypeError(f"leaf '{name}': the function must be decorated "
                            f"with @hpvm.leaf, got {function!r}")
        node = Node("leaf", name, self, function)
        signature, result = function.signature()
        # The leaf function's order: its parameters as written, then the
        # arrays' byte sizes, then extents it lacks (replicate()).
        for pname, spec in signature:
            if isinstance(spec, L.Array):
                node._add(_Param(pname, "buffer", mode=spec.mode,
                                 dtype=spec.dtype, bytes_=pname + ".bytes"))
            else:
                node._add(_Param(pname, "value", type_=spec))
        for pname, spec in signature:
            if isinstance(spec, L.Array):
                node._add(_Param(pname + ".bytes", "value", type_=L.i64))
        node._signature = signature
        if result is not None:
            node.outputs.append(("result", result))
        return self._child(node, dims, bind)

    def bind(self, child, child_param, source):
        """Binds child's parameter child_param to this node's parameter
        named source, or to a constant (int or float)."""
        index = child._index(child_param)
        if index is None:
            raise ValueError(f"node '{child.path}' has no parameter "
                             f"'{child_param}'")
        cp = child.params[index]
        if isinstance(source, str):
            parent = self._index(source)
            if parent is None:
                raise ValueError(f"node '{self.path}' has no parameter "
                                 f"'{source}' to bind '{child_param}' of "
                                 f"'{child.name}' to")
            self.bindings.append((child, index, ("param", parent)))
            pp = self.params[parent]
            if cp.kind == "buffer" and pp.kind == "buffer" and \
                    child._index(cp.bytes) is not None and \
                    not self._bound(child, child._index(cp.bytes)):
                self.bindings.append((child, child._index(cp.bytes),
                                      ("param", self._index(pp.bytes))))
        elif isinstance(source, bool) or not isinstance(source, (int, float)):
            raise TypeError(f"bind '{child_param}' of '{child.name}' to a "
                            f"parameter name or a number, not {source!r}")
        else:
            kind = "float" if isinstance(source, float) else "int"
            self.bindings.append((child, index, (kind, source)))
        return self

    def _bound(self, child, index):
        return any(c is child and i == index for c, i, _ in self.bindings)

    def edge(self, src, dst):
        """A dependency edge: dst starts after src has finished."""
        self._check_children(src, dst)
        self.edges.append(("dep", src, dst))
        return self

    def value_edge(self, src, dst, param):
        """src's output (its leaf function's result) becomes dst's value
        parameter param."""
        self._check_children(src, dst)
        index = dst._index(param)
        if index is None:
            raise ValueError(f"node '{dst.path}' has no parameter '{param}'")
        if not src.outputs:
            raise ValueError(f"node '{src.path}' has no output (annotate its "
                             "leaf function's result)")
        self.edges.append(("value", src, dst, index))
        return self

    def _check_children(self, *nodes):
        for n in nodes:
            if not isinstance(n, Node) or n.parent is not self:
                raise ValueError(f"{n!r} is not a child of '{self.path}'")

    @property
    def path(self):
        return self.name if self.parent is None else \
            f"{self.parent.path}/{self.name}"

    def __repr__(self):
        return f"<hpvm graph node {self.kind} '{self.path}'>"

    # -- text ----------------------------------------------------------------

    def _complete(self):
        """Binds each child parameter left unbound to the parameter of the
        same name here, and value-edge targets stay unbound."""
        for child in self.children:
            fed = {e[3] for e in self.edges if e[0] == "value" and
                   e[2] is child}
            for i, p in enumerate(child.params):
                if self._bound(child, i) or i in fed:
                    continue
                parent = self._index(p.name)
                if parent is not None:
                    self.bindings.append((child, i, ("param", parent)))
            child._complete()

    def _text(self, out, indent, symbols):
        pad = "  " * indent
        if self.kind == "leaf":
            out.append(f"{pad}function {_quote(symbols[id(self)])}")
        if self.dims:
            dims = [str(d) if isinstance(d, int) else f"p{self._index(d)}"
                    for d in self.dims]
            out.append(f"{pad}dims {' '.join(dims)}")
        if self.sequential:
            out.append(f"{pad}sequential")
        if self.targets is not None:
            out.append(f"{pad}targets {','.join(self.targets)}")
        for p in self.params:
            if p.kind == "buffer":
                out.append(f"{pad}param buffer {_quote(p.name)} {p.mode} "
                           f"p{self._index(p.bytes)}")
            else:
                out.append(f"{pad}param value {_quote(p.name)} "
                           f"{_graph_type(p.type)}")
        for name, scalar in self.outputs:
            out.append(f"{pad}output {_quote(name)} {_graph_type(scalar)}")
        for child in self.children:
            out.append(f"{pad}node {child.kind} {_quote(child.name)}")
            child._text(out, indent + 1, symbols)
            out.append(f"{pad}end")
        index = {id(c): i for i, c in enumerate(self.children)}
        for e in self.edges:
            if e[0] == "dep":
                out.append(f"{pad}edge dep {index[id(e[1])]} "
                           f"{index[id(e[2])]}")
            else:
                out.append(f"{pad}edge value {index[id(e[1])]} 0 "
                           f"{index[id(e[2])]} {e[3]}")
        for child, i, (kind, v) in self.bindings:
            where = f"{pad}bind {index[id(child)]} {i}"
            if kind == "param":
                out.append(f"{where} param {v}")
            elif kind == "int":
                out.append(f"{where} int {v}")
            else:
                out.append(f"{where} float {v!r}")

    def _leaves(self):
        if self.kind == "leaf":
            yield self
        for c in self.children:
            yield from c._leaves()


class GraphBuilder(Node):
    """A dataflow graph built in Python; its root is an internal node.

        g = hpvm.GraphBuilder("pipeline")
        g.buffer("img", "in", hpvm.f32).buffer("out", "out", hpvm.f32)
        g.value("n")
        a = g.leaf("scale", scale, dims=["n"], x="img", y="tmp")
        ...
        g.verify(); run = g.compile(); run(img=..., out=..., n=...)

    docs/python.md has the whole walk-through."""

    def __init__(self, name):
        super().__init__("internal", name)

    def text(self):
        """The graph in the text form of docs/runtime.md §2."""
        self._complete()
        symbols = {id(n): f"hpvm.py.leaf.{self.name}.{k}"
                   for k, n in enumerate(self._leaves())}
        out = ["hpvm-graphs 1", f"graph internal {_quote(self.name)}"]
        self._text(out, 1, symbols)
        out.append("end")
        return "\n".join(out) + "\n", symbols

    def verify(self):
        """Raises GraphVerifyError (with the rule's name) if the graph is
        not well formed."""
        problems = _hpvm.verify_graph_text(self.text()[0])
        if problems:
            raise GraphVerifyError(problems)
        return self

    def to_dot(self):
        """The graph in Graphviz DOT (verified first)."""
        self.verify()
        return _hpvm.dot_from_text(self.text()[0])

    def _repr_svg_(self):
        return _render(self.to_dot(), "svg")

    def compile(self, targets="all"):
        """Compiles every leaf function for targets and returns a callable
        CompiledGraph."""
        self.verify()
        text, symbols = self.text()
        ir = []
        for node in self._leaves():
            arrays = sum(isinstance(spec, L.Array)
                         for _, spec in node._signature)
            extra = [p.name for p in
                     node.params[len(node._signature) + arrays:]]
            module, _, _ = frontend.translate_leaf(
                node.function.py_func, symbols[id(node)], extra)
            ir.append(module)
        native = _hpvm.compile_graph(_merge_modules(ir), text,
                                     f"graph {self.name}", target_mask(targets),
                                     cache_dir())
        return CompiledGraph(self, native)


def _merge_modules(modules):
    """One module from the leaf modules: the same declarations once."""
    seen, out = set(), []
    for m in modules:
        for line in m.splitlines():
            if line.startswith("declare ") or line.startswith("@.hpvm.name"):
                if line in seen:
                    continue
                seen.add(line)
            out.append(line)
    return "\n".join(out) + "\n"


def _render(dot, fmt):
    exe = shutil.which("dot")
    if exe is None:
        return None  # notebooks fall back to the text repr
    return subprocess.run([exe, f"-T{fmt}"], input=dot.encode(),
                          capture_output=True, check=True).stdout.decode()


class CompiledGraph:
    """A built graph compiled and loaded. Call it with the root's
    parameters by name or in order (arrays for buffers; the `.bytes`
    parameters are filled in from the arrays). ``run``/``submit`` take
    launch options as Python kernels do."""

    def __init__(self, builder, native):
        self._native = native
        self.name = builder.name
        self._params = builder.params
        self.graph = native.graphs[0]
        self.from_cache = native.from_cache
        self._pointees = [p.dtype.name if p.kind == "buffer" else ""
                          for p in builder.params]
        self._lock = threading.Lock()

    @property
    def parameters(self):
        """The names the call takes, in order."""
        sized = {p.bytes for p in self._params if p.kind == "buffer"}
        return [p.name for p in self._params if p.name not in sized]

    def __call__(self, *args, **kwargs):
        names = self.parameters
        if len(args) > len(names):
            raise TypeError(f"graph '{self.name}' takes {len(names)} "
                            f"arguments, {len(args)} were given")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"graph '{self.name}' has no parameter "
                                f"'{k}' (parameters: {', '.join(names)})")
            if k in given:
                raise TypeError(f"graph '{self.name}' got two values for "
                                f"'{k}'")
            given[k] = v
        missing = [n for n in names if n not in given]
        if missing:
            raise TypeError(f"graph '{self.name}' is missing "
                            f"{', '.join(repr(m) for m in missing)}")
        values = []
        for p in self._params:
            if p.name in given:
                values.append(given[p.name])
            else:  # a buffer's byte size
                owner = p.name[:-len(".bytes")]
                try:
                    values.append(memoryview(given[owner]).nbytes)
                except TypeError:
                    values.append(0)  # the launch reports the argument
        self._native.launch(self.name, values, self._pointees)

    def run(self, *args, devices=None, scheduler=None, strict=False,
            **kwargs):
        from .launch import launch_options
        with launch_options(devices, scheduler, strict):
            return self(*args, **kwargs)

    def submit(self, *args, devices=None, scheduler=None, strict=False,
               **kwargs):
        from .launch import submit
        return submit(self, *args, devices=devices, scheduler=scheduler,
                      strict=strict, **kwargs)

    def __repr__(self):
        return f"<hpvm.CompiledGraph '{self.name}' ({', '.join(self.parameters)})>"


def load_ll(path, targets="all"):
    """Loads a graph-form LLVM module from a file and compiles its leaves;
    a Program whose graphs ``launch`` runs."""
    import os
    path = os.fspath(path)
    with open(path, encoding="utf-8") as f:
        ir = f.read()
    from .program import Program
    return Program(_hpvm.compile_graph(ir, "", path, target_mask(targets)))
