// Without a clause, a leaf is given what OpenMP maps implicitly: the whole of
// every array whose size its code can see (a global, a static, a local array
// or VLA declared before the graph) and every global scalar it only reads,
// in() if it only reads it, out() if it only stores elements, inout()
// otherwise (its address is taken, passed on, incremented). A clause wins;
// parents name their children's buffers as always.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o - | FileCheck %s

float A[100], B[100], C[100];
int scale = 3;
struct params { int n; float k; } P = {100, 0.5f};

static void bump(float *row, int i) { row[i] += 1; }

// CHECK-LABEL: define dso_local void @modes(
void modes(int m) {
  static double S[100];
  float L[100];
  float V[m];
#pragma hpvm parallel for name(reads)
  for (int i = 0; i < 100; i++)
    C[i] = A[i] * scale + B[i] * P.k;
  // CHECK: "hpvm.node"(ptr @[[READS:[.a-z0-9]+]]), "hpvm.dims"(i32 100), "hpvm.in"(ptr %A, i64 400, ptr %scale, i64 4, ptr %B, i64 400, ptr %P, i64 8), "hpvm.out"(ptr %C, i64 400) ]
#pragma hpvm parallel for name(passed_on)
  for (int i = 0; i < 100; i++)
    bump(A, i);
  // CHECK: "hpvm.dims"(i32 100), "hpvm.inout"(ptr %A, i64 400) ]
#pragma hpvm parallel for name(locals)
  for (int i = 0; i < m; i++)
    V[i] = L[i] + (float)S[i] + sizeof(B) / sizeof(B[0]);
  // B only under sizeof: not a buffer.
  // CHECK: "hpvm.in"(ptr %L, i64 400, ptr %modes.S, i64 800), "hpvm.out"(ptr %vla{{[0-9]*}}, i64 %{{.*}}) ]
#pragma hpvm task name(through_pointer)
  {
    float *p = L;
    for (int i = 0; i < 100; i++)
      p[i] = p[i] * 2;
  }
  // CHECK: "hpvm.node"(ptr @{{[.a-z0-9]+}}), "hpvm.inout"(ptr %L, i64 400) ]
#pragma hpvm parallel for name(counts)
  for (int i = 0; i < 100; i++)
    C[i]++;
  // CHECK: "hpvm.dims"(i32 100), "hpvm.inout"(ptr %C, i64 400) ]
#pragma hpvm parallel for name(clause_wins) in(A[0:10])
  for (int i = 0; i < 10; i++)
    C[i] = A[i];
  // CHECK: "hpvm.in"(ptr %A, i64 40), "hpvm.out"(ptr %C, i64 400) ]
#pragma hpvm parallel for name(own_copy) firstprivate(scale)
  for (int i = 0; i < 100; i++) {
    scale += i;
    C[i] = scale;
  }
  // Each instance's copy of a global starts at its value: in(), once.
  // CHECK: "hpvm.dims"(i32 100), "hpvm.in"(ptr %scale, i64 4), "hpvm.out"(ptr %C, i64 400) ]
#pragma hpvm parallel for name(scratch) private(scale)
  for (int i = 0; i < 100; i++) {
    scale = i;
    C[i] = scale;
  }
  // CHECK: "hpvm.dims"(i32 100), "hpvm.out"(ptr %C, i64 400) ]
}

// A struct is memory like an array: its members may be written (a scalar
// global the leaf writes is an error, err-kernel.c).
struct table {
  int n;
  float rows[8];
} T;
// CHECK-LABEL: define dso_local void @members(
void members(void) {
#pragma hpvm parallel for name(members)
  for (int i = 0; i < 8; i++)
    T.rows[i] = i;
  // CHECK: "hpvm.dims"(i32 8), "hpvm.out"(ptr %T, i64 36) ]
}

// An internal node names the union of its children's implicit buffers:
// b is written by one child and read by the other (inout), a the reverse.
double a[64], b[64];
// CHECK-LABEL: define dso_local void @steps(
void steps(void) {
#pragma hpvm task name(steps)
  {
    for (int t = 0; t < 10; t++) {
#pragma hpvm parallel for name(ab)
      for (int i = 1; i < 63; i++)
        b[i] = a[i - 1] + a[i + 1];
#pragma hpvm parallel for name(ba)
      for (int i = 1; i < 63; i++)
        a[i] = b[i - 1] + b[i + 1];
    }
  }
  // CHECK: "hpvm.node"(ptr @{{[.a-z0-9]+}}), "hpvm.inout"(ptr %b, i64 512, ptr %a, i64 512) ]
  // CHECK: "hpvm.in"(ptr %a, i64 512), "hpvm.out"(ptr %b, i64 512) ]
  // CHECK: "hpvm.in"(ptr %b, i64 512), "hpvm.out"(ptr %a, i64 512) ]
}
