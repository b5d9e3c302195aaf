// HPVM_PERF_MODELS names the performance-model file: a program's launches
// are written to it when the process ends (per node, device and size
// bucket: samples, mean nanoseconds) and read back by the next run, whose
// auto policy then has models to choose with; the samples add up.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 %s -o %t
// RUN: rm -f %t.models
// RUN: env HPVM_PERF_MODELS=%t.models HPVM_SCHEDULER=auto %t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=FIRST < %t.models
// RUN: env HPVM_PERF_MODELS=%t.models HPVM_SCHEDULER=auto %t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=SECOND < %t.models
#include <stdio.h>

#define N 1000
static float x[N];

int main(void) {
  for (int round = 0; round < 3; ++round) {
#pragma hpvm parallel for name(scale) inout(x[0:N])
    for (long i = 0; i < N; ++i)
      x[i] = x[i] * 2.0f + 1.0f;
  }
  printf("x[3] = %g\n", x[3]);
  return 0;
}

// OUT: x[3] = 7
// FIRST: hpvm-perf-models 1
// FIRST-NEXT: 3 {{[0-9.e+]+}} 10 cpu scale
// SECOND: hpvm-perf-models 1
// SECOND-NEXT: 6 {{[0-9.e+]+}} 10 cpu scale
