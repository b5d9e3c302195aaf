// Sections of arrays of arrays, as OpenMP writes them: a VLA parameter and
// a 2-D array. The buffer starts at the array and covers the whole rows of
// the first dimension's section; the columns narrow nothing.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o - | FileCheck %s
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o - | %hpvm-opt --verify -disable-output

void vla(long n, long m, float A[n][m], float B[n][m]) {
#pragma hpvm parallel for name(vla) collapse(2) in(A[0:n][0:m]) out(B[1:n - 1][0:m])
  for (long i = 1; i < n; ++i)
    for (long j = 0; j < m; ++j)
      B[i][j] = A[i - 1][j];
}

// Rows of m floats: n rows of A are n * m * 4 bytes; B's section ends at
// row n too (1 + n - 1), the same bytes.
// CHECK-LABEL: define dso_local void @vla(
// CHECK: %[[ROW:[a-z0-9.]+]] = shl{{.*}} i64 %m, 2
// CHECK: %A.bytes = mul i64 %[[ROW]], %n
// CHECK: "hpvm.node"(ptr @{{.*}}), "hpvm.dims"({{.*}}), "hpvm.in"(ptr %A, i64 %A.bytes), "hpvm.out"(ptr %B, i64 %A.bytes)

float grid[16][8];

void fixed(float *out) {
#pragma hpvm parallel for name(fixed) in(grid[2:4][0:8]) out(out[0:4])
  for (int i = 0; i < 4; ++i)
    out[i] = grid[i + 2][i];
}

// Rows 0 to 5 of 32 bytes each.
// CHECK-LABEL: define dso_local void @fixed(
// CHECK: "hpvm.in"(ptr %grid, i64 192)
