#include <math.h>
#include <stdio.h>

void saxpy(float a, const float *x, float *y, int n);
void scale_markers(float s, float *y, long n);

int main(void) {
  float x[100], y[100];
  for (int i = 0; i < 100; i++) {
    x[i] = i;
    y[i] = 1;
  }
  saxpy(2, x, y, 100);
  scale_markers(0.5f, y, 100);
  int ok = 1;
  for (int i = 0; i < 100; i++)
    ok &= fabsf(y[i] - (2 * i + 1) * 0.5f) < 1e-6f;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return !ok;
}
