// sgemm written in HPVM-C, HPVM's explicit graph API (docs/hpvm-c.md), the
// way HPVM's own benchmarks write it: C = A B as work-groups of 16 x 16
// work-items, each work-item finding its element from its own id and its
// group's. The root creates the groups, each group its work-items, and
// every parameter is bound down by __hpvm__bindIn; the host fills a packed
// struct with the root's arguments, tracks the buffers, launches and waits.
// hpvm-clang folds the groups into one node over the whole of C.
//
//   hpvm-c-sgemm [M N K]            C is M x N, A M x K, B K x N
#include <hpvm.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { TILE = 16 };

typedef struct __attribute__((__packed__)) {
  float *A;
  size_t bytes_A;
  float *B;
  size_t bytes_B;
  float *C;
  size_t bytes_C;
  int m, n, k;
} RootIn;

// One element of C. The grid is rounded up to whole groups, so the
// work-items past the edge of C do nothing.
void sgemm_item(float *A, size_t bytes_A, float *B, size_t bytes_B, float *C,
                size_t bytes_C, int m, int n, int k) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(2, A, B, 1, C);
  void *self = __hpvm__getNode();
  void *group = __hpvm__getParentNode(self);
  long col = __hpvm__getNodeInstanceID_x(group) * TILE +
             __hpvm__getNodeInstanceID_x(self);
  long row = __hpvm__getNodeInstanceID_y(group) * TILE +
             __hpvm__getNodeInstanceID_y(self);
  if (row >= m || col >= n)
    return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p)
    sum += A[row * k + p] * B[p * n + col];
  C[row * n + col] = sum;
}

void sgemm_group(float *A, size_t bytes_A, float *B, size_t bytes_B, float *C,
                 size_t bytes_C, int m, int n, int k) {
  void *items = __hpvm__createNodeND(2, sgemm_item, (long)TILE, (long)TILE);
  for (unsigned p = 0; p < 9; ++p)
    __hpvm__bindIn(items, p, p, 0);
}

void sgemm_root(float *A, size_t bytes_A, float *B, size_t bytes_B, float *C,
                size_t bytes_C, int m, int n, int k) {
  void *groups = __hpvm__createNodeND(
      2, sgemm_group, (long)(n + TILE - 1) / TILE, (long)(m + TILE - 1) / TILE);
  for (unsigned p = 0; p < 9; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

int main(int argc, char **argv) {
  int m = argc > 1 ? atoi(argv[1]) : 300;
  int n = argc > 2 ? atoi(argv[2]) : 200;
  int k = argc > 3 ? atoi(argv[3]) : 150;
  size_t bytes_A = (size_t)m * k * sizeof(float);
  size_t bytes_B = (size_t)k * n * sizeof(float);
  size_t bytes_C = (size_t)m * n * sizeof(float);
  float *A = malloc(bytes_A), *B = malloc(bytes_B), *C = malloc(bytes_C);
  if (!A || !B || !C) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (long i = 0; i < (long)m * k; ++i)
    A[i] = (float)(i % 17) / 17.0f - 0.5f;
  for (long i = 0; i < (long)k * n; ++i)
    B[i] = (float)(i % 23) / 23.0f - 0.3f;

  __hpvm__init();
  RootIn *args = malloc(sizeof(RootIn));
  *args = (RootIn){A, bytes_A, B, bytes_B, C, bytes_C, m, n, k};
  llvm_hpvm_track_mem(A, bytes_A);
  llvm_hpvm_track_mem(B, bytes_B);
  llvm_hpvm_track_mem(C, bytes_C);
  void *dfg = __hpvm__launch(0, sgemm_root, args);
  __hpvm__wait(dfg);
  llvm_hpvm_request_mem(C, bytes_C);
  llvm_hpvm_untrack_mem(A);
  llvm_hpvm_untrack_mem(B);
  llvm_hpvm_untrack_mem(C);
  __hpvm__cleanup();

  // Against the C loops, to the rounding of a k-term float dot product.
  long wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0, mag = 0;
      for (int p = 0; p < k; ++p) {
        double t = (double)A[i * k + p] * B[p * n + j];
        want += t;
        mag += fabs(t);
      }
      if (fabs(C[i * n + j] - want) > (k + 1) * 1.2e-7 * mag + 1e-30)
        ++wrong;
    }
  free(args);
  free(A);
  free(B);
  free(C);
  if (wrong) {
    printf("FAIL hpvm-c-sgemm: %ld wrong elements of %d x %d\n", wrong, m, n);
    return 1;
  }
  printf("PASS hpvm-c-sgemm (%d x %d x %d)\n", m, n, k);
  return 0;
}
