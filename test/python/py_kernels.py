"""Python kernels the tests share (the Python counterparts of kernels.py's
C ones). Each is compiled for every target; py_func runs it in plain
Python, the reference for the semantics tests."""
import math

import numpy as np

import hpvm
from hpvm import In, InOut, Out, f32, f64, i32, i64, u8, u32

STENCIL_WEIGHT = 0.25  # a module constant the kernels read
HALF = np.float32(0.5)  # a typed one


@hpvm.kernel
def saxpy(a: f32, x: In[f32], y: InOut[f32]):
    for i in hpvm.parallel(len(x)):
        y[i] = a * x[i] + y[i]


@hpvm.kernel
def sgemm(a: In[f32, 2], b: In[f32, 2], c: Out[f32, 2]):
    for i, j in hpvm.parallel(c.shape[0], c.shape[1]):
        acc: f32 = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


@hpvm.kernel
def stencil(src: In[f64, 2], dst: Out[f64, 2]):
    """Jacobi step on the interior; the border is copied."""
    rows, cols = src.shape[0], src.shape[1]
    for r, c in hpvm.parallel(rows, cols):
        if r == 0 or c == 0 or r == rows - 1 or c == cols - 1:
            dst[r, c] = src[r, c]
        else:
            dst[r, c] = STENCIL_WEIGHT * (src[r - 1, c] + src[r + 1, c]
                                          + src[r, c - 1] + src[r, c + 1])


@hpvm.kernel
def image_pipeline(img: In[f32, 2], blurred: Out[f32, 2],
                   edges: Out[f32, 2], out: Out[u8, 2], threshold: f32):
    """Three nodes: a 3x3 box blur, a gradient magnitude, a threshold."""
    h = img.shape[0]
    w = img.shape[1]
    for r, c in hpvm.parallel(h, w, name="blur"):
        acc = 0.0
        count = 0
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                rr = r + dr
                cc = c + dc
                if 0 <= rr < h and 0 <= cc < w:
                    acc += img[rr, cc]
                    count += 1
        blurred[r, c] = acc / count
    for r, c in hpvm.parallel(h, w, name="gradient"):
        gx = 0.0
        gy = 0.0
        if 0 < c < w - 1:
            gx = blurred[r, c + 1] - blurred[r, c - 1]
        if 0 < r < h - 1:
            gy = blurred[r + 1, c] - blurred[r - 1, c]
        edges[r, c] = math.sqrt(gx * gx + gy * gy)
    for r, c in hpvm.parallel(h, w, name="threshold"):
        out[r, c] = 255 if edges[r, c] > threshold else 0


@hpvm.kernel
def histogram(pixels: In[u8], hist: InOut[u32]):
    for i in hpvm.parallel(len(pixels)):
        hpvm.atomic_add(hist, pixels[i], 1)


@hpvm.kernel
def column_max(m: In[f32, 2], best: InOut[f32]):
    for r, c in hpvm.parallel(m.shape[0], m.shape[1]):
        hpvm.atomic_max(best, c, m[r, c])


