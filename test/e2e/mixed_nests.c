// Two- and three-level nests of parallel loops whose children run on
// different devices (built for cpu,spirv, run with HPVM_DEVICES=cpu,vulkan
// or cpu,opencl), children reading what a sibling on another device wrote.
//
//   chain       rows r { produce (cpu) -> a; middle (spirv) a -> b;
//                        combine (cpu) a, b -> c }
//   chain_free  rows r { produce (any) -> a; middle (any) a -> b;
//                        combine (spirv) a, b -> c }
//   deep        blocks p { mid q { make (spirv) -> u; use (cpu) u -> v };
//                          gather (any) v -> w; after (cpu) w -> t }
//   deep_grid   blocks p { inner q { cols (spirv) x -> u } ;
//                          sum (cpu) u -> w }
//
// `middle` reads its row of a backwards and `use` its block of u backwards,
// so element i needs what another instance of the sibling wrote on the
// other device; `gather` sums over the q instances of `mid`, whose leaves
// ran on two devices, and `sum` over the instances of a grid-shaped node.
// Values depend on every index, the round and the seed; outputs are reset
// to a sentinel before each launch. Integer values, floats below 2^24
// (exact), compared with ==.
//
//   mixed-nests R n P Q [seed]
#include "mixed.h"

enum { Rounds = 3 };

static void chain(long R, long n, long seed, float *a, float *b, float *c) {
#pragma hpvm parallel for name(chain) out(a[0:R * n], b[0:R * n], c[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(produce) target(cpu) out(a[0:R * n])
    for (long i = 0; i < n; ++i)
      a[r * n + i] = (float)((seed + r * 31 + i * 17) % 1021);
#pragma hpvm parallel for name(middle) target(spirv) in(a[0:R * n])            \
    out(b[0:R * n])
    for (long i = 0; i < n; ++i)
      b[r * n + i] = a[r * n + (n - 1 - i)] * 2.0f - (float)(r % 64);
#pragma hpvm parallel for name(combine) target(cpu) in(a[0:R * n], b[0:R * n]) \
    out(c[0:R * n])
    for (long i = 0; i < n; ++i)
      c[r * n + i] = a[r * n + i] + b[r * n + i] - (float)(i % 29);
  }
}

static void chain_free(long R, long n, long seed, float *a, float *b,
                       float *c) {
#pragma hpvm parallel for name(chain_free)                                     \
    out(a[0:R * n], b[0:R * n], c[0:R * n])
  for (long r = 0; r < R; ++r) {
#pragma hpvm parallel for name(produce) out(a[0:R * n])
    for (long i = 0; i < n; ++i)
      a[r * n + i] = (float)((seed * 3 + r * 7 + i * 13) % 1009);
#pragma hpvm parallel for name(middle) in(a[0:R * n]) out(b[0:R * n])
    for (long i = 0; i < n; ++i)
      b[r * n + i] = a[r * n + (n - 1 - i)] * 3.0f + (float)(r % 32);
#pragma hpvm parallel for name(combine) target(spirv)                          \
    in(a[0:R * n], b[0:R * n]) out(c[0:R * n])
    for (long i = 0; i < n; ++i)
      c[r * n + i] = b[r * n + i] - a[r * n + (n - 1 - i)] + (float)(i % 31);
  }
}

static void deep(long P, long Q, long n, long seed, float *u, float *v,
                 float *w, float *t) {
#pragma hpvm parallel for name(deep)                                           \
    out(u[0:P * Q * n], v[0:P * Q * n], w[0:P * n], t[0:P * n])
  for (long p = 0; p < P; ++p) {
#pragma hpvm parallel for name(mid) out(u[0:P * Q * n], v[0:P * Q * n])
    for (long q = 0; q < Q; ++q) {
#pragma hpvm parallel for name(make) target(spirv) out(u[0:P * Q * n])
      for (long i = 0; i < n; ++i)
        u[(p * Q + q) * n + i] =
            (float)((seed + p * 101 + q * 53 + i * 7) % 997) - 400.0f;
#pragma hpvm parallel for name(use) target(cpu) in(u[0:P * Q * n])             \
    out(v[0:P * Q * n])
      for (long i = 0; i < n; ++i)
        v[(p * Q + q) * n + i] = u[(p * Q + q) * n + (n - 1 - i)] +
                                 (float)(p % 50) - (float)(q % 40) * 2.0f;
    }
#pragma hpvm parallel for name(gather) in(v[0:P * Q * n]) out(w[0:P * n])
    for (long i = 0; i < n; ++i) {
      float acc = 0.0f;
      for (long q = 0; q < Q; ++q)
        acc += v[(p * Q + q) * n + i];
      w[p * n + i] = acc;
    }
#pragma hpvm parallel for name(after) target(cpu) in(w[0:P * n])               \
    out(t[0:P * n])
    for (long i = 0; i < n; ++i)
      t[p * n + i] = w[p * n + (n - 1 - i)] - (float)(i % 5);
  }
}

