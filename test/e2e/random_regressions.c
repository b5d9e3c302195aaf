// Kernels reduced from what the random differential test (test/random)
// found, each checked against a scalar C reference, on the CPU and on Vulkan.
// Each comment names what was wrong.
//
//   random-regressions [n]
#include "e2e.h"

#include <stdint.h>

static const int32_t fib[13] = {1,  2,  3,  5,   8,   13, 21,
                                34, 55, 89, 144, 233, 377};
static const int32_t squares[8] = {0, 1, 4, 9, 16, 25, 36, 49};

// A switch whose cases cover every value: SimplifyCFG gives it an
// `unreachable` default, which the parallel-loop check counted as a second
// exit of the loop ("a parallel loop may not break").
static void covered_switch(const uint32_t *in, uint32_t *out, long n) {
#pragma hpvm parallel for name(covered_switch) in(in [0:n])out(out [0:n])
  for (long i = 0; i < n; i++) {
    uint32_t x = in[i], r;
    switch (x & 3) {
    case 0:
      r = x * 3;
      break;
    case 1:
      r = x + 7;
      break;
    case 2:
      r = x ^ 5;
      break;
    case 3:
      r = in[(x >> 2) % (uint32_t)n];
      break;
    }
    out[i] = r;
  }
}

// One load through a pointer into a buffer or a constant table, into one of
// two tables, and two through a base that is a buffer or a table: the
// SPIR-V backend could not translate them.
static void mixed_loads(const int32_t *in, int32_t *out, long n) {
#pragma hpvm parallel for name(mixed_loads) in(in [0:n])out(out [0:3 * n])
  for (long i = 0; i < n; i++) {
    out[3 * i] = in[i] > 0 ? in[(i * 7) % n] : fib[(uint32_t)in[i] % 13u];
    out[3 * i + 1] =
        in[i] & 1 ? fib[(uint32_t)in[i] % 13u] : squares[in[i] & 7];
    const int32_t *base = in[i] > 0 ? in : squares;
    out[3 * i + 2] = base[(i + 3) & 7] + base[i & 7];
  }
}

// A store through a pointer into a buffer or a local array.
static void mixed_store(const int32_t *in, int32_t *out, long n) {
#pragma hpvm parallel for name(mixed_store) in(in [0:n])out(out [0:n])
  for (long i = 0; i < n; i++) {
    int32_t local[4] = {in[i], 1, 2, 3};
    int32_t *p = in[i] < 0 ? &out[i] : &local[in[i] & 3];
    *p = 7;
    out[i] = local[(in[i] >> 2) & 3] + (in[i] < 0 ? out[i] : 0);
  }
}

// (int)(float)x rounds x to float's 24 bits; without NoContraction on the
// conversions lavapipe folded them away and returned x.
static void through_float(const int32_t *in, int32_t *out, long n) {
#pragma hpvm parallel for name(through_float) in(in [0:n])out(out [0:n])
  for (long i = 0; i < n; i++) {
    int32_t x = (int32_t)((uint32_t)in[i] * 2654435761u) >> 1;
    out[i] = (int32_t)(float)x;
  }
}

// A u16 overflow check that LLVM turns into @llvm.umul.with.overflow.i16,
// which the SPIR-V backend did not know.
static void mul_overflows(const uint16_t *in, uint8_t *out, long n) {
#pragma hpvm parallel for name(mul_overflows) in(in [0:2 * n]) out(out [0:n])
  for (long i = 0; i < n; i++) {
    uint16_t x = in[i], y = in[n + i];
    uint16_t p = (uint16_t)(x * y);
    out[i] = y != 0 && p / y != x;
  }
}

// A loop that loads and then updates an atomic, the load's last value used
// after the loop: lavapipe miscomputed it while the whole loop body was the
// loop's continue construct.
static void loop_then_atomic(const int32_t *in, uint16_t *out, uint64_t *acc,
                             long n) {
#pragma hpvm parallel for name(loop_then_atomic) in(in [0:n])out(out [0:n])    \
    inout(acc [0:1])
  for (long i = 0; i < n; i++) {
    uint16_t v = 0;
    for (int64_t c = 0; c < (int64_t)(in[i] & 7); c++) {
      v = (uint16_t)in[(c * 5 + i) % n] | (uint16_t)c;
      __atomic_fetch_and(&acc[0], (uint64_t) ~(uint64_t)c, __ATOMIC_RELAXED);
    }
    out[i] = v;
  }
}

