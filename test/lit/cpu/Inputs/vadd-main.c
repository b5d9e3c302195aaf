/* Calls the vadd kernel of an object made by hpvm-backend directly through
 * the hpvm_cpu_kernel_fn ABI, in uneven chunks, and checks every element. */
#include <stdint.h>
#include <stdio.h>

/* The wrapper's symbol has dots in it, so it needs an asm label. */
extern void vadd_kernel(void *const *args, void *const *outs,
                        const uint64_t *dims, const uint64_t *outer_ids,
                        uint64_t begin, uint64_t end) __asm__("hpvm.cpu.vadd");

#define N 1003

int main(void) {
  static float a[N], b[N], c[N];
  for (int i = 0; i < N; ++i) {
    a[i] = (float)i * 0.5f;
    b[i] = (float)(N - i);
    c[i] = -1.0f;
  }
  float *pa = a, *pb = b, *pc = c;
  uint64_t n = N, bytes = N * sizeof(float);
  void *args[] = {&pa, &pb, &pc, &bytes, &n};
  uint64_t dims[3] = {N, 1, 1};
  for (uint64_t begin = 0; begin < N; begin += 97)
    vadd_kernel(args, 0, dims, 0, begin, begin + 97 < N ? begin + 97 : N);
  for (int i = 0; i < N; ++i)
    if (c[i] != a[i] + b[i]) {
      printf("FAIL at %d: %f\n", i, c[i]);
      return 1;
    }
  printf("OK %d\n", N);
  return 0;
}
