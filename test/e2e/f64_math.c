// Double-precision exp, exp2, exp10, log, log2, log10, sin, cos, tan and
// pow in a node, against the host's libm: specials (NaN, infinities, signed
// zeros, subnormals, overflow and underflow edges, pow's C99 cases) must
// match exactly, everything else to within the given ulps. (Not the
// doubles nearest a multiple of pi/2, where glibc 2.36's cos and tan are
// several ulps off: test/unit/backends/f64_math_accuracy.c checks those
// against correctly rounded values.) On Vulkan the
// kernel runs HPVM's own implementations (backends/spirv/math/f64.c, within
// 2 ulp), on OpenCL the device's OpenCL.std, on the CPU libm itself.
//
//   f64-math max_ulps [points]
#define _GNU_SOURCE // exp10
#include "e2e.h"

#include <float.h>
#include <stdint.h>

enum { Funcs = 10 };
static const char *const Names[Funcs] = {
    "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "pow"};

static void compute(long n, const double *x, const double *y, double *out) {
#pragma hpvm parallel for name(math) in(x [0:n], y [0:n]) out(out [0:n * 10])
  for (long i = 0; i < n; i++) {
    double a = x[i], b = y[i];
    out[i * 10 + 0] = exp(a);
    out[i * 10 + 1] = exp2(a);
    out[i * 10 + 2] = exp10(a);
    out[i * 10 + 3] = log(a);
    out[i * 10 + 4] = log2(a);
    out[i * 10 + 5] = log10(a);
    out[i * 10 + 6] = sin(a);
    out[i * 10 + 7] = cos(a);
    out[i * 10 + 8] = tan(a);
    out[i * 10 + 9] = pow(a, b);
  }
}

static double want(int f, double a, double b) {
  switch (f) {
  case 0:
    return exp(a);
  case 1:
    return exp2(a);
  case 2:
    return exp10(a);
  case 3:
    return log(a);
  case 4:
    return log2(a);
  case 5:
    return log10(a);
  case 6:
    return sin(a);
  case 7:
    return cos(a);
  case 8:
    return tan(a);
  default:
    return pow(a, b);
  }
}

/// Doubles between a and b, by their ordered bit patterns.
static uint64_t ulpsBetween(double a, double b) {
  int64_t A, B;
  memcpy(&A, &a, 8);
  memcpy(&B, &b, 8);
  if (A < 0)
    A = INT64_MIN - A;
  if (B < 0)
    B = INT64_MIN - B;
  return A > B ? (uint64_t)A - (uint64_t)B : (uint64_t)B - (uint64_t)A;
}

int main(int argc, char **argv) {
  long max_ulps = e2e_count(argc, argv, 1, 2);
  long sweep = e2e_count(argc, argv, 2, 20000);
  static const double specials[] = {0.0,
                                    -0.0,
                                    1.0,
                                    -1.0,
                                    0.5,
                                    -0.5,
                                    2.0,
                                    -2.0,
                                    3.0,
                                    -3.0,
                                    0.1,
                                    10.0,
                                    INFINITY,
                                    -INFINITY,
                                    NAN,
                                    DBL_MIN,
                                    -DBL_MIN,
                                    DBL_MAX,
                                    -DBL_MAX,
                                    4.9406564584124654e-324,
                                    -4.9406564584124654e-324,
                                    2.2250738585072009e-308,
                                    709.782712893384,
                                    709.79,
                                    -708.4,
                                    -745.13,
                                    -745.14,
                                    1023.99,
                                    1024.0,
                                    -1074.0,
                                    -1075.0,
                                    308.25,
                                    308.26,
                                    -323.3,
                                    -324.0,
                                    1.0000000000000002,
                                    0.99999999999999989,
                                    1e-300,
                                    1e300,
                                    1.5707963267948966,
                                    3.141592653589793,
                                    1e6,
                                    1e22,
                                    1e300,
                                    0x1p1023,
                                    5.0e-324,
                                    2.5,
                                    -2.5,
                                    0.25,
                                    1e-8};
  long ns = sizeof specials / sizeof specials[0];
  long n = ns * ns + sweep;
  double *x = e2e_alloc(n * sizeof(double)), *y = e2e_alloc(n * sizeof(double));
  double *out = e2e_alloc(n * 10 * sizeof(double));
  long k = 0;
  for (long i = 0; i < ns; i++)
    for (long j = 0; j < ns; j++, k++) {
      x[k] = specials[i];
      y[k] = specials[j];
    }
  uint64_t s = 88172645463325252ull;
  for (long i = 0; i < sweep; i++, k++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    double u = (double)(s >> 11) * 0x1p-53;
    switch (i % 4) {
    case 0: // exp's and pow's range
      x[k] = (u - 0.5) * 1400.0;
      y[k] = (double)(int)((u - 0.5) * 40);
      break;
    case 1: // moderate arguments
      x[k] = (u - 0.5) * 20.0;
      y[k] = u * 3.0 - 1.0;
      break;
    case 2: // huge arguments for sin, cos and tan; tiny results of pow
      x[k] = ldexp(u + 0.5, (int)(s % 1000));
      y[k] = -u * 30.0;
      break;
    default: { // any bit pattern
      double r;
      memcpy(&r, &s, 8);
      x[k] = r;
      y[k] = u * 4.0 - 2.0;
    }
    }
  }
  compute(n, x, y, out);
  long worst[Funcs] = {0};
  for (long i = 0; i < n; i++)
    for (int f = 0; f < Funcs; f++) {
      double got = out[i * 10 + f], w = want(f, x[i], y[i]);
      if (isnan(w) || isnan(got) || isinf(w) || w == 0 || got == 0) {
        E2E_CHECK((isnan(w) && isnan(got)) ||
                      (got == w && signbit(got) == signbit(w)),
                  "%s(%a, %a) = %a, want %a", Names[f], x[i], y[i], got, w);
        continue;
      }
      uint64_t d = ulpsBetween(got, w);
      if ((long)d > worst[f])
        worst[f] = (long)d;
      E2E_CHECK((long)d <= max_ulps, "%s(%a, %a) = %a, want %a (%llu ulp)",
                Names[f], x[i], y[i], got, w, (unsigned long long)d);
    }
  for (int f = 0; f < Funcs; f++)
    printf("%s: at most %ld ulp from libm\n", Names[f], worst[f]);
  e2e_free(x, n * sizeof(double), "x");
  e2e_free(y, n * sizeof(double), "y");
  e2e_free(out, n * 10 * sizeof(double), "out");
  return e2e_finish("f64-math");
}
