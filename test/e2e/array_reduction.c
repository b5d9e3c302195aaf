// reduction(op: a[lo:len]) and reduction(op: array), as OpenMP 4.5 writes
// them: the instances run in chunks, each adds into a private copy of the
// array, and the copies are folded into the array (docs/c-frontend.md §3).
// Every operator, integer and floating types, a section that starts past 0,
// a whole fixed-size array, a collapsed nest, a scalar reduction beside an
// array one, and a node inside a task graph; the arrays' values before the
// loop take part. Integers must match the scalar reference exactly; the
// floating sums are compared with a tolerance (chunks add in another order).
//
//   array-reduction [rows cols]...
#include "e2e.h"

#include <limits.h>

enum { BINS = 16 };

// atax's second half: y = y0 + A^T (A x), by rows of A.
static void atax(long n, long m, const double *A, const double *x, double *y) {
  long i, j;
  double t;
#pragma hpvm parallel for name(atax) in(A[0:n * m], x[0:m])                    \
    reduction(+: y[0:m]) private(t)
  for (i = 0; i < n; ++i) {
    t = 0;
    for (j = 0; j < m; ++j)
      t += A[i * m + j] * x[j];
    for (j = 0; j < m; ++j)
      y[j] += A[i * m + j] * t;
  }
}

// A histogram into a whole array inside a task graph, and a total beside
// it (a scalar reduction: int, since OpenCL has no 64-bit atomics).
static int histogram(long n, const int *v, int *out) {
  int hist[BINS];
  int total = 5;
  for (int b = 0; b < BINS; ++b)
    hist[b] = b;
#pragma hpvm task name(histogram)
  {
#pragma hpvm parallel for name(count) in(v[0:n]) reduction(+: hist)           \
    reduction(+: total)
    for (long i = 0; i < n; ++i) {
      hist[v[i] % BINS] += 1;
      total += v[i];
    }
  }
  for (int b = 0; b < BINS; ++b)
    out[b] = hist[b];
  return total;
}

// min/max per column over a 2-D nest, into sections that start at 3.
static void extremes(long n, long m, const float *A, float *lo, float *hi) {
#pragma hpvm parallel for name(extremes) collapse(2) in(A [0:n * m])           \
    reduction(min                                                              \
              : lo [3:m]) reduction(max                                        \
                                    : hi [3:m])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j) {
      float a = A[i * m + j];
      lo[3 + j] = a < lo[3 + j] ? a : lo[3 + j];
      hi[3 + j] = a > hi[3 + j] ? a : hi[3 + j];
    }
}

// The bitwise operators and *, on unsigned columns.
static void bits(long n, long m, const unsigned *B, unsigned *band,
                 unsigned *bor, unsigned *bxor, unsigned *prod) {
#pragma hpvm parallel for name(bits) in(B[0:n * m]) reduction(&: band[0:m])   \
    reduction(|: bor[0:m]) reduction(^: bxor[0:m]) reduction(*: prod[0:m])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j) {
      unsigned b = B[i * m + j];
      band[j] &= b | 0xFFFF0000u;
      bor[j] |= 1u << (b % 31);
      bxor[j] ^= b;
      prod[j] *= b % 4 == 0 ? 3u : 1u;
    }
}

// A section of one element, constant: its combining loop runs once.
static void one_slot(long n, const int *v, long *slots) {
#pragma hpvm parallel for name(one_slot) in(v[0:n]) reduction(+: slots[3:1])
  for (long i = 0; i < n; ++i)
    slots[3] += v[i];
}

