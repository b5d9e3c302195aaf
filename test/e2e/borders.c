// Leaves that test their instance id against borders, which the CPU
// backend splits out of the instance loop under a run-time check
// (backends/cpu/InstanceSplit.cpp), checked against the same loops in
// scalar C. The shapes cover what the split must get right: tests of ==,
// !=, <, >, signed and unsigned, on the id itself, on the id plus an
// offset, on a narrower int, against constants and run-time values; tests
// whose guessed interior value is wrong (the check must fall back); a
// test in the middle of the range; an unsigned index that wraps inside the
// range; a decreasing index (not a border test at all); and 1-D leaves,
// whose instances run in chunks that each split on their own.
//
//   borders n...    (one run per size; 2-D leaves use n x (n/2 + 1))
#include "e2e.h"

#include <limits.h>

// The shapes of one 1-D leaf, written once for the leaf and for the scalar
// reference: `i` the instance, `n` the count, `k` and `u` run-time values.
#define SHAPES(i, n, k, u, x, y)                                               \
  float v = x[i];                                                              \
  if (i == 0 || i == n - 1) /* both ends, equality */                          \
    v = -v;                                                                    \
  if (i != 1)                                                                  \
    v += 1.0f;                                                                 \
  if (0 < i && i < n - 1) /* gradient-like, relational */                      \
    v += x[i + 1] - x[i - 1];                                                  \
  for (long d = -2; d <= 2; ++d) /* blur-like, unrolled */                     \
    if (0 <= i + d && i + d < n)                                               \
      v += 0.125f * x[i + d];                                                  \
  if ((unsigned long)(i - 1) < (unsigned long)(n - 2)) /* unsigned idiom */    \
    v *= 0.5f;                                                                 \
  if (i < 3) /* small constant: guessed false inside */                        \
    v += 3.0f;                                                                 \
  if (i < k) /* run-time bound: guessed true, wrong for small k */             \
    v -= 2.0f;                                                                 \
  if (i >= n - k)                                                              \
    v += 5.0f;                                                                 \
  if (i == n / 2) /* in the middle */                                          \
    v = 100.0f;                                                                \
  if ((int)i > (int)n - 3) /* a narrower type */                               \
    v += 0.25f;                                                                \
  if ((unsigned long)i + u < 4) /* wraps: u is near ULONG_MAX */               \
    v += 7.0f;                                                                 \
  if (n - 1 - i < 2) /* decreasing: no border test */                          \
    v -= 0.5f;                                                                 \
  y[i] = v;

static void row(long n, long k, unsigned long u, const float *x, float *y) {
#pragma hpvm parallel for name(row) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i) {
    SHAPES(i, n, k, u, x, y)
  }
}

static void row_reference(long n, long k, unsigned long u, const float *x,
                          float *y) {
  for (long i = 0; i < n; ++i) {
    SHAPES(i, n, k, u, x, y)
  }
}

// A 5-point stencil over h x w, its border copied: the tests of the fast
// dimension split, those of the slow one are the same for a whole row.
#define STENCIL(r, c, h, w, src, dst)                                          \
  if (r == 0 || c == 0 || r == h - 1 || c == w - 1)                            \
    dst[r * w + c] = src[r * w + c];                                           \
  else                                                                         \
    dst[r * w + c] = 0.25 * (src[(r - 1) * w + c] + src[(r + 1) * w + c] +     \
                             src[r * w + c - 1] + src[r * w + c + 1]);

static void stencil(long h, long w, const double *src, double *dst) {
#pragma hpvm parallel for collapse(2) name(stencil) in(src [0:h * w])          \
    out(dst [0:h * w])
  for (long r = 0; r < h; ++r)
    for (long c = 0; c < w; ++c) {
      STENCIL(r, c, h, w, src, dst)
    }
}

