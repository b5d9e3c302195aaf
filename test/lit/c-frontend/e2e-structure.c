// Structures beyond one loop: a parallel loop of parallel loops (a
// replicated internal node, blocks of threads), pragmas as the branches of
// an if, two graphs in a row, and a node in an inline function of a header
// (the header is rewritten too).
// RUN: %hpvm-clang -emit-hpvm-ir -S -I %S/Inputs %s -o %t.ll
// RUN: %hpvm-opt --extract --print %t.ll -disable-output | FileCheck %s --check-prefix=GRAPH
// RUN: %if hpvm-link %{ %hpvm-clang -O2 -I %S/Inputs %s -o %t && %t | FileCheck %s %}
#include <stdio.h>
#include "header-kernel.h"
void tiles(float *a, int nb, int bs) {
#pragma hpvm parallel for out(a[0:nb*bs]) name(blocks)
  for (int b = 0; b < nb; b++) {
#pragma hpvm parallel for out(a[0:nb*bs]) name(threads)
    for (int t = 0; t < bs; t++)
      a[b * bs + t] = b * 100 + t;
  }
}
void cond(float *a, int n, int c) {
  if (c)
#pragma hpvm parallel for out(a[0:n]) name(then)
    for (int i = 0; i < n; i++) a[i] = 1;
  else
#pragma hpvm parallel for out(a[0:n]) name(els)
    for (int i = 0; i < n; i++) a[i] = 2;
}
void two(float *a, float *b, int n) {
#pragma hpvm parallel for out(a[0:n]) name(g1)
  for (int i = 0; i < n; i++) a[i] = 3;
#pragma hpvm parallel for in(a[0:n]) out(b[0:n]) name(g2)
  for (int i = 0; i < n; i++) b[i] = a[i] + 1;
}
int main(void) {
  float a[64], b[64];
  tiles(a, 8, 8);
  int ok = a[63] == 707 && a[9] == 101;
  cond(a, 64, 0); ok &= a[5] == 2;
  cond(a, 64, 1); ok &= a[5] == 1;
  two(a, b, 64); ok &= b[7] == 4;
  hdr_fill(a, 64); ok &= a[3] == 7;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return !ok;
}

// GRAPH: graph blocks
// GRAPH-NEXT: internal blocks dims [nb]
// GRAPH: leaf threads dims [bs] {{.*}} function @hpvm.node.blocks.threads
// GRAPH: graph then
// GRAPH: graph els
// GRAPH: graph g1
// GRAPH: graph g2
// GRAPH: graph hdr
// CHECK: PASSED
