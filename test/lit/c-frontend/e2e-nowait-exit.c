// `nowait` launches the program never waits for: the process waits for
// them when it exits (their results are there for an atexit handler of the
// program's, registered before the first launch, to check), and one that
// failed while nobody waited makes the exit status 1 with the runtime's
// message. The failing run makes a graph of 2^33 x 2^33 instances, which
// fails when it runs (too many instances to count), not when it starts.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 %s -o %t
// RUN: %t | FileCheck %s
// RUN: env NOWAIT_HUGE=1 not %t 2>&1 | FileCheck %s --check-prefix=FAIL
#include <stdio.h>
#include <stdlib.h>

#define N 100000
static float x[N];
static int z[9];

static void check(void) {
  long bad = 0;
  for (long i = 0; i < N; ++i)
    bad += x[i] != (float)(i % 13) * 2.0f + 1.0f;
  printf("at exit: %ld wrong\n", bad);
}

int main(void) {
  for (long i = 0; i < N; ++i)
    x[i] = (float)(i % 13);
  atexit(check); // runs after the runtime's handler, registered later
#pragma hpvm parallel for nowait inout(x[0:N])
  for (long i = 0; i < N; ++i)
    x[i] = x[i] * 2.0f;
  long n = getenv("NOWAIT_HUGE") ? 1L << 33 : 3;
#pragma hpvm parallel for collapse(2) nowait out(z[0:9])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      z[(i * 3 + j) % 9] = 1;
#pragma hpvm parallel for nowait inout(x[0:N])
  for (long i = 0; i < N; ++i)
    x[i] = x[i] + 1.0f;
  return 0;
}

// CHECK: at exit: 0 wrong
// FAIL: hpvm-rt: error: {{.*}}instances
