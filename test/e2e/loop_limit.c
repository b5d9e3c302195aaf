// Instances that each run long loops: row sums of a matrix whose rows have
// `cols` elements, summed in one of three shapes. lavapipe ends the loops of
// an invocation once its group of invocations has run 65535 loop iterations
// in all (docs/backends.md, "Loop guard"); the launch must fail there rather
// than return short sums. Everywhere else the sums must be exact.
//
//   flat     one loop over the row
//   nested   a loop over blocks of 100 columns and one over each block: the
//            inner loops' entries count too
//   split    even rows sum from the left, odd rows from the right, each in a
//            loop of its own: lanes of one group run both loops, one after
//            the other, so the group spends twice what each lane runs
//
//
// With `times`, the node runs that many times, each checked: a mixed run
// under round-robin puts one of them on lavapipe, which fails it, and the
// CPU runs it again (docs/runtime.md, "When a device fails").
//
//   pair     flat's loop beside another child of a task
//
//   loop-limit cols [flat|nested|split|pair] [times]
#include "e2e.h"

static void flat(long rows, long cols, const float *A, float *sums) {
#pragma hpvm parallel for name(flat) in(A [0:rows * cols]) out(sums [0:rows])
  for (long r = 0; r < rows; ++r) {
    float s = 0;
    for (long c = 0; c < cols; ++c)
      s += A[r * cols + c];
    sums[r] = s;
  }
}

static void nested(long rows, long cols, const float *A, float *sums) {
#pragma hpvm parallel for name(nested) in(A [0:rows * cols]) out(sums [0:rows])
  for (long r = 0; r < rows; ++r) {
    float s = 0;
    for (long b = 0; b < cols; b += 100)
      for (long c = b; c < b + 100 && c < cols; ++c)
        s += A[r * cols + c];
    sums[r] = s;
  }
}

static void split(long rows, long cols, const float *A, float *sums) {
#pragma hpvm parallel for name(split) in(A [0:rows * cols]) out(sums [0:rows])
  for (long r = 0; r < rows; ++r) {
    float s = 0;
    if (r % 2)
      for (long c = cols - 1; c >= 0; --c)
        s += A[r * cols + c];
    else
      for (long c = 0; c < cols; ++c)
        s += A[r * cols + c];
    sums[r] = s;
  }
}

// flat's loop as one of two children of a task, which may run at once:
// a device launch that fails after its launching thread moved on.
static void pair(long rows, long cols, const float *A, float *sums,
                 float *firsts) {
#pragma hpvm task name(pair)
  {
#pragma hpvm parallel for name(sums) in(A [0:rows * cols]) out(sums [0:rows])
    for (long r = 0; r < rows; ++r) {
      float s = 0;
      for (long c = 0; c < cols; ++c)
        s += A[r * cols + c];
      sums[r] = s;
    }
#pragma hpvm parallel for name(firsts) in(A [0:rows * cols])                   \
    out(firsts [0:rows])
    for (long r = 0; r < rows; ++r)
      firsts[r] = A[r * cols] + 1;
  }
}

int main(int argc, char **argv) {
  long rows = 4, cols = argc > 1 ? atol(argv[1]) : 200000;
  const char *shape = argc > 2 ? argv[2] : "flat";
  long times = e2e_count(argc, argv, 3, 1);
  float *A = e2e_alloc(rows * cols * sizeof(float));
  float *sums = e2e_alloc(rows * sizeof(float));
  float *firsts = e2e_alloc(rows * sizeof(float));
  for (long k = 0; k < rows * cols; ++k)
    A[k] = (float)(k % 2); // sums of 0 and 1: exact in float below 2^24
  for (long t = 0; t < times; ++t) {
    for (long r = 0; r < rows; ++r)
      sums[r] = -1;
    if (!strcmp(shape, "nested"))
      nested(rows, cols, A, sums);
    else if (!strcmp(shape, "split"))
      split(rows, cols, A, sums);
    else if (!strcmp(shape, "pair"))
      pair(rows, cols, A, sums, firsts);
    else
      flat(rows, cols, A, sums);
    for (long r = 0; r < rows; ++r) {
      float want = 0;
      for (long c = 0; c < cols; ++c)
        want += A[r * cols + c];
      E2E_CHECK(sums[r] == want, "run %ld: sums[%ld] = %g, want %g", t, r,
                sums[r], want);
      if (!strcmp(shape, "pair"))
        E2E_CHECK(firsts[r] == A[r * cols] + 1, "run %ld: firsts[%ld] = %g", t,
                  r, firsts[r]);
    }
  }
  e2e_free(A, rows * cols * sizeof(float), "A");
  e2e_free(sums, rows * sizeof(float), "sums");
  e2e_free(firsts, rows * sizeof(float), "firsts");
  return e2e_finish("loop-limit");
}
