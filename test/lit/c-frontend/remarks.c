// Optimisation remarks as in Clang: -Rpass=, -Rpass-missed= and
// -Rpass-analysis= select the passes whose remarks are printed, the CPU
// backend's included; without them, none is. -mllvm reaches LLVM's own
// options.
// clang-format off
// RUN: %hpvm-clang -O3 -c %s -o %t.o -Rpass-missed=hpvm-instance-jam 2>&1 | FileCheck %s --check-prefix=MISSED
// RUN: %hpvm-clang -O3 -c %s -o %t.o -Rpass=loop-vectorize 2>&1 | FileCheck %s --check-prefix=PASSED
// RUN: %hpvm-clang -O3 -c %s -o %t.o -Rpass=hpvm-instance-jam 2>&1 | FileCheck %s --check-prefix=JAMMED
// RUN: %hpvm-clang -O3 -c %s -o %t.o 2>&1 | count 0
// RUN: %hpvm-clang -O3 -c %s -o %t.o -mllvm -pass-remarks-missed=hpvm-instance-jam 2>&1 | FileCheck %s --check-prefix=MISSED
// RUN: not %hpvm-clang -O3 -c %s -o %t.o -mllvm -no-such-llvm-option 2>&1 | FileCheck %s --check-prefix=BAD-MLLVM
// clang-format on

// Each instance loops a different number of times: not jammed.
void triangle(long n, const float *A, float *S) {
#pragma hpvm parallel for name(triangle) in(A [0:n * n]) out(S [0:n])
  for (long i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (long k = 0; k <= i; ++k)
      acc += A[i * n + k];
    S[i] = acc;
  }
}

// A plain parallel loop: vectorised.
void scale(long n, float *X) {
#pragma hpvm parallel for name(scale) inout(X [0:n])
  for (long i = 0; i < n; ++i)
    X[i] = 2.0f * X[i];
}

// Every instance runs the same inner loop: its instances are jammed.
void rowdots(long m, long n, const float *a, const float *x, float *y) {
#pragma hpvm parallel for name(rowdots) in(a [0:m * n], x [0:n]) out(y [0:m])
  for (long i = 0; i < m; ++i) {
    float acc = 0.0f;
    for (long k = 0; k < n; ++k)
      acc += a[k * m + i] * x[k];
    y[i] = acc;
  }
}

// Host code: Clang's own remark, its location printed once.
void host_scale(long n, float *X) {
  for (long i = 0; i < n; ++i)
    X[i] = 3.0f * X[i];
}

// MISSED: remarks.c:{{[0-9]+}}:{{[0-9]+}}: remark: kernel of node 'triangle': instance loop of 'hpvm.cpu.triangle' not jammed: the leaf branches on the instance id
// MISSED-NOT: vectorized loop
// Host code's remark, and a kernel's: at the parallel loop, naming the node.
// PASSED-DAG: remarks.c:45:3: remark: vectorized loop (
// PASSED-DAG: remarks.c:28:{{[0-9]+}}: remark: kernel of node 'scale': vectorized loop (
// PASSED-NOT: <unknown>
// PASSED-NOT: hpvm-clang: remark
// PASSED-NOT: not jammed
// BAD-MLLVM: Unknown command line argument '-no-such-llvm-option'
// JAMMED: remarks.c:{{[0-9]+}}:{{[0-9]+}}: remark: kernel of node 'rowdots': instance loop of 'hpvm.cpu.rowdots' jammed: {{[0-9]+}} instances run side by side
// JAMMED-NOT: not jammed
