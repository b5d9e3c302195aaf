// Simplification before EXTRACT (EarlyCSE) merges the address &s[1] of two
// sibling nodes into the first's: a value that escapes its region. The
// frontend gives each region its own copy back (localizeRegionValues), so the
// program compiles and both nodes compute the address themselves.
// RUN: %hpvm-clang -O3 -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --verify -disable-output %t.ll
// RUN: FileCheck %s < %t.ll

void f(long n, const float *a, float *s, float *y) {
#pragma hpvm task name(g)
  {
#pragma hpvm task name(ends) in(a[0:n]) out(s[0:2])
    { s[0] = a[0]; s[1] = a[1]; }
#pragma hpvm parallel for name(use) in(s[0:2]) out(y[0:n])
    for (long i = 0; i < n; ++i)
      y[i] = i % 2 ? s[0] : s[1];
  }
}

// CHECK: %ends.region = call token @llvm.directive.region.entry()
// CHECK: [[FIRST:%[a-z0-9.]+]] = getelementptr inbounds i8, ptr %s, i64 4
// CHECK: call void @llvm.directive.region.exit(token %ends.region)
// CHECK: %use.region = call token @llvm.directive.region.entry()
// CHECK: getelementptr inbounds i8, ptr %s, i64 4
// CHECK: call void @llvm.directive.region.exit(token %use.region)
