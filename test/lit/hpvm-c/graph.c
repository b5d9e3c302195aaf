// The graphs HPVM-C's calls build, as EXTRACT reads them from what
// hpvm-clang makes of them (docs/hpvm-c.md): buffers and their access modes
// from __hpvm__attributes, hints as targets, HPVM-C's x as the last dim, a
// replicated internal node of leaves folded into its leaves, a root that
// only holds a leaf left out, and a
// `#pragma hpvm` graph in the same file.
// RUN: %hpvm-clang -O1 -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --verify %t.ll -disable-output
// RUN: %hpvm-opt --extract --print %t.ll -disable-output | FileCheck %s
#include <hpvm.h>

// a is read, b written, c (not listed) both; n is a value the leaf uses.
void scale(float *a, size_t bytes_a, float *b, size_t bytes_b, int *c,
           size_t bytes_c, long n) {
  __hpvm__hint(CPU_TARGET);
  __hpvm__attributes(1, a, 1, b);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  b[i] = a[i] * n;
  c[i] += 1;
}

void scale_root(float *a, size_t bytes_a, float *b, size_t bytes_b, int *c,
                size_t bytes_c, long n) {
  void *leaf = __hpvm__createNodeND(1, scale, n);
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
}
// A root that only holds a leaf is left out: the leaf is the graph.
// CHECK-LABEL: graph scale
// CHECK-NEXT:  leaf scale dims [{{[a-z_.0-9]+}}] targets cpu function @hpvm.node.scale
// CHECK-NEXT:    param a: buffer in bytes a.bytes
// CHECK-NEXT:    param b: buffer out bytes b.bytes
// CHECK-NEXT:    param c{{[0-9]*}}: buffer inout bytes c{{[0-9]*}}.bytes

// Work-groups of 8x4 work-items over a grid: one leaf over the whole grid.
void cell(float *g, size_t bytes_g, int rows, int cols) {
  __hpvm__hint(DEVICE);
  __hpvm__attributes(0, 1, g);
  void *self = __hpvm__getNode(), *group = __hpvm__getParentNode(self);
  long x = __hpvm__getNodeInstanceID_x(group) * 8 +
           __hpvm__getNodeInstanceID_x(self);
  long y = __hpvm__getNodeInstanceID_y(group) * 4 +
           __hpvm__getNodeInstanceID_y(self);
  if (x < cols && y < rows)
    g[y * cols + x] = x + y;
}

void groups(float *g, size_t bytes_g, int rows, int cols) {
  void *leaf = __hpvm__createNodeND(2, cell, 8L, 4L);
  for (int p = 0; p < 4; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
}

void grid(float *g, size_t bytes_g, int rows, int cols) {
  void *tiles =
      __hpvm__createNodeND(2, groups, (cols + 7) / 8, (rows + 3) / 4);
  for (int p = 0; p < 4; ++p)
    __hpvm__bindIn(tiles, p, p, 0);
}
// CHECK-LABEL: graph cell
// CHECK-NEXT:  leaf cell dims [cell.dim0, cell.dim1] targets nvptx,spirv function @hpvm.node.cell
// CHECK-NEXT:    param g{{[0-9]*}}: buffer out bytes g{{[0-9]*}}.bytes

// createNodeND(3, f, x, y, z): dims outermost first, z to x.
void cube(int *v, size_t bytes_v) {
  void *self = __hpvm__getNode();
  long i = (__hpvm__getNodeInstanceID_z(self) * 3 +
            __hpvm__getNodeInstanceID_y(self)) * 2 +
           __hpvm__getNodeInstanceID_x(self);
  v[i] = __hpvm__getNumNodeInstances_x(self);
}

void cube_mid(int *v, size_t bytes_v) {
  void *leaf = __hpvm__createNodeND(3, cube, 2L, 3L, 4L);
  __hpvm__bindIn(leaf, 0, 0, 0);
  __hpvm__bindIn(leaf, 1, 1, 0);
}

void cube_root(int *v, size_t bytes_v) {
  void *mid = __hpvm__createNodeND(0, cube_mid);
  __hpvm__bindIn(mid, 0, 0, 0);
  __hpvm__bindIn(mid, 1, 1, 0);
}
// CHECK-LABEL: graph cube_root
// CHECK:         internal cube_mid dims []
// CHECK:           leaf cube dims [4, 3, 2] targets cpu,nvptx,spirv function @hpvm.node.cube_root.cube_mid.cube
// CHECK-NEXT:        param v: buffer inout bytes v.bytes

typedef struct __attribute__((__packed__)) {
  float *a;
  size_t bytes_a;
  float *b;
  size_t bytes_b;
  int *c;
  size_t bytes_c;
  long n;
} ScaleArgs;

typedef struct __attribute__((__packed__)) {
  float *g;
  size_t bytes_g;
  int rows, cols;
} GridArgs;

typedef struct __attribute__((__packed__)) {
  int *v;
  size_t bytes_v;
} CubeArgs;

void launch(ScaleArgs *s, GridArgs *g, CubeArgs *c) {
  __hpvm__wait(__hpvm__launch(0, scale_root, s));
  __hpvm__wait(__hpvm__launch(0, grid, g));
  __hpvm__wait(__hpvm__launch(0, cube_root, c));
}

// `#pragma hpvm` in the same file.
void pragma(float *x, long n) {
#pragma hpvm parallel for name(twice) inout(x[0:n])
  for (long i = 0; i < n; ++i)
    x[i] *= 2;
}
// CHECK-LABEL: graph twice
// CHECK-NEXT:  leaf twice
