// A leaf with more parameters than Vulkan's 128 bytes of push constants
// hold (16 slots of 8 bytes): its kernel reads them from a parameter block
// in device memory (docs/backends.md, "Kernel ABI"). Every value takes part
// in the result, each with its own weight, so a slot read from the wrong
// place shows; the values are small integers, exact in float.
//
//   wide-params <n>
#include "e2e.h"

static void wide(long n, float *out, const float *in, float c0, float c1,
                 float c2, float c3, float c4, float c5, float c6, float c7,
                 float c8, float c9, int k0, int k1, int k2, int k3, int k4,
                 int k5, long l0, long l1) {
#pragma hpvm parallel for name(wide) in(in [0:n])out(out [0:n])
  for (long i = 0; i < n; ++i)
    out[i] = in[i] + c0 + 2 * c1 + 3 * c2 + 4 * c3 + 5 * c4 + 6 * c5 + 7 * c6 +
             8 * c7 + 9 * c8 + 10 * c9 + 11 * k0 + 12 * k1 + 13 * k2 + 14 * k3 +
             15 * k4 + 16 * k5 + 17 * l0 + 18 * l1 + (float)(i % 7);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  size_t bytes = (n ? n : 1) * sizeof(float);
  float *in = e2e_alloc(bytes), *out = e2e_alloc(bytes);
  for (long i = 0; i < n; ++i) {
    in[i] = (float)(i % 101);
    out[i] = -1;
  }
  // Distinct values from the command line, so none is a constant.
  float c = (float)argc;
  wide(n, out, in, c, c + 1, c + 2, c + 3, c + 4, c + 5, c + 6, c + 7, c + 8,
       c + 9, argc + 10, argc + 11, argc + 12, argc + 13, argc + 14, argc + 15,
       argc + 16L, argc + 17L);
  float weights = 0;
  for (int k = 1; k <= 18; ++k)
    weights += k * (c + k - 1);
  for (long i = 0; i < n; ++i) {
    float want = in[i] + weights + (float)(i % 7);
    E2E_CHECK(out[i] == want, "out[%ld] = %g, want %g", i, out[i], want);
  }
  e2e_free(in, bytes, "in");
  e2e_free(out, bytes, "out");
  return e2e_finish("wide_params");
}
