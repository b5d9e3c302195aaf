// collapse(2) over loops that start at 1: both loops are normalised to
// 0-based counters with trip counts max(ub - lb, 0); the bounds are
// evaluated once before the region; target() becomes the mask.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --verify --extract --print %t.ll -disable-output | FileCheck %s --check-prefix=GRAPH
#include <math.h>

void stencil(const float *in, float *out, int n, int m) {
#pragma hpvm parallel for collapse(2) in(in[0:n*m]) out(out[0:n*m]) name(stencil) target(cpu, nvptx)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; ++j)
      out[i * m + j] = sqrtf(in[(i - 1) * m + j] + in[(i + 1) * m + j]);
}

// CHECK: call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %stencil.dim0, i64 %stencil.dim1), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes), "hpvm.target"(i32 3) ]
// CHECK: call float @sqrtf(
// CHECK: llvm.directive.region.exit

// GRAPH: graph stencil
// GRAPH: leaf stencil dims [stencil.dim0, stencil.dim1] targets cpu,nvptx function @hpvm.node.stencil
