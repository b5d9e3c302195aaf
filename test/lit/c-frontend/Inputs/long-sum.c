// A long reduction: 64-bit atomics, which the OpenCL flavour cannot express.
#include <stdio.h>
int main(void) {
  long s = 0;
#pragma hpvm parallel for reduction(+: s) name(sum)
  for (long i = 0; i < 100; i++)
    s += i;
  printf("s = %ld\n", s);
  return s != 4950;
}