// A 3x3 box blur whose neighbours outside the image are left out.
#define BLUR(r, c, h, w, img, out)                                             \
  float acc = 0;                                                               \
  int count = 0;                                                               \
  for (long dr = -1; dr < 2; ++dr)                                             \
    for (long dc = -1; dc < 2; ++dc) {                                         \
      long rr = r + dr, cc = c + dc;                                           \
      if (0 <= rr && rr < h && 0 <= cc && cc < w) {                            \
        acc += img[rr * w + cc];                                               \
        count += 1;                                                            \
      }                                                                        \
    }                                                                          \
  out[r * w + c] = acc / count;

static void blur(long h, long w, const float *img, float *out) {
#pragma hpvm parallel for collapse(2) name(blur) in(img [0:h * w])             \
    out(out [0:h * w])
  for (long r = 0; r < h; ++r)
    for (long c = 0; c < w; ++c) {
      BLUR(r, c, h, w, img, out)
    }
}

static void run(long n) {
  float *x = e2e_alloc(n * sizeof(float)), *y = e2e_alloc(n * sizeof(float));
  float *ref = e2e_alloc(n * sizeof(float));
  for (long i = 0; i < n; ++i)
    x[i] = (float)((i * 7) % 19) - 9.0f;
  // k: 0, tiny, about half, all; u: 0, and so near ULONG_MAX that i + u
  // wraps to 0 at i = 3.
  long ks[] = {0, 1, n / 2, n};
  unsigned long us[] = {0, ULONG_MAX - 2};
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 2; ++b) {
      row(n, ks[a], us[b], x, y);
      row_reference(n, ks[a], us[b], x, ref);
      for (long i = 0; i < n; ++i)
        E2E_CHECK(y[i] == ref[i],
                  "row n=%ld k=%ld u=%lu: y[%ld] = %g, "
                  "expected %g",
                  n, ks[a], us[b], i, y[i], ref[i]);
    }
  e2e_free(x, n * sizeof(float), "x");
  e2e_free(y, n * sizeof(float), "y");
  e2e_free(ref, n * sizeof(float), "ref");

  long h = n, w = n / 2 + 1;
  double *src = e2e_alloc(h * w * sizeof(double)),
         *dst = e2e_alloc(h * w * sizeof(double));
  double *dref = e2e_alloc(h * w * sizeof(double));
  for (long i = 0; i < h * w; ++i)
    src[i] = (double)((i * 13) % 29) - 14.0;
  stencil(h, w, src, dst);
  for (long r = 0; r < h; ++r)
    for (long c = 0; c < w; ++c) {
      STENCIL(r, c, h, w, src, dref)
    }
  for (long i = 0; i < h * w; ++i)
    E2E_CHECK(dst[i] == dref[i], "stencil %ldx%ld: [%ld] = %g, expected %g", h,
              w, i, dst[i], dref[i]);
  e2e_free(src, h * w * sizeof(double), "src");
  e2e_free(dst, h * w * sizeof(double), "dst");
  e2e_free(dref, h * w * sizeof(double), "dref");

  float *img = e2e_alloc(h * w * sizeof(float)),
        *out = e2e_alloc(h * w * sizeof(float));
  float *bref = e2e_alloc(h * w * sizeof(float));
  for (long i = 0; i < h * w; ++i)
    img[i] = (float)((i * 5) % 23);
  blur(h, w, img, out);
  for (long r = 0; r < h; ++r)
    for (long c = 0; c < w; ++c) {
      BLUR(r, c, h, w, img, bref)
    }
  for (long i = 0; i < h * w; ++i)
    E2E_CHECK(e2e_close(out[i], bref[i], bref[i]),
              "blur %ldx%ld: [%ld] = %g, expected %g", h, w, i, out[i],
              bref[i]);
  e2e_free(img, h * w * sizeof(float), "img");
  e2e_free(out, h * w * sizeof(float), "out");
  e2e_free(bref, h * w * sizeof(float), "bref");
}

int main(int argc, char **argv) {
  for (int k = 1; k < argc; ++k) {
    long n = e2e_count(argc, argv, k, 1);
    long before = e2e_failures;
    run(n);
    printf("n=%ld: %s\n", n, e2e_failures == before ? "ok" : "FAILED");
  }
  return e2e_finish("borders");
}
