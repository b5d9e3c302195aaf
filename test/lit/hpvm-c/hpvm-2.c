// A program compiled against HPVM's own hpvm.h (a stand-in in Inputs/,
// found first on the include path, as where HPVM's programs carry it): its
// host calls link with hpvm-rt's definitions, its atomics (only declared
// there) become atomics, and it runs as with hpvm-clang's header. Hints
// after GPU_TARGET are numbered differently by HPVM's versions: an error.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 --hpvm-target=cpu,spirv -I %S/Inputs/hpvm-2 %s -o %t
// RUN: env HPVM_DEVICES=cpu HPVM_STATS=1 %t > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: not %hpvm-clang -O2 -DAMBIGUOUS -I %S/Inputs/hpvm-2 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
#include "hpvm.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct __attribute__((__packed__)) {
  int *v;
  size_t bytes_v;
  int *sum;
  size_t bytes_sum;
} Args;

void count(int *v, size_t bytes_v, int *sum, size_t bytes_sum) {
#ifdef AMBIGUOUS
  __hpvm__hint(CPU_OR_GPU_TARGET);
#else
  __hpvm__hint(CPU_TARGET);
#endif
  __hpvm__attributes(1, v, 1, sum);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  __hpvm__atomic_add(sum, v[i]);
  __hpvm__atomic_max(sum + 1, v[i]);
  __hpvm__atomic_inc(sum + 2);
}
// AMBIGUOUS: hpvm-2.c:[[#@LINE-10]]:3: error: [hpvm-c] function 'count': hint 5 means different targets in different versions of HPVM's hpvm.h, which this program includes: include hpvm-clang's instead (docs/hpvm-c.md)

void root(int *v, size_t bytes_v, int *sum, size_t bytes_sum) {
  void *leaf = __hpvm__createNodeND(1, count, bytes_v / sizeof(int));
  __hpvm__bindIn(leaf, 0, 0, 0);
  __hpvm__bindIn(leaf, 1, 1, 0);
  __hpvm__bindIn(leaf, 2, 2, 0);
  __hpvm__bindIn(leaf, 3, 3, 0);
}

int main(void) {
  enum { N = 1000 };
  int *v = malloc(N * sizeof(int)), sum[3] = {0, 0, 0};
  for (int i = 0; i < N; ++i)
    v[i] = i % 97;
  __hpvm__init();
  Args args = {v, N * sizeof(int), sum, sizeof sum};
  llvm_hpvm_track_mem(v, N * sizeof(int));
  void *dfg = __hpvm__launch(0, root, &args);
  __hpvm__wait(dfg);
  llvm_hpvm_request_mem(v, N * sizeof(int));
  llvm_hpvm_untrack_mem(v);
  __hpvm__cleanup();
  int want = 0;
  for (int i = 0; i < N; ++i)
    want += i % 97;
  printf("sum %d (want %d), max %d, count %d\n", sum[0], want, sum[1], sum[2]);
  return sum[0] != want || sum[1] != 96 || sum[2] != N;
}
// CHECK: sum 46995 (want 46995), max 96, count 1000
// STATS: {{^}}count cpu 1 1000 
