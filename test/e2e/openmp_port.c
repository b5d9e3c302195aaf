// Loops written as OpenMP users write them, ported by renaming
// `#pragma omp parallel for` to `#pragma hpvm parallel for` and adding the
// data clauses, each checked against the same loop run sequentially:
//
//  * shadow: `int i;` at the top of the function, `private(i, k)`, and a
//    loop that declares its own `i` (the clause names the outer, unused
//    one), used as the index of loads and stores;
//  * c89: the loop's own variable in private(), and an inner counter;
//  * scratch: private() of a pointer and of an array, and a body that
//    declares a variable with a private's name;
//  * logical: reduction(&&) and reduction(||) on int, _Bool and double,
//    one starting at 5 (the result is 0 or 1, as in C), and an array
//    reduction with ||;
//  * scale_then_sum: a scalar read by one loop and reduced by a later one
//    (it lives in memory), and the same inside one graph, where the reader
//    must see the reduced value;
//  * tasks: `#pragma hpvm task` followed by a single loop, as a graph and
//    as children of a graph.
//
//   openmp-port n
#include "e2e.h"

static void shadow(int n, const double *a, double *b) {
  int i, k;
#pragma hpvm parallel for name(shadow) private(i, k) in(a [0:n]) out(b [0:n])
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (k = 0; k < 3; k++)
      s += a[i] * (k + 1);
    b[n - 1 - i] = s;
  }
}

static void c89(int n, int m, const float *A, float *rowsum) {
  int i, j;
  float acc;
#pragma hpvm parallel for name(c89) private(i, j, acc) in(A [0:n * m])         \
    out(rowsum [0:n])
  for (i = 0; i < n; i++) {
    acc = 0;
    for (j = 0; j < m; j++)
      acc += A[i * m + j];
    rowsum[i] = acc;
  }
}

static void scratch(int n, const float *x, float *y) {
  float *p;
  float window[4];
  float t = 100.0f;
#pragma hpvm parallel for name(scratch) private(p, window, t)                  \
    in(x [0:n])out(y [0:n])
  for (int i = 0; i < n; i++) {
    float t = x[i]; // the body's own t hides the private copy
    for (int w = 0; w < 4; w++)
      window[w] = i + w < n ? x[i + w] : 0.0f;
    p = &y[i];
    *p = t + window[0] + window[1] + window[2] + window[3];
  }
  (void)t;
}

struct flags {
  int all_positive, any_big, starts_at_five;
  _Bool all_small;
  float all_nonzero;
};

static struct flags logical(int n, const int *v, int *column_any, int m) {
  int all_positive = 1, any_big = 0, starts_at_five = 5;
  _Bool all_small = 1;
  float all_nonzero = 1.0f;
#pragma hpvm parallel for name(logical) in(v[0:n])                           \
    reduction(&&: all_positive, all_small, all_nonzero, starts_at_five)      \
    reduction(||: any_big)
  for (int i = 0; i < n; i++) {
    all_positive = all_positive && v[i] > 0;
    all_small = all_small && v[i] < 1000;
    all_nonzero = all_nonzero && v[i] != 0;
    starts_at_five = starts_at_five && v[i] > -1;
    any_big = any_big || v[i] > 990;
  }
#pragma hpvm parallel for name(columns)                                        \
    in(v [0:n])reduction(||                                                    \
                         : column_any [0:m])
  for (int i = 0; i < n; i++)
    column_any[i % m] = column_any[i % m] || v[i] % 97 == 0;
  struct flags F = {all_positive, any_big, starts_at_five, all_small,
                    all_nonzero};
  return F;
}

