// Time-step loops inside graphs: a plain `for` loop around child nodes
// runs its iterations in order, all in one launch (docs/c-frontend.md,
// "Loops around nodes"). Two sweeps per step that read what the other
// wrote, a one-instance child that uses the step number, and loops nested
// in a parallel loop over independent problems, each with its own section.
// Integer stencils, so every device must match the plain C steps exactly.
//
//   time-steps n steps problems
#include "e2e.h"

static unsigned mix(unsigned l, unsigned c, unsigned r) {
  return (l + 2u * c + 3u * r) % 1000003u;
}

static void sweeps(long n, long steps, unsigned *a, unsigned *b) {
#pragma hpvm task name(sweeps) inout(a [0:n], b [0:n])
  {
    for (long t = 0; t < steps; ++t) {
#pragma hpvm parallel for name(ab) in(a [0:n])inout(b [0:n])
      for (long i = 1; i < n - 1; ++i)
        b[i] = mix(a[i - 1], a[i], a[i + 1]);
#pragma hpvm parallel for name(ba) in(b [0:n])inout(a [0:n])
      for (long i = 1; i < n - 1; ++i)
        a[i] = mix(b[i - 1], b[i], b[i + 1]);
#pragma hpvm task name(edge) inout(a [0:n])
      { a[0] = (a[0] + (unsigned)t * 7u) % 1000003u; }
    }
  }
}

static void problems(long m, long n, long outer, long inner, unsigned *x) {
#pragma hpvm parallel for name(problems) inout(x [0:m * n])
  for (long p = 0; p < m; ++p) {
    for (long s = 0; s < outer; ++s)
      for (long r = 0; r < inner; ++r) {
#pragma hpvm parallel for name(step) inout(x [p * n:n])
        for (long i = 0; i < n; ++i)
          x[p * n + i] = (x[p * n + i] * 3u + (unsigned)(s * 10 + r)) % 65521u;
      }
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  long steps = argc > 2 ? atol(argv[2]) : 50;
  long m = argc > 3 ? atol(argv[3]) : 3;
  unsigned *a = e2e_alloc(n * sizeof(unsigned));
  unsigned *b = e2e_alloc(n * sizeof(unsigned));
  unsigned *ra = e2e_alloc(n * sizeof(unsigned));
  unsigned *rb = e2e_alloc(n * sizeof(unsigned));
  for (long i = 0; i < n; ++i)
    a[i] = ra[i] = b[i] = rb[i] = (unsigned)(i * 37 % 1001);
  sweeps(n, steps, a, b);
  for (long t = 0; t < steps; ++t) {
    for (long i = 1; i < n - 1; ++i)
      rb[i] = mix(ra[i - 1], ra[i], ra[i + 1]);
    for (long i = 1; i < n - 1; ++i)
      ra[i] = mix(rb[i - 1], rb[i], rb[i + 1]);
    if (n > 0)
      ra[0] = (ra[0] + (unsigned)t * 7u) % 1000003u;
  }
  for (long i = 0; i < n; ++i)
    E2E_CHECK(a[i] == ra[i] && b[i] == rb[i],
              "sweeps: a[%ld] = %u, b = %u; want %u, %u", i, a[i], b[i], ra[i],
              rb[i]);

  long outer = 4, inner = 3;
  unsigned *x = e2e_alloc(m * n * sizeof(unsigned));
  unsigned *rx = e2e_alloc(m * n * sizeof(unsigned));
  for (long k = 0; k < m * n; ++k)
    x[k] = rx[k] = (unsigned)(k % 97);
  problems(m, n, outer, inner, x);
  for (long p = 0; p < m; ++p)
    for (long s = 0; s < outer; ++s)
      for (long r = 0; r < inner; ++r)
        for (long i = 0; i < n; ++i)
          rx[p * n + i] =
              (rx[p * n + i] * 3u + (unsigned)(s * 10 + r)) % 65521u;
  for (long k = 0; k < m * n; ++k)
    E2E_CHECK(x[k] == rx[k], "problems: x[%ld] = %u, want %u", k, x[k], rx[k]);

  e2e_free(a, n * sizeof(unsigned), "a");
  e2e_free(b, n * sizeof(unsigned), "b");
  e2e_free(ra, n * sizeof(unsigned), "ra");
  e2e_free(rb, n * sizeof(unsigned), "rb");
  e2e_free(x, m * n * sizeof(unsigned), "x");
  e2e_free(rx, m * n * sizeof(unsigned), "rx");
  return e2e_finish("time-steps");
}
