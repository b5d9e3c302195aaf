// Loops that call what only the host has, in one graph: `parse` calls
// strchr and atof (the C library) and reads through what strchr returns,
// `factorials` a recursive and a variadic helper; GPU targets leave both
// out (with a remark) and the CPU runs them. `weigh`, whose helper reads a
// static table (a buffer of the node) and may report to stderr, runs on
// the CPU too. Checked against the same loops run sequentially.
//
//   host-calls n
#include "e2e.h"

#include <stdarg.h>

static long fact(int k) { return k <= 1 ? 1 : k * fact(k - 1); }

// A variadic helper: a call the CPU runs (never inlined).
static long sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, long);
  va_end(ap);
  return s;
}

static double weights[4] = {0.5, 1, 2, 4};
static double weight(int i) {
  if (i < 0) // never: a report to stderr, as ported code has them
    fprintf(stderr, "weight(%d): negative index\n", i);
  return weights[i & 3];
}

static void pipeline(int n, const char *text, double *v, long *f, double *w) {
#pragma hpvm task name(pipeline)
  {
#pragma hpvm parallel for name(parse) in(text [0:16 * n]) out(v [0:n])
    for (int i = 0; i < n; i++)
      v[i] = atof(strchr(text + 16 * i, '=') + 1);
#pragma hpvm parallel for name(factorials) out(f [0:n])
    for (int i = 0; i < n; i++)
      f[i] = fact(i % 20) + sum(2, (long)i, -(long)i);
#pragma hpvm parallel for name(weigh) in(v [0:n], f [0:n]) out(w [0:n])
    for (int i = 0; i < n; i++)
      w[i] = v[i] * weight(i) + (double)(f[i] % 1000);
  }
}

int main(int argc, char **argv) {
  int n = (int)e2e_count(argc, argv, 1, 1000);
  char *text = e2e_alloc((size_t)16 * n);
  double *v = e2e_alloc(n * sizeof(double)), *w = e2e_alloc(n * sizeof(double));
  long *f = e2e_alloc(n * sizeof(long));
  for (int i = 0; i < n; i++)
    snprintf(text + 16 * i, 16, "v=%d.25", i - 7);
  weights[2] = 3; // the graph reads the table as it is now
  pipeline(n, text, v, f, w);
  for (int i = 0; i < n; i++) {
    double want_v = atof(text + 16 * i + 2);
    long want_f = fact(i % 20);
    double want_w = want_v * weights[i & 3] + (double)(want_f % 1000);
    E2E_CHECK(v[i] == want_v && f[i] == want_f && w[i] == want_w,
              "i = %d: v = %g f = %ld w = %g, want %g %ld %g", i, v[i], f[i],
              w[i], want_v, want_f, want_w);
  }
  e2e_free(text, (size_t)16 * n, "text");
  e2e_free(v, n * sizeof(double), "v");
  e2e_free(w, n * sizeof(double), "w");
  e2e_free(f, n * sizeof(long), "f");
  return e2e_finish("host-calls");
}
