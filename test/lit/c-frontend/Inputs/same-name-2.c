#include <stdio.h>
void f1(float *a, int n);
void f2(float *a, int n) {
#pragma hpvm parallel for out(a[0:n]) name(fill)
  for (int i = 0; i < n; i++)
    a[i] = 2;
}
int main(void) {
  float a[4], b[4];
  f1(a, 4);
  f2(b, 4);
  printf("%s\n", a[3] == 1 && b[3] == 2 ? "PASSED" : "FAILED");
  return 0;
}
