// Helpers shared by the end-to-end programs: guarded buffers, checks that
// count failures, and the PASS/FAIL verdict. Plain C, compiled by
// hpvm-clang into each program (nothing here is inside a node).
#ifndef HPVM_E2E_H
#define HPVM_E2E_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Failed checks so far; e2e_finish turns it into the exit status.
static long e2e_failures;

/// Records a failed check (the first few are printed, all are counted).
#define E2E_FAIL(...)                                                          \
  do {                                                                         \
    if (e2e_failures++ < 10) {                                                 \
      fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                          \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

#define E2E_CHECK(cond, ...)                                                   \
  do {                                                                         \
    if (!(cond))                                                               \
      E2E_FAIL(__VA_ARGS__);                                                   \
  } while (0)

/// Guard zones around buffers: a kernel that writes past either end of its
/// range (a vector remainder loop that runs too far, a chunk boundary off by
/// one) changes them. 64 bytes is more than one AVX-512 vector.
enum { E2E_GUARD = 64, E2E_GUARD_BYTE = 0xA5 };

/// `bytes` usable bytes with guard zones before and after. Never NULL, also
/// for 0 bytes, so that a zero-size buffer is still a valid pointer.
static inline void *e2e_alloc(size_t bytes) {
  unsigned char *p = malloc(bytes + 2 * E2E_GUARD);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  memset(p, E2E_GUARD_BYTE, bytes + 2 * E2E_GUARD);
  return p + E2E_GUARD;
}

/// Checks the guard zones of a buffer from e2e_alloc and frees it.
static inline void e2e_free(void *buffer, size_t bytes, const char *what) {
  unsigned char *p = (unsigned char *)buffer - E2E_GUARD;
  for (size_t k = 0; k < E2E_GUARD; ++k) {
    E2E_CHECK(p[k] == E2E_GUARD_BYTE, "%s: byte %zu before the buffer written",
              what, E2E_GUARD - k);
    E2E_CHECK(p[E2E_GUARD + bytes + k] == E2E_GUARD_BYTE,
              "%s: byte %zu after the buffer (of %zu bytes) written", what, k,
              bytes);
  }
  free(p);
}

/// a and b agree to within float rounding of a value of magnitude `scale`
/// (kernels may contract a*b+c into one fused multiply-add, host code not).
static inline int e2e_close(double a, double b, double scale) {
  return fabs(a - b) <= 4e-7 * (fabs(scale) + 1e-30) || a == b;
}

/// Reads argv[i] as a non-negative count (for sizes only known at run time).
static inline long e2e_count(int argc, char **argv, int i, long fallback) {
  if (i >= argc)
    return fallback;
  char *end;
  long v = strtol(argv[i], &end, 10);
  if (*end || v < 0) {
    fprintf(stderr, "%s: '%s' is not a count\n", argv[0], argv[i]);
    exit(2);
  }
  return v;
}

/// Prints the verdict and returns the exit status.
static inline int e2e_finish(const char *name) {
  printf("%s %s (%ld failed checks)\n", e2e_failures ? "FAIL" : "PASS", name,
         e2e_failures);
  return e2e_failures != 0;
}

#endif // HPVM_E2E_H