// float sums of multiples of 1/4: exact, in any order (and 32-bit atomics,
// which every device has).
static double scale_then_sum(int n, const double *a, double *b) {
  float scale = 1.5f, sum = 0;
#pragma hpvm parallel for name(scale) in(a [0:n]) out(b [0:n])
  for (int i = 0; i < n; i++)
    b[i] = a[i] * scale;
#pragma hpvm parallel for name(sum) in(b [0:n]) reduction(+: sum, scale)
  for (int i = 0; i < n; i++) {
    sum += b[i];
    scale += 1.0;
  }
  // In one graph: `normalise` reads the sum `total` makes.
  float total = 0;
#pragma hpvm task name(graph)
  {
#pragma hpvm parallel for name(total) in(a [0:n]) reduction(+: total)
    for (int i = 0; i < n; i++)
      total += a[i];
#pragma hpvm parallel for name(normalise) in(a [0:n]) out(b [0:n])
    for (int i = 0; i < n; i++)
      b[i] = a[i] / (total + 1.0);
  }
  return sum + scale;
}

// Scalars a graph reads by value, as the sequential program has them when
// the graph starts, though their address is taken (a reduction elsewhere):
// a `nowait` graph must not see what the host writes after it (value() or
// not), and a firstprivate() copy after a sibling that reduces into the
// variable starts at the reduced value.
static int values(int n, const float *x, float *out4, float *first) {
  float scale = 1, sum = 0, *p = &scale;
  for (int k = 0; k < 4; k++) {
#pragma hpvm parallel for name(later) nowait in(x [0:n]) out(out4 [k * n:n])
    for (int i = 0; i < n; i++)
      out4[k * n + i] = x[i] * scale;
    *p *= 2;
  }
#pragma hpvm taskwait
#pragma hpvm task name(sibling)
  {
#pragma hpvm parallel for name(reduce) in(x [0:n]) reduction(+: sum)
    for (int i = 0; i < n; i++)
      sum += x[i] > 0 ? 1.0f : 0.0f;
#pragma hpvm parallel for name(start) out(first [0:n]) firstprivate(sum)
    for (int i = 0; i < n; i++) {
      first[i] = sum;
      sum = -1; // this instance's copy only
    }
  }
  return (int)sum;
}

static void tasks(int n, const float *x, float *y, float *z, float *w) {
#pragma hpvm task name(single) in(x [0:n]) out(w [0:n])
  for (int i = 0; i < n; i++)
    w[i] = x[i] * 2.0f;
#pragma hpvm task name(pair)
  {
#pragma hpvm task name(first) in(x [0:n]) out(y [0:n])
    for (int i = 0; i < n; i++)
      y[i] = x[i] + 1.0f;
#pragma hpvm task name(second) in(y [0:n]) out(z [0:n])
    for (int i = n - 1; i >= 0; i--)
      z[i] = y[i] * y[i];
  }
}

