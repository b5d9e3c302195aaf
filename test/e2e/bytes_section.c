// A section counted in bytes where elements were meant: in(x[0:n *
// sizeof(float)]) names 4n floats of an array of n. The loop reads only n,
// so on the CPU the program runs as C would; a device copy of the declared
// section would read 3n floats past the array (a crash inside the copy
// once that is past the process's memory): hpvm-rt says so instead.
//
//   bytes-section n
#include "e2e.h"

static void scale(long n, const float *x, float *y) {
#pragma hpvm parallel for name(scale) in(x[0:n * sizeof(float)]) out(y[0:n])
  for (long i = 0; i < n; ++i)
    y[i] = 2.0f * x[i];
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 1000);
  // Each its own mapping, so that what follows x is not this program's.
  float *x = malloc((size_t)n * sizeof(float));
  float *y = malloc((size_t)n * sizeof(float));
  for (long i = 0; i < n; ++i)
    x[i] = (float)(i % 1000);
  scale(n, x, y);
  for (long i = 0; i < n; ++i)
    E2E_CHECK(y[i] == 2.0f * x[i], "y[%ld] = %g, want %g", i, y[i],
              2.0f * x[i]);
  free(x);
  free(y);
  return e2e_finish("bytes-section");
}
