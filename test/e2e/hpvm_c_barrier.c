// HPVM-C programs with work-group barriers (__hpvm__barrier) and node-local
// memory (__hpvm__malloc in an allocation node), written as HPVM's GPU
// programs are, checked against C:
//  * sgemm: C = alpha A B + beta C in tiles of TILE x TILE; each work-group
//    loads a tile of A and of B into its local memory, waits, multiplies,
//    and waits again before the next tiles (a barrier in a loop whose trip
//    count is a parameter);
//  * reduce: each group of GROUP work-items sums its elements in local
//    memory by halving (a barrier in a loop of constant trip count, work
//    under a condition between barriers), then its first work-item writes
//    the group's sum;
//  * reverse: each group reverses its elements through local memory (one
//    barrier in straight-line code, local memory of a size computed from
//    the parameters);
//  * rotate: 3-D work-groups, each cell taking its neighbour's value
//    through local memory;
//  * histogram: atomics on local memory between barriers in nested loops
//    (rounds of sweeps), an array of each work-item's own carried across
//    the barriers;
//  * levels: work-groups under a replicated node that is not folded (its
//    id read two levels up, local memory and scratch per instance of both);
//  * scan: prefix sums by groups of a width given at run time, a doubling
//    loop of barriers (no formula for its trip count: counted in front of
//    the launch), as is reduce's halving loop from the group's size.
//
//   hpvm_c_barrier <n> <m> <k> <count>
//
// sgemm multiplies an n x k matrix by a k x m one, rounded up to whole
// tiles; reduce and reverse work on count elements rounded up to whole
// groups. The hints put sgemm on a GPU and reduce on the CPU, and let
// reverse's phases run anywhere (one phase may run on one device and the
// next on another); built with -DANY_DEVICE, every node may run anywhere.
#include "mixed.h"

#include <hpvm.h>

#ifdef ANY_DEVICE
#define HINT(target) __hpvm__hint(CPU_OR_GPU_TARGET)
#else
#define HINT(target) __hpvm__hint(target)
#endif

enum { TILE = 8, GROUP = 32 };

//===----------------------------------------------------------------------===//
// sgemm
//===----------------------------------------------------------------------===//

typedef struct __attribute__((__packed__)) {
  float *a;
  size_t bytes_a;
  float *b;
  size_t bytes_b;
  float *c;
  size_t bytes_c;
  int n;
  int m;
  int k;
  float alpha;
  float beta;
  long bytes_tile;
} SgemmArgs;

void sgemm_allocate(long bytes) {
  void *tile = __hpvm__malloc(bytes);
  __hpvm__return(2, tile, bytes);
}

void sgemm_leaf(float *a, size_t bytes_a, float *b, size_t bytes_b, float *c,
                size_t bytes_c, int n, int m, int k, float alpha, float beta,
                float *tile_a, size_t bytes_tile_a, float *tile_b,
                size_t bytes_tile_b) {
  HINT(DEVICE);
  __hpvm__attributes(3, a, b, c, 1, c);
  void *self = __hpvm__getNode();
  void *group = __hpvm__getParentNode(self);
  int tx = __hpvm__getNodeInstanceID_x(self);
  int ty = __hpvm__getNodeInstanceID_y(self);
  int col = __hpvm__getNodeInstanceID_x(group) * TILE + tx;
  int row = __hpvm__getNodeInstanceID_y(group) * TILE + ty;
  float sum = 0;
  for (int t = 0; t < k; t += TILE) {
    tile_a[ty * TILE + tx] = a[row * k + t + tx];
    tile_b[ty * TILE + tx] = b[(t + ty) * m + col];
    __hpvm__barrier();
    for (int i = 0; i < TILE; ++i)
      sum += tile_a[ty * TILE + i] * tile_b[i * TILE + tx];
    __hpvm__barrier();
  }
  c[row * m + col] = alpha * sum + beta * c[row * m + col];
}

