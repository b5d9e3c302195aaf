/* Driver for differential/time-steps.ll: runs kernel_steps for several
 * (n, steps) shapes, compares both arrays exactly with the plain C steps,
 * checks nothing past n is written, prints "PASS time-steps checksum=..." or
 * the first mismatch and exits non-zero. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "checksum.h"

void kernel_steps(long n, long steps, uint32_t *a, uint32_t *b);

#define MAXN 1024
#define PAD 8

int main(void) {
  static const long shapes[][2] = {{100, 7}, {1000, 3}, {3, 5}, {2, 4},
                                   {1, 2},   {50, 0},   {17, 1}};
  size_t bytes = sizeof(uint32_t) * (MAXN + PAD);
  uint32_t *a = malloc(bytes), *b = malloc(bytes), *ra = malloc(bytes),
           *rb = malloc(bytes);
  for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
    long n = shapes[s][0], steps = shapes[s][1];
    for (long i = 0; i < MAXN + PAD; ++i) {
      a[i] = ra[i] = (uint32_t)(i * 2654435761u) % 1000003u;
      b[i] = rb[i] = (uint32_t)(i * 40503u) % 1000003u;
    }
    kernel_steps(n, steps, a, b);
    for (long t = 0; t < steps; ++t) {
      for (long i = 1; i < n - 1; ++i)
        rb[i] = (ra[i - 1] + 2u * ra[i] + 3u * ra[i + 1]) % 1000003u;
      for (long i = 1; i < n - 1; ++i)
        ra[i] =
            (rb[i - 1] + 2u * rb[i] + 3u * rb[i + 1] + (uint32_t)t) % 1000003u;
    }
    for (long i = 0; i < MAXN + PAD; ++i)
      if (a[i] != ra[i] || b[i] != rb[i]) {
        printf("FAIL time-steps: n=%ld steps=%ld [%ld]: got %u %u expected "
               "%u %u\n",
               n, steps, i, (unsigned)a[i], (unsigned)b[i], (unsigned)ra[i],
               (unsigned)rb[i]);
        return 1;
      }
    hash(a, bytes);
    hash(b, bytes);
  }
  printf("PASS time-steps checksum=%08x\n", (unsigned)checksum);
  return 0;
}
