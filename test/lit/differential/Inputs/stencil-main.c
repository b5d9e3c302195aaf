/* Driver for differential/stencil.ll: runs kernel_stencil on several grids
 * (37x53, 3x3, 2x5, 5x2), compares the interior with a plain C reference
 * (float tolerance), checks the boundary is untouched, prints
 * "PASS stencil checksum=..." or the first mismatch and exits non-zero. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "checksum.h"

void kernel_stencil(const float *in, float *out, long n, long m);

static const float SENTINEL = -12345.0f;

static float reference(const float *in, long n, long m, long r, long c) {
  if (r < 1 || r > n - 2 || c < 1 || c > m - 2)
    return SENTINEL;
  long k = r * m + c;
  return (in[k] + in[k - m] + in[k + m] + in[k - 1] + in[k + 1]) * 0.2f;
}

int main(void) {
  static const long shapes[][2] = {{37, 53}, {3, 3}, {2, 5}, {5, 2}};
  for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
    long n = shapes[s][0], m = shapes[s][1];
    float *in = malloc(sizeof(float) * (size_t)(n * m));
    float *out = malloc(sizeof(float) * (size_t)(n * m));
    for (long k = 0; k < n * m; ++k) {
      in[k] = (float)((k * 31) % 101) * 0.25f - (float)(k % 7);
      out[k] = SENTINEL;
    }
    kernel_stencil(in, out, n, m);
    for (long r = 0; r < n; ++r)
      for (long c = 0; c < m; ++c) {
        float want = reference(in, n, m, r, c), got = out[r * m + c];
        if (!(fabsf(got - want) <= 1e-5f * (1.0f + fabsf(want)))) {
          printf("FAIL stencil: %ldx%ld at (%ld,%ld): got %.9g expected %.9g\n",
                 n, m, r, c, (double)got, (double)want);
          return 1;
        }
      }
    hash(out, sizeof(float) * (size_t)(n * m));
    free(in);
    free(out);
  }
  printf("PASS stencil checksum=%08x\n", (unsigned)checksum);
  return 0;
}
