#!/usr/bin/env python3
"""Random HPVM kernels in C, for differential testing of the backends.

generate(seed, kernels) writes one C program with `kernels` random kernels
(test/random/README.md). Each kernel is one graph: a `parallel for` leaf over
one or two dimensions, or now and then a task with two such leaves that pass
a buffer between them. Their bodies are random structured control flow (if,
for, while, do-while, switch with fall-through, break, continue that ends
the instance, helper functions that return from inside loops) over random
integer (8-64 bits, signed and unsigned) and float/double arithmetic, loads
from input buffers at computed in-bounds indices, private arrays, constant
tables and atomics.

Nothing in a kernel has undefined behaviour, by construction: integer
arithmetic that can wrap is done in unsigned types, shift amounts are
masked, division goes through helpers that avoid x/0 and MIN/-1, conversions
from floating point are range-checked, indices are reduced modulo the
buffer length, every local is initialised and every loop has a constant
bound on its trip count.

Floating-point values are of two kinds, so that results can be compared
between devices whose float arithmetic may legitimately differ:

* exact: computed only with what IEEE 754 and Vulkan both require to be
  correctly rounded or exact (+, -, *, conversions, fabs, floor, ceil,
  trunc, rint, round, fmin, fmax, copysign, ldexp, comparisons, select).
  Every device must agree on them bit for bit (up to the sign of zero and
  NaN payloads), so they may flow into comparisons, branches and
  conversions to integers.
* approximate: the result of a division, sqrt, fma or a transcendental
  function (Vulkan allows ULPs of error, or contraction, there). Such values
  are only stored to outputs and combined in ways that keep the error small
  (scaling by small constants, fmin/fmax/fabs, select); they never reach a
  comparison or an integer, so an error cannot flip a branch. Outputs that
  can hold them are compared with a tolerance.

Inputs are dyadic values on a 1/16 grid in [-64, 64] plus some large values,
zeros, infinities and NaNs, so exact arithmetic stays far from the subnormal
range that Vulkan devices may flush.

The program fills its inputs from a PRNG seeded by the program's seed, runs
every kernel once and writes every output buffer (whole, so that stray
writes past an instance's slots show) to the file named by argv[1]. The
metadata (kernels, node paths, buffers, tolerances) is returned as a dict
for check_random.py.

Every kernel draws from its own random stream (seed, kernel index), and the
shared helpers and tables from one of their own, so `only` can regenerate a
single kernel of a program exactly as it was.
"""

import random

# --- types --------------------------------------------------------------------


class Ty:
    def __init__(self, key, c, bits, signed, is_float):
        self.key = key
        self.c = c
        self.bits = bits
        self.signed = signed
        self.is_float = is_float

    @property
    def size(self):
        return self.bits // 8

    @property
    def ut(self):
        """The unsigned type wrap-around arithmetic on this type is done in."""
        return "uint64_t" if self.bits == 64 else "uint32_t"

    def __repr__(self):
        return self.key


I8 = Ty("i8", "int8_t", 8, True, False)
U8 = Ty("u8", "uint8_t", 8, False, False)
I16 = Ty("i16", "int16_t", 16, True, False)
U16 = Ty("u16", "uint16_t", 16, False, False)
I32 = Ty("i32", "int32_t", 32, True, False)
U32 = Ty("u32", "uint32_t", 32, False, False)
I64 = Ty("i64", "int64_t", 64, True, False)
U64 = Ty("u64", "uint64_t", 64, False, False)
F32 = Ty("f32", "float", 32, True, True)
F64 = Ty("f64", "double", 64, True, True)
INTS = [I8, U8, I16, U16, I32, U32, I64, U64]
FLOATS = [F32, F64]
TYPES = INTS + FLOATS
BY_KEY = {t.key: t for t in TYPES}

# Elements of every input (pool) array; a power of two.
POOL = 1024
# Input arrays per type.
POOLS_PER_TYPE = 2
# Most instances of a kernel (product of its dims); output buffers are sized
# for it, whatever the kernel's own extents are.
MAXN = 320


def fsuf(t):
    """The libm suffix of a float type."""
    return "f" if t is F32 else ""


def flit(t, v):
    """A literal of float type t for the (dyadic) value v."""
    s = repr(float(v))
    if "e" not in s and "." not in s and "inf" not in s:
        s += ".0"
    s += "f" if t is F32 else ""
    return "(%s)" % s if s.startswith("-") else s


def ilit(t, v):
    """A literal of integer type t with value v (in its range)."""
    if t.bits == 64:
        if t.signed:
            if v == -(1 << 63):
                return "INT64_MIN"
            return "INT64_C(%d)" % v
        return "UINT64_C(%d)" % v
    if t.signed:
        if v == -(1 << 31):
            return "((int32_t)INT32_MIN)" if t is I32 else "(%s)(%d)" % (t.c, v)
        return "(%s)(%d)" % (t.c, v) if v < 0 else "(%s)%d" % (t.c, v)
    return "(%s)%du" % (t.c, v)


def int_range(t):
    if t.signed:
        return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    return 0, (1 << t.bits) - 1


def rand_int(rng, t):
    """A value of type t, biased towards edges and small numbers."""
    lo, hi = int_range(t)
    r = rng.random()
    if r < 0.15:
        return rng.choice([v for v in (0, 1, -1, lo, hi, lo + 1, hi - 1) if lo <= v <= hi])
    if r < 0.5:
        return max(lo, min(hi, rng.randint(-20, 20)))
    return rng.randint(lo, hi)


def rand_dyadic(rng, lo=-64.0, hi=64.0):
    """A multiple of 1/16 in [lo, hi]."""
    return rng.randint(int(lo * 16), int(hi * 16)) / 16.0


# --- expressions ------------------------------------------------------------


class Expr:
    __slots__ = ("code", "approx")

    def __init__(self, code, approx=False):
        self.code = code
        self.approx = approx


class Var:
    def __init__(self, name, ty, approx=False, mutable=True):
        self.name = name
        self.ty = ty
        self.approx = approx
        self.mutable = mutable


class Arr:
    """A private array in a kernel or helper (indexed at run time)."""

    def __init__(self, name, ty, n):
        self.name = name
        self.ty = ty
        self.n = n


class Buf:
    """A buffer parameter of a kernel.

    kind: 'in' (a pool array, read at any index), 'out' (written in the
    instance's own slots), 'inout' (read and written in its own slots),
    'atomic' (updated with atomics at any index), 'tmp' (written by the first
    stage of a two-stage kernel in its own slot, read by the second at any
    index)."""

    def __init__(self, name, ty, kind, slots=1, count=POOL, approx=False):
        self.name = name
        self.ty = ty
        self.kind = kind
        self.slots = slots
        self.count = count
        self.approx = approx


