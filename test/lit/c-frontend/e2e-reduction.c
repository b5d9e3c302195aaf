// Reductions end to end: every operator, integer and floating point, and
// `continue` in the body, against the sequential result.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 %s -o %t && %t | FileCheck %s
#include <stdio.h>

#define N 4096

int main(void) {
  static int v[N];
  static float f[N];
  for (int i = 0; i < N; i++) {
    v[i] = (i * 2654435761u) % 1000 + 1;
    f[i] = (float)((i % 17) - 8) * 0.25f;
  }
  long sum = 0;
  int lo = 1 << 30, hi = -(1 << 30), bits = ~0, any = 0, parity = 0, odd = 0;
  float fsum = 0, fmin = 1e30f, fmax = -1e30f;
  double prod = 1;
#pragma hpvm parallel for in(v[0:N], f[0:N]) reduction(+: sum, fsum, odd) reduction(min: lo, fmin) reduction(max: hi, fmax) reduction(&: bits) reduction(|: any) reduction(^: parity) reduction(*: prod) name(reduce)
  for (int i = 0; i < N; i++) {
    sum += v[i];
    fsum += f[i];
    lo = v[i] < lo ? v[i] : lo;
    hi = v[i] > hi ? v[i] : hi;
    fmin = f[i] < fmin ? f[i] : fmin;
    fmax = f[i] > fmax ? f[i] : fmax;
    bits &= v[i] | 0x100;
    any |= v[i];
    parity ^= v[i];
    if (i % 512)
      continue;
    prod *= 1.5;
    odd += 1;
  }

  long rsum = 0;
  int rlo = 1 << 30, rhi = -(1 << 30), rbits = ~0, rany = 0, rparity = 0, rodd = 0;
  float rfsum = 0, rfmin = 1e30f, rfmax = -1e30f;
  double rprod = 1;
  for (int i = 0; i < N; i++) {
    rsum += v[i];
    rfsum += f[i];
    rlo = v[i] < rlo ? v[i] : rlo;
    rhi = v[i] > rhi ? v[i] : rhi;
    rfmin = f[i] < rfmin ? f[i] : rfmin;
    rfmax = f[i] > rfmax ? f[i] : rfmax;
    rbits &= v[i] | 0x100;
    rany |= v[i];
    rparity ^= v[i];
    if (i % 512)
      continue;
    rprod *= 1.5;
    rodd += 1;
  }
  int ok = sum == rsum && lo == rlo && hi == rhi && bits == rbits &&
           any == rany && parity == rparity && odd == rodd &&
           fsum == rfsum && fmin == rfmin && fmax == rfmax && prod == rprod;
  printf("sum %ld/%ld lo %d/%d hi %d/%d bits %x/%x any %x/%x parity %x/%x "
         "odd %d/%d fsum %g/%g fmin %g/%g fmax %g/%g prod %g/%g\n",
         sum, rsum, lo, rlo, hi, rhi, bits, rbits, any, rany, parity, rparity,
         odd, rodd, fsum, rfsum, fmin, rfmin, fmax, rfmax, prod, rprod);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return !ok;
}
// CHECK: PASSED
