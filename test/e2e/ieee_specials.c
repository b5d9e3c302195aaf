// Float arithmetic on infinities, NaNs and signed zeros, bit for bit against
// the same C on the host: operations with a constant zero (which a Vulkan
// driver may fold: x * 0.0 -> 0.0, x + 0.0 -> x, ...) and fmod on every
// pair of special values and small quotients. NaNs compare equal whatever their
// sign and payload; subnormals are left out (Vulkan devices may flush them).
//
//   ieee-specials
#include "e2e.h"

#include <math.h>
#include <stdint.h>

enum { INPUTS = 10, FORMS = 20 };

// Every form with a constant zero, for one type T (float or double) and the
// math functions of that type (F(fmod) is fmodf or fmod).
#define ZERO_FORMS(T, F, x, r)                                                 \
  do {                                                                         \
    r[0] = x * (T)0.0;                                                         \
    r[1] = (T)0.0 * x;                                                         \
    r[2] = x * (T)-0.0;                                                        \
    r[3] = x + (T)0.0;                                                         \
    r[4] = (T)0.0 + x;                                                         \
    r[5] = x + (T)-0.0;                                                        \
    r[6] = x - (T)0.0;                                                         \
    r[7] = x - (T)-0.0;                                                        \
    r[8] = (T)0.0 - x;                                                         \
    r[9] = (T)-0.0 - x;                                                        \
    r[10] = x / (T)0.0;                                                        \
    r[11] = x / (T)-0.0;                                                       \
    r[12] = (T)0.0 / x;                                                        \
    r[13] = (T)-0.0 / x;                                                       \
    r[14] = F(fmod)(x, (T)0.0);                                                \
    r[15] = F(fmod)((T)0.0, x);                                                \
    r[16] = F(fmod)((T)-0.0, x);                                               \
    r[17] = F(fma)(x, (T)0.0, (T)1.0);                                         \
    r[18] = F(fma)((T)-0.0, x, (T)0.0);                                        \
    r[19] = x * (T)0.0 + (T)2.0;                                               \
  } while (0)

#define FLOAT_FN(name) name##f
#define DOUBLE_FN(name) name

static void float_forms(const float *in, float *out, long n) {
#pragma hpvm parallel for name(float_forms) in(in [0:n])out(out [0:n * FORMS])
  for (long i = 0; i < n; i++) {
    float x = in[i], *r = out + i * FORMS;
    ZERO_FORMS(float, FLOAT_FN, x, r);
  }
}

static void double_forms(const double *in, double *out, long n) {
#pragma hpvm parallel for name(double_forms) in(in [0:n])out(out [0:n * FORMS])
  for (long i = 0; i < n; i++) {
    double x = in[i], *r = out + i * FORMS;
    ZERO_FORMS(double, DOUBLE_FN, x, r);
  }
}

static void remainders(const float *fin, const double *din, float *fout,
                       double *dout, long n) {
#pragma hpvm parallel for name(remainders)                                     \
    in(fin [0:n], din [0:n])out(fout [0:n * n], dout [0:n * n])
  for (long i = 0; i < n * n; i++) {
    fout[i] = fmodf(fin[i / n], fin[i % n]);
    dout[i] = fmod(din[i / n], din[i % n]);
  }
}

static int same_float(float a, float b) {
  uint32_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  return (isnan(a) && isnan(b)) || x == y;
}

static int same_double(double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  return (isnan(a) && isnan(b)) || x == y;
}

int main(void) {
  const double values[INPUTS] = {INFINITY, -INFINITY, NAN,  -NAN, 0.0,
                                 -0.0,     1.5,       -2.0, 3e38, -7.25};
  float *fin = e2e_alloc(INPUTS * sizeof(float));
  double *din = e2e_alloc(INPUTS * sizeof(double));
  for (int i = 0; i < INPUTS; i++) {
    fin[i] = (float)values[i];
    din[i] = values[i];
  }
  size_t fbytes = INPUTS * FORMS * sizeof(float);
  size_t dbytes = INPUTS * FORMS * sizeof(double);
  float *fout = e2e_alloc(fbytes);
  double *dout = e2e_alloc(dbytes);
  float *frem = e2e_alloc(INPUTS * INPUTS * sizeof(float));
  double *drem = e2e_alloc(INPUTS * INPUTS * sizeof(double));
  float_forms(fin, fout, INPUTS);
  double_forms(din, dout, INPUTS);
  remainders(fin, din, frem, drem, INPUTS);

  for (int i = 0; i < INPUTS; i++) {
    float fr[FORMS];
    double dr[FORMS];
    float fx = fin[i];
    double dx = din[i];
    ZERO_FORMS(float, FLOAT_FN, fx, fr);
    ZERO_FORMS(double, DOUBLE_FN, dx, dr);
    for (int k = 0; k < FORMS; k++) {
      E2E_CHECK(same_float(fout[i * FORMS + k], fr[k]),
                "float form %d of %g: %a, expected %a", k, fx,
                fout[i * FORMS + k], fr[k]);
      E2E_CHECK(same_double(dout[i * FORMS + k], dr[k]),
                "double form %d of %g: %a, expected %a", k, dx,
                dout[i * FORMS + k], dr[k]);
    }
    for (int j = 0; j < INPUTS; j++) {
      // Vulkan's OpFRem is only as exact as x - y * trunc(x / y), which
      // differs from C's exact fmod where the quotient has more digits
      // than the type (docs/backends.md).
      if (isfinite(din[i]) && isfinite(din[j]) && din[j] != 0 &&
          fabs(din[i] / din[j]) > 0x1p24)
        continue;
      float fe = fmodf(fin[i], fin[j]);
      double de = fmod(din[i], din[j]);
      E2E_CHECK(same_float(frem[i * INPUTS + j], fe),
                "fmodf(%g, %g): %a, expected %a", fin[i], fin[j],
                frem[i * INPUTS + j], fe);
      E2E_CHECK(same_double(drem[i * INPUTS + j], de),
                "fmod(%g, %g): %a, expected %a", din[i], din[j],
                drem[i * INPUTS + j], de);
    }
  }
  e2e_free(fin, INPUTS * sizeof(float), "fin");
  e2e_free(din, INPUTS * sizeof(double), "din");
  e2e_free(fout, fbytes, "fout");
  e2e_free(dout, dbytes, "dout");
  e2e_free(frem, INPUTS * INPUTS * sizeof(float), "frem");
  e2e_free(drem, INPUTS * INPUTS * sizeof(double), "drem");
  return e2e_finish("ieee-specials");
}