static void deep_grid(long P, long Q, long n, const float *x, float *u,
                      float *w) {
#pragma hpvm parallel for name(deep_grid) in(x[0:P * Q * n])                   \
    out(u[0:P * Q * n], w[0:P * n])
  for (long p = 0; p < P; ++p) {
#pragma hpvm parallel for name(inner) in(x[0:P * Q * n]) out(u[0:P * Q * n])
    for (long q = 0; q < Q; ++q) {
#pragma hpvm parallel for name(cols) target(spirv) in(x[0:P * Q * n])          \
    out(u[0:P * Q * n])
      for (long i = 0; i < n; ++i)
        u[(p * Q + q) * n + i] =
            x[(p * Q + q) * n + i] * 2.0f + (float)(q % 16) - (float)(p % 8);
    }
#pragma hpvm parallel for name(sum) target(cpu) in(u[0:P * Q * n])             \
    out(w[0:P * n])
    for (long i = 0; i < n; ++i) {
      float acc = 0.0f;
      for (long q = 0; q < Q; ++q)
        acc += u[(p * Q + q) * n + (n - 1 - i)];
      w[p * n + i] = acc;
    }
  }
}

int main(int argc, char **argv) {
  long R = e2e_count(argc, argv, 1, 9);
  long n = e2e_count(argc, argv, 2, 777);
  long P = e2e_count(argc, argv, 3, 3);
  long Q = e2e_count(argc, argv, 4, 5);
  long seed = e2e_count(argc, argv, 5, 1) % 65521;
  // Sums over Q of values below 1000 in magnitude stay exact.
  if (Q > 4096) {
    fprintf(stderr, "Q must be at most 4096\n");
    return 2;
  }
  size_t rbytes = (size_t)(R * n) * sizeof(float);
  size_t dbytes = (size_t)(P * Q * n) * sizeof(float);
  size_t pbytes = (size_t)(P * n) * sizeof(float);
  float *a = e2e_alloc(rbytes), *b = e2e_alloc(rbytes), *c = e2e_alloc(rbytes);
  float *x = e2e_alloc(dbytes), *u = e2e_alloc(dbytes), *v = e2e_alloc(dbytes);
  float *w = e2e_alloc(pbytes), *t = e2e_alloc(pbytes);
  float *ra = malloc(rbytes + 1), *rb = malloc(rbytes + 1),
        *rc = malloc(rbytes + 1), *ru = malloc(dbytes + 1),
        *rv = malloc(dbytes + 1), *rw = malloc(pbytes + 1),
        *rt = malloc(pbytes + 1);
  if (!ra || !rb || !rc || !ru || !rv || !rw || !rt)
    return 2;

  for (int round = 0; round < Rounds; ++round) {
    long s = seed + round * 1000;

    // chain
    mixed_reset(R * n, a);
    mixed_reset(R * n, b);
    mixed_reset(R * n, c);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        ra[r * n + i] = (float)((s + r * 31 + i * 17) % 1021);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i) {
        rb[r * n + i] = ra[r * n + (n - 1 - i)] * 2.0f - (float)(r % 64);
        rc[r * n + i] = ra[r * n + i] + rb[r * n + i] - (float)(i % 29);
      }
    chain(R, n, s, a, b, c);
    mixed_check("chain", "a", round, R, n, a, ra);
    mixed_check("chain", "b", round, R, n, b, rb);
    mixed_check("chain", "c", round, R, n, c, rc);

    // chain_free
    mixed_reset(R * n, a);
    mixed_reset(R * n, b);
    mixed_reset(R * n, c);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i)
        ra[r * n + i] = (float)((s * 3 + r * 7 + i * 13) % 1009);
    for (long r = 0; r < R; ++r)
      for (long i = 0; i < n; ++i) {
        rb[r * n + i] = ra[r * n + (n - 1 - i)] * 3.0f + (float)(r % 32);
        rc[r * n + i] =
            rb[r * n + i] - ra[r * n + (n - 1 - i)] + (float)(i % 31);
      }
    chain_free(R, n, s, a, b, c);
    mixed_check("chain_free", "a", round, R, n, a, ra);
    mixed_check("chain_free", "b", round, R, n, b, rb);
    mixed_check("chain_free", "c", round, R, n, c, rc);

    // deep
    mixed_reset(P * Q * n, u);
    mixed_reset(P * Q * n, v);
    mixed_reset(P * n, w);
    mixed_reset(P * n, t);
    for (long p = 0; p < P; ++p)
      for (long q = 0; q < Q; ++q)
        for (long i = 0; i < n; ++i)
          ru[(p * Q + q) * n + i] =
              (float)((s + p * 101 + q * 53 + i * 7) % 997) - 400.0f;
    for (long p = 0; p < P; ++p)
      for (long q = 0; q < Q; ++q)
        for (long i = 0; i < n; ++i)
          rv[(p * Q + q) * n + i] = ru[(p * Q + q) * n + (n - 1 - i)] +
                                    (float)(p % 50) - (float)(q % 40) * 2.0f;
    for (long p = 0; p < P; ++p)
      for (long i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (long q = 0; q < Q; ++q)
          acc += rv[(p * Q + q) * n + i];
        rw[p * n + i] = acc;
      }
    for (long p = 0; p < P; ++p)
      for (long i = 0; i < n; ++i)
        rt[p * n + i] = rw[p * n + (n - 1 - i)] - (float)(i % 5);
    deep(P, Q, n, s, u, v, w, t);
    mixed_check("deep", "u", round, P * Q, n, u, ru);
    mixed_check("deep", "v", round, P * Q, n, v, rv);
    mixed_check("deep", "w", round, P, n, w, rw);
    mixed_check("deep", "t", round, P, n, t, rt);

    // deep_grid
    for (long k = 0; k < P * Q * n; ++k)
      x[k] = (float)((s * 5 + k * 3) % 601) - 300.0f;
    mixed_reset(P * Q * n, u);
    mixed_reset(P * n, w);
    for (long p = 0; p < P; ++p)
      for (long q = 0; q < Q; ++q)
        for (long i = 0; i < n; ++i)
          ru[(p * Q + q) * n + i] =
              x[(p * Q + q) * n + i] * 2.0f + (float)(q % 16) - (float)(p % 8);
    for (long p = 0; p < P; ++p)
      for (long i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (long q = 0; q < Q; ++q)
          acc += ru[(p * Q + q) * n + (n - 1 - i)];
        rw[p * n + i] = acc;
      }
    deep_grid(P, Q, n, x, u, w);
    mixed_check("deep_grid", "u", round, P * Q, n, u, ru);
    mixed_check("deep_grid", "w", round, P, n, w, rw);
  }
  printf("mixed-nests R=%ld n=%ld P=%ld Q=%ld seed=%ld: %d rounds\n", R, n, P,
         Q, seed, Rounds);
  e2e_free(a, rbytes, "a");
  e2e_free(b, rbytes, "b");
  e2e_free(c, rbytes, "c");
  e2e_free(x, dbytes, "x");
  e2e_free(u, dbytes, "u");
  e2e_free(v, dbytes, "v");
  e2e_free(w, pbytes, "w");
  e2e_free(t, pbytes, "t");
  free(ra);
  free(rb);
  free(rc);
  free(ru);
  free(rv);
  free(rw);
  free(rt);
  return e2e_finish("mixed-nests");
}
