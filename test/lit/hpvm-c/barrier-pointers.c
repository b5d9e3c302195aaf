// A pointer into a buffer chosen before a barrier and used after it is
// carried as an offset into its buffer (the next phase may run on another
// device, whose copy is elsewhere): each work-item writes through a pointer
// to its own element or its mirror, chosen from its input.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O0 %s -o %t0 && %t0 | FileCheck %s
// RUN: %hpvm-clang -O2 %s -o %t2 && %t2 | FileCheck %s
// CHECK: ok
#include <hpvm.h>
#include <stdio.h>
enum { W = 8 };
typedef struct __attribute__((__packed__)) { int *in; size_t bi; int *out; size_t bo; } Args;
void alloc(void) { void *p = __hpvm__malloc(W * sizeof(int)); __hpvm__return(2, p, (size_t)(W * sizeof(int))); }
void leaf(int *in, size_t bi, int *out, size_t bo, int *row, size_t br) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, in, 1, out);
  void *self = __hpvm__getNode();
  long l = __hpvm__getNodeInstanceID_x(self);
  long g = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self));
  long at = g * W + l;
  int *p = in[at] & 1 ? &out[at] : &out[g * W + W - 1 - l];
  row[l] = in[at];
  __hpvm__barrier();
  *p = row[W - 1 - l] * 10 + (int)l;
}
void group(int *in, size_t bi, int *out, size_t bo) {
  void *a = __hpvm__createNodeND(0, alloc);
  void *lf = __hpvm__createNodeND(1, leaf, (long)W);
  for (int q = 0; q < 4; ++q) __hpvm__bindIn(lf, q, q, 0);
  __hpvm__edge(a, lf, 1, 0, 4, 0); __hpvm__edge(a, lf, 1, 1, 5, 0);
}
void root(int *in, size_t bi, int *out, size_t bo) {
  void *g = __hpvm__createNodeND(1, group, bi / sizeof(int) / W);
  for (int q = 0; q < 4; ++q) __hpvm__bindIn(g, q, q, 0);
}
int main(void) {
  int in[32], out[32];
  for (int i = 0; i < 32; ++i) { in[i] = 2 * i; out[i] = -1; }  /* even: p -> mirror */
  for (int i = 0; i < 32; i += 8) { in[i + 1] = 3; in[i + 6] = 5; }   /* odd at 1 and 6: p -> own */
  Args args = {in, sizeof in, out, sizeof out};
  __hpvm__wait(__hpvm__launch(0, root, &args));
  int want[32];
  for (int i = 0; i < 32; ++i) want[i] = -1;
  for (int g = 0; g < 4; ++g) for (int l = 0; l < W; ++l) {
    int at = g * W + l;
    int t = (in[at] & 1) ? at : g * W + W - 1 - l;
    want[t] = in[g * W + W - 1 - l] * 10 + l;
  }
  int bad = 0;
  for (int i = 0; i < 32; ++i) if (out[i] != want[i]) { printf("out[%d]=%d want %d\n", i, out[i], want[i]); bad++; }
  printf(bad ? "FAIL\n" : "ok\n");
  return bad;
}
