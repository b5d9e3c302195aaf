// bench/kernels/sgemm.c written in HPVM-C, as HPVM's own sgemm is: the
// i-j-k product as work-groups of 16 x 16 work-items over C, each finding
// its element from its own and its group's ids; the i-k-j order as one leaf
// instance per row. Same loops, same driver (bench/drivers/sgemm.c).
#include <hpvm.h>

enum { TILE = 16 };

typedef struct __attribute__((__packed__)) {
  const float *A;
  size_t bytes_A;
  const float *B;
  size_t bytes_B;
  float *C;
  size_t bytes_C;
  long n;
} SgemmArgs;

void sgemm_cell(const float *A, size_t bytes_A, const float *B,
                size_t bytes_B, float *C, size_t bytes_C, long n) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(2, A, B, 1, C);
  void *self = __hpvm__getNode(), *group = __hpvm__getParentNode(self);
  long j = __hpvm__getNodeInstanceID_x(group) * TILE +
           __hpvm__getNodeInstanceID_x(self);
  long i = __hpvm__getNodeInstanceID_y(group) * TILE +
           __hpvm__getNodeInstanceID_y(self);
  if (i >= n || j >= n)
    return;
  float acc = 0.0f;
  for (long k = 0; k < n; ++k)
    acc += A[i * n + k] * B[k * n + j];
  C[i * n + j] = acc;
}

void sgemm_group(const float *A, size_t bytes_A, const float *B,
                 size_t bytes_B, float *C, size_t bytes_C, long n) {
  void *cell = __hpvm__createNodeND(2, sgemm_cell, (long)TILE, (long)TILE);
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(cell, p, p, 0);
}

void sgemm_root(const float *A, size_t bytes_A, const float *B,
                size_t bytes_B, float *C, size_t bytes_C, long n) {
  long groups = (n + TILE - 1) / TILE;
  void *g = __hpvm__createNodeND(2, sgemm_group, groups, groups);
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(g, p, p, 0);
}

void sgemm_row(const float *A, size_t bytes_A, const float *B, size_t bytes_B,
               float *C, size_t bytes_C, long n) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(2, A, B, 1, C);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  for (long j = 0; j < n; ++j)
    C[i * n + j] = 0.0f;
  for (long k = 0; k < n; ++k) {
    float a = A[i * n + k];
    for (long j = 0; j < n; ++j)
      C[i * n + j] += a * B[k * n + j];
  }
}

void sgemm_rows_root(const float *A, size_t bytes_A, const float *B,
                     size_t bytes_B, float *C, size_t bytes_C, long n) {
  void *rows = __hpvm__createNodeND(1, sgemm_row, n);
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(rows, p, p, 0);
}

void kernel_sgemm(long n, const float *A, const float *B, float *C) {
  size_t bytes = (size_t)(n * n) * sizeof(float);
  SgemmArgs args = {A, bytes, B, bytes, C, bytes, n};
  __hpvm__wait(__hpvm__launch(0, sgemm_root, &args));
}

void kernel_sgemm_ikj(long n, const float *A, const float *B, float *C) {
  size_t bytes = (size_t)(n * n) * sizeof(float);
  SgemmArgs args = {A, bytes, B, bytes, C, bytes, n};
  __hpvm__wait(__hpvm__launch(0, sgemm_rows_root, &args));
}
