// The marker form by hand, with hpvm.h's macros: the same region form as
// the pragma. Tags and operands in any order; HPVM_END ends the list.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --verify --extract %t.ll -disable-output
// Without hpvm-clang the markers compile away: the sequential program.
// RUN: %clang -fsyntax-only -Wall -Werror -I %S/../../../frontends/c/include %s
#include <hpvm.h>

void saxpy(float a, const float *x, float *y, long n) {
  void *graph = __hpvm_region_begin("saxpy", HPVM_DIMS1(n),
                                    HPVM_IN(x, n * sizeof *x),
                                    HPVM_INOUT(y, n * sizeof *y),
                                    HPVM_VALUE(a), HPVM_TARGET(HPVM_CPU), HPVM_END);
  for (long i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
  __hpvm_region_end(graph);
}
// CHECK: %[[B:[a-z0-9.]+]] = shl i64 %n, 2
// CHECK: %saxpy.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %n), "hpvm.in"(ptr %x, i64 %[[B]]), "hpvm.inout"(ptr %y, i64 %[[B]]), "hpvm.value"(float %a), "hpvm.target"(i32 1) ]
// CHECK: call void @llvm.directive.region.exit(token %saxpy.region)

void two(int *p, int *q, int n) {
  void *root = __hpvm_region_begin("root", HPVM_OUT(p, n * sizeof *p),
                                   HPVM_OUT(q, n * sizeof *q), HPVM_END);
  void *first = __hpvm_region_begin("first", HPVM_DIMS1(n),
                                    HPVM_OUT(p, n * sizeof *p), HPVM_END);
  for (int i = 0; i < n; i++)
    p[i] = i;
  __hpvm_region_end(first);
  void *second = __hpvm_region_begin("second", HPVM_DIMS1(n), HPVM_AFTER(first),
                                     HPVM_OUT(q, n * sizeof *q), HPVM_END);
  for (int i = 0; i < n; i++)
    q[i] = -i;
  __hpvm_region_end(second);
  __hpvm_region_end(root);
}
// CHECK: %first.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.out"(ptr %p,
// CHECK: %second.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.out"(ptr %q, {{.*}}), "hpvm.after"(token %first.region) ]