static void run(long n, long m) {
  double *A = e2e_alloc(n * m * sizeof(double));
  double *x = e2e_alloc(m * sizeof(double));
  double *y = e2e_alloc(m * sizeof(double));
  float *F = e2e_alloc(n * m * sizeof(float));
  float *lo = e2e_alloc((m + 3) * sizeof(float));
  float *hi = e2e_alloc((m + 3) * sizeof(float));
  unsigned *B = e2e_alloc(n * m * sizeof(unsigned));
  unsigned *u[4];
  for (int k = 0; k < 4; ++k)
    u[k] = e2e_alloc(m * sizeof(unsigned));
  int *v = e2e_alloc(n * sizeof(int));
  int hist[BINS];
  for (long k = 0; k < n * m; ++k) {
    A[k] = (double)(k % 13) / 13;
    F[k] = (float)((k * 7919) % 1000) - 500;
    B[k] = (unsigned)(k * 2654435761u);
  }
  for (long j = 0; j < m; ++j) {
    x[j] = 1 + (double)j / 8;
    y[j] = 0.5 * j;
    u[0][j] = ~0u - (unsigned)j;
    u[1][j] = (unsigned)j << 20;
    u[2][j] = (unsigned)j * 77;
    u[3][j] = 1u + (unsigned)j;
  }
  for (long j = 0; j < m + 3; ++j) {
    lo[j] = j < 3 ? -1e9f : 100.0f; // before the section: untouched
    hi[j] = j < 3 ? 1e9f : -100.0f;
  }
  for (long i = 0; i < n; ++i)
    v[i] = (int)((i * 31) % 1000);

  atax(n, m, A, x, y);
  long total = histogram(n, v, hist);
  extremes(n, m, F, lo, hi);
  bits(n, m, B, u[0], u[1], u[2], u[3]);

  for (long j = 0; j < m; ++j) {
    double want = 0.5 * j;
    for (long i = 0; i < n; ++i) {
      double t = 0;
      for (long k = 0; k < m; ++k)
        t += A[i * m + k] * x[k];
      want += A[i * m + j] * t;
    }
    E2E_CHECK(fabs(y[j] - want) <= 1e-9 * fabs(want),
              "y[%ld] = %.17g, want %.17g", j, y[j], want);
    float l = 100.0f, h = -100.0f;
    unsigned a = ~0u - (unsigned)j, o = (unsigned)j << 20, e = (unsigned)j * 77,
             p = 1u + (unsigned)j;
    for (long i = 0; i < n; ++i) {
      float f = F[i * m + j];
      l = f < l ? f : l;
      h = f > h ? f : h;
      unsigned b = B[i * m + j];
      a &= b | 0xFFFF0000u;
      o |= 1u << (b % 31);
      e ^= b;
      p *= b % 4 == 0 ? 3u : 1u;
    }
    E2E_CHECK(lo[3 + j] == l && hi[3 + j] == h,
              "column %ld: min %g max %g, want %g %g", j, lo[3 + j], hi[3 + j],
              l, h);
    E2E_CHECK(u[0][j] == a && u[1][j] == o && u[2][j] == e && u[3][j] == p,
              "column %ld: & | ^ * = %x %x %x %x, want %x %x %x %x", j, u[0][j],
              u[1][j], u[2][j], u[3][j], a, o, e, p);
  }
  for (long j = 0; j < 3; ++j)
    E2E_CHECK(lo[j] == -1e9f && hi[j] == 1e9f,
              "lo/hi[%ld] outside the section changed", j);
  long want_total = 5;
  int want_hist[BINS];
  for (int b = 0; b < BINS; ++b)
    want_hist[b] = b;
  for (long i = 0; i < n; ++i) {
    want_hist[v[i] % BINS] += 1;
    want_total += v[i];
  }
  E2E_CHECK(total == want_total, "total %ld, want %ld", total, want_total);
  long slots[5] = {1, 2, 3, 4, 5};
  one_slot(n, v, slots);
  for (int k = 0; k < 5; ++k)
    E2E_CHECK(slots[k] == (k == 3 ? 4 + want_total - 5 : k + 1),
              "one_slot: slots[%d] = %ld", k, slots[k]);
  for (int b = 0; b < BINS; ++b)
    E2E_CHECK(hist[b] == want_hist[b], "hist[%d] = %d, want %d", b, hist[b],
              want_hist[b]);

  e2e_free(A, n * m * sizeof(double), "A");
  e2e_free(x, m * sizeof(double), "x");
  e2e_free(y, m * sizeof(double), "y");
  e2e_free(F, n * m * sizeof(float), "F");
  e2e_free(lo, (m + 3) * sizeof(float), "lo");
  e2e_free(hi, (m + 3) * sizeof(float), "hi");
  e2e_free(B, n * m * sizeof(unsigned), "B");
  for (int k = 0; k < 4; ++k)
    e2e_free(u[k], m * sizeof(unsigned), "u");
  e2e_free(v, n * sizeof(int), "v");
}

int main(int argc, char **argv) {
  if (argc < 3)
    run(300, 40);
  for (int a = 1; a + 1 < argc; a += 2)
    run(atol(argv[a]), atol(argv[a + 1]));
  return e2e_finish("array-reduction");
}
