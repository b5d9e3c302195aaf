/* Driver for differential/hier.ll: runs kernel_hier for several (nb, T)
 * shapes, compares x2, y and z exactly with a plain C reference, checks
 * nothing past n is written, prints "PASS hier checksum=..." or the first
 * mismatch and exits non-zero. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "checksum.h"

void kernel_hier(const uint32_t *x, uint32_t *x2, uint32_t *y, uint32_t *z,
                 long nb, long T);

#define MAXN 1024
#define PAD 8
#define SENTINEL 0xdeadbeefu

static int compare(const char *what, const uint32_t *got, const uint32_t *want,
                   long nb, long T) {
  for (long i = 0; i < MAXN + PAD; ++i)
    if (got[i] != want[i]) {
      printf("FAIL hier: nb=%ld T=%ld %s[%ld]: got %u expected %u\n", nb, T,
             what, i, (unsigned)got[i], (unsigned)want[i]);
      return 1;
    }
  return 0;
}

int main(void) {
  static const long shapes[][2] = {{7, 13}, {32, 32}, {1, 1}, {4, 0}, {0, 4}};
  size_t bytes = sizeof(uint32_t) * (MAXN + PAD);
  uint32_t *x = malloc(bytes), *x2 = malloc(bytes), *y = malloc(bytes),
           *z = malloc(bytes), *rx2 = malloc(bytes), *ry = malloc(bytes),
           *rz = malloc(bytes);
  for (long i = 0; i < MAXN + PAD; ++i)
    x[i] = (uint32_t)(i * 2654435761u) ^ (uint32_t)(i >> 3);
  for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
    long nb = shapes[s][0], T = shapes[s][1], n = nb * T;
    for (long i = 0; i < MAXN + PAD; ++i)
      x2[i] = y[i] = z[i] = rx2[i] = ry[i] = rz[i] = SENTINEL;
    kernel_hier(x, x2, y, z, nb, T);
    for (long i = 0; i < n; ++i)
      rx2[i] = x[i] * 3u + 1u;
    for (long b = 0; b < nb; ++b)
      for (long t = 0; t < T; ++t)
        ry[b * T + t] =
            rx2[b * T + t] * (uint32_t)(t + 1) + (uint32_t)b * 1000u;
    for (long i = 0; i < n; ++i)
      rz[i] = ry[i] + ry[n - 1 - i];
    if (compare("x2", x2, rx2, nb, T) || compare("y", y, ry, nb, T) ||
        compare("z", z, rz, nb, T))
      return 1;
    hash(x2, sizeof(uint32_t) * (size_t)n);
    hash(y, sizeof(uint32_t) * (size_t)n);
    hash(z, sizeof(uint32_t) * (size_t)n);
  }
  printf("PASS hier checksum=%08x\n", (unsigned)checksum);
  return 0;
}
