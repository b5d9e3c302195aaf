// Empty index spaces. A node with no instances must run nothing, write
// nothing, and still let the nodes after it run: every dimension of a 3-D
// nest 0 in turn; a range whose start is past its end (C runs such a loop
// zero times, so its trip count must not come out negative); zero-byte
// buffers, also NULL ones; and an empty node between two dependent siblings
// of a task.
//
//   zero-size           (the extents come from argc so they are not constants)
#include "e2e.h"

static void fill3(long nx, long ny, long nz, int *a) {
#pragma hpvm parallel for collapse(3) name(fill3) out(a[0:nx * ny * nz])
  for (long i = 0; i < nx; ++i)
    for (long j = 0; j < ny; ++j)
      for (long k = 0; k < nz; ++k)
        a[(i * ny + j) * nz + k] = 1;
}

// [lo, hi) with hi < lo: no instances.
static void backwards(long lo, long hi, int *a) {
#pragma hpvm parallel for name(backwards) out(a[0:lo + 1])
  for (long i = lo; i < hi; ++i)
    a[i] = 1;
}

// The same counting down with '>' and unsigned: [lo, hi) empty when lo <= hi.
static void backwards_down(unsigned long lo, unsigned long hi, int *a) {
#pragma hpvm parallel for name(backwards_down) out(a[0:hi + 1])
  for (unsigned long i = lo; i > hi; --i)
    a[i] = 1;
}

// Three siblings, each depending on the previous; the middle one is empty.
static void chain(long n, long empty, const int *x, int *t, int *y) {
#pragma hpvm task name(chain)
  {
#pragma hpvm parallel for name(first) in(x[0:n]) out(t[0:n])
    for (long i = 0; i < n; ++i)
      t[i] = x[i] + 1;
#pragma hpvm parallel for name(nothing) inout(t[0:n])
    for (long i = 0; i < empty; ++i)
      t[i] = -1000;
#pragma hpvm parallel for name(last) in(t[0:n]) out(y[0:n])
    for (long i = 0; i < n; ++i)
      y[i] = t[i] * 2;
  }
}

int main(int argc, char **argv) {
  // Extents that the compiler cannot see: 0 and 5 from the argument count.
  long zero = argc > 100 ? 1 : 0, five = zero + 5;

  int *a = e2e_alloc(125 * sizeof(int));
  for (int d = 0; d < 4; ++d) {
    long e[3] = {five, five, five};
    if (d < 3)
      e[d] = zero;
    for (int k = 0; k < 125; ++k)
      a[k] = 0;
    fill3(e[0], e[1], e[2], a);
    long want = e[0] * e[1] * e[2];
    long got = 0;
    for (int k = 0; k < 125; ++k)
      got += a[k];
    E2E_CHECK(got == want, "fill3 %ldx%ldx%ld wrote %ld elements, want %ld",
              e[0], e[1], e[2], got, want);
  }

  for (int k = 0; k < 125; ++k)
    a[k] = 0;
  backwards(five, zero + 2, a);
  backwards_down(zero + 2, five, a);
  backwards(five, five, a);
  for (int k = 0; k < 125; ++k)
    E2E_CHECK(a[k] == 0, "an empty range wrote a[%d]", k);
  e2e_free(a, 125 * sizeof(int), "fill3");

  // Zero-byte buffers: from e2e_alloc (a valid pointer) and NULL.
  int *empty = e2e_alloc(0);
  fill3(zero, five, five, empty);
  e2e_free(empty, 0, "zero-byte buffer");
  fill3(zero, zero, zero, NULL);

  // An empty node in the middle of a dependency chain.
  int x[5] = {1, 2, 3, 4, 5}, t[5], y[5];
  chain(five, zero, x, t, y);
  for (int i = 0; i < 5; ++i)
    E2E_CHECK(y[i] == (x[i] + 1) * 2, "chain: y[%d] = %d, want %d", i, y[i],
              (x[i] + 1) * 2);
  // Every node empty: nothing is written.
  for (int i = 0; i < 5; ++i)
    t[i] = y[i] = 10 * i;
  chain(zero, zero, x, t, y);
  for (int i = 0; i < 5; ++i)
    E2E_CHECK(t[i] == 10 * i && y[i] == 10 * i,
              "empty chain wrote t[%d] = %d, y[%d] = %d", i, t[i], i, y[i]);
  printf("zero-size: done\n");
  return e2e_finish("zero-size");
}
