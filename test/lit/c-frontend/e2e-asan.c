// -fsanitize=address: the program links against compiler-rt's runtime and
// its host code is instrumented (a heap overflow on the host is caught),
// while the nodes run as usual.
// REQUIRES: hpvm-link, asan-runtime
// RUN: %hpvm-clang -O1 -g -fsanitize=address %s -o %t
// RUN: %t | FileCheck %s
// RUN: not %t overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int n = 1000;
  float *x = malloc(n * sizeof(float));
#pragma hpvm parallel for out(x[0:n]) name(fill)
  for (int i = 0; i < n; i++)
    x[i] = (float)(i % 7);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  if (argc > 1 && !strcmp(argv[1], "overflow"))
    s += x[n + argc]; // past the end, on the host
  printf("sum %g\n", s);
  free(x);
  return 0;
}
// CHECK: sum 2997
// OVERFLOW: ERROR: AddressSanitizer: heap-buffer-overflow
