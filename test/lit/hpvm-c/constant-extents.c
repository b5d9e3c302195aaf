// Extents of one instance or none, whether written as constants or known
// to LLVM from constant launch arguments, still make graphs that run (a
// loop of one iteration that LLVM folds away would leave a region without
// the loop its dims promise): a 16 x 1 leaf under a node of one instance,
// a leaf of one instance from a constant argument, and one of none.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O0 %s -o %t0 && %t0 | FileCheck %s
// RUN: %hpvm-clang -O2 %s -o %t2 && %t2 | FileCheck %s
#include <hpvm.h>
#include <stdio.h>

typedef struct __attribute__((__packed__)) {
  int *a;
  size_t bytes_a;
} Args;

void add(int *a, size_t bytes_a) {
  void *self = __hpvm__getNode();
  a[__hpvm__getNodeInstanceID_x(self) + __hpvm__getNodeInstanceID_y(self)] += 5;
}

void strip(int *a, size_t bytes_a) {
  void *leaf = __hpvm__createNodeND(2, add, 16L, 1L);
  __hpvm__bindIn(leaf, 0, 0, 0);
  __hpvm__bindIn(leaf, 1, 1, 0);
}

void one(int *a, size_t bytes_a) {
  void *node = __hpvm__createNodeND(1, strip, 1L);
  __hpvm__bindIn(node, 0, 0, 0);
  __hpvm__bindIn(node, 1, 1, 0);
}

void each(int *a, size_t bytes_a) {
  void *leaf = __hpvm__createNodeND(1, add, bytes_a / sizeof(int));
  __hpvm__bindIn(leaf, 0, 0, 0);
  __hpvm__bindIn(leaf, 1, 1, 0);
}

int main(void) {
  int a[16] = {0};
  Args args = {a, sizeof a};
  __hpvm__wait(__hpvm__launch(0, one, &args));
  Args first = {a, sizeof(int)};
  __hpvm__wait(__hpvm__launch(0, each, &first));
  Args none = {a, 0};
  __hpvm__wait(__hpvm__launch(0, each, &none));
  // CHECK: 10 5 5
  printf("%d %d %d\n", a[0], a[1], a[15]);
  return 0;
}
