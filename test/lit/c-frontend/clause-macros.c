// Macros in clauses mean what the preprocessor makes of them: one that
// expands to several items (`in(INPUTS)`), to a section's bounds, or to a
// whole clause. The rewrite spells the tokens the compiler saw, so a macro
// is not expanded again where it would mean more.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --verify --extract %t.ll -disable-output

#define N 16
#define INPUTS a[0:N], b[0:N]
#define HALF(x) ((x) / 2)
#define OUTPUTS out(c[0:N])

void add(const float *a, const float *b, float *c) {
#pragma hpvm parallel for name(add) in(INPUTS) out(c[0:HALF(2 * N)])
  for (int i = 0; i < N; i++)
    c[i] = a[i] + b[i];
}
// CHECK: %add.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 16), "hpvm.in"(ptr %a, i64 64, ptr %b, i64 64), "hpvm.out"(ptr %c, i64 64) ]

void scale(const float *a, float *c) {
#pragma hpvm parallel for name(scale) in(a[0:N]) OUTPUTS
  for (int i = 0; i < N; i++)
    c[i] = 2 * a[i];
}
// CHECK: %scale.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 16), "hpvm.in"(ptr %a, i64 64), "hpvm.out"(ptr %c, i64 64) ]
