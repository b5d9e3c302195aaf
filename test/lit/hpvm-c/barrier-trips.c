// A loop around barriers whose trip count scalar evolution has no formula
// for (halving from the group's size, as CUDA reductions are written) is
// counted in front of the launch by running its test alone: a counting loop
// before the graph, whose count bounds the loop around the phases.
// A loop whose test reads memory cannot be counted so and stays an error
// (barrier-errors.c).
// REQUIRES: hpvm-link
// RUN: %clang -O1 -Xclang -disable-llvm-passes -D__HPVM__=1 -I %S/../../../frontends/c/include -S -emit-llvm %s -o %t.ll
// RUN: %hpvm-opt --lower-hpvm-c -S %t.ll -o - | FileCheck %s
// RUN: %hpvm-clang -O2 %s -o %t && %t 16 | FileCheck %s --check-prefix=OUT16
// RUN: %t 1 | FileCheck %s --check-prefix=OUT1
#include <hpvm.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct __attribute__((__packed__)) {
  int *a;
  size_t bytes_a;
  long group;
} Args;

void allocate(long group) {
  void *sums = __hpvm__malloc(group * sizeof(int));
  __hpvm__return(2, sums, (size_t)(group * sizeof(int)));
}

/// Each group's sum into its first element.
void leaf(int *a, size_t bytes_a, long group, int *sums, size_t bytes_sums) {
  void *self = __hpvm__getNode();
  long l = __hpvm__getNodeInstanceID_x(self);
  long at = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self)) * group + l;
  sums[l] = a[at];
  __hpvm__barrier();
  for (long s = __hpvm__getNumNodeInstances_x(self) / 2; s > 0; s >>= 1) {
    if (l < s)
      sums[l] += sums[l + s];
    __hpvm__barrier();
  }
  if (l == 0)
    a[at] = sums[0];
}

void node(int *a, size_t bytes_a, long group) {
  void *alloc = __hpvm__createNodeND(0, allocate);
  void *work = __hpvm__createNodeND(1, leaf, group);
  __hpvm__bindIn(alloc, 2, 0, 0);
  for (int p = 0; p < 3; ++p)
    __hpvm__bindIn(work, p, p, 0);
  __hpvm__edge(alloc, work, 1, 0, 3, 0);
  __hpvm__edge(alloc, work, 1, 1, 4, 0);
}

void root(int *a, size_t bytes_a, long group) {
  void *groups = __hpvm__createNodeND(1, node, bytes_a / sizeof(int) / group);
  for (int p = 0; p < 3; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

int main(int argc, char **argv) {
  long group = atol(argv[1]), n = 4 * group;
  int *a = malloc(n * sizeof(int));
  for (long i = 0; i < n; ++i)
    a[i] = (int)i;
  Args args = {a, n * sizeof(int), group};
  __hpvm__wait(__hpvm__launch(0, root, &args));
  for (long g = 0; g < 4; ++g)
    printf("sum %ld: %d\n", g, a[g * group]);
  return 0;
}

// CHECK-LABEL: define {{.*}} @main(
// CHECK:       test.i:
// CHECK:       %count.i = phi i64 [ 0, %{{.*}} ], [ %{{.*}}, %next.i ]
// CHECK:       store i64 %count.i, ptr %trips.slot
// CHECK:       %trips = load volatile i64, ptr %trips.slot
// CHECK:       @__hpvm_region_begin(
// CHECK:       icmp slt i64 %hpvmc.id{{[0-9]+}}, %trips
// CHECK-NOT:   @leaf.hpvmc.trips
// OUT16: sum 0: 120
// OUT16: sum 1: 376
// OUT16: sum 2: 632
// OUT16: sum 3: 888
// OUT1: sum 0: 0
// OUT1: sum 1: 1
// OUT1: sum 2: 2
// OUT1: sum 3: 3
