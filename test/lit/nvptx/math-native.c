// Math PTX has instructions for is lowered natively, C library names
// included (sqrtf -> llvm.sqrt.f32 -> sqrt.rn.f32): such kernels need no
// libdevice, which the second run shows by naming one that does not exist.
// Rounding is IEEE (sqrt.rn, div.rn) and denormals are kept (no .ftz).
//
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=nvptx %t.g.ll -S -o - | FileCheck %s
// RUN: %hpvm-backend --target=nvptx %t.g.ll --nvptx-libdevice=%t.none.bc -o %t.ptx
// RUN: %if ptxas %{ %ptxas-each -arch=sm_80 %t.ptx %}

#include <math.h>

void native(const float *a, const double *d, float *o, double *od, int n) {
#pragma hpvm parallel for in(a[0:n], d[0:n]) out(o[0:n], od[0:n]) name(native)
  for (int i = 0; i < n; i++) {
    float x = a[i];
    o[i] = sqrtf(fabsf(x)) + fminf(x, 0.5f) + fmaxf(x, -0.5f) + floorf(x) +
           ceilf(x) + truncf(x) + rintf(x) + roundf(x) + fmaf(x, x, 1.0f) +
           copysignf(1.0f, x) + ldexpf(x, 3) + x / (x + 3.0f);
    double y = d[i];
    od[i] = sqrt(fabs(y)) + fmin(y, 1.0) + fmax(y, 2.0) + floor(y) +
            nearbyint(y) + fma(y, y, 1.0);
  }
}

// CHECK-LABEL: // node 'native'
// CHECK-NOT:   .func
// CHECK-NOT:   __nv_
// CHECK-DAG:   sqrt.rn.f32
// CHECK-DAG:   abs.f32
// CHECK-DAG:   min.f32
// CHECK-DAG:   max.f32
// CHECK-DAG:   cvt.rmi.f32.f32
// CHECK-DAG:   cvt.rpi.f32.f32
// CHECK-DAG:   cvt.rzi.f32.f32
// CHECK-DAG:   cvt.rni.f32.f32
// CHECK-DAG:   fma.rn.f32
// CHECK-DAG:   div.rn.f32
// CHECK-DAG:   sqrt.rn.f64
// CHECK-DAG:   min.f64
// CHECK-DAG:   max.f64
// CHECK-DAG:   cvt.rmi.f64.f64
// CHECK-DAG:   cvt.rni.f64.f64
// CHECK-DAG:   fma.rn.f64
// CHECK-NOT:   .ftz
// CHECK:       ret;
