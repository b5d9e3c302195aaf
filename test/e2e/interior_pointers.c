// Pointers into the middle of an array, in data regions and between
// launches: what one node writes through one pointer, the next node reads
// through another, on every device and mix.
//
// Each node is a statement of its own (a launch of its own), so the program
// orders them; the runtime must see that `a + 1` and `a` are bytes of one
// allocation. Shapes, each checked against the same steps run sequentially:
//
//  (1) shift: in `data inout(a)`, after a node has read a (a copy of a is
//      on the device), one writes through y = a + 1 and the next reads a;
//  (2) halves: the same, with one node writing the lower half through a,
//      another the upper half through mid = a + n/2;
//  (3) overlap: p = a and q = a + n/4 name overlapping sections; written and
//      read in turn through both, without a data region, in one on a, and
//      in regions on both p and q at once;
//  (4) nested: `data inout(a)` around `data inout(mid)`: a node writes mid,
//      one reads a, one writes a, one reads mid, all inside both;
//  (5) update: inside `data inout(a)`, the host reads part of a through
//      mid after `update host(mid[...])`, writes one element through mid
//      and says so with `update device(mid[0:1])`; a node then reads a.
//
//   interior-pointers n
#include "e2e.h"

static float value(long i, int round) {
  return (float)((i * 7 + round * 13) % 1001) - 500.0f;
}

// Writes dst[0:len] from the index and the round.
static void fill(float *dst, long len, int round) {
#pragma hpvm parallel for name(fill) out(dst[0:len])
  for (long i = 0; i < len; ++i)
    dst[i] = value(i, round);
}

// out[i] = 2 src[i] + i, for i in [0, len).
static void twice(const float *src, float *out, long len) {
#pragma hpvm parallel for name(twice) in(src[0:len]) out(out[0:len])
  for (long i = 0; i < len; ++i)
    out[i] = 2.0f * src[i] + (float)(i % 17);
}

// The same steps without HPVM.
static void fill_ref(float *dst, long len, int round) {
  for (long i = 0; i < len; ++i)
    dst[i] = value(i, round);
}
static void twice_ref(const float *src, float *out, long len) {
  for (long i = 0; i < len; ++i)
    out[i] = 2.0f * src[i] + (float)(i % 17);
}

static void expect(const char *shape, const char *what, const float *got,
                   const float *want, long len) {
  for (long i = 0; i < len; ++i)
    E2E_CHECK(got[i] == want[i], "%s: %s[%ld] = %g, want %g", shape, what, i,
              got[i], want[i]);
}

static void reset(float *a, float *ra, float *b, float *rb, long n) {
  for (long i = 0; i < n; ++i) {
    a[i] = ra[i] = -1.0f - (float)(i % 5);
    b[i] = rb[i] = 9999.0f;
  }
}

// (1)
static void shift(float *a, float *b, float *c, long n) {
  float *y = a + 1;
#pragma hpvm data inout(a[0:n])
  {
    twice(a, c, n); // a's copy on the device, before y changes it
    fill(y, n - 1, 1);
    twice(a, b, n);
  }
}

// (2)
static void halves(float *a, float *b, float *c, long n) {
  float *mid = a + n / 2;
#pragma hpvm data inout(a[0:n])
  {
    twice(a, c, n);
    fill(a, n / 2, 2);
    fill(mid, n - n / 2, 3);
    twice(a, b, n);
  }
}

// (3): the steps, around which the callers put regions or none.
static void overlap_steps(float *p, float *q, float *b, long n) {
  fill(p, n / 2, 4);      // a[0, n/2)
  twice(q, b, n / 2);     // reads a[n/4, 3n/4)
  fill(q, n / 2, 5);      // a[n/4, 3n/4)
  twice(p, b + n / 2, n - n / 2); // reads a[0, n - n/2)
}
static void overlap_ref(float *p, float *q, float *b, long n) {
  fill_ref(p, n / 2, 4);
  twice_ref(q, b, n / 2);
  fill_ref(q, n / 2, 5);
  twice_ref(p, b + n / 2, n - n / 2);
}
static void overlap_plain(float *a, float *b, long n) {
  overlap_steps(a, a + n / 4, b, n);
}
static void overlap_region(float *a, float *b, long n) {
#pragma hpvm data inout(a[0:n])
  { overlap_steps(a, a + n / 4, b, n); }
}
static void overlap_two_regions(float *a, float *b, long n) {
  float *p = a, *q = a + n / 4;
#pragma hpvm data inout(p[0:n / 2], q[0:n / 2])
  { overlap_steps(p, q, b, n); }
}

