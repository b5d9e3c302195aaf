#include <hpvm.h>

void saxpy(float a, const float *x, float *y, int n) {
#pragma hpvm parallel for in(x[0:n]) inout(y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

void scale_markers(float s, float *y, long n) {
  void *h = __hpvm_region_begin("scale", HPVM_DIMS1(n),
                                HPVM_INOUT(y, n * sizeof *y), HPVM_END);
  for (long i = 0; i < n; i++)
    y[i] *= s;
  __hpvm_region_end(h);
}
