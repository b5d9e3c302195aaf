// A collapsed nest whose inner bounds are affine in the outer loop's
// variable (a triangle): the node's second extent is the inner bounds'
// range over the outer loop, and each instance outside its row's bounds
// ends at once. The region verifies.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o - | FileCheck %s
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o - | %hpvm-opt --verify -disable-output

void lower(long n, float *L) {
#pragma hpvm parallel for name(lower) collapse(2) inout(L[0:n * n])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j <= i; ++j)
      L[i * n + j] = 1.0f;
}

// Two extents: n rows, and j over 0 .. n - 1 (the bounds at i = 0 and at
// i = n - 1), the instances with j > i skipped.
// CHECK-LABEL: define dso_local void @lower(
// CHECK: "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %{{.*}}, i64 %{{.*}}), "hpvm.inout"(ptr %L,
// CHECK: icmp {{.*}}
// CHECK: store float 1.000000e+00
// CHECK: call void @llvm.directive.region.exit
