// Math PTX has no instruction for comes from NVIDIA's libdevice: the C
// functions and LLVM's intrinsics are mapped to __nv_* (expf -> __nv_expf),
// libdevice is linked and its functions inlined into the kernel (all but
// the few slow paths libdevice marks noinline, which stay .func of the
// module), so nothing is left for the driver to resolve: no .extern.
// __CUDA_FTZ is 0, so that __nv_exp2f uses ex2.approx.f32, not its .ftz
// form (__nv_expf scales its argument first and uses either).
//
// REQUIRES: libdevice
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=nvptx %t.g.ll -S -o - | FileCheck %s
// RUN: rm -rf %t.d && %hpvm-backend --target=nvptx %t.g.ll --nvptx-dir=%t.d
// RUN: %if ptxas %{ %ptxas-each -arch=sm_80 %t.d %}
// RUN: %hpvm-backend --target=nvptx --nvptx-node=exp2f %t.g.ll -o - | FileCheck %s --check-prefix=EXP2F

#include <math.h>

void expf_(const float *a, float *o, int n) {
#pragma hpvm parallel for in(a[0:n]) out(o[0:n]) name(expf)
  for (int i = 0; i < n; i++)
    o[i] = expf(a[i]);
}

void exp2f_(const float *a, float *o, int n) {
#pragma hpvm parallel for in(a[0:n]) out(o[0:n]) name(exp2f)
  for (int i = 0; i < n; i++)
    o[i] = exp2f(a[i]);
}

void many(const float *a, const double *d, float *o, double *od, int n) {
#pragma hpvm parallel for in(a[0:n], d[0:n]) out(o[0:n], od[0:n]) name(many)
  for (int i = 0; i < n; i++) {
    float x = a[i];
    o[i] = logf(fabsf(x) + 1) + powf(fabsf(x), 1.5f) + sinf(x) + cosf(x) +
           tanhf(x) + log10f(fabsf(x) + 3) + exp2f(x) + log2f(fabsf(x) + 4) +
           fmodf(x, 0.7f) + atan2f(x, 2.0f) + erff(x) + cbrtf(x) + tanf(x) +
           asinf(x / 8) + acoshf(fabsf(x) + 1) + hypotf(x, 2) + expm1f(x) +
           (float)lroundf(x * 3);
    double y = d[i];
    od[i] = exp(y) + log(fabs(y) + 1) + pow(fabs(y), 0.5) + sin(y) + cos(y) +
            tanh(y) + atan(y) + lgamma(fabs(y) + 1);
  }
}

// CHECK-LABEL: // node 'expf', entry 'hpvm_nvptx_expf'
// CHECK-NOT:   .func
// CHECK:       .visible .entry hpvm_nvptx_expf(
// CHECK-NOT:   call
// CHECK:       fma.rn.f32 %{{f[0-9]+}}, %{{f[0-9]+}}, 0f3FB8AA3B,
// CHECK:       ex2.approx
// CHECK:       ret;
// CHECK-LABEL: // node 'exp2f', entry 'hpvm_nvptx_exp2f'
// CHECK-LABEL: // node 'many', entry 'hpvm_nvptx_many'
// CHECK-NOT:   .extern
// CHECK-NOT:   __nv_
// CHECK:       .visible .entry hpvm_nvptx_many(
// CHECK-NOT:   __nv_
// CHECK:       ret;

// EXP2F:     .entry hpvm_nvptx_exp2f
// EXP2F-NOT: ex2.approx.ftz
// EXP2F:     ex2.approx.f32
// EXP2F-NOT: ex2.approx.ftz
