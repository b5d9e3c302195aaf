"""True error of f64.c (and of glibc) against mpmath, in ulps.

The accuracy test compares the library with glibc; this measures both against
the exact value, at the inputs the test prints with -d: every point whose
result is not glibc's, and a sample of the others (an input where the two agree
has glibc's error, which the sample shows).

  cd test/unit/backends
  clang-19 -O2 -ffp-contract=off f64_math_accuracy.c \
      ../../../backends/spirv/math/f64.c -lm -o acc
  ./acc -d | python3 ../../../backends/spirv/math/gen/true_error.py

An ulp is the spacing of the doubles in the exact result's binade (2^-1074
for subnormal results), so a correctly rounded result is within 0.5.
"""
import math
import sys

import mpmath as mp

PREC = 320


def exact(name, x, y):
    x = mp.mpf(x)
    if name == "exp":
        return mp.exp(x)
    if name == "exp2":
        return mp.power(2, x)
    if name == "exp10":
        return mp.power(10, x)
    if name == "log":
        return mp.log(x)
    if name == "log2":
        return mp.log(x, 2)
    if name == "log10":
        return mp.log10(x)
    if name in ("sin", "cos", "tan"):
        # mpmath reduces large arguments with enough bits itself; the extra
        # precision only makes sure of it.
        _, e = mp.frexp(x) if x else (0, 0)
        with mp.workprec(PREC + max(0, int(e))):
            return +getattr(mp, name)(x)
    if name == "pow":
        y = mp.mpf(y)
        if x == 0:
            return None  # only specials, which the test checks exactly
        value = mp.power(abs(x), y)
        # A negative base is only finite for an integer y; odd y keeps the sign.
        return -value if x < 0 and y % 2 == 1 else value
    raise ValueError(name)


def ulp_error(value, exact_value):
    value = mp.mpf(value)
    if exact_value == 0:
        return 0.0 if value == 0 else float(abs(value) / mp.mpf(2) ** -1074)
    _, e = mp.frexp(exact_value)  # |exact| in [2^(e-1), 2^e)
    ulp = mp.mpf(2) ** (max(int(e) - 1, -1022) - 52)
    return float(abs(value - exact_value) / ulp)


def main():
    mp.mp.prec = PREC
    worst = {}  # name -> [points, our max, at, glibc max, at, ours > 0.5]
    order = []
    for line in sys.stdin:
        fields = line.split()
        if len(fields) != 6 or fields[0] != "D":
            continue
        name = fields[1]
        x, y, ours, glibc = (float.fromhex(f) for f in fields[2:])
        if not (math.isfinite(x) and math.isfinite(y)):
            continue  # special cases, which the test checks exactly
        e = exact(name, x, y)
        if e is None:
            continue
        if name not in worst:
            worst[name] = [0, 0.0, None, 0.0, None, 0]
            order.append(name)
        w = worst[name]
        w[0] += 1
        ours_error = ulp_error(ours, e)
        glibc_error = ulp_error(glibc, e)
        at = (x, y) if name == "pow" else x
        if ours_error > w[1]:
            w[1], w[2] = ours_error, at
        if glibc_error > w[3]:
            w[3], w[4] = glibc_error, at
        w[5] += ours_error > 0.5
    print("%-6s %8s %9s %9s %8s  %s" % ("func", "points", "ours ulp",
                                       "glibc ulp", "ours>0.5",
                                       "our worst input"))
    for name in order:
        n, ours, at, glibc, _, over = worst[name]
        at_text = ("(%s, %s)" % (at[0].hex(), at[1].hex())
                   if isinstance(at, tuple) else at.hex())
        print("%-6s %8d %9.4f %9.4f %8d  %s" % (name, n, ours, glibc, over,
                                               at_text))


if __name__ == "__main__":
    main()
