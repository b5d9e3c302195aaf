// HPVM-C in C++, as many of HPVM's own programs are: host code with the
// standard library, hints spelled hpvm::CPU_TARGET and hpvm::DEVICE, node
// functions in the C subset. A tiled matrix product (work-groups of
// work-items over C) and a row scaling that follows it on the product,
// checked against the same loops in plain C++.
//
//   hpvm_c_cxx <m> <n> <k>
#include <hpvm.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef ANY_DEVICE
#define HINT(target) __hpvm__hint(hpvm::CPU_OR_GPU_TARGET)
#else
#define HINT(target) __hpvm__hint(target)
#endif

namespace {
constexpr long Tile = 8;
}

struct __attribute__((__packed__)) RootIn {
  float *a;
  size_t bytes_a;
  float *b;
  size_t bytes_b;
  float *c;
  size_t bytes_c;
  int m, n, k;
};

// C[i][j] = sum_p A[i][p] * B[p][j], A m x k, B k x n.
void product(float *a, size_t bytes_a, float *b, size_t bytes_b, float *c,
             size_t bytes_c, int m, int n, int k) {
  HINT(hpvm::DEVICE);
  __hpvm__attributes(2, a, b, 1, c);
  void *self = __hpvm__getNode();
  void *group = __hpvm__getParentNode(self);
  long j = __hpvm__getNodeInstanceID_x(group) * Tile +
           __hpvm__getNodeInstanceID_x(self);
  long i = __hpvm__getNodeInstanceID_y(group) * Tile +
           __hpvm__getNodeInstanceID_y(self);
  if (i >= m || j >= n)
    return;
  float sum = 0;
  for (int p = 0; p < k; ++p)
    sum += a[i * k + p] * b[p * n + j];
  c[i * n + j] = sum;
}

void product_group(float *a, size_t bytes_a, float *b, size_t bytes_b, float *c,
                   size_t bytes_c, int m, int n, int k) {
  void *leaf = __hpvm__createNodeND(2, product, Tile, Tile);
  for (unsigned p = 0; p < 9; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
}

// Each row of C times its number, on the CPU.
void scale_rows(float *c, size_t bytes_c, int m, int n) {
  HINT(hpvm::CPU_TARGET);
  __hpvm__attributes(1, c, 1, c);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  for (int j = 0; j < n; ++j)
    c[i * n + j] *= (float)(i % 7);
}

void root(float *a, size_t bytes_a, float *b, size_t bytes_b, float *c,
          size_t bytes_c, int m, int n, int k) {
  void *groups = __hpvm__createNodeND(2, product_group, (n + Tile - 1) / Tile,
                                      (m + Tile - 1) / Tile);
  for (unsigned p = 0; p < 9; ++p)
    __hpvm__bindIn(groups, p, p, 0);
  void *scale = __hpvm__createNodeND(1, scale_rows, (long)m);
  __hpvm__bindIn(scale, 4, 0, 0);
  __hpvm__bindIn(scale, 5, 1, 0);
  __hpvm__bindIn(scale, 6, 2, 0);
  __hpvm__bindIn(scale, 7, 3, 0);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <m> <n> <k>\n", argv[0]);
    return 2;
  }
  int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);
  // Small integers: every sum is exact in float.
  std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n, -1);
  for (size_t x = 0; x < a.size(); ++x)
    a[x] = float(int(x * 7 % 13) - 6);
  for (size_t x = 0; x < b.size(); ++x)
    b[x] = float(int(x * 5 % 11) - 5);

  __hpvm__init();
  RootIn args{
      a.data(), a.size() * sizeof(float), b.data(), b.size() * sizeof(float),
      c.data(), c.size() * sizeof(float), m,        n,
      k};
  void *dfg = __hpvm__launch(0, root, &args);
  __hpvm__wait(dfg);
  __hpvm__cleanup();

  long wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int p = 0; p < k; ++p)
        want += a[size_t(i) * k + p] * b[size_t(p) * n + j];
      want *= float(i % 7);
      if (c[size_t(i) * n + j] != want && wrong++ < 10)
        std::fprintf(stderr, "c[%d][%d] = %g, want %g\n", i, j,
                     c[size_t(i) * n + j], want);
    }
  if (wrong) {
    std::fprintf(stderr, "FAIL hpvm_c_cxx: %ld wrong elements\n", wrong);
    return 1;
  }
  std::printf("PASS hpvm_c_cxx (%d x %d x %d)\n", m, n, k);
  return 0;
}
