// vector-add: c[i] = a[i] + b[i], the smallest HPVM program.
//
// One `#pragma hpvm parallel for` makes the loop a dataflow-graph node with n
// instances (one per iteration). The clauses say which arrays the node reads
// and writes and how many elements of each: that is all the runtime needs to
// run the node on any device and move the data there and back.
//
//   hpvm-clang -O3 main.c -o vector-add && ./vector-add [n]
//
// Any other C compiler ignores the pragma and builds the same program
// sequentially, which is also the reference it is checked against.
#include <stdio.h>
#include <stdlib.h>

static void vector_add(const float *a, const float *b, float *c, long n) {
#pragma hpvm parallel for name(vadd) in(a [0:n], b [0:n])out(c [0:n])
  for (long i = 0; i < n; ++i)
    c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  if (n < 0) {
    fprintf(stderr, "usage: %s [n >= 0]\n", argv[0]);
    return 2;
  }
  // One spare element each: malloc(0) may return NULL, which is not a buffer.
  float *a = malloc(((size_t)n + 1) * sizeof *a);
  float *b = malloc(((size_t)n + 1) * sizeof *b);
  float *c = malloc(((size_t)n + 1) * sizeof *c);
  if (!a || !b || !c) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  for (long i = 0; i < n; ++i) {
    a[i] = (float)(i % 1000) * 0.5f;
    b[i] = (float)(i % 77) - 30.0f;
  }

  vector_add(a, b, c, n);

  // The sum of two floats is exactly rounded everywhere, so the check is
  // exact: any difference is a wrong or missing element.
  long bad = 0;
  for (long i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      if (!bad)
        fprintf(stderr, "first mismatch at %ld: %g, expected %g\n", i, c[i],
                a[i] + b[i]);
      ++bad;
    }
  printf("vector-add n=%ld: %ld mismatches\n", n, bad);
  printf("%s vector-add\n", bad ? "FAIL" : "PASS");
  free(a);
  free(b);
  free(c);
  return bad != 0;
}
