// Leaves that only write a buffer, which the CPU backend also compiles with
// non-temporal stores (backends/cpu/StreamingStores.cpp): a scalar peel up
// to a 64-byte boundary, aligned vector stores, a scalar remainder. Run with
// HPVM_STREAMING_STORES=always and =never (CMakeLists.txt), so that both
// variants must give exactly the reference's results, for every size from 0
// to 70 (every peel and remainder length) and every start of the written
// range within a cache line; nothing outside it may be written.
//
//   streaming_stores
#include "e2e.h"

#include <stdint.h>

/// Largest size and start offset (in floats) tried.
enum { MaxN = 70, MaxOff = 16, Gap = 128 };

// 1-D: a copy scaled by a power of two (exact, whatever the compiler fuses).
static void scale(long n, const float *x, float *y) {
#pragma hpvm parallel for name(scale) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = x[i] * 4.0f;
}

// Stores in some instances only: the backend does not align those (it
// makes no variant of this leaf), but the leaf must still run right.
static void some(long n, const float *x, float *y) {
#pragma hpvm parallel for name(some) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i)
    if (i % 3 != 1)
      y[i] = x[i] * 4.0f;
}

// Two stores per instance, Gap floats apart: both go to the same buffer.
static void pair(long n, const float *x, float *y) {
#pragma hpvm parallel for name(pair) in(x [0:n])out(y [0:Gap + n])
  for (long i = 0; i < n; ++i) {
    y[i] = x[i] * 2.0f;
    y[i + Gap] = x[i] * 0.5f;
  }
}

// 2-D: each dst row (w wide, so rows start at every offset) from a row of
// src one wider.
static void rows(long h, long w, const float *src, float *dst) {
#pragma hpvm parallel for collapse(2) name(rows) in(src [0:h * (w + 1)])       \
    out(dst [0:h * w])
  for (long y = 0; y < h; ++y)
    for (long x = 0; x < w; ++x)
      dst[y * w + x] = 0.5f * (src[y * (w + 1) + x] + src[y * (w + 1) + x + 1]);
}

// 3-D.
static void cube(long nz, long ny, long nx, const float *in, float *out) {
#pragma hpvm parallel for collapse(3) name(cube) in(in [0:nz * ny * nx])       \
    out(out [0:nz * ny * nx])
  for (long z = 0; z < nz; ++z)
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x) {
        long i = (z * ny + y) * nx + x;
        out[i] = in[i] + 1.0f;
      }
}

// A replicated parent whose only child is the leaf: one grid launch.
static void grid(long h, long w, const float *src, float *dst) {
#pragma hpvm parallel for name(grid)
  for (long y = 0; y < h; ++y) {
#pragma hpvm parallel for name(cols) in(src [0:h * w]) out(dst [0:h * w])
    for (long x = 0; x < w; ++x)
      dst[y * w + x] = src[y * w + x] * 8.0f;
  }
}

static float input(long i) { return (float)((i * 37) % 101) / 101.0f - 0.25f; }

/// A buffer of `n` floats starting `off` floats into a cache line, with
/// guard floats around it that must stay as they are.
typedef struct {
  float *base, *data;
  long n, off;
} window;

static const uint32_t Poison = 0x7fa5a5a5u; // a NaN no kernel computes

static window open_window(long n, long off) {
  window w;
  long total = MaxOff + n + MaxOff;
  // 64-byte aligned, so that `off` fixes where in a line the data starts.
  w.base = aligned_alloc(64, (size_t)((total * 4 + 63) / 64 * 64));
  if (!w.base) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  for (long i = 0; i < total; ++i)
    memcpy(&w.base[i], &Poison, 4);
  w.data = w.base + off;
  w.n = n;
  w.off = off;
  return w;
}

/// Checks data against want (bit for bit) and the guards, then frees.
static void close_window(window w, const float *want, const char *what, long a,
                         long b) {
  for (long i = 0; i < w.n; ++i)
    if (memcmp(&w.data[i], &want[i], 4) != 0) {
      E2E_FAIL("%s(%ld, %ld) at offset %ld: element %ld is %a, expected %a",
               what, a, b, w.off, i, w.data[i], want[i]);
      break;
    }
  long total = MaxOff + w.n + MaxOff;
  for (long i = 0; i < total; ++i) {
    if (i >= w.off && i < w.off + w.n)
      continue;
    if (memcmp(&w.base[i], &Poison, 4) != 0) {
      E2E_FAIL("%s(%ld, %ld) at offset %ld: wrote float %ld outside its "
               "range",
               what, a, b, w.off, i - w.off);
      break;
    }
  }
  free(w.base);
}

int main(void) {
  float *in = malloc(sizeof(float) * (MaxN + 1) * (MaxN + 1) * 4);
  float *want = malloc(sizeof(float) * (MaxN + 1) * (MaxN + 1) * 4);
  for (long i = 0; i < (MaxN + 1) * (MaxN + 1) * 4; ++i)
    in[i] = input(i);

  for (long n = 0; n <= MaxN; ++n)
    for (long off = 0; off < MaxOff; ++off) {
      window y = open_window(n, off);
      scale(n, in, y.data);
      for (long i = 0; i < n; ++i)
        want[i] = in[i] * 4.0f;
      close_window(y, want, "scale", n, 0);

      window m = open_window(n, off);
      some(n, in, m.data);
      for (long i = 0; i < n; ++i)
        if (i % 3 != 1)
          want[i] = in[i] * 4.0f;
        else
          memcpy(&want[i], &Poison, 4);
      close_window(m, want, "some", n, 0);

      window p = open_window(Gap + n, off);
      pair(n, in, p.data);
      for (long i = 0; i < Gap + n; ++i)
        memcpy(&want[i], &Poison, 4);
      for (long i = 0; i < n; ++i) {
        want[i] = in[i] * 2.0f;
        want[i + Gap] = in[i] * 0.5f;
      }
      close_window(p, want, "pair", n, 0);
    }

  static const long Heights[] = {0, 1, 2, 3, 5};
  for (long w = 0; w <= MaxN; ++w)
    for (unsigned k = 0; k < sizeof Heights / sizeof *Heights; ++k)
      for (long off = 0; off < MaxOff; off += 5) {
        long h = Heights[k];
        window d = open_window(h * w, off);
        rows(h, w, in, d.data);
        for (long y = 0; y < h; ++y)
          for (long x = 0; x < w; ++x)
            want[y * w + x] =
                0.5f * (in[y * (w + 1) + x] + in[y * (w + 1) + x + 1]);
        close_window(d, want, "rows", h, w);

        window g = open_window(h * w, off);
        grid(h, w, in, g.data);
        for (long i = 0; i < h * w; ++i)
          want[i] = in[i] * 8.0f;
        close_window(g, want, "grid", h, w);
      }

  static const long Dims[][3] = {{0, 3, 3},  {1, 1, 1},  {2, 3, 17},
                                 {3, 2, 70}, {4, 5, 33}, {2, 7, 1}};
  for (unsigned k = 0; k < sizeof Dims / sizeof *Dims; ++k)
    for (long off = 0; off < MaxOff; off += 3) {
      long nz = Dims[k][0], ny = Dims[k][1], nx = Dims[k][2];
      long n = nz * ny * nx;
      window o = open_window(n, off);
      cube(nz, ny, nx, in, o.data);
      for (long i = 0; i < n; ++i)
        want[i] = in[i] + 1.0f;
      close_window(o, want, "cube", nz * ny, nx);
    }

  free(in);
  free(want);
  return e2e_finish("streaming_stores");
}
