// Two independent leaves of one task on one device: the thread that
// launches the slow one goes on to launch the fast one while the slow
// kernel runs (Device::whenDone), so both are in flight at once and the
// trace shows the device's launches in flight on two lanes (RunE2E.cmake's
// IN_FLIGHT check). Both write their buffers whole, so no upload stands
// between the two launches. Checked against a scalar reference. On a GPU
// with several streams the kernels also overlap on the device's clock
// (IN_FLIGHT=device).
//
//   in-flight n rounds
#include "e2e.h"

static void pair(long n, int rounds, float *slow, float *fast) {
#pragma hpvm task name(pair)
  {
#pragma hpvm parallel for name(slow) out(slow [0:n])
    for (long i = 0; i < n; ++i) {
      float v = (float)(i % 17);
      for (int k = 0; k < rounds; ++k)
        v = v * 0.5f + 1.0f;
      slow[i] = v;
    }
#pragma hpvm parallel for name(fast) out(fast [0:n])
    for (long i = 0; i < n; ++i)
      fast[i] = (float)(i % 29) * 2.0f;
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 16384;
  int rounds = argc > 2 ? atoi(argv[2]) : 20000;
  float *slow = e2e_alloc(n * sizeof(float));
  float *fast = e2e_alloc(n * sizeof(float));
  // The reference: slow[i] depends on i % 17 alone.
  float want[17];
  for (int r = 0; r < 17; ++r) {
    float v = (float)r;
    for (int k = 0; k < rounds; ++k)
      v = v * 0.5f + 1.0f;
    want[r] = v;
  }
  for (int launch = 0; launch < 3; ++launch) {
    pair(n, rounds, slow, fast);
    for (long i = 0; i < n; ++i) {
      E2E_CHECK(slow[i] == want[i % 17], "slow[%ld] = %g, want %g", i, slow[i],
                want[i % 17]);
      E2E_CHECK(fast[i] == (float)(i % 29) * 2.0f, "fast[%ld] = %g", i,
                fast[i]);
    }
  }
  e2e_free(slow, n * sizeof(float), "slow");
  e2e_free(fast, n * sizeof(float), "fast");
  return e2e_finish("in-flight");
}
