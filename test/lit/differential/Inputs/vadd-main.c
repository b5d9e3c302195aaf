/* Driver for differential/vadd.ll: runs kernel_vadd on several sizes
 * (0, 1, 17, 1000), compares with a plain C reference (float tolerance),
 * checks nothing past n is written, prints "PASS vadd checksum=..." or the
 * first mismatch and exits non-zero. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"

void kernel_vadd(const float *a, const float *b, float *c, long n);

#define MAXN 1000
#define PAD 8
static const float SENTINEL = -12345.0f;

int main(void) {
  static const long sizes[] = {0, 1, 17, MAXN};
  float *a = malloc(sizeof(float) * (MAXN + PAD));
  float *b = malloc(sizeof(float) * (MAXN + PAD));
  float *c = malloc(sizeof(float) * (MAXN + PAD));
  for (long i = 0; i < MAXN + PAD; ++i) {
    a[i] = (float)(i % 97) * 0.5f - 7.25f;
    b[i] = (float)((i * 7) % 13) * 1.125f + 0.001f * (float)i;
  }
  for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
    long n = sizes[s];
    for (long i = 0; i < MAXN + PAD; ++i)
      c[i] = SENTINEL;
    kernel_vadd(a, b, c, n);
    for (long i = 0; i < MAXN + PAD; ++i) {
      float want = i < n ? a[i] + b[i] : SENTINEL;
      if (!(fabsf(c[i] - want) <= 1e-6f * (1.0f + fabsf(want)))) {
        printf("FAIL vadd: n=%ld index %ld: got %.9g expected %.9g\n", n, i,
               (double)c[i], (double)want);
        return 1;
      }
    }
    hash(c, sizeof(float) * (size_t)n);
  }
  printf("PASS vadd checksum=%08x\n", (unsigned)checksum);
  free(a);
  free(b);
  free(c);
  return 0;
}
