// What the mixed-device programs (mixed_*.c) share: inputs that depend on
// every index, so that a lost, stale or misplaced element shows; checks
// against the C reference; and sentinels for outputs. Values are integers
// below 2^24: float arithmetic on them is exact, and results compare with ==.
#ifndef HPVM_E2E_MIXED_H
#define HPVM_E2E_MIXED_H

#include "e2e.h"

static inline float mixed_input(long seed, int round, long r, long i) {
  return (float)(((seed % 65521) * 7919 + round * 131 + r * 37 + i * 11) %
                 2039) -
         1000.0f;
}

/// Checks rows x n elements of got against want; counts and prints the
/// first mismatches.
static inline void mixed_check(const char *graph, const char *what, int round,
                               long rows, long n, const float *got,
                               const float *want) {
  long bad = 0;
  for (long r = 0; r < rows; ++r)
    for (long i = 0; i < n; ++i)
      if (got[r * n + i] != want[r * n + i]) {
        E2E_FAIL("%s round %d: %s[row %ld, col %ld] = %g, want %g", graph,
                 round, what, r, i, got[r * n + i], want[r * n + i]);
        ++bad;
      }
  if (bad)
    fprintf(stderr, "%s round %d: %ld wrong elements of %s (%ld x %ld)\n",
            graph, round, bad, what, rows, n);
}

static inline void mixed_reset(long count, float *p) {
  for (long k = 0; k < count; ++k)
    p[k] = -1.0f;
}

#endif // HPVM_E2E_MIXED_H
