// Instances with loops of their own, which the CPU backend runs VF at a time
// (backends/cpu/InstanceJam.cpp), checked against scalar C for instance
// counts below, at and around multiples of the vector width, so that the
// jammed loop, the leftover instances and the hand-over between them all
// run. Each leaf has a different shape: a dot product, a uniform branch
// inside the instance, a nested loop pair, double and integer arithmetic,
// a reduction combined from inside the inner loop, and an i-k-j matrix
// product whose rows are jammed four at a time for the row of B they share.
//
//   jam m k...     (m rows; one run per column count k)
#include "e2e.h"

// c[i][j] = sum_k a[i][k] b[k][j]: the i-j-k sgemm, m x n by n x n.
static void dot(long m, long n, const float *a, const float *b, float *c) {
#pragma hpvm parallel for collapse(2) name(dot) in(a [0:m * n], b [0:n * n])   \
    out(c [0:m * n])
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (long k = 0; k < n; ++k)
        acc += a[i * n + k] * b[k * n + j];
      c[i * n + j] = acc;
    }
}

// c = a b by rows, i-k-j: each instance zeroes its row of c, then adds a row
// of b per k; instances are a row apart.
static void rows(long n, const float *a, const float *b, float *c) {
#pragma hpvm parallel for name(rows) in(a [0:n * n], b [0:n * n])              \
    out(c [0:n * n])
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < n; ++j)
      c[i * n + j] = 0.0f;
    for (long k = 0; k < n; ++k) {
      float aik = a[i * n + k];
      for (long j = 0; j < n; ++j)
        c[i * n + j] += aik * b[k * n + j];
    }
  }
}

// A branch on a value every instance shares (flip), inside the instance and
// inside its loop, plus an early exit of the inner loop at a shared bound.
static void uniform_branch(long n, int flip, long stop, const double *x,
                           double *y) {
#pragma hpvm parallel for name(uniform_branch) in(x [0:n * n]) out(y [0:n])
  for (long j = 0; j < n; ++j) {
    double acc = flip ? 1.0 : -1.0;
    for (long k = 0; k < n; ++k) {
      if (k == stop)
        break;
      if (flip)
        acc += x[k * n + j] * 0.5;
      else
        acc -= x[k * n + j];
    }
    y[j] = acc;
  }
}

// Two loops nested inside each instance, integer arithmetic that wraps.
static void nested(long n, const unsigned *x, unsigned *y) {
#pragma hpvm parallel for name(nested) in(x [0:n * n]) out(y [0:n])
  for (long j = 0; j < n; ++j) {
    unsigned h = (unsigned)j * 2654435761u;
    for (long p = 0; p < 3; ++p)
      for (long k = 0; k < n; ++k)
        h = (h ^ x[k * n + j]) * 16777619u + (unsigned)p;
    y[j] = h;
  }
}

// A reduction updated from inside the instance's loop.
static long histogram_sum(long n, const int *x) {
  long total = 7;
#pragma hpvm parallel for name(reduce_inner) in(x[0:n * n])                    \
    reduction(+: total)
  for (long j = 0; j < n; ++j)
    for (long k = 0; k < n; ++k)
      total += x[k * n + j] * (j % 3);
  return total;
}

// Checks c = a b (m x n by n x n) against a scalar product.
static void check_product(const char *leaf, long m, long n, const float *a,
                          const float *b, const float *c) {
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < n; ++j) {
      float ref = 0.0f;
      for (long k = 0; k < n; ++k)
        ref += a[i * n + k] * b[k * n + j];
      E2E_CHECK(fabsf(c[i * n + j] - ref) <= 1e-4f * (1.0f + fabsf(ref)),
                "%s n=%ld: c[%ld][%ld] = %g, expected %g", leaf, n, i, j,
                c[i * n + j], ref);
    }
}

static void run(long m, long n) {
  float *a = e2e_alloc(m * n * sizeof(float)),
        *b = e2e_alloc(n * n * sizeof(float));
  float *c = e2e_alloc(m * n * sizeof(float));
  for (long i = 0; i < m * n; ++i)
    a[i] = (float)(i % 13) - 6.0f;
  for (long i = 0; i < n * n; ++i)
    b[i] = (float)(i % 7) * 0.25f;
  dot(m, n, a, b, c);
  check_product("dot", m, n, a, b, c);
  e2e_free(a, m * n * sizeof(float), "a");
  e2e_free(c, m * n * sizeof(float), "c");

  float *sq = e2e_alloc(n * n * sizeof(float)),
        *r = e2e_alloc(n * n * sizeof(float));
  for (long i = 0; i < n * n; ++i) {
    sq[i] = (float)(i % 5) - 2.0f;
    r[i] = 1e9f; // rows must overwrite, not add to, what was there
  }
  rows(n, sq, b, r);
  check_product("rows", n, n, sq, b, r);
  e2e_free(sq, n * n * sizeof(float), "sq");
  e2e_free(r, n * n * sizeof(float), "r");
  e2e_free(b, n * n * sizeof(float), "b");

  double *x = e2e_alloc(n * n * sizeof(double)),
         *y = e2e_alloc(n * sizeof(double));
  for (long i = 0; i < n * n; ++i)
    x[i] = (double)(i % 11) - 5.0;
  for (int flip = 0; flip < 2; ++flip) {
    long stop = n / 2 + flip;
    uniform_branch(n, flip, stop, x, y);
    for (long j = 0; j < n; ++j) {
      double ref = flip ? 1.0 : -1.0;
      for (long k = 0; k < n && k != stop; ++k)
        ref = flip ? ref + x[k * n + j] * 0.5 : ref - x[k * n + j];
      E2E_CHECK(y[j] == ref,
                "uniform_branch n=%ld flip=%d: y[%ld] = %g, expected %g", n,
                flip, j, y[j], ref);
    }
  }
  e2e_free(x, n * n * sizeof(double), "x");
  e2e_free(y, n * sizeof(double), "y");

  unsigned *u = e2e_alloc(n * n * sizeof(unsigned)),
           *v = e2e_alloc(n * sizeof(unsigned));
  int *w = e2e_alloc(n * n * sizeof(int));
  for (long i = 0; i < n * n; ++i) {
    u[i] = (unsigned)(i * 2246822519u);
    w[i] = (int)(i % 9) - 4;
  }
  nested(n, u, v);
  long ref_total = 7;
  for (long j = 0; j < n; ++j) {
    unsigned h = (unsigned)j * 2654435761u;
    for (long p = 0; p < 3; ++p)
      for (long k = 0; k < n; ++k)
        h = (h ^ u[k * n + j]) * 16777619u + (unsigned)p;
    E2E_CHECK(v[j] == h, "nested n=%ld: v[%ld] = %u, expected %u", n, j, v[j],
              h);
    for (long k = 0; k < n; ++k)
      ref_total += w[k * n + j] * (j % 3);
  }
  long total = histogram_sum(n, w);
  E2E_CHECK(total == ref_total, "reduce_inner n=%ld: %ld, expected %ld", n,
            total, ref_total);
  e2e_free(u, n * n * sizeof(unsigned), "u");
  e2e_free(v, n * sizeof(unsigned), "v");
  e2e_free(w, n * n * sizeof(int), "w");
}

int main(int argc, char **argv) {
  long m = e2e_count(argc, argv, 1, 1);
  for (int k = 2; k < argc; ++k) {
    long n = e2e_count(argc, argv, k, 1);
    long before = e2e_failures;
    run(m, n);
    printf("m=%ld n=%ld: %s\n", m, n, e2e_failures == before ? "ok" : "FAILED");
  }
  return e2e_finish("jam");
}
