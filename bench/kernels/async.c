// Asynchronous launches: BENCH_ASYNC_N independent graphs of one instance
// each (each stores one int into a cache line of its own), started one
// after the other and waited for together. HPVM launches them with
// `nowait` and waits with `taskwait`; OpenMP makes each an explicit task
// of a single thread and waits with its `taskwait`; the sequential build
// stores the ints. kernel_async_sync (HPVM only, the same graphs without
// `nowait`) is what the nowait launches are compared with. See saxpy.c for
// how one file makes all three variants.

static void one(int *flag) {
#pragma hpvm task name(one) nowait out(flag [0:1])
  { flag[0] = 1; }
}

static void one_sync(int *flag) {
#pragma hpvm task name(one_sync) out(flag [0:1])
  { flag[0] = 1; }
}

/// Line: ints apart, so that no two graphs share a cache line.
void kernel_async(int *flags, long count, long line) {
#pragma omp parallel
#pragma omp single
  {
    for (long k = 0; k < count; ++k) {
#pragma omp task
      one(flags + k * line);
    }
#pragma omp taskwait
  }
#pragma hpvm taskwait
}

void kernel_async_sync(int *flags, long count, long line) {
  for (long k = 0; k < count; ++k)
    one_sync(flags + k * line);
}
