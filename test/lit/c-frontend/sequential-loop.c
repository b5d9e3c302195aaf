// A plain `for` loop inside a node, around child nodes, is a node of its
// own whose instances — the loop's iterations — run in order: one launch
// runs every time step. Its region has hpvm.dims (the trip count) and
// hpvm.sequential; the children's regions are inside its loop, and read the
// step as their ancestor's id. After EXTRACT the graph form says
// `sequential`.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --verify --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-opt --print -disable-output %t.g.ll | FileCheck %s --check-prefix=GRAPH

void jacobi(long n, long steps, float *a, float *b) {
#pragma hpvm task inout(a[0:n], b[0:n]) name(jacobi)
  {
    for (long t = 0; t < steps; t++) {
#pragma hpvm parallel for in(a[0:n]) inout(b[0:n]) name(ab)
      for (long i = 1; i < n - 1; i++)
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3 + t;
#pragma hpvm parallel for in(b[0:n]) inout(a[0:n]) name(ba)
      for (long i = 1; i < n - 1; i++)
        a[i] = (b[i - 1] + b[i] + b[i + 1]) / 3;
    }
  }
}
// CHECK: %jacobi.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.inout"(ptr %a, i64 %[[BYTES:[^ ,]+]], ptr %b, i64 %[[BYTES]]) ]
// CHECK: %[[LOOP:jacobi_[0-9]+]].region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %steps), "hpvm.inout"(ptr %a, i64 %[[BYTES]], ptr %b, i64 %[[BYTES]]), "hpvm.sequential"() ]
// CHECK: %ab.region = call token @llvm.directive.region.entry()
// CHECK: call void @llvm.directive.region.exit(token %ab.region)
// CHECK: %ba.region = call token @llvm.directive.region.entry()
// CHECK: call void @llvm.directive.region.exit(token %ba.region)
// CHECK: call void @llvm.directive.region.exit(token %[[LOOP]].region)
// CHECK: call void @llvm.directive.region.exit(token %jacobi.region)

// GRAPH: internal jacobi dims []
// GRAPH: {{^  }}internal jacobi_{{[0-9]+}} dims [steps] in order
// GRAPH: {{^    }}leaf ab dims
// GRAPH: {{^    }}leaf ba dims

// Loops nest: an outer loop of sweeps around an inner one, inside a
// parallel loop over independent problems.
void nested(long m, long n, long outer, long inner, float *x) {
#pragma hpvm parallel for inout(x[0:m * n]) name(problems)
  for (long p = 0; p < m; p++) {
    for (long s = 0; s < outer; s++)
      for (long r = 0; r < inner; r++) {
#pragma hpvm parallel for inout(x[p * n:n]) name(sweep)
        for (long i = 0; i < n; i++)
          x[p * n + i] = x[p * n + i] * 0.5f + (float)(s + r);
      }
  }
}
// CHECK: %problems.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %m)
// CHECK: "hpvm.dims"(i64 %outer), {{.*}}"hpvm.sequential"() ]
// CHECK: "hpvm.dims"(i64 %inner), {{.*}}"hpvm.sequential"() ]
// CHECK: %sweep.region = call token @llvm.directive.region.entry()
// GRAPH: internal problems dims [m]
// GRAPH: {{^  }}internal nested_{{[0-9]+}} dims [outer] in order
// GRAPH: {{^    }}internal nested_{{[0-9]+}} dims [inner] in order
// GRAPH: {{^      }}leaf sweep dims [n]
