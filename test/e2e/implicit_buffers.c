// Arrays and scalars the nodes use without naming them, as OpenMP code
// keeps its data in globals (docs/c-frontend.md, "Implicit buffers"):
// global 2-D and 1-D arrays, a global scalar and a global struct only read,
// a static local array, a local VLA, a global reached through a pointer the
// leaf derives from it. One graph with a time-step loop whose children have
// target(spirv) and target(cpu) hints, so that the mixed runs put them on
// two devices; integer arithmetic, so every device must match the plain C
// steps exactly.
//
//   implicit-buffers rows steps
#include "e2e.h"

#define ROWS 64
#define COLS 48

static unsigned grid[ROWS][COLS], ref_grid[ROWS][COLS];
static unsigned col_sum[COLS], ref_col_sum[COLS];
static unsigned row_out[ROWS], ref_row_out[ROWS];
static unsigned blocks[8 * 16];
unsigned weight = 3;
struct config {
  unsigned add, mod;
} cfg = {11, 65521};

int main(int argc, char **argv) {
  long rows = e2e_count(argc, argv, 1, ROWS);
  long steps = e2e_count(argc, argv, 2, 5);
  if (rows > ROWS) {
    fprintf(stderr, "at most %d rows\n", ROWS);
    return 2;
  }
  static unsigned bias[COLS];
  for (long j = 0; j < COLS; ++j)
    bias[j] = (unsigned)(j * 13 % 7);
  for (long i = 0; i < ROWS; ++i)
    for (long j = 0; j < COLS; ++j)
      grid[i][j] = ref_grid[i][j] = (unsigned)((i * 31 + j * 17) % 1009);

      // (1) Steps over globals: a scale on the SPIR-V device, column sums on
      // the CPU, one launch for all the steps.
#pragma hpvm task name(steps)
  {
    for (long t = 0; t < steps; ++t) {
#pragma hpvm parallel for collapse(2) name(scale) target(spirv)
      for (long i = 0; i < rows; ++i)
        for (long j = 0; j < COLS; ++j)
          grid[i][j] =
              (grid[i][j] * weight + cfg.add + bias[j] + (unsigned)t) % cfg.mod;
#pragma hpvm parallel for name(columns) target(cpu)
      for (long j = 0; j < COLS; ++j) {
        unsigned s = 0;
        for (long i = 0; i < rows; ++i)
          s += grid[i][j];
        col_sum[j] = s;
      }
    }
  }
  for (long t = 0; t < steps; ++t) {
    for (long i = 0; i < rows; ++i)
      for (long j = 0; j < COLS; ++j)
        ref_grid[i][j] =
            (ref_grid[i][j] * weight + cfg.add + bias[j] + (unsigned)t) %
            cfg.mod;
    for (long j = 0; j < COLS; ++j) {
      unsigned s = 0;
      for (long i = 0; i < rows; ++i)
        s += ref_grid[i][j];
      ref_col_sum[j] = s;
    }
  }

  // (2) A local VLA written on one device and read on the other, and a
  // global written through a pointer the leaf derives from it.
  unsigned row_sum[rows + 1];
#pragma hpvm task name(rows)
  {
#pragma hpvm parallel for name(sum) target(spirv)
    for (long i = 0; i < rows; ++i) {
      unsigned s = 0;
      for (long j = 0; j < COLS; ++j)
        s += grid[i][j] ^ col_sum[j];
      row_sum[i] = s;
    }
#pragma hpvm task name(prefix) target(cpu)
    {
      unsigned *out = row_out, running = 0;
      for (long i = 0; i < rows; ++i)
        out[i] = running += row_sum[i];
    }
  }
  unsigned running = 0;
  for (long i = 0; i < rows; ++i) {
    unsigned s = 0;
    for (long j = 0; j < COLS; ++j)
      s += ref_grid[i][j] ^ ref_col_sum[j];
    ref_row_out[i] = running += s;
  }

  // (3) A section per instance of a global array (the parent names the
  // whole of it), each block on the SPIR-V device.
#pragma hpvm parallel for name(blocks) inout(blocks)
  for (long b = 0; b < 8; ++b) {
#pragma hpvm parallel for name(block) out(blocks [b * 16:16]) target(spirv)
    for (long i = 0; i < 16; ++i)
      blocks[b * 16 + i] = (unsigned)(b * 100 + i) ^ weight;
  }
  for (long k = 0; k < 8 * 16; ++k)
    E2E_CHECK(blocks[k] == ((unsigned)((k / 16) * 100 + k % 16) ^ weight),
              "blocks[%ld] = %u", k, blocks[k]);

  for (long i = 0; i < ROWS; ++i)
    for (long j = 0; j < COLS; ++j)
      E2E_CHECK(grid[i][j] == ref_grid[i][j], "grid[%ld][%ld] = %u, want %u", i,
                j, grid[i][j], ref_grid[i][j]);
  for (long j = 0; j < COLS; ++j)
    E2E_CHECK(col_sum[j] == ref_col_sum[j], "col_sum[%ld] = %u, want %u", j,
              col_sum[j], ref_col_sum[j]);
  for (long i = 0; i < ROWS; ++i)
    E2E_CHECK(row_out[i] == ref_row_out[i], "row_out[%ld] = %u, want %u", i,
              row_out[i], ref_row_out[i]);
  return e2e_finish("implicit-buffers");
}
