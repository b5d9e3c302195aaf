// HPVM-C programs, written as HPVM's own are (hpvm.h's explicit graph calls,
// packed argument structs, track/request/untrack), checked against C:
//  * vadd: a 1-D leaf under a root, launched twice with its buffers tracked
//    in between (they stay on the device between the launches);
//  * stencil: a 2-D stencil whose root creates a replicated internal node
//    of tiles (extents computed from the root's parameters) whose leaf
//    finds its element from its own and its parent's ids and counts, the
//    HPVM-C way of writing work-groups and work-items;
//  * chain: three levels, two leaves in order through a buffer (the first
//    restricted to the CPU by its hint), a 3-D leaf, and a root that is a
//    leaf itself;
//  * pipe: three levels with a value edge (a buffer's size, passed from one
//    leaf to the next as HPVM's pipelines pass them) and outputs bound up
//    to the root's, which the launch writes into the argument struct;
//  * layers: a replicated node of replicated groups of two leaves of
//    different dims, folded, that still see the ids two levels up.
//
//   hpvm_c <n> <rows> <cols>
//
// The hints are HPVM-C's (the stencil's leaf on a GPU, the chain's first
// leaf on the CPU); built with -DANY_DEVICE, every node may run anywhere,
// so that the program runs on one device of any kind alone.
#include "mixed.h"

#include <hpvm.h>

#ifdef ANY_DEVICE
#define HINT(target) __hpvm__hint(CPU_OR_GPU_TARGET)
#else
#define HINT(target) __hpvm__hint(target)
#endif

//===----------------------------------------------------------------------===//
// vadd
//===----------------------------------------------------------------------===//

typedef struct __attribute__((__packed__)) {
  float *a;
  size_t bytes_a;
  float *b;
  size_t bytes_b;
  float *c;
  size_t bytes_c;
  long n;
} VaddArgs;

void vadd_leaf(float *a, size_t bytes_a, float *b, size_t bytes_b, float *c,
               size_t bytes_c, long n) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(2, a, b, 1, c);
  void *self = __hpvm__getNode();
  long i = __hpvm__getNodeInstanceID_x(self);
  c[i] = a[i] + 2 * b[i];
  __hpvm__return(0);
}

