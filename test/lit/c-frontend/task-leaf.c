// A task without child nodes is a single-instance leaf: its body may hold
// any code, sequential loops included. value() passes scalars explicitly
// (scalars the body uses are captured anyway).
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --extract --print %t.ll -disable-output | FileCheck %s --check-prefix=GRAPH

void prefix_sum(const int *in, int *out, int n, short bias, float scale) {
#pragma hpvm task in(in[0:n]) out(out[0:n]) value(bias, scale) target(cpu)
  {
    int acc = bias;
    for (int i = 0; i < n; i++) {
      acc += in[i];
      out[i] = (int)(acc * scale);
    }
  }
}
// The promotions of the varargs call are undone: short and float again.
// CHECK: %prefix_sum_9.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.in"(ptr %in, i64 %in.bytes), "hpvm.out"(ptr %out, i64 %in.bytes), "hpvm.value"(i16 %bias, float %scale), "hpvm.target"(i32 1) ]

// GRAPH: leaf prefix_sum_9 dims [] targets cpu
// GRAPH: param bias: i16
// GRAPH: param scale: f32
