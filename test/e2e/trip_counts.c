// Trip counts: 1-D nodes whose instance count is read from argv, so nothing
// about it is known when compiling. Each count runs through several loop
// shapes the frontend normalises to 0-based step-1 instance ids (offset
// start, step 2, '<=', counting down, unsigned and int variables) and the
// results are checked element by element, including the guard zones on both
// sides of every buffer: counts that are not a multiple of the vector width
// or of the runtime's chunks must neither skip nor overrun elements.
//
//   trip-counts n...      (CTest: 0 1 7 1000003, and small counts)
#include "e2e.h"

// y[i] = 3 x[i] + i: the instance id is in the result, so a permuted or
// duplicated instance is visible.
static void affine(long n, const float *x, float *y) {
#pragma hpvm parallel for name(affine) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = 3.0f * x[i] + (float)i;
}

// The range [lo, lo + n): the node names y from element 0 (the section
// y[lo:n] covers lo + n elements) and writes only the upper part.
static void offset(long lo, long n, int *y) {
#pragma hpvm parallel for name(offset) out(y [lo:n])
  for (long i = lo; i < lo + n; ++i)
    y[i] = (int)(i * 2 + 1);
}

// Every second element of 2n: n instances, i = 0, 2, 4, ...
static void stride2(long n, int *y) {
#pragma hpvm parallel for name(stride2) out(y [0:2 * n])
  for (long i = 0; i < 2 * n; i += 2)
    y[i] = (int)i + 5;
}

// 1..n inclusive with an int variable.
static void inclusive(int n, int *y) {
#pragma hpvm parallel for name(inclusive) out(y [0:n + 1])
  for (int i = 1; i <= n; ++i)
    y[i] = -i;
}

// Counting down with an unsigned variable: n instances, i = n .. 1.
static void down(unsigned long n, unsigned *y) {
#pragma hpvm parallel for name(down) out(y [0:n])
  for (unsigned long i = n; i > 0; --i)
    y[i - 1] = (unsigned)i;
}

// The same with a signed variable and '>=' (the canonical form).
static void down_signed(long n, long *y) {
#pragma hpvm parallel for name(down_signed) out(y [0:n])
  for (long i = n - 1; i >= 0; --i)
    y[i] = i * i;
}

static void run(long n) {
  float *x = e2e_alloc(n * sizeof(float)), *y = e2e_alloc(n * sizeof(float));
  for (long i = 0; i < n; ++i)
    x[i] = (float)(i % 101) - 50.0f;
  affine(n, x, y);
  for (long i = 0; i < n; ++i) {
    float ref = 3.0f * x[i] + (float)i;
    E2E_CHECK(e2e_close(y[i], ref, ref), "affine n=%ld: y[%ld] = %g, want %g",
              n, i, y[i], ref);
  }
  e2e_free(x, n * sizeof(float), "affine x");
  e2e_free(y, n * sizeof(float), "affine y");

  long lo = 3;
  int *z = e2e_alloc((lo + n) * sizeof(int));
  memset(z, 0, (lo + n) * sizeof(int));
  offset(lo, n, z);
  for (long i = 0; i < lo + n; ++i) {
    int ref = i < lo ? 0 : (int)(i * 2 + 1);
    E2E_CHECK(z[i] == ref, "offset n=%ld: z[%ld] = %d, want %d", n, i, z[i],
              ref);
  }
  e2e_free(z, (lo + n) * sizeof(int), "offset");

  int *s = e2e_alloc(2 * n * sizeof(int));
  for (long i = 0; i < 2 * n; ++i)
    s[i] = -1;
  stride2(n, s);
  for (long i = 0; i < 2 * n; ++i) {
    int ref = i % 2 ? -1 : (int)i + 5;
    E2E_CHECK(s[i] == ref, "stride2 n=%ld: s[%ld] = %d, want %d", n, i, s[i],
              ref);
  }
  e2e_free(s, 2 * n * sizeof(int), "stride2");

  if (n < 1000000000) {
    int *v = e2e_alloc((n + 1) * sizeof(int));
    v[0] = 42;
    inclusive((int)n, v);
    for (long i = 0; i <= n; ++i) {
      int ref = i ? (int)-i : 42;
      E2E_CHECK(v[i] == ref, "inclusive n=%ld: v[%ld] = %d, want %d", n, i,
                v[i], ref);
    }
    e2e_free(v, (n + 1) * sizeof(int), "inclusive");
  }

  unsigned *u = e2e_alloc(n * sizeof(unsigned));
  memset(u, 1, n * sizeof(unsigned));
  down((unsigned long)n, u);
  for (long i = 0; i < n; ++i)
    E2E_CHECK(u[i] == (unsigned)i + 1, "down n=%ld: u[%ld] = %u, want %ld", n,
              i, u[i], i + 1);
  e2e_free(u, n * sizeof(unsigned), "down");

  long *q = e2e_alloc(n * sizeof(long));
  down_signed(n, q);
  for (long i = 0; i < n; ++i)
    E2E_CHECK(q[i] == i * i, "down_signed n=%ld: q[%ld] = %ld, want %ld", n, i,
              q[i], i * i);
  e2e_free(q, n * sizeof(long), "down_signed");
}

