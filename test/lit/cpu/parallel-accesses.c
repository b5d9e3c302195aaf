// Which instance loops are annotated parallel (every access in the access
// group the latch names): not one whose instance accesses a buffer again
// after writing it, nor one that may read it before writing it on some path
// only (LLVM 19's vectoriser, trusting the annotation, would reorder them
// within the iteration); but accesses on paths that exclude each other, the
// two branches of an `if`, never both run in one instance.
// clang-format off
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O0 %t.g.ll -S -o - | FileCheck %s
// clang-format on

void border_copy(long n, const float *x, float *y) {
#pragma hpvm parallel for name(border_copy) in(x [0:n]) out(y [0:n])
  for (long i = 0; i < n; ++i) {
    if (i == 0 || i == n - 1)
      y[i] = x[i];
    else
      y[i] = 0.5f * (x[i - 1] + x[i + 1]);
  }
}

void store_then_load(long n, float *o) {
#pragma hpvm parallel for name(store_then_load) inout(o [0:2 * n])
  for (long i = 0; i < n; ++i) {
    o[2 * i] = 1.0f;
    o[2 * i + 1] = o[2 * i];
  }
}

void maybe_load_then_store(long n, const int *c, float *y) {
#pragma hpvm parallel for name(maybe_load) in(c [0:n]) inout(y [0:n])
  for (long i = 0; i < n; ++i) {
    float t = 0.0f;
    if (c[i])
      t = y[i];
    y[i] = t + 1.0f;
  }
}

// CHECK-LABEL: define void @hpvm.cpu.border_copy(
// CHECK:         store float {{.*}}, !llvm.access.group ![[AG:[0-9]+]]
// CHECK:         store float {{.*}}, !llvm.access.group ![[AG]]
// CHECK:         !llvm.loop
// CHECK-LABEL: define void @hpvm.cpu.store_then_load(
// CHECK-NOT:     !llvm.access.group
// CHECK-LABEL: define void @hpvm.cpu.maybe_load(
// CHECK-NOT:     !llvm.access.group
// CHECK:       ret void
