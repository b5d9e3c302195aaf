// A whole program for driver tests that run what they build.
#include <stdio.h>
#include <stdlib.h>

static void vadd(long n, const float *a, const float *b, float *c) {
#pragma hpvm parallel for name(vadd) in(a[0:n], b[0:n]) out(c[0:n])
  for (long i = 0; i < n; ++i)
    c[i] = a[i] + b[i];
}

int main(void) {
  long n = 1000;
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
        *c = malloc(n * sizeof *c);
  for (long i = 0; i < n; ++i) {
    a[i] = (float)i;
    b[i] = (float)(2 * i);
  }
  vadd(n, a, b, c);
  for (long i = 0; i < n; ++i)
    if (c[i] != (float)(3 * i)) {
      printf("FAIL at %ld\n", i);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
