#include "kernel.h"

#ifndef KERNEL_NAME
#define KERNEL_NAME fill_default
#endif

void KERNEL_NAME(float *a, int n) {
#pragma hpvm parallel for out(a[0:n]) name(fill)
  for (int i = 0; i < n; i++)
    a[i] = FILL_VALUE;
}