// Constant trip counts (the extents are compile-time constants in the
// graph): 7 is below any vector width, 1000003 is prime.
static void constant_counts(void) {
  double *a = e2e_alloc(7 * sizeof(double));
#pragma hpvm parallel for name(const7) out(a [0:7])
  for (int i = 0; i < 7; ++i)
    a[i] = i * 0.5;
  for (int i = 0; i < 7; ++i)
    E2E_CHECK(a[i] == i * 0.5, "const7: a[%d] = %g", i, a[i]);
  e2e_free(a, 7 * sizeof(double), "const7");

  enum { Big = 1000003 };
  short *b = e2e_alloc(Big * sizeof(short));
#pragma hpvm parallel for name(const_big) out(b [0:Big])
  for (int i = 0; i < Big; ++i)
    b[i] = (short)(i & 0x7fff);
  for (int i = 0; i < Big; ++i)
    E2E_CHECK(b[i] == (short)(i & 0x7fff), "const_big: b[%d] = %d", i, b[i]);
  e2e_free(b, Big * sizeof(short), "const_big");

  // Loops that run once: LLVM folds them into their bodies, in any dim.
  int *c = e2e_alloc(24 * sizeof(int));
  for (int k = 0; k < 24; ++k)
    c[k] = -1;
#pragma hpvm parallel for name(const1) out(c [0:24])
  for (int i = 3; i < 4; ++i)
    c[i] = 40 + i;
#pragma hpvm parallel for name(const1_rows) collapse(2) out(c [0:24])
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 1; ++j)
      c[8 + i + j] = 10 * i + j;
#pragma hpvm parallel for name(const1_cols) collapse(2) out(c [0:24])
  for (int i = 0; i < 1; ++i)
    for (int j = 0; j < 8; ++j)
      c[16 + i + j] = 100 + j + i;
  for (int k = 0; k < 24; ++k) {
    int want = k == 3 ? 43 : k < 8 ? -1 : k < 16 ? 10 * (k - 8) : 100 + k - 16;
    E2E_CHECK(c[k] == want, "const1: c[%d] = %d, want %d", k, c[k], want);
  }
  e2e_free(c, 24 * sizeof(int), "const1");
}

int main(int argc, char **argv) {
  for (int k = 1; k < argc; ++k) {
    long n = e2e_count(argc, argv, k, 0);
    long before = e2e_failures;
    run(n);
    printf("n=%ld: %s\n", n, e2e_failures == before ? "ok" : "FAILED");
  }
  constant_counts();
  return e2e_finish("trip-counts");
}
