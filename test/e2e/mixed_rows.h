// The three row graphs of mixed_rows.c, given as functions so that
// mixed_sections.c runs the same rounds with sections per row: inputs,
// references and checks for one round.
#ifndef HPVM_E2E_MIXED_ROWS_H
#define HPVM_E2E_MIXED_ROWS_H

#include "mixed.h"

typedef void (*mixed_rows_fn)(long R, long n, float *x, float *y);
typedef void (*mixed_rows3_fn)(long R, long n, float *x, float *y, float *z);

/// rows: x *= 3, y = x + r; rows_rev: x = 3x - i%7, y = x read backwards
/// + r%100; rows_free: x += r%50 + i%3, y = 2x - i%5, z = y + 1. The
/// reference buffers rx, ry, rz have R * n elements.
static inline void mixed_rows_round(int round, long seed, long R, long n,
                                    float *x, float *y, float *z, float *rx,
                                    float *ry, float *rz, mixed_rows_fn rows,
                                    mixed_rows_fn rows_rev,
                                    mixed_rows3_fn rows_free) {
  // rows
  for (long r = 0; r < R; ++r)
    for (long i = 0; i < n; ++i) {
      long k = r * n + i;
      x[k] = mixed_input(seed, round, r, i);
      y[k] = -1.0f;
      rx[k] = x[k] * 3.0f;
      ry[k] = rx[k] + (float)r;
    }
  rows(R, n, x, y);
  mixed_check("rows", "x", round, R, n, x, rx);
  mixed_check("rows", "y", round, R, n, y, ry);

  // rows_rev
  for (long r = 0; r < R; ++r)
    for (long i = 0; i < n; ++i) {
      long k = r * n + i;
      x[k] = mixed_input(seed + 1, round, r, i);
      y[k] = -1.0f;
      rx[k] = x[k] * 3.0f - (float)(i % 7);
    }
  for (long r = 0; r < R; ++r)
    for (long i = 0; i < n; ++i)
      ry[r * n + i] = rx[r * n + (n - 1 - i)] + (float)(r % 100);
  rows_rev(R, n, x, y);
  mixed_check("rows_rev", "x", round, R, n, x, rx);
  mixed_check("rows_rev", "y", round, R, n, y, ry);

  // rows_free
  for (long r = 0; r < R; ++r)
    for (long i = 0; i < n; ++i) {
      long k = r * n + i;
      x[k] = mixed_input(seed + 2, round, r, i);
      y[k] = z[k] = -1.0f;
      rx[k] = x[k] + (float)(r % 50 + i % 3);
      ry[k] = rx[k] * 2.0f - (float)(i % 5);
      rz[k] = ry[k] + 1.0f;
    }
  rows_free(R, n, x, y, z);
  mixed_check("rows_free", "x", round, R, n, x, rx);
  mixed_check("rows_free", "y", round, R, n, y, ry);
  mixed_check("rows_free", "z", round, R, n, z, rz);
}

#endif // HPVM_E2E_MIXED_ROWS_H
