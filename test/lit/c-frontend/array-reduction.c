// reduction(op: a[lo:len]) on `parallel for`: the node becomes an internal
// node of its name with two kinds of children. `partial` runs the loop
// nest in chunks (as many as hpvm_private_copies gives, its extent), each
// into its own copies of the arrays; `combine_<a>` runs once per element
// of the section and folds the chunks' copies into the array. The copies
// are one block from the runtime, freed after the graph. No atomics.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --verify --extract %t.ll -disable-output

void colsum(int n, int m, const float *A, float *y) {
#pragma hpvm parallel for in(A[0:n*m]) reduction(+: y[0:m]) name(colsum)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[j] += A[i * m + j];
}
// CHECK-LABEL: define dso_local void @colsum(
// CHECK: call i32 @hpvm_private_copies(i64 {{.*}}, ptr {{.*}}%[[COUNT:[^ ,]+]], ptr {{.*}}%[[MEM:[^ ,)]+]])
// CHECK: %colsum.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.in"(ptr %A, i64 %A.bytes), "hpvm.inout"(ptr %y, i64 %y.bytes, ptr %[[COPIES:[^ ,]+]], i64 %[[CB:[^ ,)]+]]) ]
// CHECK: %partial.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %partial.dim0), "hpvm.in"(ptr %A, i64 %A.bytes), "hpvm.out"(ptr %[[COPIES]], i64 %[[CB]]) ]
// CHECK-NOT: atomicrmw
// CHECK: call void @llvm.directive.region.exit(token %partial.region)
// CHECK: %combine_y.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %m), "hpvm.in"(ptr %[[COPIES]], i64 %[[CB]]), "hpvm.inout"(ptr %y, i64 %y.bytes) ]
// CHECK: call void @llvm.directive.region.exit(token %combine_y.region)
// CHECK: call void @llvm.directive.region.exit(token %colsum.region)
// CHECK: call void @free(

// Two arrays and a scalar in one node: one partial, a combine per array,
// the scalar still combined atomically by each instance of partial.
float minmax(int n, const float *v, float *lo, float *hi) {
  float sum = 0;
#pragma hpvm parallel for in(v[0:n]) reduction(min: lo[2:4]) reduction(max: hi[0:4]) reduction(+: sum) name(mm)
  for (int i = 0; i < n; i++) {
    lo[2 + i % 4] = v[i] < lo[2 + i % 4] ? v[i] : lo[2 + i % 4];
    hi[i % 4] = v[i] > hi[i % 4] ? v[i] : hi[i % 4];
    sum += v[i];
  }
  return sum;
}
// CHECK-LABEL: define dso_local float @minmax(
// CHECK: %mm.region = call token @llvm.directive.region.entry()
// CHECK: %partial.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %partial.dim0), "hpvm.in"(ptr %v, i64 %v.bytes), "hpvm.out"(ptr %{{[^ ,]+}}, i64 %{{[^ ,]+}}, ptr %{{[^ ,]+}}, i64 %{{[^ ,]+}}), "hpvm.inout"(ptr %sum, i64 4) ]
// CHECK: atomicrmw fadd ptr %sum
// CHECK: %combine_lo.region = call token @llvm.directive.region.entry()
// CHECK: %combine_hi.region = call token @llvm.directive.region.entry()
