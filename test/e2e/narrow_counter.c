// A kernel reduced from seed 58 of the random differential test
// (test/random), kept as the simplification pipeline leaves it: the inner
// loop's trip count `id & 7` makes it give the instance loop a second
// counter by one, an i3 that counts instances modulo 8. The CPU backend
// took that counter for the instance id, so that from the fifth instance of
// a chunk on the ids were negative: out-of-bounds loads, crashes, hangs.
// Checked against the same code run sequentially on the host.
//
//   narrow-counter [rows]
#include "e2e.h"

#include <stdint.h>

static const int32_t table[8] = {-425602122,  1546248219, 1,  2147483646,
                                 -1148756941, 1,          -7, 683588324};

static inline uint16_t div_u16(uint16_t a, uint16_t b) {
  return b == 0 ? a : (uint16_t)(a / b);
}
static inline uint16_t f2i_u16(double x) {
  return x > (-1.0) && x < 65536.0 ? (uint16_t)x : 0;
}
static inline uint32_t rotl32(uint32_t x, uint32_t s) {
  return (x << (s & 31u)) | (x >> ((0u - s) & 31u));
}
static inline int32_t max_i32(int32_t a, int32_t b) { return a > b ? a : b; }
static int64_t first_byte(int32_t p0, int8_t p1, int8_t p2) {
  (void)p0;
  (void)p2;
  return (int64_t)p1;
}
static double constant(uint32_t p0, int16_t p1, uint8_t p2) {
  (void)p0;
  (void)p1;
  (void)p2;
  return 7.375;
}

// clang-format off
#define BODY(in, out, gid)                                                     \
  do {                                                                         \
    int16_t v1 = (int16_t)((uint32_t)(int16_t)in[((uint32_t)((uint32_t)((uint32_t)(uint32_t)20u * (uint32_t)(uint32_t)1280315086u)) & 1023u)] << ((uint32_t)((uint8_t)((uint8_t)((uint32_t)(uint8_t)in[((uint32_t)((uint8_t)((uint32_t)(uint8_t)gid + (uint32_t)(uint8_t)0u)) & 1023u)] - (uint32_t)(uint8_t)in[((uint32_t)((int64_t)__builtin_clzll((uint64_t)((int64_t)gid) | 1u)) & 1023u)]) & (uint8_t)((uint8_t)2u & (uint8_t)254u))) & 15u)); \
    int16_t v2 = (int16_t)((int16_t)((int16_t)gid & (int16_t)(v1 & v1)) ^ (int16_t)v1); \
    if (div_u16((uint16_t)65534u, (uint16_t)in[((uint32_t)((((int64_t)v1 > (int64_t)v1) ? (uint8_t)in[((uint32_t)(f2i_u16(constant((uint32_t)in[(uint32_t)gid], v2, (uint8_t)1u))) & 1023u)] : (uint8_t)in[((uint32_t)((uint32_t)((uint32_t)(uint32_t)1u + (uint32_t)(uint32_t)10u)) & 1023u)])) & 1023u)]) == (uint16_t)in[((uint32_t)((uint32_t)((uint32_t)(uint32_t)v1 << ((uint32_t)((uint8_t)v1) & 31u))) & 1023u)]) \
      for (int32_t c9 = 0; c9 < (int32_t)((uint32_t)(gid) & 7u); c9++) {    \
        double v10 = copysign(((-6.4375) - (-5.6875)), (double)(uint16_t)(0u - (uint32_t)(uint16_t)rotl32((uint32_t)(uint16_t)in[((uint32_t)((uint32_t)c9) & 1023u)], (uint32_t)in[((uint32_t)((uint16_t)table[((uint32_t)((uint32_t)in[(uint32_t)gid]) & 7u)]) & 1023u)]))); \
        (void)v10;                                                             \
        v1 = (int16_t)rotl32((uint32_t)(int16_t)((uint32_t)v1 - (uint32_t)(int16_t)c9), (uint32_t)(int16_t)((int16_t)c9 >> ((uint32_t)((uint16_t)in[((uint32_t)(max_i32((int32_t)in[((uint32_t)((uint32_t)((uint32_t)v1 ^ (uint32_t)0u)) & 1023u)], c9)) & 1023u)]) & 15u))); \
      }                                                                        \
    out[gid * 2 + 0] = (((v1 > (int16_t)in[((uint32_t)((uint16_t)first_byte((int32_t)in[((uint32_t)((uint16_t)in[((uint32_t)((((int16_t)gid != (int16_t)in[(uint32_t)gid]) ? gid : gid)) & 1023u)]) & 1023u)], (int8_t)(-123), (int8_t)in[((uint32_t)((uint16_t)((uint32_t)(uint16_t)20310u - (uint32_t)(uint16_t)v1)) & 1023u)])) & 1023u)]) ? 3.0 : 0.5) * 2.0); \
  } while (0)
// clang-format on

static void narrow_counter(const int64_t *in, double *out, long n0, long n1) {
#pragma hpvm parallel for name(narrow_counter)
  for (long b = 0; b < n0; b++) {
#pragma hpvm parallel for name(leaf) in(in [0:1024])out(out [0:2 * n0 * n1])
    for (long j = 0; j < n1; j++) {
      const long gid = b * n1 + j;
      BODY(in, out, gid);
    }
  }
}

int main(int argc, char **argv) {
  long n0 = e2e_count(argc, argv, 1, 2), n1 = 114;
  int64_t *in = e2e_alloc(1024 * sizeof(int64_t));
  uint64_t state = 58;
  for (int k = 0; k < 1024; k++) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    // Many 65534s and a divisor of 1 make the inner loop run often.
    in[k] = k % 3 == 0 ? 65534 : (int64_t)(state >> 11);
  }
  in[11] = 1;
  size_t bytes = 2 * n0 * n1 * sizeof(double);
  double *out = e2e_alloc(bytes), *want = e2e_alloc(bytes);
  memset(out, 0, bytes);
  memset(want, 0, bytes);
  narrow_counter(in, out, n0, n1);
  for (long gid = 0; gid < n0 * n1; gid++)
    BODY(in, want, gid);
  for (long k = 0; k < 2 * n0 * n1; k++)
    E2E_CHECK(out[k] == want[k], "element %ld: %g, expected %g", k, out[k],
              want[k]);
  e2e_free(in, 1024 * sizeof(int64_t), "in");
  e2e_free(out, bytes, "out");
  e2e_free(want, bytes, "want");
  return e2e_finish("narrow-counter");
}
