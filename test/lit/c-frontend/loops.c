// Canonical loops that are not `for (T i = 0; i < n; ++i)` (other start,
// <=, >, >=, !=, steps other than 1, unsigned, the variable declared
// before the loop) are normalised to a 0-based counter; the dims are the
// trip counts, evaluated once before the graph.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll -save-temps=obj
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --verify --extract %t.ll -disable-output
// RUN: FileCheck %s --check-prefix=SRC < %t.hpvm.c

void down(float *a, int n) {
#pragma hpvm parallel for out(a[0:n]) name(down)
  for (int i = n - 1; i >= 0; i--)
    a[i] = i;
}
// SRC: for (long long __hpvm_iv[[K:[0-9]+]] = 0; __hpvm_iv[[K]] < __hpvm_t[[K]]; ++__hpvm_iv[[K]])
// SRC-NEXT: { int i = (int)(__hpvm_lb[[K]] - __hpvm_iv[[K]] * 1); a[i] = i; } __hpvm_region_end(
// CHECK: "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %down.dim0), "hpvm.out"(ptr %a,

void strided(float *a, unsigned n) {
  unsigned i;
#pragma hpvm parallel for out(a[0:n]) name(strided)
  for (i = 1; i <= n - 1; i += 3)
    a[i] = 0;
}
// CHECK: "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %strided.dim0), "hpvm.out"(ptr %a,

void ne(float *a, long n) {
#pragma hpvm parallel for out(a[0:n]) name(ne)
  for (long i = 0; i != n; ++i)
    a[i] = 0;
}
// CHECK: "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %ne.dim0), "hpvm.out"(ptr %a,

void reversed_cond(float *a, int n) {
#pragma hpvm parallel for out(a[0:n]) name(rev)
  for (int i = 0; n > i; i = i + 1)
    a[i] = 0;
}
// CHECK: "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.out"(ptr %a,

// The bound is read once, before the graph, as OpenMP does.
struct shape { int n; };
void bound_in_memory(float *a, const struct shape *s) {
  int n = s->n;
#pragma hpvm parallel for out(a[0:n]) name(mem)
  for (int i = 0; i < s->n; i++)
    a[i] = 1;
}
// CHECK: %[[N:[a-z0-9.]+]] = load i32, ptr %s
// CHECK: "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %[[N]]), "hpvm.out"(ptr %a,

// Bounds, bodies and even headers from macros are fine as long as the
// rewritten parts are spelled in the file: here the bound `N`.
#define N 100
#define EACH(i, n) for (int i = 0; i < n; i++)
void macros(float *a) {
#pragma hpvm parallel for out(a[0:N]) name(mac)
  EACH(i, N) a[i] = 1;
}
// CHECK: %mac.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 100), "hpvm.out"(ptr %a, i64 400) ]
