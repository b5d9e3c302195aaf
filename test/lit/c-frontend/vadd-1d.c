// A 1-D `parallel for` becomes one region: the trip count is the dims
// extent (the loop's own `n`), buffers are the variables with their byte
// sizes, the loop stays as written, and the default name is function_line.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o - | FileCheck %s
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o - | %hpvm-opt --verify -disable-output

void vadd(const float *a, const float *b, float *c, int n) {
#pragma hpvm parallel for in(a[0:n], b[0:n]) out(c[0:n])
  for (int i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

// CHECK: @[[NAME:.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"vadd_8\00"
// CHECK-LABEL: define dso_local void @vadd(ptr noundef %a, ptr noundef %b, ptr noundef %c, i32 noundef %n)
// CHECK: %[[BYTES:[a-z0-9.]+]] = shl nsw i64 %{{.*}}, 2
// CHECK: %[[T:vadd_8.region]] = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @[[NAME]]), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %[[BYTES]], ptr %b, i64 %[[BYTES]]), "hpvm.out"(ptr %c, i64 %[[BYTES]]) ]
// CHECK: fadd float
// CHECK: store float
// CHECK: call void @llvm.directive.region.exit(token %[[T]])
// CHECK-NEXT: ret void
// CHECK-NOT: __hpvm_region
// CHECK-NOT: !dbg
