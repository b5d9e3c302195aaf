// A parallel loop whose unsigned bound gives more than 2^63 - 1 iterations
// (instance ids are signed 64-bit on every target) is an error naming the
// node before the graph starts, not a loop of no instances; below that it
// runs as C runs it.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 %s -o %t
// RUN: %t 4 | FileCheck %s --check-prefix=RUNS
// RUN: not %t 0x8000000000000005 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not %t 0xffffffffffffffff 2>&1 | FileCheck %s --check-prefix=ERROR
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  unsigned long n = strtoul(argv[1], 0, 0);
  float a[4] = {0};
#pragma hpvm parallel for name(big)
  for (unsigned long i = 0; i < n; i++)
    if (i < 4)
      a[i] = 1;
#pragma hpvm parallel for name(down)
  for (unsigned long i = n; i > 0; i--)
    if (i <= 4)
      a[i - 1] += 1;
  printf("%g %g\n", a[0], a[3]);
  return 0;
}
// RUNS: 2 2
// ERROR: hpvm-rt: error: node 'big': a loop of {{[0-9]+}} iterations; a parallel loop runs at most 2^63 - 1 instances (its bound is unsigned: check it)