void sgemm_group(float *a, size_t bytes_a, float *b, size_t bytes_b, float *c,
                 size_t bytes_c, int n, int m, int k, float alpha, float beta,
                 long bytes_tile) {
  void *allocate_a = __hpvm__createNodeND(0, sgemm_allocate);
  void *allocate_b = __hpvm__createNodeND(0, sgemm_allocate);
  void *leaf = __hpvm__createNodeND(2, sgemm_leaf, (long)TILE, (long)TILE);
  __hpvm__bindIn(allocate_a, 11, 0, 0);
  __hpvm__bindIn(allocate_b, 11, 0, 0);
  for (int p = 0; p < 11; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(allocate_a, leaf, 1, 0, 11, 0);
  __hpvm__edge(allocate_a, leaf, 1, 1, 12, 0);
  __hpvm__edge(allocate_b, leaf, 1, 0, 13, 0);
  __hpvm__edge(allocate_b, leaf, 1, 1, 14, 0);
}

void sgemm_root(float *a, size_t bytes_a, float *b, size_t bytes_b, float *c,
                size_t bytes_c, int n, int m, int k, float alpha, float beta,
                long bytes_tile) {
  void *groups =
      __hpvm__createNodeND(2, sgemm_group, (long)(m / TILE), (long)(n / TILE));
  for (int p = 0; p < 12; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

static void run_sgemm(int n, int m, int k) {
  size_t bytes_a = (size_t)n * k * sizeof(float),
         bytes_b = (size_t)k * m * sizeof(float),
         bytes_c = (size_t)n * m * sizeof(float);
  float *a = e2e_alloc(bytes_a), *b = e2e_alloc(bytes_b),
        *c = e2e_alloc(bytes_c), *want = e2e_alloc(bytes_c);
  for (long r = 0; r < n; ++r)
    for (long i = 0; i < k; ++i)
      a[r * k + i] = mixed_input(5, 0, r, i) / 64;
  for (long r = 0; r < k; ++r)
    for (long i = 0; i < m; ++i)
      b[r * m + i] = mixed_input(6, 0, r, i) / 64;
  for (long r = 0; r < n; ++r)
    for (long i = 0; i < m; ++i)
      c[r * m + i] = want[r * m + i] = mixed_input(7, 0, r, i);
  float alpha = 2, beta = -1;
  SgemmArgs args = {a, bytes_a, b, bytes_b, c,    bytes_c,
                    n, m,       k, alpha,   beta, TILE * TILE * sizeof(float)};
  __hpvm__wait(__hpvm__launch(0, sgemm_root, &args));
  for (long r = 0; r < n; ++r)
    for (long i = 0; i < m; ++i) {
      float sum = 0;
      for (long t = 0; t < k; ++t)
        sum += a[r * k + t] * b[t * m + i];
      want[r * m + i] = alpha * sum + beta * want[r * m + i];
    }
  mixed_check("sgemm", "c", 0, n, m, c, want);
  e2e_free(a, bytes_a, "sgemm a");
  e2e_free(b, bytes_b, "sgemm b");
  e2e_free(c, bytes_c, "sgemm c");
  e2e_free(want, bytes_c, "sgemm want");
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

typedef struct __attribute__((__packed__)) {
  float *in;
  size_t bytes_in;
  float *sums;
  size_t bytes_sums;
  float *out;
  size_t bytes_out;
} ReduceArgs;

void reduce_allocate(void) {
  void *sums = __hpvm__malloc(GROUP * sizeof(float));
  __hpvm__return(2, sums, (size_t)(GROUP * sizeof(float)));
}

/// Each group's sum into sums, and each element plus its group's sum into
/// out: the element, read before the barriers, is carried past them.
void reduce_leaf(float *in, size_t bytes_in, float *sums, size_t bytes_sums,
                 float *out, size_t bytes_out, float *partial,
                 size_t bytes_partial) {
  HINT(CPU_TARGET);
  __hpvm__attributes(1, in, 2, sums, out);
  void *self = __hpvm__getNode();
  long l = __hpvm__getNodeInstanceID_x(self);
  long g = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self));
  float mine = in[g * GROUP + l];
  partial[l] = mine;
  __hpvm__barrier();
  // Halving from the group's size, as CUDA reductions are written: no
  // formula for its trip count, which is counted in front of the launch.
  for (long s = __hpvm__getNumNodeInstances_x(self) / 2; s > 0; s >>= 1) {
    if (l < s)
      partial[l] += partial[l + s];
    __hpvm__barrier();
  }
  if (l == 0)
    sums[g] = partial[0];
  out[g * GROUP + l] = mine + partial[0];
}

void reduce_group(float *in, size_t bytes_in, float *sums, size_t bytes_sums,
                  float *out, size_t bytes_out) {
  void *allocate = __hpvm__createNodeND(0, reduce_allocate);
  void *leaf = __hpvm__createNodeND(1, reduce_leaf, (long)GROUP);
  for (int p = 0; p < 6; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(allocate, leaf, 1, 0, 6, 0);
  __hpvm__edge(allocate, leaf, 1, 1, 7, 0);
}

void reduce_root(float *in, size_t bytes_in, float *sums, size_t bytes_sums,
                 float *out, size_t bytes_out) {
  void *groups =
      __hpvm__createNodeND(1, reduce_group, bytes_sums / sizeof(float));
  for (int p = 0; p < 6; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

static void run_reduce(long groups) {
  long count = groups * GROUP;
  size_t bytes = count * sizeof(float), bytes_sums = groups * sizeof(float);
  float *in = e2e_alloc(bytes), *out = e2e_alloc(bytes),
        *want = e2e_alloc(bytes);
  float *sums = e2e_alloc(bytes_sums), *want_sums = e2e_alloc(bytes_sums);
  for (long i = 0; i < count; ++i)
    in[i] = mixed_input(8, 0, 0, i);
  mixed_reset(count, out);
  mixed_reset(groups, sums);
  ReduceArgs args = {in, bytes, sums, bytes_sums, out, bytes};
  void *dfg = __hpvm__launch(0, reduce_root, &args);
  __hpvm__wait(dfg);
  for (long g = 0; g < groups; ++g) {
    // The tree's order of additions (exact: small integers).
    float partial[GROUP];
    for (int l = 0; l < GROUP; ++l)
      partial[l] = in[g * GROUP + l];
    for (int s = GROUP / 2; s > 0; s >>= 1)
      for (int l = 0; l < s; ++l)
        partial[l] += partial[l + s];
    want_sums[g] = partial[0];
    for (int l = 0; l < GROUP; ++l)
      want[g * GROUP + l] = in[g * GROUP + l] + partial[0];
  }
  mixed_check("reduce", "sums", 0, 1, groups, sums, want_sums);
  mixed_check("reduce", "out", 0, groups, GROUP, out, want);
  e2e_free(in, bytes, "reduce in");
  e2e_free(out, bytes, "reduce out");
  e2e_free(want, bytes, "reduce want");
  e2e_free(sums, bytes_sums, "reduce sums");
  e2e_free(want_sums, bytes_sums, "reduce want sums");
}

//===----------------------------------------------------------------------===//
// reverse
//===----------------------------------------------------------------------===//

typedef struct __attribute__((__packed__)) {
  int *in;
  size_t bytes_in;
  int *out;
  size_t bytes_out;
  long width;
} ReverseArgs;

void reverse_allocate(long width) {
  void *row = __hpvm__malloc(width * sizeof(int));
  __hpvm__return(2, row, (size_t)(width * sizeof(int)));
}

void reverse_leaf(int *in, size_t bytes_in, int *out, size_t bytes_out,
                  long width, int *row, size_t bytes_row) {
  HINT(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, in, 1, out);
  void *self = __hpvm__getNode();
  long l = __hpvm__getNodeInstanceID_x(self);
  long g = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self));
  row[l] = in[g * width + l];
  __hpvm__barrier();
  out[g * width + l] = row[width - 1 - l];
}

void reverse_group(int *in, size_t bytes_in, int *out, size_t bytes_out,
                   long width) {
  void *allocate = __hpvm__createNodeND(0, reverse_allocate);
  void *leaf = __hpvm__createNodeND(1, reverse_leaf, width);
  __hpvm__bindIn(allocate, 4, 0, 0);
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(allocate, leaf, 1, 0, 5, 0);
  __hpvm__edge(allocate, leaf, 1, 1, 6, 0);
}

void reverse_root(int *in, size_t bytes_in, int *out, size_t bytes_out,
                  long width) {
  void *groups =
      __hpvm__createNodeND(1, reverse_group, bytes_in / sizeof(int) / width);
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

static void run_reverse(long groups, long width) {
  long count = groups * width;
  size_t bytes = count * sizeof(int);
  int *in = e2e_alloc(bytes), *out = e2e_alloc(bytes);
  for (long i = 0; i < count; ++i) {
    in[i] = (int)(i * 7 % 1013);
    out[i] = -1;
  }
  ReverseArgs *args = malloc(sizeof(ReverseArgs));
  *args = (ReverseArgs){in, bytes, out, bytes, width};
  // Launched in the background: its memory lives until the wait.
  void *dfg = __hpvm__launch(0, reverse_root, args);
  long sum = 0;
  for (long i = 0; i < count; ++i)
    sum += in[i];
  __hpvm__wait(dfg);
  for (long g = 0; g < groups; ++g)
    for (long l = 0; l < width; ++l)
      E2E_CHECK(out[g * width + l] == in[g * width + width - 1 - l],
                "reverse: out[%ld][%ld] = %d, want %d", g, l,
                out[g * width + l], in[g * width + width - 1 - l]);
  E2E_CHECK(sum >= 0, "reverse: input sum %ld", sum);
  free(args);
  e2e_free(in, bytes, "reverse in");
  e2e_free(out, bytes, "reverse out");
}

//===----------------------------------------------------------------------===//
// rotate: 3-D work-groups
//===----------------------------------------------------------------------===//

enum { RX = 4, RY = 3, RZ = 2 };

typedef struct __attribute__((__packed__)) {
  int *in;
  size_t bytes_in;
  int *out;
  size_t bytes_out;
  long nx;
  long ny;
  long nz;
} RotateArgs;

void rotate_allocate(void) {
  void *cells = __hpvm__malloc(RX * RY * RZ * sizeof(int));
  __hpvm__return(2, cells, (size_t)(RX * RY * RZ * sizeof(int)));
}

/// Each cell of a 3-D group takes the value of the cell one further in x, y
/// and z (wrapping round within the group).
void rotate_leaf(int *in, size_t bytes_in, int *out, size_t bytes_out, long nx,
                 long ny, long nz, int *cells, size_t bytes_cells) {
  HINT(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, in, 1, out);
  void *self = __hpvm__getNode(), *group = __hpvm__getParentNode(self);
  long x = __hpvm__getNodeInstanceID_x(self);
  long y = __hpvm__getNodeInstanceID_y(self);
  long z = __hpvm__getNodeInstanceID_z(self);
  long gx = __hpvm__getNodeInstanceID_x(group) * RX + x;
  long gy = __hpvm__getNodeInstanceID_y(group) * RY + y;
  long gz = __hpvm__getNodeInstanceID_z(group) * RZ + z;
  long at = (gz * ny + gy) * nx + gx;
  cells[(z * RY + y) * RX + x] = in[at];
  __hpvm__barrier();
  out[at] = cells[((z + 1) % RZ * RY + (y + 1) % RY) * RX + (x + 1) % RX];
}

void rotate_group(int *in, size_t bytes_in, int *out, size_t bytes_out, long nx,
                  long ny, long nz) {
  void *allocate = __hpvm__createNodeND(0, rotate_allocate);
  void *leaf =
      __hpvm__createNodeND(3, rotate_leaf, (long)RX, (long)RY, (long)RZ);
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(allocate, leaf, 1, 0, 7, 0);
  __hpvm__edge(allocate, leaf, 1, 1, 8, 0);
}

void rotate_root(int *in, size_t bytes_in, int *out, size_t bytes_out, long nx,
                 long ny, long nz) {
  void *groups =
      __hpvm__createNodeND(3, rotate_group, nx / RX, ny / RY, nz / RZ);
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

static void run_rotate(long groups) {
  long nx = RX * (groups + 1), ny = RY * groups, nz = RZ * 2;
  long count = nx * ny * nz;
  size_t bytes = count * sizeof(int);
  int *in = e2e_alloc(bytes), *out = e2e_alloc(bytes);
  for (long i = 0; i < count; ++i) {
    in[i] = (int)(i * 13 % 1009);
    out[i] = -1;
  }
  RotateArgs args = {in, bytes, out, bytes, nx, ny, nz};
  __hpvm__wait(__hpvm__launch(0, rotate_root, &args));
  for (long z = 0; z < nz; ++z)
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x) {
        long from_x = x / RX * RX + (x % RX + 1) % RX;
        long from_y = y / RY * RY + (y % RY + 1) % RY;
        long from_z = z / RZ * RZ + (z % RZ + 1) % RZ;
        int want = in[(from_z * ny + from_y) * nx + from_x];
        int got = out[(z * ny + y) * nx + x];
        E2E_CHECK(got == want, "rotate: out[%ld][%ld][%ld] = %d, want %d", z, y,
                  x, got, want);
      }
  e2e_free(in, bytes, "rotate in");
  e2e_free(out, bytes, "rotate out");
}

//===----------------------------------------------------------------------===//
// histogram: atomics on local memory, nested loops of barriers, an array
// of each work-item's own across barriers
//===----------------------------------------------------------------------===//

enum { BINS = 16, HGROUP = 32, SWEEPS = 3 };

typedef struct __attribute__((__packed__)) {
  int *in;
  size_t bytes_in;
  int *bins;
  size_t bytes_bins;
  int *ranks;
  size_t bytes_ranks;
  long rounds;
} HistogramArgs;

void histogram_allocate(void) {
  void *bins = __hpvm__malloc(BINS * sizeof(int));
  __hpvm__return(2, bins, (size_t)(BINS * sizeof(int)));
}

/// Each group counts its elements into local bins with atomics, rounds
/// times (bins cleared between rounds), each round over SWEEPS sweeps of
/// the group's elements; then adds its bins to the global ones and writes
/// for each element the count of its bin in the group. Each work-item keeps
/// the bins it saw in an array of its own across the barriers.
void histogram_leaf(int *in, size_t bytes_in, int *bins, size_t bytes_bins,
                    int *ranks, size_t bytes_ranks, long rounds, int *local,
                    size_t bytes_local) {
  HINT(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, in, 2, bins, ranks);
  void *self = __hpvm__getNode();
  long l = __hpvm__getNodeInstanceID_x(self);
  long g = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self));
  int seen[SWEEPS];
  for (long r = 0; r < rounds; ++r) {
    if (l < BINS)
      local[l] = 0;
    __hpvm__barrier();
    for (int s = 0; s < SWEEPS; ++s) {
      int v = in[(g * SWEEPS + s) * HGROUP + l];
      seen[(s + r) % SWEEPS] = v % BINS;
      __hpvm__atomic_add(&local[v % BINS], 1);
      __hpvm__barrier();
    }
  }
  if (l < BINS)
    __hpvm__atomic_add(&bins[l], local[l]);
  for (int s = 0; s < SWEEPS; ++s)
    ranks[(g * SWEEPS + s) * HGROUP + l] =
        local[seen[(s + rounds - 1) % SWEEPS]];
}

void histogram_group(int *in, size_t bytes_in, int *bins, size_t bytes_bins,
                     int *ranks, size_t bytes_ranks, long rounds) {
  void *allocate = __hpvm__createNodeND(0, histogram_allocate);
  void *leaf = __hpvm__createNodeND(1, histogram_leaf, (long)HGROUP);
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(allocate, leaf, 1, 0, 7, 0);
  __hpvm__edge(allocate, leaf, 1, 1, 8, 0);
}

void histogram_root(int *in, size_t bytes_in, int *bins, size_t bytes_bins,
                    int *ranks, size_t bytes_ranks, long rounds) {
  void *groups = __hpvm__createNodeND(
      1, histogram_group, bytes_in / (SWEEPS * HGROUP * sizeof(int)));
  for (int p = 0; p < 7; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

static void run_histogram(long groups) {
  long count = groups * SWEEPS * HGROUP, rounds = 2;
  size_t bytes = count * sizeof(int), bytes_bins = BINS * sizeof(int);
  int *in = e2e_alloc(bytes), *ranks = e2e_alloc(bytes),
      *bins = e2e_alloc(bytes_bins);
  for (long i = 0; i < count; ++i) {
    in[i] = (int)((i * 7919) % 1000);
    ranks[i] = -1;
  }
  for (int b = 0; b < BINS; ++b)
    bins[b] = 0;
  HistogramArgs args = {in, bytes, bins, bytes_bins, ranks, bytes, rounds};
  __hpvm__wait(__hpvm__launch(0, histogram_root, &args));
  int want_bins[BINS] = {0};
  for (long g = 0; g < groups; ++g) {
    int local[BINS] = {0};
    for (long k = 0; k < SWEEPS * HGROUP; ++k)
      ++local[in[g * SWEEPS * HGROUP + k] % BINS];
    for (int b = 0; b < BINS; ++b)
      want_bins[b] += local[b];
    for (long k = 0; k < SWEEPS * HGROUP; ++k) {
      long at = g * SWEEPS * HGROUP + k;
      int want = local[in[at] % BINS];
      E2E_CHECK(ranks[at] == want, "histogram: ranks[%ld] = %d, want %d", at,
                ranks[at], want);
    }
  }
  for (int b = 0; b < BINS; ++b)
    E2E_CHECK(bins[b] == want_bins[b], "histogram: bins[%d] = %d, want %d", b,
              bins[b], want_bins[b]);
  e2e_free(in, bytes, "histogram in");
  e2e_free(ranks, bytes, "histogram ranks");
  e2e_free(bins, bytes_bins, "histogram bins");
}

//===----------------------------------------------------------------------===//
// scan: a doubling loop of barriers
//===----------------------------------------------------------------------===//

typedef struct __attribute__((__packed__)) {
  int *in;
  size_t bytes_in;
  int *out;
  size_t bytes_out;
  long width;
} ScanArgs;

void scan_allocate(long width) {
  void *sums = __hpvm__malloc(2 * width * sizeof(int));
  __hpvm__return(2, sums, (size_t)(2 * width * sizeof(int)));
}

/// Inclusive prefix sums of each group of width elements (Hillis and
/// Steele: log2(width) steps, double-buffered in local memory).
void scan_leaf(int *in, size_t bytes_in, int *out, size_t bytes_out, long width,
               int *sums, size_t bytes_sums) {
  HINT(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, in, 1, out);
  void *self = __hpvm__getNode();
  long l = __hpvm__getNodeInstanceID_x(self);
  long at =
      __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self)) * width + l;
  long from = 0;
  sums[l] = in[at];
  __hpvm__barrier();
  for (long stride = 1; stride < width; stride *= 2) {
    long to = width - from;
    sums[to + l] = sums[from + l] + (l >= stride ? sums[from + l - stride] : 0);
    from = to;
    __hpvm__barrier();
  }
  out[at] = sums[from + l];
}

void scan_group(int *in, size_t bytes_in, int *out, size_t bytes_out,
                long width) {
  void *allocate = __hpvm__createNodeND(0, scan_allocate);
  void *leaf = __hpvm__createNodeND(1, scan_leaf, width);
  __hpvm__bindIn(allocate, 4, 0, 0);
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(allocate, leaf, 1, 0, 5, 0);
  __hpvm__edge(allocate, leaf, 1, 1, 6, 0);
}

void scan_root(int *in, size_t bytes_in, int *out, size_t bytes_out,
               long width) {
  void *groups =
      __hpvm__createNodeND(1, scan_group, bytes_in / sizeof(int) / width);
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(groups, p, p, 0);
}

static void run_scan(long groups, long width) {
  long count = groups * width;
  size_t bytes = count * sizeof(int);
  int *in = e2e_alloc(bytes), *out = e2e_alloc(bytes);
  for (long i = 0; i < count; ++i) {
    in[i] = (int)(i * 31 % 97) - 40;
    out[i] = -1;
  }
  ScanArgs args = {in, bytes, out, bytes, width};
  __hpvm__wait(__hpvm__launch(0, scan_root, &args));
  for (long g = 0; g < groups; ++g) {
    int sum = 0;
    for (long l = 0; l < width; ++l) {
      sum += in[g * width + l];
      E2E_CHECK(out[g * width + l] == sum, "scan: out[%ld][%ld] = %d, want %d",
                g, l, out[g * width + l], sum);
    }
  }
  e2e_free(in, bytes, "scan in");
  e2e_free(out, bytes, "scan out");
}

//===----------------------------------------------------------------------===//
// levels: work-groups of a node replicated in turn (not folded)
//===----------------------------------------------------------------------===//

enum { LW = 8 };

typedef struct __attribute__((__packed__)) {
  int *in;
  size_t bytes_in;
  int *out;
  size_t bytes_out;
  long groups;
} LevelsArgs;

void levels_allocate(void) {
  void *row = __hpvm__malloc(LW * sizeof(int));
  __hpvm__return(2, row, (size_t)(LW * sizeof(int)));
}

/// Each element plus twice its mirror in its group; the groups are those
/// of each instance of a replicated node above them, whose id the leaf
/// reads two levels up.
void levels_leaf(int *in, size_t bytes_in, int *out, size_t bytes_out,
                 long groups, int *row, size_t bytes_row) {
  HINT(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, in, 1, out);
  void *self = __hpvm__getNode(), *group = __hpvm__getParentNode(self);
  long l = __hpvm__getNodeInstanceID_x(self);
  long g = __hpvm__getNodeInstanceID_x(group);
  long o = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(group));
  long at = (o * groups + g) * LW + l;
  int mine = in[at];
  row[l] = 2 * mine;
  __hpvm__barrier();
  out[at] = mine + row[LW - 1 - l];
}

void levels_group(int *in, size_t bytes_in, int *out, size_t bytes_out,
                  long groups) {
  void *allocate = __hpvm__createNodeND(0, levels_allocate);
  void *leaf = __hpvm__createNodeND(1, levels_leaf, (long)LW);
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(allocate, leaf, 1, 0, 5, 0);
  __hpvm__edge(allocate, leaf, 1, 1, 6, 0);
}

void levels_outer(int *in, size_t bytes_in, int *out, size_t bytes_out,
                  long groups) {
  void *group = __hpvm__createNodeND(1, levels_group, groups);
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(group, p, p, 0);
}

void levels_root(int *in, size_t bytes_in, int *out, size_t bytes_out,
                 long groups) {
  void *outer = __hpvm__createNodeND(1, levels_outer,
                                     bytes_in / sizeof(int) / (groups * LW));
  for (int p = 0; p < 5; ++p)
    __hpvm__bindIn(outer, p, p, 0);
}

static void run_levels(long outer, long groups) {
  long count = outer * groups * LW;
  size_t bytes = count * sizeof(int);
  int *in = e2e_alloc(bytes), *out = e2e_alloc(bytes);
  for (long i = 0; i < count; ++i) {
    in[i] = (int)(i * 5 + 1);
    out[i] = -1;
  }
  LevelsArgs args = {in, bytes, out, bytes, groups};
  __hpvm__wait(__hpvm__launch(0, levels_root, &args));
  for (long i = 0; i < count; ++i) {
    int want = in[i] + 2 * in[i / LW * LW + LW - 1 - i % LW];
    E2E_CHECK(out[i] == want, "levels: out[%ld] = %d, want %d", i, out[i],
              want);
  }
  e2e_free(in, bytes, "levels in");
  e2e_free(out, bytes, "levels out");
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s <n> <m> <k> <count>\n", argv[0]);
    return 2;
  }
  int n = (atoi(argv[1]) + TILE - 1) / TILE * TILE;
  int m = (atoi(argv[2]) + TILE - 1) / TILE * TILE;
  int k = (atoi(argv[3]) + TILE - 1) / TILE * TILE;
  __hpvm__init();
  long count = atol(argv[4]);
  run_sgemm(n, m, k);
  run_reduce((count + GROUP - 1) / GROUP);
  run_reverse((count + 12) / 13, 13);
  run_rotate((count + 99) / 100);
  run_histogram((count + 95) / 96);
  run_scan((count + 19) / 20, 20);
  run_scan(3, 1);
  run_levels(3, (count + 99) / 100);
  __hpvm__cleanup();
  return e2e_finish("hpvm_c_barrier");
}
