// A 3x3 box blur: its neighbours' index c + 1, computed in branches, and the
// instance loop's own c + 1 are one value to GVN, whose PRE merges them into
// a latch phi; the CPU backend gives the loop its increment back
// (backends/cpu/InstanceIncrement.cpp), so that the loop vectoriser can
// count the instances and vectorises the blur. -print-after shows the pass
// on its own: the phi fed to the instance id is replaced by one add.
// clang-format off
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - \
// RUN:   -pass-remarks=loop-vectorize -pass-remarks-analysis=loop-vectorize 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o /dev/null \
// RUN:   -print-before=hpvm-instance-increment -print-after=hpvm-instance-increment \
// RUN:   -filter-print-funcs=hpvm.cpu.blur 2>&1 | FileCheck %s --check-prefix=PASS
// clang-format on

void blur(long h, long w, const float *img, float *out) {
  long n = h * w;
#pragma hpvm parallel for collapse(2) name(blur) in(img [0:n]) out(out [0:n])
  for (long r = 0; r < h; ++r)
    for (long c = 0; c < w; ++c) {
      float acc = 0;
      long count = 0;
      for (long dr = -1; dr < 2; ++dr)
        for (long dc = -1; dc < 2; ++dc) {
          long rr = r + dr, cc = c + dc;
          if (0 <= rr && rr < h && 0 <= cc && cc < w) {
            acc += img[rr * w + cc];
            count += 1;
          }
        }
      out[r * w + c] = acc / count;
    }
}

// Negative: an instance loop whose increment nobody merged is left alone
// (the pass changes nothing, and the loop vectorises as before).
void scale(long n, const float *x, float *y) {
#pragma hpvm parallel for name(scale) in(x [0:n]) out(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = 2 * x[i];
}

// CHECK-LABEL: define {{.*}}@hpvm.cpu.blur(
// CHECK:         vector.body:
// CHECK:         call <8 x float> @llvm.masked.load.v8f32
// CHECK-LABEL: define {{.*}}@hpvm.cpu.scale(
// CHECK:         vector.body:

// REMARK-NOT: could not determine number of loop iterations
// REMARK: vectorized loop

// PASS:      IR Dump Before {{.*}}InstanceIncrementPass{{.*}} on hpvm.cpu.blur
// PASS:        %[[MERGED:[^ ]+pre-phi[^ ]*]] = phi i64
// PASS:      IR Dump After {{.*}}InstanceIncrementPass{{.*}} on hpvm.cpu.blur
// PASS-NOT:    %[[MERGED]] = phi i64
// PASS:        %{{[^ ]+}}.next{{[0-9]*}} = add nuw nsw i64 %{{[^ ]+}}, 1
// PASS-NOT:    %[[MERGED]] = phi i64
