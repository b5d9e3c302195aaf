// reduction(op: x) on `#pragma hpvm parallel for`, for every operator the
// frontend accepts (+ * min max & | ^) and the types it allows them on
// (docs/c-frontend.md §3: lowered to one atomic update per instance). As in
// OpenMP, the variable's value before the loop takes part (x starts at a
// value that is not the identity), the loop may carry several reductions, a
// collapsed nest reduces over all its instances, and `continue` still
// combines the instance's share.
//
// Integer results must be exact; floating-point sums are compared with a
// tolerance, since the instances combine in an unspecified order.
//
//   reduction n
#include "e2e.h"

#include <limits.h>

struct Results {
  long isum;
  int imin, imax;
  unsigned uand, uor, uxor;
  long lprod;
  float fsum, fmin, fmax;
  double dsum, dprod;
};

static void reduce(long n, const int *a, const float *f, struct Results *r) {
  long isum = 100;
  int imin = INT_MAX - 1, imax = INT_MIN + 1;
  unsigned uand = ~0u, uor = 0x80000000u, uxor = 0x5555u;
  long lprod = 3;
  float fsum = 0.5f, fmin = 1e30f, fmax = -1e30f;
  double dsum = 0, dprod = 1;
#pragma hpvm parallel for name(reduce) in(a[0:n], f[0:n])                      \
    reduction(+: isum, fsum, dsum) reduction(min: imin, fmin)                  \
    reduction(max: imax, fmax) reduction(&: uand) reduction(|: uor)            \
    reduction(^: uxor) reduction(*: lprod, dprod)
  for (long i = 0; i < n; ++i) {
    isum += a[i];
    imin = a[i] < imin ? a[i] : imin;
    imax = a[i] > imax ? a[i] : imax;
    uand &= (unsigned)a[i] | 0xFFFF0000u;
    uor |= 1u << (i % 31);
    uxor ^= (unsigned)a[i];
    // Products that stay representable: factors of -1 and 1.
    lprod *= a[i] % 5 == 0 ? -1 : 1;
    dprod *= f[i] > 0 ? 1.0000001 : 0.9999999;
    fsum += f[i];
    dsum += (double)f[i] * f[i];
    fmin = f[i] < fmin ? f[i] : fmin;
    fmax = f[i] > fmax ? f[i] : fmax;
  }
  r->isum = isum;
  r->imin = imin;
  r->imax = imax;
  r->uand = uand;
  r->uor = uor;
  r->uxor = uxor;
  r->lprod = lprod;
  r->fsum = fsum;
  r->fmin = fmin;
  r->fmax = fmax;
  r->dsum = dsum;
  r->dprod = dprod;
}

// The same computation without HPVM, in order.
static void reference(long n, const int *a, const float *f, struct Results *r) {
  r->isum = 100;
  r->imin = INT_MAX - 1;
  r->imax = INT_MIN + 1;
  r->uand = ~0u;
  r->uor = 0x80000000u;
  r->uxor = 0x5555u;
  r->lprod = 3;
  r->fsum = 0.5f;
  r->fmin = 1e30f;
  r->fmax = -1e30f;
  r->dsum = 0;
  r->dprod = 1;
  for (long i = 0; i < n; ++i) {
    r->isum += a[i];
    r->imin = a[i] < r->imin ? a[i] : r->imin;
    r->imax = a[i] > r->imax ? a[i] : r->imax;
    r->uand &= (unsigned)a[i] | 0xFFFF0000u;
    r->uor |= 1u << (i % 31);
    r->uxor ^= (unsigned)a[i];
    r->lprod *= a[i] % 5 == 0 ? -1 : 1;
    r->dprod *= f[i] > 0 ? 1.0000001 : 0.9999999;
    r->fsum += f[i];
    r->dsum += (double)f[i] * f[i];
    r->fmin = f[i] < r->fmin ? f[i] : r->fmin;
    r->fmax = f[i] > r->fmax ? f[i] : r->fmax;
  }
}

