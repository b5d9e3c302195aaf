// `nowait` launches on different devices (built for cpu,spirv, run with
// HPVM_DEVICES=cpu,vulkan or cpu,opencl): each graph below is launched
// with `nowait`, so the host goes on while it runs; the runtime must still
// give each buffer the program's order of launches, across memory spaces,
// and `#pragma hpvm taskwait` must return only when all have finished.
//
//   produce  (spirv, nowait)  x -> a
//   consume  (cpu, nowait)    a -> b         read after write, across devices
//   overwrite (any, nowait)   x -> a         write after read: consume first
//   side     (spirv, nowait)  x -> c         independent of the three above
//   check    (cpu)            a, b -> d      synchronous: after every writer
//   taskwait                                 then the host reads a, b, c, d
//
// Rounds repeat it with new inputs; outputs are reset to a sentinel by the
// host only after a taskwait. Integer values, exact, compared with ==.
//
//   mixed-nowait n [seed]
#include "mixed.h"

enum { Rounds = 5 };

static void produce(long n, const float *x, float *a) {
#pragma hpvm parallel for name(produce) nowait target(spirv) in(x[0:n])     \
    out(a[0:n])
  for (long i = 0; i < n; ++i)
    a[i] = 2.0f * x[i] + 1.0f;
}

static void consume(long n, const float *a, float *b) {
#pragma hpvm parallel for name(consume) nowait target(cpu) in(a[0:n])       \
    out(b[0:n])
  for (long i = 0; i < n; ++i)
    b[i] = a[n - 1 - i] - 3.0f; // reversed: a stale element shows
}

static void overwrite(long n, const float *x, float *a) {
#pragma hpvm parallel for name(overwrite) nowait in(x[0:n]) out(a[0:n])
  for (long i = 0; i < n; ++i)
    a[i] = x[i] - 7.0f;
}

static void side(long n, const float *x, float *c) {
#pragma hpvm parallel for name(side) nowait target(spirv) in(x[0:n])        \
    out(c[0:n])
  for (long i = 0; i < n; ++i)
    c[i] = x[i] + (float)(i % 5);
}

static void check(long n, const float *a, const float *b, float *d) {
#pragma hpvm parallel for name(check) target(cpu) in(a[0:n], b[0:n])         \
    out(d[0:n])
  for (long i = 0; i < n; ++i)
    d[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 10007);
  long seed = e2e_count(argc, argv, 2, 1);
  size_t bytes = (size_t)n * sizeof(float);
  float *x = e2e_alloc(bytes), *a = e2e_alloc(bytes), *b = e2e_alloc(bytes),
        *c = e2e_alloc(bytes), *d = e2e_alloc(bytes);
  float *ra = e2e_alloc(bytes), *rb = e2e_alloc(bytes),
        *rc = e2e_alloc(bytes), *rd = e2e_alloc(bytes);
  for (int round = 0; round < Rounds; ++round) {
    for (long i = 0; i < n; ++i)
      x[i] = mixed_input(seed, round, 0, i);
    mixed_reset(n, a);
    mixed_reset(n, b);
    mixed_reset(n, c);
    mixed_reset(n, d);
    produce(n, x, a);
    consume(n, a, b);
    overwrite(n, x, a);
    side(n, x, c);
    check(n, a, b, d);
#pragma hpvm taskwait

    for (long i = 0; i < n; ++i) {
      rb[i] = (2.0f * x[n - 1 - i] + 1.0f) - 3.0f;
      ra[i] = x[i] - 7.0f;
      rc[i] = x[i] + (float)(i % 5);
    }
    for (long i = 0; i < n; ++i)
      rd[i] = ra[i] + rb[i];
    mixed_check("nowait", "a", round, 1, n, a, ra);
    mixed_check("nowait", "b", round, 1, n, b, rb);
    mixed_check("nowait", "c", round, 1, n, c, rc);
    mixed_check("nowait", "d", round, 1, n, d, rd);
  }
  e2e_free(x, bytes, "x");
  e2e_free(a, bytes, "a");
  e2e_free(b, bytes, "b");
  e2e_free(c, bytes, "c");
  e2e_free(d, bytes, "d");
  e2e_free(ra, bytes, "ra");
  e2e_free(rb, bytes, "rb");
  e2e_free(rc, bytes, "rc");
  e2e_free(rd, bytes, "rd");
  return e2e_finish("mixed-nowait");
}
