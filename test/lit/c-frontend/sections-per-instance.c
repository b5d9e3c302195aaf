// A section whose start uses an instance id of an enclosing parallel loop
// is the instance's own (docs/c-frontend.md §2): the child's region names
// where it starts, x + r*n, computed in the parent's loop at the child's
// pragma, with len * sizeof(x[0]) bytes; the parent names all of x. EXTRACT
// turns it into x with the offset term n*4 * id(1, 0).
// RUN: %hpvm-clang -O1 -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt %t.ll --extract --print -disable-output | FileCheck %s --check-prefix=GRAPH

void rows(float *x, long R, long n) {
#pragma hpvm parallel for name(rows) inout(x[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(scale) inout(x[r * n:n])
    for (long i = 0; i < n; ++i)
      x[r * n + i] *= 2.0f;
  }
}

// CHECK-LABEL: define dso_local void @rows(
// CHECK: "hpvm.node"(ptr @{{[^)]+}}), "hpvm.dims"(i64 %{{[^)]+}}), "hpvm.inout"(ptr %x, i64 %{{[^)]+}})
// CHECK: %[[OFF:[a-z0-9.]+]] = mul nsw i64 %{{[a-z0-9.]+}}, %n
// CHECK: %[[SEC:[a-z0-9.]+]] = getelementptr inbounds float, ptr %x, i64 %[[OFF]]
// CHECK: "hpvm.inout"(ptr %[[SEC]], i64 %{{[^)]+}})

// GRAPH: internal rows dims [R]
// GRAPH:   param x: buffer inout bytes
// GRAPH:   leaf scale dims [n]
// GRAPH-NEXT: param x: buffer inout bytes [[B:[a-z0-9.]+]] at [[B]]*id(1,0)