void vadd_root(float *a, size_t bytes_a, float *b, size_t bytes_b, float *c,
               size_t bytes_c, long n) {
  __hpvm__hint(CPU_TARGET);
  __hpvm__attributes(2, a, b, 1, c);
  void *leaf = __hpvm__createNodeND(1, vadd_leaf, n);
  for (unsigned p = 0; p < 7; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__return(0);
}

static void run_vadd(long n) {
  size_t bytes = n * sizeof(float);
  float *a = e2e_alloc(bytes), *b = e2e_alloc(bytes), *c = e2e_alloc(bytes);
  float *want = e2e_alloc(bytes);
  for (long i = 0; i < n; ++i) {
    a[i] = mixed_input(1, 0, 0, i);
    b[i] = mixed_input(2, 0, 0, i);
  }
  mixed_reset(n, c);
  VaddArgs *args = malloc(sizeof(VaddArgs));
  args->a = a;
  args->bytes_a = bytes;
  args->b = b;
  args->bytes_b = bytes;
  args->c = c;
  args->bytes_c = bytes;
  args->n = n;
  llvm_hpvm_track_mem(a, bytes);
  llvm_hpvm_track_mem(b, bytes);
  llvm_hpvm_track_mem(c, bytes);
  void *dfg = __hpvm__launch(0, vadd_root, (void *)args);
  __hpvm__wait(dfg);
  // Again, with c as the first input: it is still on the device.
  args->a = c;
  args->c = a;
  dfg = __hpvm__launch(0, vadd_root, (void *)args);
  __hpvm__wait(dfg);
  llvm_hpvm_request_mem(a, bytes);
  llvm_hpvm_untrack_mem(a);
  llvm_hpvm_untrack_mem(b);
  llvm_hpvm_untrack_mem(c);
  for (long i = 0; i < n; ++i) {
    float first = mixed_input(1, 0, 0, i) + 2 * mixed_input(2, 0, 0, i);
    want[i] = first + 2 * mixed_input(2, 0, 0, i);
  }
  mixed_check("vadd", "a", 0, 1, n, a, want);
  free(args);
  e2e_free(a, bytes, "vadd a");
  e2e_free(b, bytes, "vadd b");
  e2e_free(c, bytes, "vadd c");
  e2e_free(want, bytes, "vadd want");
}

//===----------------------------------------------------------------------===//
// stencil
//===----------------------------------------------------------------------===//

enum { TILE_X = 8, TILE_Y = 4 };

typedef struct __attribute__((__packed__)) {
  float *in;
  size_t bytes_in;
  float *out;
  size_t bytes_out;
  int rows;
  int cols;
} StencilArgs;

void stencil_leaf(float *in, size_t bytes_in, float *out, size_t bytes_out,
                  int rows, int cols) {
  HINT(DEVICE);
  __hpvm__attributes(1, in, 1, out);
  void *self = __hpvm__getNode();
  void *tile = __hpvm__getParentNode(self);
  long x =
      __hpvm__getNodeInstanceID_x(tile) * __hpvm__getNumNodeInstances_x(self) +
      __hpvm__getNodeInstanceID_x(self);
  long y =
      __hpvm__getNodeInstanceID_y(tile) * __hpvm__getNumNodeInstances_y(self) +
      __hpvm__getNodeInstanceID_y(self);
  if (y >= rows || x >= cols)
    return;
  long at = y * cols + x;
  if (y == 0 || x == 0 || y == rows - 1 || x == cols - 1) {
    out[at] = in[at];
    return;
  }
  out[at] = in[at] + in[at - 1] + in[at + 1] + in[at - cols] + in[at + cols];
}

void stencil_tile(float *in, size_t bytes_in, float *out, size_t bytes_out,
                  int rows, int cols) {
  __hpvm__hint(CPU_TARGET);
  __hpvm__attributes(1, in, 1, out);
  void *leaf =
      __hpvm__createNodeND(2, stencil_leaf, (long)TILE_X, (long)TILE_Y);
  __hpvm__bindIn(leaf, 0, 0, 0);
  __hpvm__bindIn(leaf, 1, 1, 0);
  __hpvm__bindIn(leaf, 2, 2, 0);
  __hpvm__bindIn(leaf, 3, 3, 0);
  __hpvm__bindIn(leaf, 4, 4, 0);
  __hpvm__bindIn(leaf, 5, 5, 0);
}

void stencil_root(float *in, size_t bytes_in, float *out, size_t bytes_out,
                  int rows, int cols) {
  __hpvm__hint(CPU_TARGET);
  __hpvm__attributes(1, in, 1, out);
  void *tiles =
      __hpvm__createNodeND(2, stencil_tile, (cols + TILE_X - 1) / TILE_X,
                           (rows + TILE_Y - 1) / TILE_Y);
  for (unsigned p = 0; p < 6; ++p)
    __hpvm__bindIn(tiles, p, p, 0);
}

static void run_stencil(int rows, int cols) {
  long count = (long)rows * cols;
  size_t bytes = count * sizeof(float);
  float *in = e2e_alloc(bytes), *out = e2e_alloc(bytes),
        *want = e2e_alloc(bytes);
  for (long r = 0; r < rows; ++r)
    for (long c = 0; c < cols; ++c)
      in[r * cols + c] = mixed_input(3, 0, r, c);
  mixed_reset(count, out);
  StencilArgs args = {in, bytes, out, bytes, rows, cols};
  __hpvm__wait(__hpvm__launch(0, stencil_root, &args));
  for (long r = 0; r < rows; ++r)
    for (long c = 0; c < cols; ++c) {
      long at = r * cols + c;
      want[at] = r == 0 || c == 0 || r == rows - 1 || c == cols - 1
                     ? in[at]
                     : in[at] + in[at - 1] + in[at + 1] + in[at - cols] +
                           in[at + cols];
    }
  mixed_check("stencil", "out", 0, rows, cols, out, want);
  e2e_free(in, bytes, "stencil in");
  e2e_free(out, bytes, "stencil out");
  e2e_free(want, bytes, "stencil want");
}

//===----------------------------------------------------------------------===//
// chain
//===----------------------------------------------------------------------===//

typedef struct __attribute__((__packed__)) {
  int *x;
  size_t bytes_x;
  int *y;
  size_t bytes_y;
  long n;
  int scale;
} ChainArgs;

void chain_fill(int *x, size_t bytes_x, long n, int scale) {
  HINT(CPU_TARGET);
  __hpvm__attributes(0, 1, x);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  x[i] = (int)(i % 1000) * scale;
}

void chain_cube(int *x, size_t bytes_x, int *y, size_t bytes_y, long n) {
  // 3-D: z is the outermost dim, x the fastest.
  void *self = __hpvm__getNode();
  long nx = __hpvm__getNumNodeInstances_x(self);
  long ny = __hpvm__getNumNodeInstances_y(self);
  long i = (__hpvm__getNodeInstanceID_z(self) * ny +
            __hpvm__getNodeInstanceID_y(self)) *
               nx +
           __hpvm__getNodeInstanceID_x(self);
  if (i < n)
    __hpvm__atomic_add(&y[i % 16], x[i]);
}

void chain_mid(int *x, size_t bytes_x, int *y, size_t bytes_y, long n,
               int scale) {
  void *fill = __hpvm__createNodeND(1, chain_fill, n);
  void *cube = __hpvm__createNodeND(3, chain_cube, 4L, 3L, (n + 11) / 12);
  __hpvm__bindIn(fill, 0, 0, 0);
  __hpvm__bindIn(fill, 1, 1, 0);
  __hpvm__bindIn(fill, 4, 2, 0);
  __hpvm__bindIn(fill, 5, 3, 0);
  __hpvm__bindIn(cube, 0, 0, 0);
  __hpvm__bindIn(cube, 1, 1, 0);
  __hpvm__bindIn(cube, 2, 2, 0);
  __hpvm__bindIn(cube, 3, 3, 0);
  __hpvm__bindIn(cube, 4, 4, 0);
}

void chain_root(int *x, size_t bytes_x, int *y, size_t bytes_y, long n,
                int scale) {
  void *mid = __hpvm__createNodeND(0, chain_mid);
  for (unsigned p = 0; p < 6; ++p)
    __hpvm__bindIn(mid, p, p, 0);
}

typedef struct __attribute__((__packed__)) {
  int *y;
  size_t bytes_y;
} ClearArgs;

// A root that is a leaf: one instance.
void chain_clear(int *y, size_t bytes_y) {
  __hpvm__attributes(0, 1, y);
  for (int k = 0; k < 16; ++k)
    y[k] = 0;
}

static void run_chain(long n) {
  int *x = e2e_alloc(n * sizeof(int)), *y = e2e_alloc(16 * sizeof(int));
  for (int k = 0; k < 16; ++k)
    y[k] = -1;
  ClearArgs clear = {y, 16 * sizeof(int)};
  __hpvm__wait(__hpvm__launch(0, chain_clear, &clear));
  ChainArgs args = {x, n * sizeof(int), y, 16 * sizeof(int), n, 3};
  __hpvm__wait(__hpvm__launch(0, chain_root, &args));
  int want[16] = {0};
  for (long i = 0; i < n; ++i) {
    E2E_CHECK(x[i] == (int)(i % 1000) * 3, "chain: x[%ld] = %d, want %d", i,
              x[i], (int)(i % 1000) * 3);
    want[i % 16] += (int)(i % 1000) * 3;
  }
  for (int k = 0; k < 16; ++k)
    E2E_CHECK(y[k] == want[k], "chain: y[%d] = %d, want %d", k, y[k], want[k]);
  e2e_free(x, n * sizeof(int), "chain x");
  e2e_free(y, 16 * sizeof(int), "chain y");
}

//===----------------------------------------------------------------------===//
// pipe: value edges
//===----------------------------------------------------------------------===//

// A node's outputs, as HPVM-C returns them: a struct.
typedef struct {
  size_t bytes;
} BytesOut;

typedef struct __attribute__((__packed__)) {
  float *in;
  size_t bytes_in;
  float *mid;
  size_t bytes_mid;
  float *out;
  size_t bytes_out;
  BytesOut result; // the root's output
} PipeArgs;

// Doubles `in` into `mid`; passes mid's size on to whoever needs it.
BytesOut pipe_produce(float *in, size_t bytes_in, float *mid,
                      size_t bytes_mid) {
  HINT(DEVICE);
  __hpvm__attributes(1, in, 1, mid);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  mid[i] = 2 * in[i];
  __hpvm__return(1, bytes_mid);
}

// Adds one, knowing mid's size only from the edge.
void pipe_consume(float *mid, size_t bytes_mid, float *out, size_t bytes_out) {
  HINT(CPU_TARGET);
  __hpvm__attributes(1, mid, 1, out);
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  if (i < (long)(bytes_mid / sizeof(float)))
    out[i] = mid[i] + 1;
}

BytesOut pipe_stage(float *in, size_t bytes_in, float *mid, size_t bytes_mid,
                    float *out, size_t bytes_out) {
  void *produce =
      __hpvm__createNodeND(1, pipe_produce, bytes_in / sizeof(float));
  void *consume =
      __hpvm__createNodeND(1, pipe_consume, bytes_out / sizeof(float));
  for (unsigned p = 0; p < 4; ++p)
    __hpvm__bindIn(produce, p, p, 0);
  __hpvm__bindIn(consume, 2, 0, 0);
  __hpvm__edge(produce, consume, 1, 0, 1, 0);
  __hpvm__bindIn(consume, 4, 2, 0);
  __hpvm__bindIn(consume, 5, 3, 0);
  __hpvm__bindOut(produce, 0, 0, 0);
}

BytesOut pipe_root(float *in, size_t bytes_in, float *mid, size_t bytes_mid,
                   float *out, size_t bytes_out) {
  void *stage = __hpvm__createNodeND(0, pipe_stage);
  for (unsigned p = 0; p < 6; ++p)
    __hpvm__bindIn(stage, p, p, 0);
  __hpvm__bindOut(stage, 0, 0, 0);
}

static void run_pipe(long n) {
  size_t bytes = n * sizeof(float);
  float *in = e2e_alloc(bytes), *mid = e2e_alloc(bytes),
        *out = e2e_alloc(bytes), *want = e2e_alloc(bytes);
  for (long i = 0; i < n; ++i) {
    in[i] = mixed_input(4, 0, 0, i);
    want[i] = 2 * in[i] + 1;
  }
  mixed_reset(n, mid);
  mixed_reset(n, out);
  PipeArgs args = {in, bytes, mid, bytes, out, bytes, {0}};
  __hpvm__wait(__hpvm__launch(0, pipe_root, &args));
  mixed_check("pipe", "out", 0, 1, n, out, want);
  E2E_CHECK(args.result.bytes == bytes,
            "pipe: the root's output is %zu, "
            "want %zu",
            args.result.bytes, bytes);
  e2e_free(in, bytes, "pipe in");
  e2e_free(mid, bytes, "pipe mid");
  e2e_free(out, bytes, "pipe out");
  e2e_free(want, bytes, "pipe want");
}

//===----------------------------------------------------------------------===//
// layers: folding with several leaves under a replicated parent
//===----------------------------------------------------------------------===//

// A replicated root child (3 layers) of replicated groups, each running a
// 2-D leaf and a 1-D leaf: both leaves are folded with their group and
// still see the layer's id two levels up.
typedef struct __attribute__((__packed__)) {
  int *a;
  size_t bytes_a;
  int *b;
  size_t bytes_b;
  long n;
} LayersArgs;

void layers_cells(int *a, size_t bytes_a, int *b, size_t bytes_b, long n) {
  void *self = __hpvm__getNode(), *group = __hpvm__getParentNode(self);
  void *layer = __hpvm__getParentNode(group);
  long x =
      __hpvm__getNodeInstanceID_x(group) * __hpvm__getNumNodeInstances_x(self) +
      __hpvm__getNodeInstanceID_x(self);
  long y =
      __hpvm__getNodeInstanceID_y(group) * __hpvm__getNumNodeInstances_y(self) +
      __hpvm__getNodeInstanceID_y(self);
  long z = __hpvm__getNodeInstanceID_x(layer);
  if (x < n && y < n)
    a[(z * n + y) * n + x] = (int)(z * 1000000 + y * 1000 + x);
}

void layers_groups(int *a, size_t bytes_a, int *b, size_t bytes_b, long n) {
  void *self = __hpvm__getNode(), *group = __hpvm__getParentNode(self);
  void *layer = __hpvm__getParentNode(group);
  long groups = __hpvm__getNumNodeInstances_x(group) *
                __hpvm__getNumNodeInstances_y(group);
  long g = __hpvm__getNodeInstanceID_y(group) *
               __hpvm__getNumNodeInstances_x(group) +
           __hpvm__getNodeInstanceID_x(group);
  long z = __hpvm__getNodeInstanceID_x(layer);
  b[(z * groups + g) * 4 + __hpvm__getNodeInstanceID_x(self)] =
      (int)(z * 100 + g);
}

void layers_group(int *a, size_t bytes_a, int *b, size_t bytes_b, long n) {
  void *cells = __hpvm__createNodeND(2, layers_cells, 4L, 2L);
  void *groups = __hpvm__createNodeND(1, layers_groups, 4L);
  for (unsigned p = 0; p < 5; ++p) {
    __hpvm__bindIn(cells, p, p, 0);
    __hpvm__bindIn(groups, p, p, 0);
  }
}

void layers_layer(int *a, size_t bytes_a, int *b, size_t bytes_b, long n) {
  void *group = __hpvm__createNodeND(2, layers_group, (n + 3) / 4, (n + 1) / 2);
  for (unsigned p = 0; p < 5; ++p)
    __hpvm__bindIn(group, p, p, 0);
}

void layers_root(int *a, size_t bytes_a, int *b, size_t bytes_b, long n) {
  void *layer = __hpvm__createNodeND(1, layers_layer, 3L);
  for (unsigned p = 0; p < 5; ++p)
    __hpvm__bindIn(layer, p, p, 0);
}

static void run_layers(long n) {
  long groups = ((n + 3) / 4) * ((n + 1) / 2);
  size_t bytes_a = 3 * n * n * sizeof(int),
         bytes_b = 3 * groups * 4 * sizeof(int);
  int *a = e2e_alloc(bytes_a), *b = e2e_alloc(bytes_b);
  LayersArgs args = {a, bytes_a, b, bytes_b, n};
  __hpvm__wait(__hpvm__launch(0, layers_root, &args));
  for (long z = 0; z < 3; ++z)
    for (long y = 0; y < n; ++y)
      for (long x = 0; x < n; ++x)
        E2E_CHECK(a[(z * n + y) * n + x] == z * 1000000 + y * 1000 + x,
                  "layers: a[%ld][%ld][%ld] = %d", z, y, x,
                  a[(z * n + y) * n + x]);
  for (long z = 0; z < 3; ++z)
    for (long g = 0; g < groups; ++g)
      for (int i = 0; i < 4; ++i)
        E2E_CHECK(b[(z * groups + g) * 4 + i] == z * 100 + g,
                  "layers: b[%ld][%ld][%d] = %d", z, g, i,
                  b[(z * groups + g) * 4 + i]);
  e2e_free(a, bytes_a, "layers a");
  e2e_free(b, bytes_b, "layers b");
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s <n> <rows> <cols>\n", argv[0]);
    return 2;
  }
  long n = atol(argv[1]);
  int rows = atoi(argv[2]), cols = atoi(argv[3]);
  __hpvm__init();
  run_vadd(n);
  run_stencil(rows, cols);
  run_chain(n);
  run_pipe(n);
  run_layers(rows);
  __hpvm__cleanup();
  return e2e_finish("hpvm_c");
}