int main(int argc, char **argv) {
  int n = (int)e2e_count(argc, argv, 1, 1000), m = 7;
  double *a = e2e_alloc(n * sizeof(double));
  double *b = e2e_alloc(n * sizeof(double));
  float *A = e2e_alloc((size_t)n * m * sizeof(float));
  float *x = e2e_alloc(n * sizeof(float));
  float *y = e2e_alloc(n * sizeof(float));
  float *z = e2e_alloc(n * sizeof(float));
  float *w = e2e_alloc(n * sizeof(float));
  int *v = e2e_alloc(n * sizeof(int));
  int column_any[7] = {0};
  for (int i = 0; i < n; i++) {
    a[i] = i * 0.5 - 3;
    x[i] = (float)(i % 29) - 4.0f;
    v[i] = (int)((i * 2654435761u) % 1000) + 1;
    for (int j = 0; j < m; j++)
      A[i * m + j] = (float)((i + j) % 5);
  }

  shadow(n, a, b);
  for (int i = 0; i < n; i++)
    E2E_CHECK(b[n - 1 - i] == a[i] * 6, "shadow: b[%d] = %g, want %g",
              n - 1 - i, b[n - 1 - i], a[i] * 6);

  c89(n, m, A, y);
  for (int i = 0; i < n; i++) {
    float acc = 0;
    for (int j = 0; j < m; j++)
      acc += A[i * m + j];
    E2E_CHECK(y[i] == acc, "c89: rowsum[%d] = %g, want %g", i, y[i], acc);
  }

  scratch(n, x, y);
  for (int i = 0; i < n; i++) {
    float want = x[i];
    for (int w = 0; w < 4; w++)
      want += i + w < n ? x[i + w] : 0.0f;
    E2E_CHECK(y[i] == want, "scratch: y[%d] = %g, want %g", i, y[i], want);
  }

  struct flags F = logical(n, v, column_any, m);
  int all_positive = 1, any_big = 0, all_small = 1;
  int want_columns[7] = {0};
  for (int i = 0; i < n; i++) {
    all_positive = all_positive && v[i] > 0;
    all_small = all_small && v[i] < 1000;
    any_big = any_big || v[i] > 990;
    want_columns[i % m] = want_columns[i % m] || v[i] % 97 == 0;
  }
  E2E_CHECK(F.all_positive == all_positive, "all_positive = %d, want %d",
            F.all_positive, all_positive);
  E2E_CHECK(F.all_small == all_small, "all_small = %d, want %d", F.all_small,
            all_small);
  E2E_CHECK(F.any_big == any_big, "any_big = %d, want %d", F.any_big, any_big);
  E2E_CHECK(F.all_nonzero == 1.0, "all_nonzero = %g, want 1", F.all_nonzero);
  E2E_CHECK(F.starts_at_five == 1, "starts_at_five = %d, want 1 (5 && ...)",
            F.starts_at_five);
  for (int c = 0; c < m; c++)
    E2E_CHECK(column_any[c] == want_columns[c], "column_any[%d] = %d, want %d",
              c, column_any[c], want_columns[c]);

  double got = scale_then_sum(n, a, b);
  float total = 0, sum = 0;
  for (int i = 0; i < n; i++) {
    sum += a[i] * 1.5;
    total += a[i];
  }
  double want = sum + 1.5 + n;
  E2E_CHECK(e2e_close(got, want, fabs(want) + n * 10.0),
            "scale_then_sum = %.17g, want %.17g", got, want);
  for (int i = 0; i < n; i++)
    E2E_CHECK(e2e_close(b[i], a[i] / (total + 1.0), fabs(b[i]) + 1),
              "normalise: b[%d] = %g, want %g", i, b[i], a[i] / (total + 1.0));

  float *out4 = e2e_alloc((size_t)4 * n * sizeof(float));
  int positive = values(n, x, out4, y);
  int want_positive = 0;
  for (int i = 0; i < n; i++)
    want_positive += x[i] > 0;
  E2E_CHECK(positive == want_positive, "values: sum = %d, want %d", positive,
            want_positive);
  for (int i = 0; i < n; i++) {
    E2E_CHECK(y[i] == (float)want_positive, "values: first[%d] = %g, want %d",
              i, y[i], want_positive);
    for (int k = 0; k < 4; k++)
      E2E_CHECK(out4[k * n + i] == x[i] * (float)(1 << k),
                "values: launch %d saw scale %g", k, out4[k * n + i] / x[i]);
  }
  e2e_free(out4, (size_t)4 * n * sizeof(float), "out4");

  tasks(n, x, y, z, w);
  for (int i = 0; i < n; i++) {
    float y1 = x[i] + 1.0f;
    E2E_CHECK(y[i] == y1 && z[i] == y1 * y1 && w[i] == x[i] * 2.0f,
              "tasks: y[%d] = %g, z = %g, w = %g", i, y[i], z[i], w[i]);
  }

  e2e_free(a, n * sizeof(double), "a");
  e2e_free(b, n * sizeof(double), "b");
  e2e_free(A, (size_t)n * m * sizeof(float), "A");
  e2e_free(x, n * sizeof(float), "x");
  e2e_free(y, n * sizeof(float), "y");
  e2e_free(z, n * sizeof(float), "z");
  e2e_free(w, n * sizeof(float), "w");
  e2e_free(v, n * sizeof(int), "v");
  return e2e_finish("openmp-port");
}
