// A NULL buffer that the graph gives bytes is an error naming the graph and
// the buffer, before anything runs (it reached the kernel, which
// dereferenced it); a NULL buffer of no bytes is an empty one.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 %s -o %t
// RUN: %t 0 | FileCheck %s --check-prefix=EMPTY
// RUN: not %t 4 2>&1 | FileCheck %s
#include <stdio.h>
#include <stdlib.h>

static void saxpy(long n, float a, const float *x, float *y) {
#pragma hpvm parallel for name(saxpy) in(x[0:n]) inout(y[0:n])
  for (long i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  long n = atol(argv[1]);
  float y[4] = {1, 1, 1, 1};
  saxpy(n, 2.0f, NULL, y);
  printf("ran %g\n", y[0]);
  return 0;
}
// EMPTY: ran 1
// CHECK: hpvm-rt: error: hpvm_launch: graph 'saxpy': buffer 'x' is a NULL pointer but the graph gives it 16 bytes
