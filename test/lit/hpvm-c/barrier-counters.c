// The counter of a loop around barriers is recomputed in each phase from
// the loop's iteration, not carried in scratch memory: here it and the ids
// (recomputed too) are all that cross the barriers, so the launch makes no
// scratch, only the work-group's memory.
// REQUIRES: hpvm-link
// RUN: %clang -O1 -Xclang -disable-llvm-passes -D__HPVM__=1 -I %S/../../../frontends/c/include -S -emit-llvm %s -o %t.ll
// RUN: %hpvm-opt --lower-hpvm-c -S %t.ll -o - | FileCheck %s
// RUN: %hpvm-clang -O2 %s -o %t && %t | FileCheck %s --check-prefix=OUT
#include <hpvm.h>
#include <stdio.h>

enum { GROUP = 8 };

typedef struct __attribute__((__packed__)) {
  int *a;
  size_t bytes_a;
  int steps;
} Args;

void allocate(void) {
  void *row = __hpvm__malloc(GROUP * sizeof(int));
  __hpvm__return(2, row, (size_t)(GROUP * sizeof(int)));
}

/// Each step, every element becomes its mirror's in the group plus the step.
void leaf(int *a, size_t bytes_a, int steps, int *row, size_t bytes_row) {
  void *self = __hpvm__getNode();
  long l = __hpvm__getNodeInstanceID_x(self);
  long at = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self)) * GROUP + l;
  for (int s = 0; s < steps; ++s) {
    row[l] = a[at];
    __hpvm__barrier();
    a[at] = row[GROUP - 1 - l] + s;
    __hpvm__barrier();
  }
}

void group(int *a, size_t bytes_a, int steps) {
  void *alloc = __hpvm__createNodeND(0, allocate);
  void *node = __hpvm__createNodeND(1, leaf, (long)GROUP);
  for (int p = 0; p < 3; ++p)
    __hpvm__bindIn(node, p, p, 0);
  __hpvm__edge(alloc, node, 1, 0, 3, 0);
  __hpvm__edge(alloc, node, 1, 1, 4, 0);
}

void root(int *a, size_t bytes_a, int steps) {
  void *groups = __hpvm__createNodeND(1, group, bytes_a / (GROUP * sizeof(int)));
  for (int p = 0; p < 3; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

int main(void) {
  int a[4 * GROUP], want[4 * GROUP];
  for (int i = 0; i < 4 * GROUP; ++i)
    a[i] = want[i] = i * i;
  Args args = {a, sizeof a, 3};
  __hpvm__wait(__hpvm__launch(0, root, &args));
  for (int s = 0; s < 3; ++s) {
    int next[4 * GROUP];
    for (int i = 0; i < 4 * GROUP; ++i)
      next[i] = want[i / GROUP * GROUP + GROUP - 1 - i % GROUP] + s;
    for (int i = 0; i < 4 * GROUP; ++i)
      want[i] = next[i];
  }
  for (int i = 0; i < 4 * GROUP; ++i)
    if (a[i] != want[i]) {
      printf("a[%d] = %d, want %d\n", i, a[i], want[i]);
      return 1;
    }
  printf("counters: right\n");
  return 0;
}

// CHECK-LABEL: define {{.*}} @main(
// CHECK:       %allocate.local = call ptr @malloc(
// CHECK-NOT:   scratch
// CHECK:       call void @free(ptr %allocate.local)
// OUT: counters: right
