static inline void hdr_fill(float *a, int n) {
#pragma hpvm parallel for out(a[0:n]) name(hdr)
  for (int i = 0; i < n; i++) a[i] = 7;
}
