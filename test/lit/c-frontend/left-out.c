// Code a GPU target cannot express does not stop the build: the leaf gets
// no kernel for that target, a remark says why and where, and it runs on
// the devices that can (the CPU; the program names the reason, which
// hpvm-rt gives when no device can run the leaf). A leaf that no target
// being compiled can run is an error at the code that stops the last one.
// A global that a helper reads is a buffer of the leaf, which every target
// can run.
// RUN: %hpvm-clang -O2 --hpvm-target=cpu,spirv,nvptx -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=remark: --implicit-check-not=error:
// RUN: not %hpvm-clang -O2 --hpvm-target=spirv -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=SPIRV
#include <stdio.h>
#include <stdlib.h>

void parse(int n, const char *text, double *v) {
#pragma hpvm parallel for name(parse) in(text[0:16 * n]) out(v[0:n])
  for (int i = 0; i < n; i++)
    v[i] = atof(text + 16 * i);
}
// CHECK-DAG: left-out.c:[[@LINE-2]]:12: remark: node 'parse' gets no nvptx, spirv (vulkan), spirv (opencl) kernel and runs on the other devices it may use: the nvptx backend cannot compile a call to the external function '@strtod' (only math functions are known on the device)
// SPIRV: left-out.c:[[@LINE-3]]:12: error: node 'parse' can run on none of the targets being compiled (spirv): the spirv backend (vulkan) cannot compile a call to the external function '@strtod' (only math functions are known on the device); the spirv backend (opencl) cannot compile a call to the external function '@strtod' (only math functions are known on the device)

static long fact(int k) { return k <= 1 ? 1 : k * fact(k - 1); }
void factorials(int n, long *f) {
#pragma hpvm parallel for name(factorials) out(f[0:n])
  for (int i = 0; i < n; i++)
    f[i] = fact(i % 20);
}
// CHECK-DAG: left-out.c:[[@LINE-2]]:12: remark: node 'factorials' gets no spirv (vulkan), spirv (opencl) kernel and runs on the other devices it may use: the spirv backend (vulkan) cannot compile a recursive call to '@fact' (SPIR-V kernels cannot recurse, so every call is inlined)

static double weights[4] = {0.5, 1, 2, 4};
static double weight(int i) { return weights[i & 3]; }
void weigh(int n, const double *x, double *y) {
#pragma hpvm parallel for name(weigh) in(x[0:n]) out(y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[i] * weight(i);
}

// A variadic helper stays a call (va_start means nothing inlined): the CPU
// runs it, SPIR-V leaves the node out.
#include <stdarg.h>
static int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, int);
  va_end(ap);
  return s;
}
void sums(int n, int *out) {
#pragma hpvm parallel for name(sums) out(out[0:n])
  for (int i = 0; i < n; i++)
    out[i] = sum(3, i, 1, 2);
}
// CHECK-DAG: left-out.c:[[@LINE-2]]:14: remark: node 'sums' gets no spirv (vulkan), spirv (opencl) kernel and runs on the other devices it may use: the spirv backend (vulkan) cannot compile a call to the variadic function '@sum' (SPIR-V kernels have no variable argument lists)
