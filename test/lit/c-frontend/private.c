// Variables each instance has its own copy of: private(), firstprivate()
// (the copy starts at the variable's value), and a scalar declared outside
// the node that the node assigns before it reads (an inner loop's counter,
// C89 style): none of them is a buffer or an error, and the region verifies.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o - | FileCheck %s
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o - | %hpvm-opt --verify -disable-output

void rows(long n, long m, const float *A, float *y) {
  long i, j;
  float acc, scale = 2.0f;
#pragma hpvm parallel for name(rows) in(A[0:n * m]) out(y[0:n]) private(acc) firstprivate(scale)
  for (i = 0; i < n; ++i) {
    acc = 0;
    for (j = 0; j < m; ++j)
      acc += A[i * m + j];
    y[i] = acc * scale;
  }
}

// CHECK: %rows.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %rows.dim0), "hpvm.in"(ptr %A, i64 %A.bytes), "hpvm.out"(ptr %y, i64 %y.bytes) ]
// The counter and the sum are values of the instance's loop, not memory.
// CHECK: %j{{[0-9.]*}} = phi i64 [ 0,
// CHECK: %acc{{[0-9.]*}} = phi float [ 0.000000e+00,
// The firstprivate copy starts at the value the variable had: 2.
// CHECK: fmul float %{{.*}}, 2.000000e+00
// CHECK: call void @llvm.directive.region.exit(token %rows.region)
