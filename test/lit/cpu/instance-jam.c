// Instances that run a loop of their own: the CPU backend jams VF instances
// into one iteration of the instance loop so that the SLP vectoriser can put
// them in one vector (backends/cpu/InstanceJam.cpp). Leaves whose lanes
// would diverge, or would share what each instance must own, stay as they
// are, with a remark saying why.
// clang-format off
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell %t.g.ll -S -o - \
// RUN:   -pass-remarks-missed=hpvm-instance-jam 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// At -O1 the vectorisers are off, and so is jamming.
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -O1 %t.g.ll -S -o - \
// RUN:   | FileCheck %s --check-prefix=O1
// clang-format on

// The i-j-k sgemm: each instance a dot product. Eight instances (AVX2
// floats) share the k loop; B's row is one vector load, A's element one
// broadcast. Instances left over run in the original loop.
void sgemm(long n, const float *A, const float *B, float *C) {
#pragma hpvm parallel for collapse(2) name(sgemm) in(A [0:n * n], B [0:n * n]) \
    out(C [0:n * n])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (long k = 0; k < n; ++k)
        acc += A[i * n + k] * B[k * n + j];
      C[i * n + j] = acc;
    }
}
// CHECK-LABEL: define void @hpvm.cpu.sgemm(
// CHECK:         %jam.trips = and i64 %{{.*}}, -8
// CHECK:       {{.*}}.jam:
// CHECK:         phi <8 x float>
// CHECK:         load <8 x float>
// CHECK:         shufflevector <8 x float> %{{.*}}, <8 x float> poison, <8 x i32> zeroinitializer
// CHECK:         call <8 x float> @llvm.fmuladd.v8f32(
// CHECK:         store <8 x float>
// CHECK:       jam.middle:
// CHECK:       }
// The i-k-j sgemm: one instance per row. Neighbouring instances are a row
// apart, so their lanes cannot share vectors, but they all read B's row:
// four are jammed, and the loop vectoriser vectorises the jammed j loop along
// the rows, loading B once for four rows of C. Each lane has an alias scope
// of its own (the zeroing memset, a lane, included), so the vectoriser needs
// no run-time checks between the rows. The simplification pipeline gave the
// instance loop a second counter (for the memset), which is rewritten in
// terms of the instance id first.
void rows(long n, const float *A, const float *B, float *C) {
#pragma hpvm parallel for name(rows) in(A [0:n * n], B [0:n * n])              \
    out(C [0:n * n])
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < n; ++j)
      C[i * n + j] = 0.0f;
    for (long k = 0; k < n; ++k) {
      float a = A[i * n + k];
      for (long j = 0; j < n; ++j)
        C[i * n + j] += a * B[k * n + j];
    }
  }
}
// CHECK-LABEL: define void @hpvm.cpu.rows(
// CHECK:         %jam.trips = and i64 %{{.*}}, -4
// CHECK:       {{.*}}.jam:
// CHECK:         call void @llvm.memset{{.*}}, !alias.scope ![[LANE0:[0-9]+]], !noalias ![[NOT0:[0-9]+]]
// CHECK-COUNT-3: call void @llvm.memset{{.*}}, !alias.scope
// CHECK-NOT:   vector.memcheck
// CHECK:       vector.body:
// CHECK-NEXT:    %index = phi
// CHECK:         %wide.load = load <8 x float>, ptr %{{.*}}, !noalias ![[ALL:[0-9]+]]
// CHECK:         load <8 x float>, ptr %{{.*}}, !alias.scope ![[LANE0]], !noalias ![[NOT0]]
// CHECK-COUNT-3: load <8 x float>, ptr %{{.*}}, !alias.scope
// CHECK-COUNT-4: call <8 x float> @llvm.fmuladd.v8f32(<8 x float>
// %broadcast.splat{{[0-9]*}}, <8 x float> %wide.load,
// CHECK:         store <8 x float> %{{.*}}, !alias.scope ![[LANE0]], !noalias ![[NOT0]]
// CHECK-COUNT-3: store <8 x float>
// CHECK:       jam.middle:
// CHECK:       }

// Each instance copies its own row: the lanes neither share vectors nor
// load anything in common, so the loop vectoriser has the copy loop alone.
void copy_rows(long n, const float *X, float *Y) {
#pragma hpvm parallel for name(copy_rows) in(X [0:n * n]) out(Y [0:n * n])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      Y[i * n + j] = 2.0f * X[i * n + j];
}
// CHECK-LABEL: define void @hpvm.cpu.copy_rows(
// CHECK-NOT:     jam.
// CHECK:       vector.body:
// CHECK:       }
// REMARK-DAG: instance loop of 'hpvm.cpu.copy_rows' not jammed: the leaf neither runs side by side in vectors nor loads anything its instances share

// O1-LABEL: define void @hpvm.cpu.sgemm(
// O1-NOT:     jam.
// O1:       }

// Each instance loops a different number of times: the lanes would take
// different paths through the loop.
void triangle(long n, const float *A, float *S) {
#pragma hpvm parallel for name(triangle) in(A [0:n * n]) out(S [0:n])
  for (long i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (long k = 0; k <= i; ++k)
      acc += A[i * n + k];
    S[i] = acc;
  }
}
// CHECK-LABEL: define void @hpvm.cpu.triangle(
// CHECK-NOT:     jam.
// CHECK:       }
// REMARK-DAG: instance loop of 'hpvm.cpu.triangle' not jammed: the leaf branches on the instance id

// Every instance writes flag[0]: jamming would leave the last lane's value
// where the original order leaves the last instance's.
void flagged(long n, const float *A, float *S, int *flag) {
#pragma hpvm parallel for name(flagged) in(A [0:n * n]) out(S [0:n], flag [0:1])
  for (long i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (long k = 0; k < n; ++k)
      acc += A[k * n + i];
    S[i] = acc;
    flag[0] = 1;
  }
}
// CHECK-LABEL: define void @hpvm.cpu.flagged(
// CHECK-NOT:     jam.
// CHECK:       }
// REMARK-DAG: instance loop of 'hpvm.cpu.flagged' not jammed: the leaf stores to the same address in every instance

// A leaf without a loop of its own is the loop vectoriser's: no jamming.
void scale(long n, float *X) {
#pragma hpvm parallel for name(scale) inout(X [0:n])
  for (long i = 0; i < n; ++i)
    X[i] = 2.0f * X[i];
}
// CHECK-LABEL: define void @hpvm.cpu.scale(
// CHECK-NOT:     jam.
// CHECK:       vector.body:
// CHECK:       }
