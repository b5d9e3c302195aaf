// Grid-shaped nodes next to each other on different devices (built for
// cpu,spirv, run with HPVM_DEVICES=cpu,vulkan or cpu,opencl): a parallel
// loop whose only child is a parallel loop (a replicated internal node over
// rows with one replicated leaf over the row's columns: the form the
// executor may run as one grid launch), each leaf writing row r of its out
// buffer.
//
//   grid_any     rows { cols (no target) x -> y }        the scheduler picks
//   grid_spirv   rows { cols target(spirv) x -> y }
//   grid_cpu     rows { cols target(cpu) x -> y }
//   grids (task)                                         one launch, three
//   devices' worth
//   |-- first   rows { cols target(spirv) x -> a }
//   |-- second  rows { cols target(cpu)   a -> b }       reads row R-1-r of a
//   `-- third   rows { cols (no target)   a, b -> c }    reads column n-1-i of
//   b
//
// Every element's value depends on its row, its column, the round and the
// seed; outputs are reset to a sentinel before each launch. Integer-valued
// floats below 2^24: exact, compared with ==.
//
//   mixed-grid R n [seed]
#include "mixed.h"

enum { Rounds = 4 };

static void grid_any(long R, long n, const float *x, float *y) {
#pragma hpvm parallel for name(grid_any) in(x[0:R * n]) out(y[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(cols) in(x[0:R * n]) out(y[0:R * n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + i] * 2.0f + (float)(r % 300) - (float)(i % 7);
  }
}

static void grid_spirv(long R, long n, const float *x, float *y) {
#pragma hpvm parallel for name(grid_spirv) in(x[0:R * n]) out(y[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(cols) target(spirv) in(x[0:R * n])              \
    out(y[0:R * n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + i] * 3.0f - (float)(r % 200) + (float)(i % 11);
  }
}

static void grid_cpu(long R, long n, const float *x, float *y) {
#pragma hpvm parallel for name(grid_cpu) in(x[0:R * n]) out(y[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(cols) target(cpu) in(x[0:R * n])                \
    out(y[0:R * n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + i] - (float)(r % 400) * 2.0f + (float)(i % 13);
  }
}

static void grids(long R, long n, const float *x, float *a, float *b,
                  float *c) {
#pragma hpvm task name(grids)
  {
#pragma hpvm parallel for name(first) in(x[0:R * n]) out(a[0:R * n])
    for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(cols) target(spirv) in(x[0:R * n])              \
    out(a[0:R * n])
      for (long i = 0; i < n; ++i)
        a[r * n + i] = x[r * n + i] + (float)(r % 100) * 3.0f + (float)(i % 5);
    }
#pragma hpvm parallel for name(second) in(a[0:R * n]) out(b[0:R * n])
    for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(cols) target(cpu) in(a[0:R * n])                \
    out(b[0:R * n])
      for (long i = 0; i < n; ++i)
        b[r * n + i] = a[(R - 1 - r) * n + i] * 2.0f - (float)(r % 9);
    }
#pragma hpvm parallel for name(third) in(a[0:R * n], b[0:R * n])               \
    out(c[0:R * n])
    for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(cols) in(a[0:R * n], b[0:R * n])                \
    out(c[0:R * n])
      for (long i = 0; i < n; ++i)
        c[r * n + i] = b[r * n + (n - 1 - i)] - a[r * n + i] + (float)(i % 3);
    }
  }
}

int main(int argc, char **argv) {
  long R = e2e_count(argc, argv, 1, 16);
  long n = e2e_count(argc, argv, 2, 1000);
  long seed = e2e_count(argc, argv, 3, 1);
  long N = R * n;
  size_t bytes = (size_t)N * sizeof(float);
  float *x = e2e_alloc(bytes), *y = e2e_alloc(bytes), *a = e2e_alloc(bytes),
        *b = e2e_alloc(bytes), *c = e2e_alloc(bytes);
  float *ry = malloc(bytes + 1), *ra = malloc(bytes + 1),
        *rb = malloc(bytes + 1), *rc = malloc(bytes + 1);
  if (!ry || !ra || !rb || !rc)
    return 2;

  for (int round = 0; round < Rounds; ++round) {
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        x[r * n + i] = mixed_input(seed, round, r, i);

    mixed_reset(N, y);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        ry[r * n + i] = x[r * n + i] * 2.0f + (float)(r % 300) - (float)(i % 7);
    grid_any(R, n, x, y);
    mixed_check("grid_any", "y", round, R, n, y, ry);

    mixed_reset(N, y);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        ry[r * n + i] =
            x[r * n + i] * 3.0f - (float)(r % 200) + (float)(i % 11);
    grid_spirv(R, n, x, y);
    mixed_check("grid_spirv", "y", round, R, n, y, ry);

    mixed_reset(N, y);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        ry[r * n + i] =
            x[r * n + i] - (float)(r % 400) * 2.0f + (float)(i % 13);
    grid_cpu(R, n, x, y);
    mixed_check("grid_cpu", "y", round, R, n, y, ry);

    mixed_reset(N, a);
    mixed_reset(N, b);
    mixed_reset(N, c);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        ra[r * n + i] = x[r * n + i] + (float)(r % 100) * 3.0f + (float)(i % 5);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        rb[r * n + i] = ra[(R - 1 - r) * n + i] * 2.0f - (float)(r % 9);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        rc[r * n + i] =
            rb[r * n + (n - 1 - i)] - ra[r * n + i] + (float)(i % 3);
    grids(R, n, x, a, b, c);
    mixed_check("grids", "a", round, R, n, a, ra);
    mixed_check("grids", "b", round, R, n, b, rb);
    mixed_check("grids", "c", round, R, n, c, rc);
  }
  printf("mixed-grid R=%ld n=%ld seed=%ld: %d rounds\n", R, n, seed, Rounds);
  e2e_free(x, bytes, "x");
  e2e_free(y, bytes, "y");
  e2e_free(a, bytes, "a");
  e2e_free(b, bytes, "b");
  e2e_free(c, bytes, "c");
  free(ry);
  free(ra);
  free(rb);
  free(rc);
  return e2e_finish("mixed-grid");
}
