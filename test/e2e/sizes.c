// Sizes follow C: a loop whose bound is below its start runs zero times,
// whatever the bound's type and however it reaches the node (a kept
// `for (int i = 0; i < n; ++i)`, a rewritten loop, a constant); a bound of
// an unsigned type that does not fit its signed counterpart runs that many
// times; every node after an empty one still runs.
//
//   sizes n big      n: a bound (may be negative); big: an unsigned count
//                    above 2^31 for the unsigned node (0 skips that node)
#include "e2e.h"

#include <limits.h>

// Kept as written: the bound becomes the extent.
static void kept(int n, int *a, int len) {
#pragma hpvm parallel for name(kept) out(a[0:len])
  for (int i = 0; i < n; ++i)
    a[i] = i + 1;
}

// Rewritten to a 0-based counter (it starts at 3).
static void rewritten(long n, int *a, int len) {
#pragma hpvm parallel for name(rewritten) out(a[0:len])
  for (long i = 3; i < n; ++i)
    a[i] = 7;
}

// The section's length is the bound: below zero, an empty section.
static void section(int n, int *a) {
#pragma hpvm parallel for name(section) out(a[0:n])
  for (int i = 0; i < n; ++i)
    a[i] = 5;
}

// A constant bound below the start.
static void constant(int *a) {
#pragma hpvm parallel for name(constant) out(a[0:1])
  for (int i = 0; i < -5; ++i)
    a[0] = 9;
}

// An unsigned int bound: 3e9 is an ordinary count here.
static void wide(unsigned n, unsigned char *a) {
#pragma hpvm parallel for name(wide) out(a[0:n])
  for (unsigned i = 0; i < n; ++i)
    a[i] = (unsigned char)(i % 251);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
  unsigned long big = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
  int len = 64;
  int *a = e2e_alloc(len * sizeof(int));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < len; ++i)
      a[i] = -1;
    long m = n < len ? n : len;
    if (round == 0)
      kept((int)m, a, len);
    else
      rewritten(m, a, len);
    for (int i = 0; i < len; ++i) {
      int want = -1;
      if (round == 0 && i < m)
        want = i + 1;
      if (round == 1 && i >= 3 && i < m)
        want = 7;
      E2E_CHECK(a[i] == want, "%s: a[%d] = %d, want %d",
                round ? "rewritten" : "kept", i, a[i], want);
    }
  }
  a[0] = -1;
  section((int)(n < len ? n : len), a);
  E2E_CHECK(a[0] == (n > 0 ? 5 : -1), "section: a[0] = %d", a[0]);
  a[0] = -1;
  constant(a);
  E2E_CHECK(a[0] == -1, "constant: a[0] = %d, want -1", a[0]);
  e2e_free(a, len * sizeof(int), "a");

  if (big) {
    unsigned count = (unsigned)big;
    unsigned char *b = malloc(count);
    if (!b) {
      fprintf(stderr, "out of memory (%u bytes)\n", count);
      return 2;
    }
    b[count - 1] = 0;
    wide(count, b);
    for (unsigned long i = 0; i < count; i += count / 1000 + 1)
      E2E_CHECK(b[i] == i % 251, "wide: b[%lu] = %d", i, b[i]);
    E2E_CHECK(b[count - 1] == (count - 1) % 251, "wide: the last element");
    free(b);
  }
  return e2e_finish("sizes");
}
