// saxpy, y = a x + y: the memory-bound kernel (12 bytes per element, two
// flops). Built three ways from this one file (see bench/README.md):
//   hpvm-clang -O3                          reads #pragma hpvm, ignores omp
//   clang-19 -O3 -march=native -fopenmp    reads #pragma omp, ignores hpvm
//   clang-19 -O3 -march=native              ignores both: sequential
// so all three compile the same loop.
void kernel_saxpy(long n, float a, const float *x, float *y) {
#pragma hpvm parallel for name(saxpy) in(x [0:n])inout(y [0:n])
#pragma omp parallel for
  for (long i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}
