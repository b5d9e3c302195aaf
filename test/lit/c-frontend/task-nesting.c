// Tasks form internal nodes whose children are the pragma'd statements in
// them; tasks nest. An internal node names the union of its children's
// buffers (same pointer, largest size, union of accesses), explicit
// after() becomes hpvm.after, and --dfg-dot shows the hierarchy.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll --dfg-dot=%t.dot
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
// RUN: %hpvm-opt --extract --print %t.ll -disable-output | FileCheck %s --check-prefix=GRAPH

void pipeline(const float *a, float *b, float *c, float *d, int n) {
#pragma hpvm task name(outer)
  {
#pragma hpvm task name(middle)
    {
#pragma hpvm parallel for in(a[0:n]) out(b[0:n]) name(square)
      for (int i = 0; i < n; i++)
        b[i] = a[i] * a[i];
    }
#pragma hpvm parallel for in(b[0:n]) out(c[0:n]) name(tail)
    for (int i = 0; i < n; i++)
      c[i] = b[i] - 1;
#pragma hpvm parallel for out(d[0:2*n]) name(other) after(tail)
    for (int i = 0; i < 2 * n; i++)
      d[i] = 0;
  }
}

// CHECK: %[[OUTER:[a-z0-9.]+]] = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.in"(ptr %a, i64 %[[AB:[a-z0-9.]+]]), "hpvm.out"(ptr %c, i64 %{{[a-z0-9.]+}}, ptr %d, i64 %{{[a-z0-9.]+}}), "hpvm.inout"(ptr %b, i64 %{{[a-z0-9.]+}}) ]
// CHECK: %[[MIDDLE:[a-z0-9.]+]] = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.in"(ptr %a, i64 %[[AB]]), "hpvm.out"(ptr %b, i64 %{{[a-z0-9.]+}}) ]
// CHECK: %[[SQUARE:[a-z0-9.]+]] = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %[[AB]]), "hpvm.out"(ptr %b,
// CHECK: call void @llvm.directive.region.exit(token %[[SQUARE]])
// CHECK: call void @llvm.directive.region.exit(token %[[MIDDLE]])
// CHECK: %[[TAIL:[a-z0-9.]+]] = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %b, {{.*}}), "hpvm.out"(ptr %c,
// CHECK: call void @llvm.directive.region.exit(token %[[TAIL]])
// CHECK: %[[OTHER:[a-z0-9.]+]] = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %{{.*}}), "hpvm.out"(ptr %d, {{.*}}), "hpvm.after"(token %[[TAIL]]) ]
// CHECK: call void @llvm.directive.region.exit(token %[[OTHER]])
// CHECK-NEXT: call void @llvm.directive.region.exit(token %[[OUTER]])

// DOT: digraph "outer" {
// DOT: label="outer";
// DOT: label="middle";
// DOT: [label="square [n]\n@hpvm.node.outer.middle.square"];
// DOT: [label="tail [n]\n@hpvm.node.outer.tail"];
// DOT: [label="other [{{.*}}]\n@hpvm.node.outer.other"];

// GRAPH: internal outer
// GRAPH: internal middle
// GRAPH: leaf square
// GRAPH: leaf tail
// GRAPH: leaf other
// GRAPH-DAG: edge dep middle -> tail
// GRAPH-DAG: edge dep tail -> other
