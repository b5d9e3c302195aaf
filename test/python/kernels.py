"""C kernels the tests share, with numpy references."""
import numpy as np

SAXPY = r"""
void saxpy(long n, float a, const float *x, float *y) {
#pragma hpvm parallel for name(saxpy) in(x[0:n]) inout(y[0:n])
  for (long i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}
"""

SGEMM = r"""
void sgemm(long m, long n, long k, const float *a, const float *b, float *c) {
#pragma hpvm parallel for collapse(2) name(sgemm) in(a[0:m*k], b[0:k*n]) out(c[0:m*n])
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < n; ++j) {
      float s = 0;
      for (long p = 0; p < k; ++p)
        s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
}
"""

# Three nodes: two independent producers and a consumer of both.
TASKS = r"""
void combine(long n, const double *x, double *t1, double *t2, double *y) {
#pragma hpvm task name(graph) in(x[0:n]) out(t1[0:n], t2[0:n], y[0:n])
  {
#pragma hpvm parallel for name(twice) in(x[0:n]) out(t1[0:n])
    for (long i = 0; i < n; ++i) t1[i] = 2 * x[i];
#pragma hpvm parallel for name(plus3) in(x[0:n]) out(t2[0:n])
    for (long i = 0; i < n; ++i) t2[i] = x[i] + 3;
#pragma hpvm parallel for name(sum) in(t1[0:n], t2[0:n]) out(y[0:n])
    for (long i = 0; i < n; ++i) y[i] = t1[i] * t2[i];
  }
}
"""

# An int sum: a long one needs 64-bit atomics, which the OpenCL flavour of
# SPIR-V does not have (the leaf would get no OpenCL artifact).
REDUCE = r"""
int total(long n, const int *v) {
  int s = 0;
#pragma hpvm parallel for name(total) in(v[0:n]) reduction(+: s)
  for (long i = 0; i < n; ++i)
    s += v[i];
  return s;
}
"""

HISTOGRAM = r"""
void histogram(long n, const unsigned char *v, int *counts) {
#pragma hpvm parallel for name(histogram) in(v[0:n]) inout(counts[0:256])
  for (long i = 0; i < n; ++i)
    __atomic_fetch_add(&counts[v[i]], 1, __ATOMIC_RELAXED);
}
"""


def rng(seed=1):
    return np.random.default_rng(seed)
