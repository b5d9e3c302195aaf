// Driver for kernels/async.c: BENCH_ASYNC_N (default 1000) independent
// one-instance graphs per run, started and then waited for together; the
// result is per launch. The HPVM build also times the same graphs launched
// synchronously (variant "hpvm-sync"), the baseline of the nowait launches.
#include "../common/bench.h"

#include <stdio.h>
#include <string.h>

void kernel_async(int *flags, long count, long line);
void kernel_async_sync(int *flags, long count, long line);

enum { Line = 16 }; // ints: 64 bytes

struct ctx {
  long n;
  int *flags;
  void (*kernel)(int *, long, long);
};

static void run(void *p) {
  struct ctx *c = p;
  c->kernel(c->flags, c->n, Line);
}

static int all_set(const struct ctx *c) {
  for (long k = 0; k < c->n; ++k)
    if (c->flags[k * Line] != 1)
      return 0;
  return 1;
}

static void measure(struct ctx *c, const char *variant) {
  memset(c->flags, 0, (size_t)c->n * Line * sizeof(int));
  bench_times t = bench_measure(run, c, 1, c->n);
  char size[64];
  snprintf(size, sizeof size, "%ld-graphs", c->n);
  bench_report("async", variant, size, t, 0, 0, all_set(c));
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "?";
  struct ctx c = {bench_env_long("BENCH_ASYNC_N", 1000), 0, kernel_async};
  c.flags = bench_alloc((size_t)c.n * Line * sizeof(int));
  measure(&c, variant);
  int ok = all_set(&c);
  if (!strcmp(variant, "hpvm")) {
    c.kernel = kernel_async_sync;
    measure(&c, "hpvm-sync");
    ok &= all_set(&c);
  }
  return !ok;
}