// A 2-D sum over a collapsed nest: rows x cols instances.
static long sum2d(long rows, long cols, const int *a) {
  long total = 0;
#pragma hpvm parallel for collapse(2) name(sum2d) in(a[0:rows * cols])        \
    reduction(+: total)
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j)
      total += a[i * cols + j] * (j % 2 ? -1 : 1);
  return total;
}

// `continue` ends one instance early; its share must still be combined.
static long count_skipping(long n, const int *a) {
  long count = 0;
#pragma hpvm parallel for name(skipping) in(a[0:n]) reduction(+: count)
  for (long i = 0; i < n; ++i) {
    count += 1000;
    if (a[i] % 7 == 0)
      continue;
    count += 1;
  }
  return count;
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 100003);
  int *a = e2e_alloc((size_t)n * sizeof(int));
  float *f = e2e_alloc((size_t)n * sizeof(float));
  double fabs_sum = 0, sq_sum = 0;
  for (long i = 0; i < n; ++i) {
    a[i] = (int)((i * 7919) % 20011) - 10000;
    f[i] = (float)((i * 131) % 1001) / 100.0f - 5.0f;
    fabs_sum += fabsf(f[i]);
    sq_sum += (double)f[i] * f[i];
  }

  struct Results r, want;
  reduce(n, a, f, &r);
  reference(n, a, f, &want);
  E2E_CHECK(r.isum == want.isum, "+ long: %ld, want %ld", r.isum, want.isum);
  E2E_CHECK(r.imin == want.imin, "min int: %d, want %d", r.imin, want.imin);
  E2E_CHECK(r.imax == want.imax, "max int: %d, want %d", r.imax, want.imax);
  E2E_CHECK(r.uand == want.uand, "&: %#x, want %#x", r.uand, want.uand);
  E2E_CHECK(r.uor == want.uor, "|: %#x, want %#x", r.uor, want.uor);
  E2E_CHECK(r.uxor == want.uxor, "^: %#x, want %#x", r.uxor, want.uxor);
  E2E_CHECK(r.lprod == want.lprod, "* long: %ld, want %ld", r.lprod,
            want.lprod);
  E2E_CHECK(r.fmin == want.fmin, "min float: %g, want %g", r.fmin, want.fmin);
  E2E_CHECK(r.fmax == want.fmax, "max float: %g, want %g", r.fmax, want.fmax);
  // Sums in a different order: error bounded by n * eps * sum |terms|.
  E2E_CHECK(fabs(r.fsum - want.fsum) <= (n + 1) * 6e-8 * (fabs_sum + 0.5),
            "+ float: %.9g, want %.9g", r.fsum, want.fsum);
  E2E_CHECK(fabs(r.dsum - want.dsum) <= (n + 1) * 1.2e-16 * sq_sum,
            "+ double: %.17g, want %.17g", r.dsum, want.dsum);
  E2E_CHECK(fabs(r.dprod - want.dprod) <= (n + 1) * 2.3e-16 * want.dprod,
            "* double: %.17g, want %.17g", r.dprod, want.dprod);

  long rows = n / 100, cols = 100, total = 0;
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j)
      total += a[i * cols + j] * (j % 2 ? -1 : 1);
  long got = sum2d(rows, cols, a);
  E2E_CHECK(got == total, "2-D +: %ld, want %ld", got, total);

  long want_count = 0;
  for (long i = 0; i < n; ++i)
    want_count += a[i] % 7 == 0 ? 1000 : 1001;
  long count = count_skipping(n, a);
  E2E_CHECK(count == want_count, "+ with continue: %ld, want %ld", count,
            want_count);

  // Zero instances leave the variable as it was.
  long untouched = sum2d(0, cols, a);
  E2E_CHECK(untouched == 0, "empty 2-D +: %ld, want 0", untouched);

  printf("reduction n=%ld: sum %ld, min %d, max %d, float sum %g\n", n, r.isum,
         r.imin, r.imax, r.fsum);
  e2e_free(a, (size_t)n * sizeof(int), "a");
  e2e_free(f, (size_t)n * sizeof(float), "f");
  return e2e_finish("reduction");
}
