// Buffer clauses: a section a[lo:len] names pointer `a` with
// (lo + len) * sizeof(a[0]) bytes (the node indexes from `a`); a[:len] from
// 0; an array of known size by itself is the whole array, also a[lo:]; a
// scalar variable is a buffer of sizeof(x) at &x. One variable named twice
// is one buffer with both accesses.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o - | FileCheck %s

float table[64];

void sections(float *a, double *b, int lo, int len, int n) {
  float local[16];
  int count = 0;
#pragma hpvm task name(t) in(a[lo:len], b[:n]) out(local, count) inout(table[8:])
  {
    for (int i = 0; i < 16; i++)
      local[i] = a[lo + i] + b[i] + table[i];
    count = 16;
  }
#pragma hpvm parallel for name(both) in(a[0:n]) out(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = a[i] + 1;
}

// CHECK-LABEL: define dso_local void @sections(
// A global buffer is named through an instruction that the body uses too,
// so that EXTRACT passes it as a parameter.
// CHECK: %table = getelementptr i8, ptr @table, i64 0
// CHECK: %[[LO:[a-z0-9.]+]] = sext i32 %lo to i64
// CHECK: %[[LEN:[a-z0-9.]+]] = sext i32 %len to i64
// CHECK: %[[SUM:[a-z0-9.]+]] = add nsw i64 %[[LO]], %[[LEN]]
// CHECK: %[[ABYTES:a.bytes[0-9]*]] = shl nsw i64 %[[SUM]], 2
// CHECK: %[[N:[a-z0-9.]+]] = sext i32 %n to i64
// CHECK: %b.bytes = shl nsw i64 %[[N]], 3
// CHECK: %t.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.in"(ptr %a, i64 %[[ABYTES]], ptr %b, i64 %b.bytes), "hpvm.out"(ptr %local, i64 64, ptr %count, i64 4), "hpvm.inout"(ptr %table, i64 256) ]
// CHECK: %both.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.inout"(ptr %a, i64 %{{.*}}) ]
