// Replicated nodes whose children run on different devices (built for
// cpu,spirv and run with HPVM_DEVICES=cpu,vulkan or cpu,opencl): every row
// of the parent is one instance, and its children, each a parallel loop
// over the row's elements, run on the CPU, on the SPIR-V device, or where
// the scheduler puts them.
//
//   rows       scale (spirv) x -> x, then plus (cpu) x -> y      per row r
//   rows_rev   scale (cpu)   x -> x, then plus (spirv) x -> y    per row r
//   rows_free  bump (any) x -> x, copy (any) x -> y, tail (spirv) y -> z
//
// This is the shape that computed wrong results silently when coherence
// kept one state per buffer: the instances of `row` run concurrently, one
// writing x in the device's memory while another reads or writes it on the
// host. Every element's value depends on its row, its column, the round and
// the seed, and outputs are reset to a sentinel before each launch, so a
// lost, stale or misplaced row shows up. All values are integers below
// 2^24: float arithmetic on them is exact, and results are compared with ==.
//
//   mixed-rows R n [seed]
#include "mixed_rows.h"

enum { Rounds = 4 };

static void rows(long R, long n, float *x, float *y) {
#pragma hpvm parallel for name(rows) inout(x[0:R * n]) out(y[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(scale) target(spirv) inout(x[0:R * n])
    for (long i = 0; i < n; ++i)
      x[r * n + i] *= 3.0f;
#pragma hpvm parallel for name(plus) target(cpu) in(x[0:R * n])                \
    out(y[0:R * n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + i] + (float)r;
  }
}

static void rows_rev(long R, long n, float *x, float *y) {
#pragma hpvm parallel for name(rows_rev) inout(x[0:R * n]) out(y[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(scale) target(cpu) inout(x[0:R * n])
    for (long i = 0; i < n; ++i)
      x[r * n + i] = x[r * n + i] * 3.0f - (float)(i % 7);
    // Reads its row backwards: element i needs what instance n-1-i of the
    // sibling wrote on the other device.
#pragma hpvm parallel for name(plus) target(spirv) in(x[0:R * n])              \
    out(y[0:R * n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + (n - 1 - i)] + (float)(r % 100);
  }
}

static void rows_free(long R, long n, float *x, float *y, float *z) {
#pragma hpvm parallel for name(rows_free) inout(x[0:R * n])                    \
    out(y[0:R * n], z[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(bump) inout(x[0:R * n])
    for (long i = 0; i < n; ++i)
      x[r * n + i] += (float)(r % 50 + i % 3);
#pragma hpvm parallel for name(copy) in(x[0:R * n]) out(y[0:R * n])
    for (long i = 0; i < n; ++i)
      y[r * n + i] = x[r * n + i] * 2.0f - (float)(i % 5);
#pragma hpvm parallel for name(tail) target(spirv) in(y[0:R * n])              \
    out(z[0:R * n])
    for (long i = 0; i < n; ++i)
      z[r * n + i] = y[r * n + i] + 1.0f;
  }
}

int main(int argc, char **argv) {
  long R = e2e_count(argc, argv, 1, 16);
  long n = e2e_count(argc, argv, 2, 1000);
  long seed = e2e_count(argc, argv, 3, 1);
  size_t bytes = (size_t)(R * n) * sizeof(float);
  float *x = e2e_alloc(bytes), *y = e2e_alloc(bytes), *z = e2e_alloc(bytes);
  float *rx = malloc(bytes + 1), *ry = malloc(bytes + 1),
        *rz = malloc(bytes + 1);
  if (!rx || !ry || !rz)
    return 2;

  for (int round = 0; round < Rounds; ++round) {
    mixed_rows_round(round, seed, R, n, x, y, z, rx, ry, rz, rows, rows_rev,
                     rows_free);
  }
  printf("mixed-rows R=%ld n=%ld seed=%ld: %d rounds\n", R, n, seed, Rounds);
  e2e_free(x, bytes, "x");
  e2e_free(y, bytes, "y");
  e2e_free(z, bytes, "z");
  free(rx);
  free(ry);
  free(rz);
  return e2e_finish("mixed-rows");
}
