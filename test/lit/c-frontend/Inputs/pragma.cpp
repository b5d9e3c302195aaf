// A C++ file with '#pragma hpvm', which hpvm-clang does not take in C++
// yet (driver-errors.test).
void zero(float *x, long n) {
#pragma hpvm parallel for inout(x[0:n])
  for (long i = 0; i < n; ++i)
    x[i] = 0;
}
