/* A leaf with more parameter slots than 128 bytes of push constants hold,
   and one with few. */
void wide(long n, float *out, float c0, float c1, float c2, float c3,
          float c4, float c5, float c6, float c7, float c8, float c9, int k0,
          int k1, int k2, int k3, int k4, int k5) {
#pragma hpvm parallel for name(wide) out(out[0:n])
  for (long i = 0; i < n; ++i)
    out[i] = c0 + 2 * c1 + 3 * c2 + 4 * c3 + 5 * c4 + 6 * c5 + 7 * c6 +
             8 * c7 + 9 * c8 + 10 * c9 + 11 * k0 + 12 * k1 + 13 * k2 +
             14 * k3 + 15 * k4 + 16 * k5;
}

void narrow(long n, float *out, float c) {
#pragma hpvm parallel for name(narrow) out(out[0:n])
  for (long i = 0; i < n; ++i)
    out[i] = c;
}
