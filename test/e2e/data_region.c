// Data regions: buffers named by `#pragma hpvm data` stay on the device
// across the launches inside the statement and come home at its end; host
// code inside reads them after `update host` and writes them before
// `update device`.
//
//  (1) An iterated Jacobi stencil: T steps, each a 2-D node over the
//      interior in a function of its own, the two grids swapped after each,
//      all inside `data inout(a, b)`. Halfway the host brings row 1 of the
//      current grid home (update host), checks it against the reference,
//      changes one element and says so (update device); the iteration goes
//      on from the changed grid.
//  (2) A chain of two graphs in nested data statements: the first produces
//      y from x, the second consumes y into z; y stays on the device
//      between them.
//
// With a device that has memory of its own, CMakeLists.txt bounds the bytes
// hpvm-rt moved (RunE2E.cmake's MAX_BYTES): each array goes up at most once
// and down at most once, 16 h w bytes for (1) and 12 n for (2), where
// without the data statements every step of (1) would move both grids.
//
//   data-region h w T n
#include "e2e.h"

/// The average of element c of a grid w wide and its four neighbours.
static float average5(const float *g, long c, long w) {
  return 0.2f * (g[c] + g[c - 1] + g[c + 1] + g[c - w] + g[c + w]);
}

/// One Jacobi step: a 2-D node over the interior points of an h x w grid.
static void jacobi_step(const float *src, float *dst, long h, long w) {
#pragma hpvm parallel for collapse(2) name(jacobi) in(src[0:h * w])           \
    out(dst[0:h * w])
  for (long y = 1; y < h - 1; ++y)
    for (long x = 1; x < w - 1; ++x)
      dst[y * w + x] = average5(src, y * w + x, w);
}

/// The value the host writes halfway, into element (1, 1).
static const float Poke = 2.5f;

/// (1) without HPVM: the same steps and the same change halfway; `row` gets
/// row 1 of the grid as it is halfway, before the change.
static float *stencil_reference(float *a, float *b, long h, long w, int steps,
                                float *row) {
  float *src = a, *dst = b;
  for (int t = 0; t < steps; ++t) {
    for (long y = 1; y < h - 1; ++y)
      for (long x = 1; x < w - 1; ++x)
        dst[y * w + x] = average5(src, y * w + x, w);
    float *tmp = src;
    src = dst;
    dst = tmp;
    if (t == steps / 2 && h > 2 && w > 2) {
      memcpy(row, src + w, (size_t)w * sizeof *row);
      src[w + 1] = Poke;
    }
  }
  return src;
}

/// (1) with HPVM: returns the grid holding the last step (a or b).
static float *stencil(float *a, float *b, long h, long w, int steps,
                      const float *row) {
  float *src = a, *dst = b;
#pragma hpvm data inout(a[0:h * w], b[0:h * w])
  {
    for (int t = 0; t < steps; ++t) {
      jacobi_step(src, dst, h, w);
      float *tmp = src;
      src = dst;
      dst = tmp;
      if (t == steps / 2 && h > 2 && w > 2) {
#pragma hpvm update host(src[w:w])
        for (long x = 0; x < w; ++x)
          E2E_CHECK(e2e_close(src[w + x], row[x], 1.0),
                    "halfway, step %d, (1, %ld): %g, want %g", t, x, src[w + x],
                    row[x]);
        src[w + 1] = Poke;
#pragma hpvm update device(src[w + 1:1])
      }
    }
  }
  return src;
}

/// (2): two graphs, the second reading what the first wrote.
static void chain(const float *x, float *y, float *z, long n) {
#pragma hpvm data in(x[0:n])
  {
#pragma hpvm data out(y[0:n], z[0:n])
    {
#pragma hpvm parallel for name(produce) in(x[0:n]) out(y[0:n])
      for (long i = 0; i < n; ++i)
        y[i] = 3.0f * x[i] + 1.0f;
#pragma hpvm parallel for name(consume) in(y[0:n]) out(z[0:n])
      for (long i = 0; i < n; ++i)
        z[i] = y[n - 1 - i] - 0.5f * y[i];
    }
  }
}

int main(int argc, char **argv) {
  long h = e2e_count(argc, argv, 1, 131), w = e2e_count(argc, argv, 2, 257);
  int steps = (int)e2e_count(argc, argv, 3, 24);
  long n = e2e_count(argc, argv, 4, 4099);

  // (1)
  size_t bytes = (size_t)(h * w) * sizeof(float);
  float *a = e2e_alloc(bytes), *b = e2e_alloc(bytes);
  float *ra = malloc(bytes + 1), *rb = malloc(bytes + 1);
  float *row = malloc((size_t)w * sizeof *row + 1);
  if (!ra || !rb || !row)
    return 2;
  for (long i = 0; i < h * w; ++i)
    a[i] = b[i] = ra[i] = rb[i] = (float)((i * 37) % 101) / 101.0f;
  float *want = stencil_reference(ra, rb, h, w, steps, row);
  float *got = stencil(a, b, h, w, steps, row);
  E2E_CHECK(got == (want == ra ? a : b), "the result is in the wrong grid");
  for (long i = 0; i < h * w; ++i)
    E2E_CHECK(e2e_close(got[i], want[i], 1.0), "(%ld, %ld): %g, want %g", i / w,
              i % w, got[i], want[i]);
  printf("data-region stencil %ldx%ld, %d steps\n", h, w, steps);
  e2e_free(a, bytes, "a");
  e2e_free(b, bytes, "b");
  free(ra);
  free(rb);
  free(row);

  // (2)
  size_t nbytes = (size_t)n * sizeof(float);
  float *x = e2e_alloc(nbytes), *y = e2e_alloc(nbytes), *z = e2e_alloc(nbytes);
  for (long i = 0; i < n; ++i)
    x[i] = (float)(i % 1000) * 0.001f;
  chain(x, y, z, n);
  for (long i = 0; i < n; ++i) {
    float yi = 3.0f * x[i] + 1.0f, yr = 3.0f * x[n - 1 - i] + 1.0f;
    E2E_CHECK(e2e_close(y[i], yi, 4.0), "y[%ld]: %g, want %g", i, y[i], yi);
    E2E_CHECK(e2e_close(z[i], yr - 0.5f * yi, 4.0), "z[%ld]: %g, want %g", i,
              z[i], yr - 0.5f * yi);
  }
  printf("data-region chain of %ld\n", n);
  e2e_free(x, nbytes, "x");
  e2e_free(y, nbytes, "y");
  e2e_free(z, nbytes, "z");
  return e2e_finish("data-region");
}
