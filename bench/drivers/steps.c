// Driver for kernels/steps.c: drivers/sweeps.c for the kernel whose
// time-step loop is in the graph (BENCH_SWEEPS_N, BENCH_SWEEPS_STEPS alike).
#define SWEEPS_KERNEL kernel_steps
#define SWEEPS_NAME "steps"
#define SWEEPS_UNIT "sweeps"
#include "sweeps.c"
