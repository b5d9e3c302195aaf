// A buffer named in both in() and out() is inout: hpvm-clang says so with a
// warning at the second clause (it is easy to mean two different arrays),
// and the region names it once, inout. inout() alone, or in() twice, is
// silent.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN --implicit-check-not=warning:
// RUN: FileCheck %s < %t.ll

void twice(float *a, float *b, int n) {
#pragma hpvm parallel for in(a[0:n]) out(a[0:n]) name(twice)
  // WARN: in-and-out.c:[[@LINE-1]]:42: warning: 'a' is named in both in() and out(): the node reads and writes it; say inout(a)
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 2;
#pragma hpvm parallel for inout(b[0:n]) in(a[0:n], a[0:n]) name(quiet)
  for (int i = 0; i < n; i++)
    b[i] += a[i];
}
// CHECK: %twice.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.inout"(ptr %a, i64 %{{[^)]*}}) ]