// A leaf with a local array inside a parallel loop of parallel loops: LICM
// hoisted `&a[1]` into the outer loop and the verifier called the array an
// unnamed pointer.
static void nested_local(const uint32_t *in, uint32_t *out, long blocks,
                         long m) {
#pragma hpvm parallel for name(nested_local)
  for (long b = 0; b < blocks; b++) {
#pragma hpvm parallel for name(leaf) in(in [0:blocks * m])                     \
    out(out [0:blocks * m])
    for (long j = 0; j < m; j++) {
      long k = b * m + j;
      uint8_t a[2] = {(uint8_t)in[k], 7};
      a[in[k] >> 8 & 1] = 3;
      out[k] = a[in[k] >> 9 & 1];
    }
  }
}

// An instance reads back what it wrote: the CPU backend's parallel-loop
// annotation let LLVM's vectoriser move the load above the store.
static void store_then_load(const uint32_t *in, uint32_t *out, long n) {
#pragma hpvm parallel for name(store_then_load) in(in [0:n])inout(out [0:2 * n])
  for (long i = 0; i < n; i++) {
    out[2 * i] = in[i] >> 3;
    out[2 * i + 1] = out[2 * i] + 1;
  }
}

// A sequentially consistent atomic in a loop (not unrolled), next to a load
// the loop repeats: lavapipe returned 0 for the load after the first
// iteration in a work-group with idle invocations while the atomic had
// acquire-release semantics (found by the work-group form of HPVM-C's
// barriers, whose phases are such loops).
static void atomic_in_loop(const uint32_t *in, uint32_t *out, uint32_t *counts,
                           long n) {
#pragma hpvm parallel for name(atomic_in_loop) in(in [0:n])out(out [0:32 * n]) \
    inout(counts [0:16])
  for (long i = 0; i < n; i++)
    for (int c = 0; c < 32; c++) {
      if (c < 16)
        __atomic_fetch_add(&counts[c], 1u, __ATOMIC_SEQ_CST);
      out[32 * i + c] = in[i];
    }
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 1000);
  if (n < 2)
    n = 2;
  uint32_t *u = e2e_alloc(n * sizeof *u), *uo = e2e_alloc(2 * n * sizeof *uo);
  int32_t *s = e2e_alloc(n * sizeof *s), *so = e2e_alloc(3 * n * sizeof *so);
  uint16_t *h = e2e_alloc(2 * n * sizeof *h), *ho = e2e_alloc(n * sizeof *ho);
  uint8_t *bo = e2e_alloc(n * sizeof *bo);
  uint64_t acc = ~(uint64_t)0;
  uint64_t state = 12345;
  for (long i = 0; i < n; i++) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    u[i] = (uint32_t)(state >> 32);
    s[i] = (int32_t)(state >> 29);
    h[i] = (uint16_t)(state >> 17);
    h[n + i] = (uint16_t)(i % 3 == 0 ? 0 : state >> 41);
  }

  covered_switch(u, uo, n);
  for (long i = 0; i < n; i++) {
    uint32_t x = u[i], r = (x & 3) == 0   ? x * 3
                           : (x & 3) == 1 ? x + 7
                           : (x & 3) == 2 ? x ^ 5
                                          : u[(x >> 2) % (uint32_t)n];
    E2E_CHECK(uo[i] == r, "covered_switch[%ld] = %u, expected %u", i, uo[i], r);
  }

  mixed_loads(s, so, n);
  for (long i = 0; i < n; i++) {
    int32_t a = s[i] > 0 ? s[(i * 7) % n] : fib[(uint32_t)s[i] % 13u];
    int32_t b = s[i] & 1 ? fib[(uint32_t)s[i] % 13u] : squares[s[i] & 7];
    const int32_t *base = s[i] > 0 ? s : squares;
    int32_t c = base[(i + 3) & 7] + base[i & 7];
    E2E_CHECK(so[3 * i] == a && so[3 * i + 1] == b && so[3 * i + 2] == c,
              "mixed_loads[%ld] = %d %d %d, expected %d %d %d", i, so[3 * i],
              so[3 * i + 1], so[3 * i + 2], a, b, c);
  }

  mixed_store(s, so, n);
  for (long i = 0; i < n; i++) {
    int32_t local[4] = {s[i], 1, 2, 3}, o = 0;
    if (s[i] < 0)
      o = 7;
    else
      local[s[i] & 3] = 7;
    int32_t r = local[(s[i] >> 2) & 3] + o;
    E2E_CHECK(so[i] == r, "mixed_store[%ld] = %d, expected %d", i, so[i], r);
  }

  through_float(s, so, n);
  for (long i = 0; i < n; i++) {
    int32_t x = (int32_t)((uint32_t)s[i] * 2654435761u) >> 1;
    volatile float f = (float)x; // rounded here, whatever the optimiser knows
    E2E_CHECK(so[i] == (int32_t)f, "through_float[%ld] = %d, expected %d", i,
              so[i], (int32_t)f);
  }

  mul_overflows(h, bo, n);
  for (long i = 0; i < n; i++) {
    uint8_t r = h[n + i] != 0 && (uint32_t)h[i] * h[n + i] > 0xffff;
    E2E_CHECK(bo[i] == r, "mul_overflows[%ld] = %u, expected %u", i, bo[i], r);
  }

  loop_then_atomic(s, ho, &acc, n);
  uint64_t acc_ref = ~(uint64_t)0;
  for (long i = 0; i < n; i++) {
    uint16_t v = 0;
    for (int64_t c = 0; c < (int64_t)(s[i] & 7); c++) {
      v = (uint16_t)s[(c * 5 + i) % n] | (uint16_t)c;
      acc_ref &= ~(uint64_t)c;
    }
    E2E_CHECK(ho[i] == v, "loop_then_atomic[%ld] = %u, expected %u", i, ho[i],
              v);
  }
  E2E_CHECK(acc == acc_ref, "loop_then_atomic: acc = %llx, expected %llx",
            (unsigned long long)acc, (unsigned long long)acc_ref);

  long blocks = 3, m = n / 3;
  nested_local(u, uo, blocks, m);
  for (long k = 0; k < blocks * m; k++) {
    uint8_t a[2] = {(uint8_t)u[k], 7};
    a[u[k] >> 8 & 1] = 3;
    E2E_CHECK(uo[k] == a[u[k] >> 9 & 1], "nested_local[%ld] = %u, expected %u",
              k, uo[k], a[u[k] >> 9 & 1]);
  }

  for (long i = 0; i < 2 * n; i++)
    uo[i] = 0xdeadbeef;
  store_then_load(u, uo, n);
  for (long i = 0; i < n; i++)
    E2E_CHECK(uo[2 * i] == u[i] >> 3 && uo[2 * i + 1] == (u[i] >> 3) + 1,
              "store_then_load[%ld] = %u %u, expected %u %u", i, uo[2 * i],
              uo[2 * i + 1], u[i] >> 3, (u[i] >> 3) + 1);

  uint32_t *wide = e2e_alloc(32 * n * sizeof *wide), counts[16] = {0};
  atomic_in_loop(u, wide, counts, n);
  for (long i = 0; i < 32 * n; i++)
    E2E_CHECK(wide[i] == u[i / 32], "atomic_in_loop[%ld] = %u, expected %u", i,
              wide[i], u[i / 32]);
  for (int c = 0; c < 16; c++)
    E2E_CHECK(counts[c] == (uint32_t)n,
              "atomic_in_loop: counts[%d] = %u, expected %ld", c, counts[c], n);
  e2e_free(wide, 32 * n * sizeof *wide, "wide");

  e2e_free(u, n * sizeof *u, "u");
  e2e_free(uo, 2 * n * sizeof *uo, "uo");
  e2e_free(s, n * sizeof *s, "s");
  e2e_free(so, 3 * n * sizeof *so, "so");
  e2e_free(h, 2 * n * sizeof *h, "h");
  e2e_free(ho, n * sizeof *ho, "ho");
  e2e_free(bo, n * sizeof *bo, "bo");
  return e2e_finish("random-regressions");
}
