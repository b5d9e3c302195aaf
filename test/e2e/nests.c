// 1-, 2- and 3-D nodes with extents from argv. Every instance writes a value
// that encodes its own ids, so a swapped dimension, a wrong stride between
// the ids and the buffer, or a lost or repeated instance shows up. Also: a
// 2-D loop nest with collapse(1) (the inner loop runs inside each instance),
// a rectangular nest whose loops start at 1 and step by 3, and an inner
// non-collapsed loop whose bound is an outer instance id (allowed: it is not
// an extent of the node).
//
//   nests nx ny nz
#include "e2e.h"

static int code(long i, long j, long k) {
  return (int)(i * 1000000 + j * 1000 + k);
}

static void one_d(long nx, int *a) {
#pragma hpvm parallel for name(d1) out(a[0:nx])
  for (long i = 0; i < nx; ++i)
    a[i] = code(i, 0, 0);
}

static void two_d(long nx, long ny, int *a) {
#pragma hpvm parallel for collapse(2) name(d2) out(a[0:nx * ny])
  for (long i = 0; i < nx; ++i)
    for (long j = 0; j < ny; ++j)
      a[i * ny + j] = code(i, j, 0);
}

static void three_d(long nx, long ny, long nz, int *a) {
#pragma hpvm parallel for collapse(3) name(d3) out(a[0:nx * ny * nz])
  for (long i = 0; i < nx; ++i)
    for (long j = 0; j < ny; ++j)
      for (long k = 0; k < nz; ++k)
        a[(i * ny + j) * nz + k] = code(i, j, k);
}

// Only the outer loop is the node's index space.
static void rows(long nx, long ny, int *a) {
#pragma hpvm parallel for name(rows) out(a[0:nx * ny])
  for (long i = 0; i < nx; ++i)
    for (long j = 0; j < ny; ++j)
      a[i * ny + j] = code(i, j, 0);
}

// Loops from 1 by 3: instance (p, q) is (1 + 3p, 1 + 3q).
static void strided(long nx, long ny, int *a) {
#pragma hpvm parallel for collapse(2) name(strided) out(a[0:nx * ny])
  for (long i = 1; i < nx; i += 3)
    for (long j = 1; j < ny; j += 3)
      a[i * ny + j] = code(i, j, 0);
}

// Lower triangle: the inner loop is sequential inside instance i, and its
// bound may depend on i.
static void triangle(long nx, int *a) {
#pragma hpvm parallel for name(triangle) out(a[0:nx * nx])
  for (long i = 0; i < nx; ++i)
    for (long j = 0; j <= i; ++j)
      a[i * nx + j] = code(i, j, 0);
}

static void expect(const int *a, long nx, long ny, long nz, const char *what,
                   int (*ref)(long, long, long)) {
  for (long i = 0; i < nx; ++i)
    for (long j = 0; j < ny; ++j)
      for (long k = 0; k < nz; ++k) {
        long at = (i * ny + j) * nz + k;
        int want = ref(i, j, k);
        E2E_CHECK(a[at] == want,
                  "%s %ldx%ldx%ld: [%ld][%ld][%ld] = %d, want %d", what, nx, ny,
                  nz, i, j, k, a[at], want);
      }
}

static int ref_strided(long i, long j, long k) {
  (void)k;
  return i % 3 == 1 && j % 3 == 1 ? code(i, j, 0) : -7;
}
static int ref_triangle(long i, long j, long k) {
  (void)k;
  return j <= i ? code(i, j, 0) : -7;
}

int main(int argc, char **argv) {
  long nx = e2e_count(argc, argv, 1, 33), ny = e2e_count(argc, argv, 2, 17),
       nz = e2e_count(argc, argv, 3, 9);
  if (nx > 999 || ny > 999 || nz > 999) {
    fprintf(stderr, "extents up to 999 (the check encodes ids in decimal)\n");
    return 2;
  }
  size_t n3 = (size_t)(nx * ny * nz) * sizeof(int);
  int *a = e2e_alloc(n3);

  one_d(nx, a);
  expect(a, nx, 1, 1, "1-D", code);
  two_d(nx, ny, a);
  expect(a, nx, ny, 1, "2-D", code);
  three_d(nx, ny, nz, a);
  expect(a, nx, ny, nz, "3-D", code);
  rows(nx, ny, a);
  expect(a, nx, ny, 1, "rows", code);
  for (long k = 0; k < nx * ny; ++k)
    a[k] = -7;
  strided(nx, ny, a);
  expect(a, nx, ny, 1, "strided", ref_strided);
  e2e_free(a, n3, "nests");

  int *t = e2e_alloc((size_t)(nx * nx) * sizeof(int));
  for (long k = 0; k < nx * nx; ++k)
    t[k] = -7;
  triangle(nx, t);
  expect(t, nx, nx, 1, "triangle", ref_triangle);
  e2e_free(t, (size_t)(nx * nx) * sizeof(int), "triangle");

  printf("nests %ld %ld %ld\n", nx, ny, nz);
  return e2e_finish("nests");
}
