// The shapes of mixed_rows.c with sections per instance: each child names
// only its own row, x[r*n : n] (docs/c-frontend.md §2), so instances on
// different devices touch disjoint ranges and coherence moves rows, not
// whole buffers. Plus a 2-level nest whose sections are per instance at both
// levels (planes -> rows), and a grid-shaped node whose leaf names its row.
// Built for cpu,spirv and run with HPVM_DEVICES=cpu,vulkan or cpu,opencl
// under every policy. Values as in mixed_rows.c: integers below 2^24,
// compared with ==.
//
//   mixed-sections R n [seed]
#include "mixed_rows.h"

enum { Rounds = 4 };

static void rows(long R, long n, float *x, float *y) {
#pragma hpvm parallel for name(rows) inout(x[0:R * n]) out(y[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(scale) target(spirv) inout(x[r * n:n])
    for (long i = 0; i < n; ++i)
      x[r * n + i] *= 3.0f;
#pragma hpvm parallel for name(plus) target(cpu) in(x[r * n:n]) out(y[r * n:n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + i] + (float)r;
  }
}

static void rows_rev(long R, long n, float *x, float *y) {
#pragma hpvm parallel for name(rows_rev) inout(x[0:R * n]) out(y[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(scale) target(cpu) inout(x[r * n:n])
    for (long i = 0; i < n; ++i)
      x[r * n + i] = x[r * n + i] * 3.0f - (float)(i % 7);
    // Reads its row backwards: element i needs what instance n-1-i of the
    // sibling wrote on the other device.
#pragma hpvm parallel for name(plus) target(spirv) in(x[r * n:n])             \
    out(y[r * n:n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + (n - 1 - i)] + (float)(r % 100);
  }
}

static void rows_free(long R, long n, float *x, float *y, float *z) {
#pragma hpvm parallel for name(rows_free) inout(x[0:R * n])                    \
    out(y[0:R * n], z[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(bump) inout(x[r * n:n])
    for (long i = 0; i < n; ++i)
      x[r * n + i] += (float)(r % 50 + i % 3);
#pragma hpvm parallel for name(copy) in(x[r * n:n]) out(y[r * n:n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + i] * 2.0f - (float)(i % 5);
#pragma hpvm parallel for name(tail) target(spirv) in(y[r * n:n])             \
    out(z[r * n:n])
    for (long i = 0; i < n; ++i)
      z[r * n + i] = y[r * n + i] + 1.0f;
  }
}

// planes [P] -> rows [R] -> elements: a section per plane, then per row
// inside it; the rows of a plane alternate devices by parity of the plane.
static void planes(long P, long R, long n, float *x, float *y) {
#pragma hpvm parallel for name(planes) inout(x[0:P * R * n]) out(y[0:P * R * n])
  for (long p = 0; p < P; ++p) {
#pragma hpvm parallel for name(rows) inout(x[p * R * n:R * n])                 \
    out(y[p * R * n:R * n])
    for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(scale) target(spirv)                            \
    inout(x[(p * R + r) * n:n])
      for (long i = 0; i < n; ++i)
        x[(p * R + r) * n + i] = x[(p * R + r) * n + i] * 2.0f + (float)p;
#pragma hpvm parallel for name(plus) target(cpu) in(x[(p * R + r) * n:n])      \
    out(y[(p * R + r) * n:n])
      for (long i = 0; i < n; ++i)
        y[(p * R + r) * n + i] = x[(p * R + r) * n + (n - 1 - i)] + (float)r;
    }
  }
}

// A grid: one replicated leaf per row, which names its row (one launch for
// all rows where the device can, the whole buffer then).
static void grid(long R, long n, float *x) {
#pragma hpvm parallel for name(grid) inout(x[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(cols) inout(x[r * n:n])
    for (long i = 0; i < n; ++i)
      x[r * n + i] = x[r * n + i] * 5.0f - (float)(r % 9);
  }
}

int main(int argc, char **argv) {
  long R = e2e_count(argc, argv, 1, 16);
  long n = e2e_count(argc, argv, 2, 1000);
  long seed = e2e_count(argc, argv, 3, 1);
  long P = 3;
  size_t bytes = (size_t)(P * R * n) * sizeof(float);
  float *x = e2e_alloc(bytes), *y = e2e_alloc(bytes), *z = e2e_alloc(bytes);
  float *rx = malloc(bytes + 1), *ry = malloc(bytes + 1),
        *rz = malloc(bytes + 1);
  if (!rx || !ry || !rz)
    return 2;

  for (int round = 0; round < Rounds; ++round) {
    mixed_rows_round(round, seed, R, n, x, y, z, rx, ry, rz, rows, rows_rev,
                     rows_free);

    // planes: P x R rows
    for (long k = 0; k < P * R * n; ++k) {
      long p = k / (R * n), r = k / n % R, i = k % n;
      x[k] = mixed_input(seed + 3, round, p * R + r, i);
      y[k] = -1.0f;
      rx[k] = x[k] * 2.0f + (float)p;
    }
    for (long k = 0; k < P * R * n; ++k) {
      long row = k / n, r = row % R, i = k % n;
      ry[k] = rx[row * n + (n - 1 - i)] + (float)r;
    }
    planes(P, R, n, x, y);
    mixed_check("planes", "x", round, P * R, n, x, rx);
    mixed_check("planes", "y", round, P * R, n, y, ry);

    // grid
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i) {
        long k = r * n + i;
        x[k] = mixed_input(seed + 4, round, r, i);
        rx[k] = x[k] * 5.0f - (float)(r % 9);
      }
    grid(R, n, x);
    mixed_check("grid", "x", round, R, n, x, rx);
  }
  printf("mixed-sections R=%ld n=%ld seed=%ld: %d rounds\n", R, n, seed,
         Rounds);
  e2e_free(x, bytes, "x");
  e2e_free(y, bytes, "y");
  e2e_free(z, bytes, "z");
  free(rx);
  free(ry);
  free(rz);
  return e2e_finish("mixed-sections");
}