// (4)
static void nested(float *a, float *b, float *c, long n) {
  float *mid = a + n / 3;
  long len = n - n / 3;
#pragma hpvm data inout(a[0:n])
  {
#pragma hpvm data inout(mid[0:len])
    {
      fill(mid, len, 6);
      twice(a, b, n);
      fill(a, n, 7);
      twice(mid, c, len);
    }
  }
}
static void nested_ref(float *a, float *b, float *c, long n) {
  float *mid = a + n / 3;
  long len = n - n / 3;
  fill_ref(mid, len, 6);
  twice_ref(a, b, n);
  fill_ref(a, n, 7);
  twice_ref(mid, c, len);
}

// (5)
static void update(float *a, float *b, long n, float *seen) {
  float *mid = a + n / 2;
  long len = n - n / 2;
#pragma hpvm data inout(a[0:n])
  {
    fill(a, n, 8);
#pragma hpvm update host(mid[0:len])
    for (long i = 0; i < len; ++i)
      seen[i] = mid[i];
    mid[0] = 123.0f;
#pragma hpvm update device(mid[0:1])
    twice(a, b, n);
  }
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 10007);
  if (n < 4) {
    fprintf(stderr, "interior-pointers: n must be at least 4\n");
    return 2;
  }
  size_t bytes = (size_t)n * sizeof(float);
  float *a = e2e_alloc(bytes), *b = e2e_alloc(bytes), *c = e2e_alloc(bytes);
  float *ra = e2e_alloc(bytes), *rb = e2e_alloc(bytes), *rc = e2e_alloc(bytes);

  reset(a, ra, b, rb, n);
  shift(a, b, c, n);
  fill_ref(ra + 1, n - 1, 1);
  twice_ref(ra, rb, n);
  expect("shift", "a", a, ra, n);
  expect("shift", "b", b, rb, n);

  reset(a, ra, b, rb, n);
  halves(a, b, c, n);
  fill_ref(ra, n / 2, 2);
  fill_ref(ra + n / 2, n - n / 2, 3);
  twice_ref(ra, rb, n);
  expect("halves", "a", a, ra, n);
  expect("halves", "b", b, rb, n);

  static const char *Overlaps[] = {"overlap", "overlap in a region",
                                   "overlap in two regions"};
  for (int k = 0; k < 3; ++k) {
    reset(a, ra, b, rb, n);
    if (k == 0)
      overlap_plain(a, b, n);
    else if (k == 1)
      overlap_region(a, b, n);
    else
      overlap_two_regions(a, b, n);
    overlap_ref(ra, ra + n / 4, rb, n);
    expect(Overlaps[k], "a", a, ra, n);
    expect(Overlaps[k], "b", b, rb, n);
  }

  reset(a, ra, b, rb, n);
  for (long i = 0; i < n; ++i)
    c[i] = rc[i] = 9999.0f;
  nested(a, b, c, n);
  nested_ref(ra, rb, rc, n);
  expect("nested", "a", a, ra, n);
  expect("nested", "b", b, rb, n);
  expect("nested", "c", c, rc, n);

  reset(a, ra, b, rb, n);
  update(a, b, n, c);
  fill_ref(ra, n, 8);
  expect("update", "seen", c, ra + n / 2, n - n / 2);
  ra[n / 2] = 123.0f;
  twice_ref(ra, rb, n);
  expect("update", "a", a, ra, n);
  expect("update", "b", b, rb, n);

  e2e_free(a, bytes, "a");
  e2e_free(b, bytes, "b");
  e2e_free(c, bytes, "c");
  e2e_free(ra, bytes, "ra");
  e2e_free(rb, bytes, "rb");
  e2e_free(rc, bytes, "rc");
  return e2e_finish("interior-pointers");
}
