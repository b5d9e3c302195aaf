// Driver for kernels/launch.c: the cost of one launch of a node with one
// instance per thread (BENCH_LAUNCH_N, default 2), against one OpenMP
// parallel loop. Launches are timed in batches of 1000 (one launch is a few
// microseconds, close to the clock's own cost); the result is per launch.
#include "../common/bench.h"

#include <stdio.h>

void kernel_launch(long n, int *flag);

struct ctx {
  long n;
  int *flag;
};

enum { Batch = 1000 };

static void run(void *p) {
  struct ctx *c = p;
  for (int i = 0; i < Batch; ++i)
    kernel_launch(c->n, c->flag);
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  struct ctx c = {bench_env_long("BENCH_LAUNCH_N", 2), 0};
  c.flag = bench_alloc((size_t)c.n * sizeof(int));
  for (long i = 0; i < c.n; ++i)
    c.flag[i] = 0;
  bench_times t = bench_measure(run, &c, 1, Batch);
  long bad = 0;
  for (long i = 0; i < c.n; ++i)
    bad += c.flag[i] != 1;
  char size[64];
  snprintf(size, sizeof size, "%ld-instances", c.n);
  bench_report("launch", variant, size, t, 0, 0, bad == 0);
  return bad != 0;
}
