// bench/kernels/sgemm.c written in HPVM-C, as HPVM's own sgemm is: the
// i-j-k product as work-groups of 16 x 16 work-items over C, each finding
// its element from its own and its group's ids; the i-k-j order as one leaf
// instance per row. Same loops, same driver (bench/drivers/sgemm.c). Also
// the tiled product of HPVM's GPU sgemm (Parboil's): each work-group loads
// 16 x 16 tiles of A and B into its local memory (__hpvm__malloc), waits
// (__hpvm__barrier), multiplies them, and waits again before the next.
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

void sgemm_cell(const float *A, size_t bytes_A, const float *B, size_t bytes_B,
                float *C, size_t bytes_C, long n) {
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

void sgemm_group(const float *A, size_t bytes_A, const float *B, size_t bytes_B,
                 float *C, size_t bytes_C, long n) {
  void *cell = __hpvm__createNodeND(2, sgemm_cell, (long)TILE, (long)TILE);
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(cell, p, p, 0);
}

void sgemm_root(const float *A, size_t bytes_A, const float *B, size_t bytes_B,
                float *C, size_t bytes_C, long n) {
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

void sgemm_tile_memory(long bytes) {
  void *tile = __hpvm__malloc(bytes);
  __hpvm__return(2, tile, bytes);
}

void sgemm_tiled_cell(const float *A, size_t bytes_A, const float *B,
                      size_t bytes_B, float *C, size_t bytes_C, long n,
                      long bytes_tile, float *tile_A, size_t bytes_tile_A,
                      float *tile_B, size_t bytes_tile_B) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(2, A, B, 1, C);
  void *self = __hpvm__getNode(), *group = __hpvm__getParentNode(self);
  long x = __hpvm__getNodeInstanceID_x(self);
  long y = __hpvm__getNodeInstanceID_y(self);
  long j = __hpvm__getNodeInstanceID_x(group) * TILE + x;
  long i = __hpvm__getNodeInstanceID_y(group) * TILE + y;
  float acc = 0.0f;
  for (long t = 0; t < n; t += TILE) {
    tile_A[y * TILE + x] = i < n && t + x < n ? A[i * n + t + x] : 0.0f;
    tile_B[y * TILE + x] = t + y < n && j < n ? B[(t + y) * n + j] : 0.0f;
    __hpvm__barrier();
    for (long k = 0; k < TILE; ++k)
      acc += tile_A[y * TILE + k] * tile_B[k * TILE + x];
    __hpvm__barrier();
  }
  if (i < n && j < n)
    C[i * n + j] = acc;
}

void sgemm_tiled_group(const float *A, size_t bytes_A, const float *B,
                       size_t bytes_B, float *C, size_t bytes_C, long n,
                       long bytes_tile) {
  void *memory_A = __hpvm__createNodeND(0, sgemm_tile_memory);
  void *memory_B = __hpvm__createNodeND(0, sgemm_tile_memory);
  void *cell =
      __hpvm__createNodeND(2, sgemm_tiled_cell, (long)TILE, (long)TILE);
  __hpvm__bindIn(memory_A, 7, 0, 0);
  __hpvm__bindIn(memory_B, 7, 0, 0);
  for (int p = 0; p < 8; ++p)
    __hpvm__bindIn(cell, p, p, 0);
  __hpvm__edge(memory_A, cell, 1, 0, 8, 0);
  __hpvm__edge(memory_A, cell, 1, 1, 9, 0);
  __hpvm__edge(memory_B, cell, 1, 0, 10, 0);
  __hpvm__edge(memory_B, cell, 1, 1, 11, 0);
}

void sgemm_tiled_root(const float *A, size_t bytes_A, const float *B,
                      size_t bytes_B, float *C, size_t bytes_C, long n,
                      long bytes_tile) {
  long groups = (n + TILE - 1) / TILE;
  void *g = __hpvm__createNodeND(2, sgemm_tiled_group, groups, groups);
  for (int p = 0; p < 8; ++p)
    __hpvm__bindIn(g, p, p, 0);
}

typedef struct __attribute__((__packed__)) {
  SgemmArgs in;
  long bytes_tile;
} TiledArgs;

void kernel_sgemm_tiled(long n, const float *A, const float *B, float *C) {
  size_t bytes = (size_t)(n * n) * sizeof(float);
  TiledArgs args = {{A, bytes, B, bytes, C, bytes, n},
                    TILE * TILE * sizeof(float)};
  __hpvm__wait(__hpvm__launch(0, sgemm_tiled_root, &args));
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
