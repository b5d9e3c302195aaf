void f1(float *a, int n) {
#pragma hpvm parallel for out(a[0:n]) name(fill)
  for (int i = 0; i < n; i++) a[i] = 1;
}