class Helper:
    def __init__(self, name, params, ret):
        self.name = name
        self.params = params  # list of Ty
        self.ret = ret


class Ctx:
    """Where a statement is being generated."""

    def __init__(self, in_helper=False, ret=None):
        self.loops = 0  # enclosing loops (inside the instance)
        self.breakable = 0  # enclosing loops and switches
        self.in_helper = in_helper
        self.ret = ret  # a helper's return type


class Gen:
    """Generates one function body (a kernel stage or a helper)."""

    def __init__(self, rng, prog, bufs=(), helpers=(), scalars=(), ids=()):
        self.rng = rng
        self.prog = prog
        self.bufs = list(bufs)
        self.helpers = list(helpers)
        self.scopes = [list(scalars) + list(ids)]
        self.arrays = []
        self.counter = 0

    # -- names and scopes
    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def vars(self, pred=lambda v: True):
        return [v for s in self.scopes for v in s if pred(v)]

    def declare(self, v):
        self.scopes[-1].append(v)

    # -- small pieces
    def pick(self, weighted):
        """weighted: list of (weight, value) -> value."""
        total = sum(w for w, _ in weighted)
        r = self.rng.random() * total
        for w, v in weighted:
            r -= w
            if r < 0:
                return v
        return weighted[-1][1]

    def index(self, count, depth):
        """An in-bounds index for an array of `count` elements."""
        e = self.expr(self.rng.choice([I32, U32, I64, U16, U8]), min(depth, 1))
        if count & (count - 1) == 0:
            return "((uint32_t)(%s) & %du)" % (e.code, count - 1)
        return "((uint32_t)(%s) %% %du)" % (e.code, count)

    def slot(self, buf, depth):
        """An element of the instance's own slots of buf."""
        if buf.slots == 1:
            return "gid"
        if self.rng.random() < 0.6:
            k = self.rng.randrange(buf.slots)
            return "gid * %d + %d" % (buf.slots, k)
        e = self.expr(self.rng.choice([I32, U32, U8]), depth)
        return "gid * %d + (long)((uint32_t)(%s) %% %du)" % (buf.slots, e.code, buf.slots)

    def cond(self, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            t = rng.choice(TYPES)
            a = self.expr(t, depth - 1)
            b = self.expr(t, depth - 1)
            op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
            return "(%s %s %s)" % (a.code, op, b.code)
        r = rng.random()
        if r < 0.45:
            t = rng.choice(TYPES)
            a = self.expr(t, depth - 1)
            b = self.expr(t, depth - 1)
            op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
            return "(%s %s %s)" % (a.code, op, b.code)
        if r < 0.6:
            return "(%s %s %s)" % (self.cond(depth - 1), rng.choice(["&&", "||"]),
                                   self.cond(depth - 1))
        if r < 0.7:
            return "(!%s)" % self.cond(depth - 1)
        if r < 0.85:
            t = rng.choice(INTS)
            return "((%s) & %s)" % (self.expr(t, depth - 1).code,
                                    ilit(t, rng.choice([1, 2, 3, 4, 7])))
        if r < 0.92:
            t = rng.choice(FLOATS)
            return "(__builtin_isnan(%s))" % self.expr(t, depth - 1).code
        t = rng.choice(INTS)
        return "(%s)" % self.expr(t, depth - 1).code

    # -- integer expressions
    def leaf(self, t, approx_ok=False):
        rng = self.rng
        choices = []
        same = self.vars(lambda v: v.ty is t and (approx_ok or not v.approx))
        if same:
            choices.append((6, lambda: Expr(rng.choice(same).name,
                                             False)))
        other = self.vars(lambda v: not v.ty.is_float and not v.approx)
        if other and not t.is_float:
            choices.append((2, lambda: Expr("(%s)%s" % (t.c, rng.choice(other).name))))
        ins = [b for b in self.bufs if b.kind == "in" and b.ty.is_float == t.is_float]
        if ins:
            choices.append((5, lambda: self.load(t, rng.choice(ins))))
        own = [b for b in self.bufs if b.kind == "inout" and b.ty is t
               and (approx_ok or not b.approx)]
        if own:
            choices.append((2, lambda: Expr("%s[%s]" % (own[0].name, self.slot(own[0], 0)),
                                            own[0].approx)))
        arrs = [a for a in self.arrays if a.ty is t]
        if arrs:
            a = rng.choice(arrs)
            choices.append((2, lambda: Expr("%s[%s]" % (a.name, self.index(a.n, 0)))))
        choices.append((3, lambda: self.const(t)))
        return self.pick(choices)()

    def load(self, t, buf):
        e = "%s[%s]" % (buf.name, self.index(buf.count, 1) if self.rng.random() < 0.8
                        else "(uint32_t)gid")
        if buf.ty is t:
            return Expr(e)
        if t.is_float:
            return Expr("(%s)%s" % (t.c, e))
        return Expr("(%s)%s" % (t.c, e))

    def const(self, t):
        if t.is_float:
            v = rand_dyadic(self.rng, -8, 8) if self.rng.random() < 0.8 else \
                self.rng.choice([0.0, 1.0, -1.0, 0.5, 1024.0, 65536.0, 1e10])
            return Expr(flit(t, v))
        return Expr(ilit(t, rand_int(self.rng, t)))

    def expr(self, t, depth, approx_ok=False):
        if t.is_float:
            return self.fexpr(t, depth, approx_ok)
        return self.iexpr(t, depth)

    def iexpr(self, t, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.2:
            return self.leaf(t)
        d = depth - 1
        ut = t.ut
        w = t.bits - 1
        k = rng.random()
        sub = lambda: self.iexpr(t, d)
        if k < 0.22:
            op = rng.choice(["+", "-", "*"])
            return Expr("(%s)((%s)%s %s (%s)%s)" % (t.c, ut, sub().code, op, ut, sub().code))
        if k < 0.32:
            op = rng.choice(["&", "|", "^"])
            return Expr("(%s)(%s %s %s)" % (t.c, sub().code, op, sub().code))
        if k < 0.36:
            return Expr("(%s)~%s" % (t.c, sub().code))
        if k < 0.39:
            return Expr("(%s)(0u - (%s)%s)" % (t.c, ut, sub().code))
        if k < 0.44:
            amount = "((uint32_t)(%s) & %du)" % (self.iexpr(rng.choice(INTS), d).code, w)
            return Expr("(%s)((%s)%s << %s)" % (t.c, ut, sub().code, amount))
        if k < 0.49:
            amount = "((uint32_t)(%s) & %du)" % (self.iexpr(rng.choice(INTS), d).code, w)
            if t.signed:
                return Expr("(%s)(%s >> %s)" % (t.c, sub().code, amount))
            return Expr("(%s)((%s)%s >> %s)" % (t.c, ut, sub().code, amount))
        if k < 0.54:
            self.prog.need.add(("div", t))
            f = rng.choice(["hdiv", "hrem"])
            return Expr("%s_%s(%s, %s)" % (f, t.key, sub().code, sub().code))
        if k < 0.58:
            self.prog.need.add(("minmax", t))
            f = rng.choice(["hmin", "hmax"] + (["habs"] if t.signed else []))
            if f == "habs":
                return Expr("habs_%s(%s)" % (t.key, sub().code))
            return Expr("%s_%s(%s, %s)" % (f, t.key, sub().code, sub().code))
        if k < 0.64:
            return Expr("(%s ? %s : %s)" % (self.cond(d), sub().code, sub().code))
        if k < 0.67:
            return Expr("(%s)%s" % (t.c, self.cond(d)))
        if k < 0.74:
            u = rng.choice([x for x in INTS if x is not t])
            return Expr("(%s)%s" % (t.c, self.iexpr(u, d).code))
        if k < 0.79:
            f = rng.choice(FLOATS)
            self.prog.need.add(("f2i", t, f))
            return Expr("f2i_%s_%s(%s)" % (t.key, f.key, self.fexpr(f, d).code))
        if k < 0.85:
            a = sub().code
            if t.bits == 64:
                f = rng.choice([
                    "__builtin_popcountll((uint64_t)(%s))",
                    "__builtin_clzll((uint64_t)(%s) | 1u)",
                    "__builtin_ctzll((uint64_t)(%s) | UINT64_C(0x8000000000000000))",
                    "__builtin_bswap64((uint64_t)(%s))"])
            else:
                f = rng.choice([
                    "__builtin_popcount((uint32_t)(%s))",
                    "__builtin_clz((uint32_t)(%s) | 1u)",
                    "__builtin_ctz((uint32_t)(%s) | 0x80000000u)",
                    "__builtin_bswap32((uint32_t)(%s))"])
            return Expr("(%s)%s" % (t.c, f % a))
        if k < 0.88:
            self.prog.need.add(("rot",))
            bits = 64 if t.bits == 64 else 32
            return Expr("(%s)hrotl%d((%s)%s, (uint32_t)%s)" % (
                t.c, bits, "uint64_t" if bits == 64 else "uint32_t", sub().code,
                self.iexpr(rng.choice(INTS), d).code))
        if k < 0.92 and self.prog.tables:
            tab = rng.choice(self.prog.tables)
            return Expr("(%s)%s[%s]" % (t.c, tab.name, self.index(tab.n, d)))
        if k < 0.97 and self.helpers:
            return self.call(t, d)
        return self.leaf(t)

    def call(self, t, d):
        h = self.rng.choice(self.helpers)
        args = ", ".join(self.expr(p, d).code for p in h.params)
        if h.ret.is_float and not t.is_float:
            self.prog.need.add(("f2i", t, h.ret))
            return Expr("f2i_%s_%s(%s(%s))" % (t.key, h.ret.key, h.name, args))
        return Expr("(%s)%s(%s)" % (t.c, h.name, args))

    # -- floating-point expressions
    def fexpr(self, t, depth, approx_ok=False):
        """An exact expression, or with approx_ok one that may be approximate
        (see the module comment)."""
        rng = self.rng
        if approx_ok and depth > 0 and rng.random() < 0.45:
            return self.approx(t, depth - 1)
        if depth <= 0 or rng.random() < 0.2:
            return self.leaf(t)
        d = depth - 1
        s = fsuf(t)
        sub = lambda: self.fexpr(t, d)
        k = rng.random()
        if k < 0.3:
            return Expr("(%s %s %s)" % (sub().code, rng.choice("+-*"), sub().code))
        if k < 0.34:
            return Expr("(-(%s))" % sub().code)
        if k < 0.45:
            f = rng.choice(["fabs", "floor", "ceil", "trunc", "rint", "round"])
            return Expr("%s%s(%s)" % (f, s, sub().code))
        if k < 0.53:
            return Expr("%s%s(%s, %s)" % (rng.choice(["fmin", "fmax"]), s, sub().code,
                                          sub().code))
        if k < 0.56:
            return Expr("copysign%s(%s, (%s)%s)" % (s, sub().code, t.c,
                                                    self.iexpr(rng.choice(INTS), d).code))
        if k < 0.59:
            return Expr("ldexp%s(%s, %d)" % (s, sub().code, rng.randint(-4, 4)))
        if k < 0.66:
            return Expr("(%s ? %s : %s)" % (self.cond(d), sub().code, sub().code))
        if k < 0.78:
            u = rng.choice(INTS)
            return Expr("(%s)%s" % (t.c, self.iexpr(u, d).code))
        if k < 0.83:
            u = F64 if t is F32 else F32
            return Expr("(%s)%s" % (t.c, self.fexpr(u, d).code))
        if k < 0.86 and self.prog.ftables.get(t.key):
            tab = self.prog.ftables[t.key]
            return Expr("%s[%s]" % (tab.name, self.index(tab.n, d)))
        if k < 0.9 and self.helpers:
            return self.call(t, d)
        return self.leaf(t)

    def clamp(self, t, e, lo, hi):
        s = fsuf(t)
        return "fmin%s(fmax%s(%s, %s), %s)" % (s, s, e, flit(t, lo), flit(t, hi))

    def approx(self, t, depth):
        """A value that may carry rounding error (see the module comment)."""
        rng = self.rng
        s = fsuf(t)
        d = max(depth - 1, 0)
        x = lambda: self.fexpr(t, d).code
        k = rng.random()
        if k < 0.15:
            avars = self.vars(lambda v: v.ty is t and v.approx)
            if avars:
                return Expr(rng.choice(avars).name, True)
        if k < 0.25:
            c = flit(t, rng.choice([0.5, 2.0, -1.0, 0.25, -3.0, 4.0, 1.5]))
            return Expr("(%s * %s)" % (self.approx(t, d).code, c), True)
        if k < 0.32:
            c = flit(t, rng.choice([0.5, 2.0, -1.0, 1.0, -3.0, 4.0]))
            return Expr("(%s + %s)" % (c, self.approx(t, d).code), True)
        if k < 0.38:
            return Expr("%s%s(%s, %s)" % (rng.choice(["fmin", "fmax"]), s,
                                          self.approx(t, d).code, x()), True)
        if k < 0.42:
            return Expr("(%s ? %s : %s)" % (self.cond(d), self.approx(t, d).code,
                                            self.approx(t, d).code), True)
        if k < 0.45:
            return Expr("fabs%s(%s)" % (s, self.approx(t, d).code), True)
        # Approximate operations get finite arguments: Vulkan lets a device
        # assume there are no NaNs and infinities, and lavapipe's atan(NaN)
        # and double 0 / NaN are 0.
        big = lambda: self.clamp(t, x(), -1e30, 1e30)
        fns = [
            lambda: "(%s / (fabs%s(%s) + %s))" % (big(), s, big(), flit(t, 1.0)),
            lambda: "sqrt%s(fabs%s(%s))" % (s, s, big()),
            lambda: "fma%s(%s, %s, %s)" % (s, self.clamp(t, x(), -64, 64),
                                           self.clamp(t, x(), -64, 64), big()),
        ]
        if t is F32:
            fns += [
                lambda: "expf(%s)" % self.clamp(t, x(), -10, 10),
                lambda: "exp2f(%s)" % self.clamp(t, x(), -12, 12),
                lambda: "logf(fabsf(%s) + 1.0f)" % big(),
                lambda: "log2f(fabsf(%s) + 1.0f)" % big(),
                lambda: "sinf(%s)" % self.clamp(t, x(), -3, 3),
                lambda: "cosf(%s)" % self.clamp(t, x(), -3, 3),
                lambda: "tanhf(%s)" % self.clamp(t, x(), -8, 8),
                lambda: "atanf(%s)" % big(),
                lambda: "atan2f(%s, fabsf(%s) + 1.0f)" % (big(), big()),
                lambda: "powf(fminf(fabsf(%s), 100.0f) + 0.5f, %s)" % (
                    x(), self.clamp(t, x(), -2, 2)),
            ]
        return Expr(rng.choice(fns)(), True)

    # -- statements
    def block(self, ctx, budget, depth, ind):
        """Statements for `budget` (roughly), at nesting `depth`."""
        out = []
        self.scopes.append([])
        n_arrays = len(self.arrays)
        while budget > 0:
            used, lines = self.stmt(ctx, budget, depth, ind)
            budget -= used
            out += lines
        self.scopes.pop()
        del self.arrays[n_arrays:]
        return out

    def decl(self, ind, t=None, approx=False):
        rng = self.rng
        t = t or rng.choice(TYPES)
        v = Var(self.fresh("v"), t, approx=approx and t.is_float)
        e = self.expr(t, 3, approx_ok=v.approx)
        self.declare(v)
        return ["%s%s %s = %s;" % (ind, t.c, v.name, e.code)]

    def assignable(self, t=None):
        return self.vars(lambda v: v.mutable and (t is None or v.ty is t))

    def stmt(self, ctx, budget, depth, ind):
        rng = self.rng
        i2 = ind + "  "
        dexp = rng.choice([1, 2, 2, 3, 3])
        choices = [(3, "decl"), (8, "assign"), (4, "store")]
        if depth < 3 and budget > 2:
            choices += [(4, "if"), (3, "for"), (1.5, "while"), (1.5, "do"), (2, "switch"),
                        (1, "forever")]
        if ctx.loops or ctx.breakable:
            choices += [(1.5, "break")]
        if ctx.loops or (not ctx.in_helper):
            choices += [(1, "continue")]
        if ctx.in_helper:
            choices += [(1.5, "return")]
        if any(b.kind == "atomic" for b in self.bufs):
            choices += [(1, "atomic")]
        if any(b.kind == "reduce" for b in self.bufs):
            choices += [(1.5, "reduce")]
        choices += [(0.7, "array")]
        kind = self.pick(choices)
        if kind == "decl":
            return 1, self.decl(ind, approx=rng.random() < 0.3)
        if kind == "assign":
            vs = self.assignable()
            if not vs:
                return 1, self.decl(ind)
            v = rng.choice(vs)
            e = self.expr(v.ty, dexp, approx_ok=v.approx)
            if not v.ty.is_float and rng.random() < 0.3:
                op = rng.choice(["^=", "|=", "&="])
                return 1, ["%s%s %s (%s)%s;" % (ind, v.name, op, v.ty.c, e.code)]
            return 1, ["%s%s = %s;" % (ind, v.name, e.code)]
        if kind == "store":
            outs = [b for b in self.bufs if b.kind in ("out", "inout", "tmp")]
            arrs = self.arrays
            if arrs and (not outs or rng.random() < 0.25):
                a = rng.choice(arrs)
                return 1, ["%s%s[%s] = %s;" % (ind, a.name, self.index(a.n, 1),
                                               self.expr(a.ty, dexp).code)]
            if not outs:
                return 1, self.decl(ind)
            b = rng.choice(outs)
            e = self.expr(b.ty, dexp, approx_ok=b.approx)
            return 1, ["%s%s[%s] = %s;" % (ind, b.name, self.slot(b, 1), e.code)]
        if kind == "array":
            t = rng.choice(INTS + FLOATS)
            n = rng.choice([2, 3, 4, 8])
            a = Arr(self.fresh("a"), t, n)
            inits = ", ".join(self.expr(t, 2).code for _ in range(n))
            self.arrays.append(a)
            return 1, ["%s%s %s[%d] = {%s};" % (ind, t.c, a.name, n, inits)]
        if kind == "break":
            return 1, ["%sif %s" % (ind, self.cond(2)), "%s  break;" % ind]
        if kind == "continue":
            if rng.random() < 0.2 and not ctx.loops:
                # An instance that ends early keeps its remaining slots.
                return 1, ["%sif %s {" % (ind, self.cond(2))] + \
                    self.block(ctx, 1, depth + 1, i2) + ["%s  continue;" % ind, "%s}" % ind]
            return 1, ["%sif %s" % (ind, self.cond(2)), "%s  continue;" % ind]
        if kind == "return":
            return 1, ["%sif %s" % (ind, self.cond(2)),
                       "%s  return %s;" % (ind, self.expr(ctx.ret, dexp).code)]
        if kind == "reduce":
            # The reduction variable r is only ever updated: for min and max
            # the private copy starts at the shared value of the moment.
            b = [b for b in self.bufs if b.kind == "reduce"][0]
            e = self.expr(b.ty, dexp).code
            if b.op in ("min", "max"):
                return 1, ["%s{" % ind, "%s  %s x = %s;" % (ind, b.ty.c, e),
                           "%s  r = x %s r ? x : r;" % (ind, "<" if b.op == "min" else ">"),
                           "%s}" % ind]
            return 1, ["%sr %s= (%s)%s;" % (ind, b.op, b.ty.c, e)]
        if kind == "atomic":
            b = rng.choice([b for b in self.bufs if b.kind == "atomic"])
            # Instances update in any order: only operations that commute
            # with each other may meet on one buffer.
            op = rng.choice(b.ops)
            val = self.expr(b.ty, 2).code
            return 1, ["%s__atomic_fetch_%s(&%s[%s], (%s)%s, __ATOMIC_RELAXED);" % (
                ind, op, b.name, self.index(b.count, 1), b.ty.c, val)]
        inner = rng.randint(1, max(1, min(budget - 1, 6)))
        if kind == "if":
            lines = ["%sif %s {" % (ind, self.cond(3))]
            lines += self.block(ctx, inner, depth + 1, i2)
            r = rng.random()
            if r < 0.4:
                lines += ["%s} else {" % ind] + self.block(ctx, max(1, inner // 2), depth + 1, i2)
            elif r < 0.55:
                lines += ["%s} else if %s {" % (ind, self.cond(2))]
                lines += self.block(ctx, max(1, inner // 2), depth + 1, i2)
                lines += ["%s} else {" % ind] + self.block(ctx, 1, depth + 1, i2)
            return inner + 1, lines + ["%s}" % ind]
        lctx = Ctx(ctx.in_helper, ctx.ret)
        lctx.loops = ctx.loops + 1
        lctx.breakable = ctx.breakable + 1
        if kind == "for":
            c = Var(self.fresh("c"), rng.choice([I32, U32, I64]), mutable=False)
            if rng.random() < 0.5:
                bound = ilit(c.ty, rng.randint(0, 6))
            else:
                bound = "(%s)((uint32_t)(%s) & 7u)" % (c.ty.c, self.iexpr(rng.choice(INTS), 2).code)
            start = ["%sfor (%s %s = 0; %s < %s; %s++) {" % (ind, c.ty.c, c.name, c.name, bound,
                                                               c.name)]
            self.scopes.append([c])
            body = self.block(lctx, inner, depth + 1, i2)
            self.scopes.pop()
            return inner + 1, start + body + ["%s}" % ind]
        if kind in ("while", "do", "forever"):
            w = Var(self.fresh("w"), U32, mutable=False)
            bound = rng.randint(1, 6)
            lines = ["%s{" % ind, "%s  uint32_t %s = 0;" % (ind, w.name)]
            self.scopes.append([w])
            if kind == "while":
                lines += ["%s  while (%s < %du && %s) {" % (ind, w.name, bound, self.cond(2)),
                          "%s    %s++;" % (ind, w.name)]
                lines += self.block(lctx, inner, depth + 1, i2 + "  ")
                lines += ["%s  }" % ind]
            elif kind == "do":
                lines += ["%s  do {" % ind]
                lines += self.block(lctx, inner, depth + 1, i2 + "  ")
                lines += ["%s  } while (++%s < %du && %s);" % (ind, w.name, bound, self.cond(2))]
            else:
                lines += ["%s  for (;;) {" % ind,
                          "%s    if (++%s > %du)" % (ind, w.name, bound),
                          "%s      break;" % ind]
                lines += self.block(lctx, inner, depth + 1, i2 + "  ")
                lines += ["%s    if %s" % (ind, self.cond(2)), "%s      break;" % ind,
                          "%s  }" % ind]
            self.scopes.pop()
            return inner + 1, lines + ["%s}" % ind]
        if kind == "switch":
            sctx = Ctx(ctx.in_helper, ctx.ret)
            sctx.loops = ctx.loops
            sctx.breakable = ctx.breakable + 1
            st = rng.choice([I32, U8, I64, U32, I16])
            if st.signed and rng.random() < 0.5:
                self.prog.need.add(("div", st))
                sel = "hrem_%s(%s, %s)" % (st.key, self.iexpr(st, 2).code, ilit(st, 5))
                pool = list(range(-4, 5))
            else:
                sel = "(%s)(%s & %s)" % (st.c, self.iexpr(st, 2).code, ilit(st, 7))
                pool = list(range(0, 8))
            cases = rng.sample(pool, rng.randint(1, min(5, len(pool))))
            labels = [[c] for c in cases]
            # Some labels share a body (empty fall-through).
            if len(labels) > 2 and rng.random() < 0.4:
                labels[0] = labels[0] + labels.pop(1)
            if rng.random() < 0.7:
                labels.insert(rng.randint(0, len(labels)), ["default"])
            lines = ["%sswitch (%s) {" % (ind, sel)]
            per = max(1, inner // len(labels))
            for ls in labels:
                for lab in ls:
                    lines += ["%s%s:" % (ind, "default" if lab == "default"
                                         else "case %s" % lab)]
                lines += ["%s  {" % ind] + self.block(sctx, per, depth + 1, i2 + "  ")
                lines += ["%s  }" % ind]
                if rng.random() < 0.65:
                    lines += ["%s  break;" % ind]
            return inner + 1, lines + ["%s}" % ind]
        raise AssertionError(kind)


# --- helpers, tables, kernels ------------------------------------------------


class Table:
    def __init__(self, name, ty, n, values):
        self.name = name
        self.ty = ty
        self.n = n
        self.values = values


class Program:
    def __init__(self, seed, nkernels, only=None):
        self.seed = seed
        self.nkernels = nkernels
        self.only = only
        self.need = set()
        self.tables = []
        self.ftables = {}
        self.helpers = []
        self.helper_code = []

    def generate(self):
        rng = random.Random("%d-shared" % self.seed)
        for k in range(3):
            t = rng.choice(INTS)
            n = rng.choice([8, 16, 13])
            self.tables.append(Table("tab%d" % k, t, n, [rand_int(rng, t) for _ in range(n)]))
        for t in FLOATS:
            n = rng.choice([8, 16, 5])
            self.ftables[t.key] = Table("ftab_%s" % t.key, t, n,
                                        [rand_dyadic(rng) for _ in range(n)])
        for h in range(6):
            self.helper(rng, h)
        kernels = []
        for k in range(self.nkernels):
            if self.only is not None and k not in self.only:
                continue
            kernels.append(self.kernel(k))
        return self.render(kernels)

    def helper(self, rng, h):
        params = [rng.choice(TYPES) for _ in range(rng.randint(1, 3))]
        ret = rng.choice(TYPES)
        hp = Helper("h%d" % h, params, ret)
        args = [Var("p%d" % i, t) for i, t in enumerate(params)]
        g = Gen(rng, self, helpers=self.helpers, scalars=args)
        ctx = Ctx(in_helper=True, ret=ret)
        body = g.block(ctx, rng.randint(3, 10), 1, "  ")
        body.append("  return %s;" % g.expr(ret, 3).code)
        sig = ", ".join("%s %s" % (t.c, a.name) for t, a in zip(params, args))
        self.helper_code.append(["static %s %s(%s) {" % (ret.c, hp.name, sig)] + body + ["}"])
        self.helpers.append(hp)

    def kernel(self, k):
        rng = random.Random("%d-kernel-%d" % (self.seed, k))
        name = "k%d" % k
        # The graph's shape: one leaf over 1-3 dims (collapse), a task with
        # two leaves that pass a buffer, or a parallel loop of parallel loops
        # (a replicated internal node: its instance ids reach the leaf as
        # ancestor ids).
        shape = self.pick_shape(rng)
        if shape == "1d" or shape == "task":
            extents = [rng.choice([1, 2, 7, 63, 64, 65, 100, 127, 129, 200, 255, MAXN,
                                   rng.randint(1, MAXN)])]
        elif shape == "2d":
            n0 = rng.randint(1, 17)
            extents = [n0, rng.randint(1, MAXN // n0)]
        elif shape == "3d":
            n0, n1 = rng.randint(1, 5), rng.randint(1, 9)
            extents = [n0, n1, rng.randint(1, min(20, MAXN // (n0 * n1)))]
        else:  # nested
            nb = rng.randint(1, 4)
            extents = [nb, rng.randint(1, MAXN // nb)]
        # Inputs: pool arrays (by type and index).
        ins = []
        for t in rng.sample(TYPES, rng.randint(1, 3)):
            ins.append((t, rng.randrange(POOLS_PER_TYPE)))
        outs = []
        for o in range(rng.randint(1, 2)):
            t = rng.choice(TYPES)
            kind = "inout" if rng.random() < 0.25 else "out"
            approx = t.is_float and rng.random() < 0.5
            outs.append(Buf("o%d" % o, t, kind, slots=rng.randint(1, 3), count=0, approx=approx))
        for b in outs:
            b.count = MAXN * b.slots
        atomic = None
        if rng.random() < 0.2:
            atomic = Buf("acc", rng.choice([U32, U64, I32]), "atomic", count=8)
            atomic.ops = rng.choice([["add", "sub"], ["or"], ["and"], ["xor"], ["max"],
                                     ["min"]])
        reduce = None
        if shape in ("1d", "2d") and rng.random() < 0.2:
            # Wrap-around sums and products only on unsigned types: the
            # private partial results would overflow a signed one.
            t = rng.choice([U32, U64, I32, I64])
            op = rng.choice(["+", "*", "^", "|", "&", "min", "max"] if not t.signed
                            else ["^", "|", "&", "min", "max"])
            reduce = Buf("red", t, "reduce", count=1)
            reduce.op = op
        scalars = [Var("s%d" % s, rng.choice(TYPES), mutable=False)
                   for s in range(rng.randint(0, 2))]
        svalues = [rand_dyadic(rng) if s.ty.is_float else rand_int(rng, s.ty) for s in scalars]
        inbufs = [Buf("in_%s_%d" % (t.key, j), t, "in") for t, j in ins]
        extra = ([atomic] if atomic else []) + ([reduce] if reduce else [])
        tmp = None
        stages = []
        if shape == "task":
            n = extents[0]
            tmp = Buf("tmp", rng.choice(INTS + FLOATS), "tmp", count=MAXN)
            stages.append(self.stage(rng, "first", inbufs, [tmp], scalars))
            tmp_in = Buf("tmp", tmp.ty, "in", count=n)
            stages.append(self.stage(rng, "second", inbufs[:1] + [tmp_in], outs + extra,
                                     scalars))
        else:
            stages.append(self.stage(rng, "inner" if shape == "nested" else None, inbufs,
                                     outs + extra, scalars))
        buffers = outs + ([tmp] if tmp else []) + extra
        nodes = {"task": [name + "/first", name + "/second"],
                 "nested": [name + "/inner"]}.get(shape, [name])
        return {
            "name": name, "index": k, "extents": extents, "shape": shape, "nodes": nodes,
            "ins": ins, "buffers": buffers, "scalars": list(zip(scalars, svalues)),
            "stages": stages, "reduce": reduce,
        }

    @staticmethod
    def pick_shape(rng):
        r = rng.random()
        if r < 0.5:
            return "1d"
        if r < 0.68:
            return "2d"
        if r < 0.76:
            return "3d"
        if r < 0.88:
            return "task"
        return "nested"

    def stage(self, rng, stage_name, ins, outs, scalars):
        """One parallel-for leaf: its pragma clauses and body."""
        ids = [Var("gid", I64, mutable=False)]
        g = Gen(rng, self, bufs=ins + outs, helpers=self.helpers, scalars=scalars, ids=ids)
        ctx = Ctx()
        decls = []
        for _ in range(rng.randint(2, 5)):
            decls += g.decl("", approx=rng.random() < 0.2)
        body = g.block(ctx, rng.randint(6, 22), 0, "")
        # Every output slot the instance owns gets something at the end
        # (unless the instance ended early).
        tail = []
        for b in outs:
            if b.kind in ("out", "inout", "tmp"):
                e = g.expr(b.ty, 3, approx_ok=b.approx)
                tail.append("%s[%s] = %s;" % (b.name, g.slot(b, 1), e.code))
        return {"name": stage_name, "ins": ins, "outs": outs, "code": decls + body + tail}

    # -- output
    def render(self, kernels):
        L = []
        L += ["// Generated by test/random/randkernels.py (seed %d, %d kernels%s): do not"
              % (self.seed, self.nkernels,
                 ", only %s" % ",".join(map(str, sorted(self.only))) if self.only else ""),
              "// edit; regenerate with check_random.py --seeds %d --keep." % self.seed,
              "#include <math.h>", "#include <stdint.h>", "#include <stdio.h>",
              "#include <stdlib.h>", "#include <string.h>", "",
              "#define POOL %d" % POOL, "#define MAXN %d" % MAXN, ""]
        L += self.render_support()
        for t in self.tables:
            L.append("static const %s %s[%d] = {%s};" % (
                t.ty.c, t.name, t.n, ", ".join(ilit(t.ty, v) for v in t.values)))
        for t in self.ftables.values():
            L.append("static const %s %s[%d] = {%s};" % (
                t.ty.c, t.name, t.n, ", ".join(flit(t.ty, v) for v in t.values)))
        L.append("")
        for h in self.helper_code:
            L += h + [""]
        for k in kernels:
            L += self.render_kernel(k) + [""]
        L += self.render_main(kernels)
        meta = {
            "seed": self.seed, "kernels": [{
                "name": k["name"],
                "nodes": k["nodes"],
                "extents": k["extents"],
                "buffers": [{"name": b.name, "type": b.ty.key, "count": b.count,
                             "slots": b.slots, "kind": b.kind, "approx": b.approx}
                            for b in k["buffers"]],
            } for k in kernels]}
        return "\n".join(L) + "\n", meta

    def render_support(self):
        L = []
        need = self.need
        for t in INTS:
            if ("div", t) in need:
                if t.signed:
                    L += ["static inline %s hdiv_%s(%s a, %s b) {" % (t.c, t.key, t.c, t.c),
                          "  return b == 0 || b == -1 ? a : (%s)(a / b);" % t.c, "}",
                          "static inline %s hrem_%s(%s a, %s b) {" % (t.c, t.key, t.c, t.c),
                          "  return b == 0 || b == -1 ? 0 : (%s)(a %% b);" % t.c, "}"]
                else:
                    L += ["static inline %s hdiv_%s(%s a, %s b) {" % (t.c, t.key, t.c, t.c),
                          "  return b == 0 ? a : (%s)(a / b);" % t.c, "}",
                          "static inline %s hrem_%s(%s a, %s b) {" % (t.c, t.key, t.c, t.c),
                          "  return b == 0 ? a : (%s)(a %% b);" % t.c, "}"]
            if ("minmax", t) in need:
                L += ["static inline %s hmin_%s(%s a, %s b) { return a < b ? a : b; }" % (
                    t.c, t.key, t.c, t.c),
                      "static inline %s hmax_%s(%s a, %s b) { return a > b ? a : b; }" % (
                          t.c, t.key, t.c, t.c)]
                if t.signed:
                    L += ["static inline %s habs_%s(%s a) {" % (t.c, t.key, t.c),
                          "  return (%s)(a < 0 ? 0u - (%s)a : (%s)a);" % (t.c, t.ut, t.ut), "}"]
        for t in INTS:
            for f in FLOATS:
                if ("f2i", t, f) not in need:
                    continue
                if t.signed:
                    lo = -(2 ** (t.bits - 1))
                    cond = "x >= %s && x < %s" % (flit(f, lo), flit(f, -lo))
                else:
                    cond = "x > %s && x < %s" % (flit(f, -1.0), flit(f, 2 ** t.bits))
                L += ["static inline %s f2i_%s_%s(%s x) {" % (t.c, t.key, f.key, f.c),
                      "  return %s ? (%s)x : 0;" % (cond, t.c), "}"]
        if ("rot",) in need:
            L += ["static inline uint32_t hrotl32(uint32_t x, uint32_t s) {",
                  "  return (x << (s & 31u)) | (x >> ((0u - s) & 31u));", "}",
                  "static inline uint64_t hrotl64(uint64_t x, uint32_t s) {",
                  "  return (x << (s & 63u)) | (x >> ((0u - s) & 63u));", "}"]
        return L + [""]

    def render_kernel(self, k):
        ins = sorted({(t.key, j) for t, j in k["ins"]})
        params = ["const %s *in_%s_%d" % (BY_KEY[t].c, t, j) for t, j in ins]
        params += ["%s *%s" % (b.ty.c, b.name) for b in k["buffers"]]
        dimnames = ["n0", "n1", "n2"][:len(k["extents"])]
        params += ["long %s" % d for d in dimnames]
        params += ["%s %s" % (s.ty.c, s.name) for s, _ in k["scalars"]]
        L = ["static void %s(%s) {" % (k["name"], ", ".join(params))]
        red = k["reduce"]
        if red:
            # reduction(op: r) needs a scalar variable; its value before the
            # loop takes part.
            L.append("  %s r = red[0];" % red.ty.c)
        ind = "  "
        shape = k["shape"]
        if shape == "task":
            L += ["#pragma hpvm task name(%s)" % k["name"], "  {"]
            ind = "    "
        elif shape == "nested":
            L += ["#pragma hpvm parallel for name(%s)" % k["name"],
                  "  for (long b = 0; b < n0; b++) {"]
            ind = "    "
        for s in k["stages"]:
            L += self.render_stage(k, s, ind)
        if shape in ("task", "nested"):
            L += ["  }"]
        if red:
            L.append("  red[0] = r;")
        return L + ["}"]

    def render_stage(self, k, s, ind):
        def section(b):
            return "%s[0:%s]" % (b.name, "POOL" if b.kind == "in" and b.name != "tmp"
                                 else "MAXN" if b.name == "tmp" else str(b.count))
        ins = sorted({b.name for b in s["ins"]})
        inb = {b.name: b for b in s["ins"]}
        clauses = ["name(%s)" % (s["name"] or k["name"])]
        clauses.append("in(%s)" % ", ".join(section(inb[n]) for n in ins))
        outs = [b for b in s["outs"] if b.kind in ("out", "tmp")]
        inouts = [b for b in s["outs"] if b.kind in ("inout", "atomic")]
        if outs:
            clauses.append("out(%s)" % ", ".join(section(b) for b in outs))
        if inouts:
            clauses.append("inout(%s)" % ", ".join(section(b) for b in inouts))
        red = [b for b in s["outs"] if b.kind == "reduce"]
        if red:
            clauses.append("reduction(%s: r)" % red[0].op)
        L = []
        shape = k["shape"]
        if shape in ("1d", "task"):
            L += ["%s#pragma hpvm parallel for %s" % (ind, " ".join(clauses)),
                  "%sfor (long i = 0; i < n0; i++) {" % ind,
                  "%s  const long gid = i;" % ind]
        elif shape == "2d":
            L += ["%s#pragma hpvm parallel for collapse(2) %s" % (ind, " ".join(clauses)),
                  "%sfor (long i = 0; i < n0; i++)" % ind,
                  "%s  for (long j = 0; j < n1; j++) {" % ind,
                  "%s  const long gid = i * n1 + j;" % ind]
        elif shape == "3d":
            L += ["%s#pragma hpvm parallel for collapse(3) %s" % (ind, " ".join(clauses)),
                  "%sfor (long i = 0; i < n0; i++)" % ind,
                  "%s  for (long j = 0; j < n1; j++)" % ind,
                  "%s    for (long l = 0; l < n2; l++) {" % ind,
                  "%s  const long gid = (i * n1 + j) * n2 + l;" % ind]
        else:  # nested: the leaf inside the outer parallel loop over b
            L += ["%s#pragma hpvm parallel for %s" % (ind, " ".join(clauses)),
                  "%sfor (long j = 0; j < n1; j++) {" % ind,
                  "%s  const long gid = b * n1 + j;" % ind]
        L += ["%s  %s" % (ind, line) for line in s["code"]]
        L += ["%s}" % ind]
        return L

    def render_main(self, kernels):
        L = ["static uint64_t rng_state;",
             "static uint64_t next_random(void) {",
             "  uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));",
             "  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);",
             "  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);",
             "  return z ^ (z >> 31);", "}",
             "",
             "// Integers: edges, small values and random bits.",
             "static void fill_int(void *p, size_t size, int is_signed) {",
             "  unsigned char *b = p;",
             "  for (size_t k = 0; k < POOL; ++k) {",
             "    uint64_t r = next_random(), v;",
             "    switch (r % 8) {",
             "    case 0: v = 0; break;",
             "    case 1: v = ~UINT64_C(0); break;",
             "    case 2: v = is_signed ? UINT64_C(1) << (8 * size - 1) : 1; break;",
             "    case 3: v = (UINT64_C(1) << (8 * size - 1)) - 1; break;",
             "    case 4: case 5: v = (uint64_t)((int64_t)(r >> 32) % 21 - 10); break;",
             "    default: v = next_random(); break;",
             "    }",
             "    memcpy(b + k * size, &v, size); /* little-endian: the low bytes */",
             "  }",
             "}",
             "",
             "// Floats: 1/16 steps in [-64, 64], some large values and specials.",
             "static double random_double(void) {",
             "  uint64_t r = next_random();",
             "  switch (r % 64) {",
             "  case 0: return 0.0;",
             "  case 1: return -0.0;",
             "  case 2: return 1e30;",
             "  case 3: return -3e9;",
             "  case 4: return INFINITY;",
             "  case 5: return NAN;",
             "  case 6: return 65536.5;",
             "  default: return (double)((int64_t)((r >> 8) % 2049) - 1024) / 16.0;",
             "  }",
             "}",
             "",
             "static void dump(FILE *f, const char *name, const void *p, size_t bytes) {",
             "  fprintf(f, \"%s %zu\\n\", name, bytes);",
             "  fwrite(p, 1, bytes, f);",
             "}",
             "",
             "static void *fill_random_bytes(size_t bytes, uint64_t seed) {",
             "  unsigned char *p = malloc(bytes);",
             "  if (!p) {",
             "    fprintf(stderr, \"out of memory\\n\");",
             "    exit(2);",
             "  }",
             "  uint64_t saved = rng_state;",
             "  rng_state = seed;",
             "  for (size_t k = 0; k < bytes; ++k)",
             "    p[k] = (unsigned char)next_random();",
             "  rng_state = saved;",
             "  return p;",
             "}",
             "",
             "int main(int argc, char **argv) {",
             "  if (argc != 2) {",
             "    fprintf(stderr, \"usage: %s <results file>\\n\", argv[0]);",
             "    return 2;",
             "  }",
             "  FILE *f = fopen(argv[1], \"wb\");",
             "  if (!f) {",
             "    perror(argv[1]);",
             "    return 2;",
             "  }",
             "  rng_state = UINT64_C(%d);" % self.seed]
        for t in TYPES:
            for j in range(POOLS_PER_TYPE):
                nm = "in_%s_%d" % (t.key, j)
                L.append("  %s *%s = malloc(POOL * sizeof(%s));" % (t.c, nm, t.c))
                if t.is_float:
                    L.append("  for (size_t k = 0; k < POOL; ++k)")
                    L.append("    %s[k] = (%s)random_double();" % (nm, t.c))
                else:
                    L.append("  fill_int(%s, sizeof(%s), %d);" % (nm, t.c, int(t.signed)))
        for k in kernels:
            L.append("  {")
            args = []
            ins = sorted({(t.key, j) for t, j in k["ins"]})
            args += ["in_%s_%d" % (t, j) for t, j in ins]
            for b in k["buffers"]:
                L.append("    %s *%s = fill_random_bytes(%d * sizeof(%s), UINT64_C(%d));" % (
                    b.ty.c, b.name, b.count, b.ty.c,
                    (self.seed * 1000003 + k["index"] * 101 + len(b.name)) & 0xFFFFFFFF))
                args.append(b.name)
            args += ["%d" % e for e in k["extents"]]
            for s, v in k["scalars"]:
                args.append(flit(s.ty, v) if s.ty.is_float else ilit(s.ty, v))
            L.append("    %s(%s);" % (k["name"], ", ".join(args)))
            for b in k["buffers"]:
                L.append("    dump(f, \"%s.%s\", %s, %d * sizeof(%s));" % (
                    k["name"], b.name, b.name, b.count, b.ty.c))
                L.append("    free(%s);" % b.name)
            L.append("  }")
        L += ["  return fclose(f) != 0;", "}"]
        return L


def generate(seed, kernels, only=None):
    """(C source, metadata) of program `seed` with `kernels` kernels; with
    `only` (a set of kernel indices) just those, each exactly as in the full
    program."""
    return Program(seed, kernels, only).generate()


if __name__ == "__main__":
    import argparse
    import json

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--kernels", type=int, default=30)
    ap.add_argument("--only", help="comma-separated kernel indices to keep")
    ap.add_argument("-o", "--output", required=True, help="the C file (metadata: <file>.json)")
    a = ap.parse_args()
    only = {int(x) for x in a.only.split(",")} if a.only else None
    src, meta = generate(a.seed, a.kernels, only)
    with open(a.output, "w") as f:
        f.write(src)
    with open(a.output + ".json", "w") as f:
        json.dump(meta, f, indent=1)
