// The time-step loop inside the graph: sweeps.c's stencil (a 1-D 3-point
// stencil over a few thousand points, two sweeps per step), with the loop
// over steps in one node, run in order (docs/c-frontend.md §1.1), so one
// launch runs every step. OpenMP's counterpart is one parallel region
// around the loop with a worksharing loop per sweep (a barrier each). See
// saxpy.c for how one file makes all three variants.
void kernel_steps(float *a, float *b, long n, int steps) {
#pragma hpvm task name(steps) inout(a [0:n], b [0:n])
#pragma omp parallel
  {
    for (int t = 0; t < steps; ++t) {
#pragma hpvm parallel for name(ab) in(a [0:n])inout(b [0:n])
#pragma omp for
      for (long i = 1; i < n - 1; ++i)
        b[i] = (a[i - 1] + a[i] + a[i + 1]) * (1.0f / 3.0f);
#pragma hpvm parallel for name(ba) in(b [0:n])inout(a [0:n])
#pragma omp for
      for (long i = 1; i < n - 1; ++i)
        a[i] = (b[i - 1] + b[i] + b[i + 1]) * (1.0f / 3.0f);
    }
  }
}