@hpvm.kernel
def integer_ops(a: In[i64], b: In[i64], q: Out[i64], r: Out[i64],
                s: Out[i64]):
    for i in hpvm.parallel(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        s[i] = (a[i] << 3) ^ (b[i] >> 1) | (a[i] & 255)


@hpvm.kernel
def float_ops(a: In[f64], b: In[f64], q: Out[f64], r: Out[f64],
              p: Out[f64]):
    for i in hpvm.parallel(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        p[i] = abs(a[i]) ** 0.5 + a[i] ** 3 - min(a[i], b[i], 0.0) \
            + max(a[i], b[i])


@hpvm.kernel
def math_f32(x: In[f32], out: Out[f32, 2]):
    for i in hpvm.parallel(len(x)):
        v = x[i]
        out[0, i] = math.sqrt(abs(v))
        out[1, i] = math.exp(v)
        out[2, i] = math.log(abs(v) + 1)
        out[3, i] = math.sin(v) + math.cos(v)
        out[4, i] = math.tanh(v)
        out[5, i] = math.atan2(v, HALF)
        out[6, i] = math.floor(v) + math.ceil(v)
        out[7, i] = np.power(abs(v), 1.5)


@hpvm.kernel
def hypotenuse(x: In[f64], y: In[f64], out: Out[f64]):
    """hypot has no Vulkan instruction: this kernel has no Vulkan
    artifact and runs on the other devices."""
    for i in hpvm.parallel(len(x)):
        out[i] = math.hypot(x[i], y[i])


@hpvm.kernel
def control_flow(x: In[i32], out: Out[i32]):
    for i in hpvm.parallel(len(x)):
        v = x[i]
        steps = 0
        while v != 1 and steps < 1000:  # Collatz
            if v % 2 == 0:
                v = v // 2
            elif v < 0:
                v = -v
            else:
                v = 3 * v + 1
            steps += 1
        total = 0
        for k in range(10, 0, -3):
            if k == 4:
                continue
            total += k
        for k in range(100):
            if k * k > x[i] * 2:
                break
            total += 1
        out[i] = steps * 1000 + total if steps < 1000 else -1


@hpvm.kernel
def mixed_types(a: In[u8], b: In[i32], c: In[f32], out: Out[f64, 2],
                flags: Out[hpvm.bool_]):
    for i in hpvm.parallel(len(a)):
        out[0, i] = a[i] + b[i]          # i32
        out[1, i] = a[i] / 2             # true division: f64
        out[2, i] = c[i] * 2 + b[i]      # f32
        out[3, i] = f64(c[i]) / 3        # explicit cast
        out[4, i] = i32(c[i])            # truncation toward zero
        out[5, i] = b[i] if b[i] > c[i] else c[i]
        flags[i] = (a[i] > 100 and b[i] < 0) or not (c[i] < 0)


@hpvm.kernel
def scale_by(x: InOut[f64], factor: f64, times: i64):
    f = factor
    g = f * 2
    for i in hpvm.parallel(len(x)):
        for _ in range(times):
            x[i] = x[i] * g


# Vulkan passes parameters as 128 bytes of push constants (16 buffers or
# sizes), so the ten dtypes go through three kernels.
@hpvm.kernel
def narrow_ints(a8: InOut[hpvm.i8], b8: InOut[hpvm.u8], a16: InOut[hpvm.i16],
                b16: InOut[hpvm.u16]):
    for i in hpvm.parallel(len(a8)):
        a8[i] = a8[i] * 3 + 1
        b8[i] = b8[i] * 3 + 1
        a16[i] = a16[i] * 3 + 1
        b16[i] = b16[i] * 3 + 1


@hpvm.kernel
def wide_ints(a32: InOut[i32], b32: InOut[u32], a64: InOut[i64],
              b64: InOut[hpvm.u64]):
    for i in hpvm.parallel(len(a32)):
        a32[i] = a32[i] * 3 + 1
        b32[i] = b32[i] * 3 + 1
        a64[i] = a64[i] * 3 + 1
        b64[i] = b64[i] * 3 + 1


@hpvm.kernel
def floats(f: InOut[f32], d: InOut[f64]):
    for i in hpvm.parallel(len(f)):
        f[i] = f[i] * 3 + 1
        d[i] = d[i] * 3 + 1


@hpvm.kernel
def many_arrays(a: InOut[f32], b: InOut[f32], c: InOut[f32], d: InOut[f32],
                e: InOut[f32], f: InOut[f32], g: InOut[f32], h: InOut[f32],
                k: InOut[f32]):
    """19 parameters (9 arrays, their sizes, the extent): more than Vulkan's 128
    bytes of push constants hold, so read from a parameter block."""
    for i in hpvm.parallel(len(a)):
        a[i] += 1
        b[i] += 2
        c[i] += 3
        d[i] += 4
        e[i] += 5
        f[i] += 6
        g[i] += 7
        h[i] += 8
        k[i] += 9


@hpvm.kernel(boundscheck=True)
def checked_shift(x: In[f32], y: Out[f32], by: i64):
    for i in hpvm.parallel(len(y)):
        y[i] = x[i + by]  # the checked line


@hpvm.kernel(boundscheck=True)
def checked_transpose(a: In[f32, 2], t: Out[f32, 2]):
    for i, j in hpvm.parallel(a.shape[0], a.shape[1]):
        t[j, i] = a[i, j]
