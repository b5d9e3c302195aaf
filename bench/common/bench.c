// The timing driver (see bench.h). Compiled once with clang-19 -O2, without
// OpenMP or HPVM, and linked with every variant of every kernel.
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long bench_env_long(const char *name, long fallback) {
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  char *end;
  long v = strtol(s, &end, 10);
  return *end ? fallback : v;
}

static double bench_env_double(const char *name, double fallback) {
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  char *end;
  double v = strtod(s, &end);
  return *end ? fallback : v;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

bench_times bench_measure(void (*fn)(void *), void *ctx, int warmup,
                          long per_call) {
  double budget = bench_env_double("BENCH_BUDGET_S", 1.0);
  long min_reps = bench_env_long("BENCH_MIN_REPS", 5);
  long max_reps = bench_env_long("BENCH_MAX_REPS", 50);
  if (max_reps < min_reps)
    max_reps = min_reps;
  for (int i = 0; i < warmup; ++i)
    fn(ctx);

  double *samples = malloc((size_t)max_reps * sizeof *samples);
  if (!samples) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  // The median, not the mean: one preempted run on a shared 2-core machine
  // must not move the result.
  long reps = 0;
  double spent = 0;
  while (reps < max_reps && (reps < min_reps || spent < budget)) {
    double t0 = bench_now();
    fn(ctx);
    double dt = bench_now() - t0;
    spent += dt;
    samples[reps++] = dt / (double)per_call;
  }
  qsort(samples, (size_t)reps, sizeof *samples, compare_doubles);
  bench_times t;
  t.reps = (int)reps;
  t.min_s = samples[0];
  t.max_s = samples[reps - 1];
  t.median_s = reps % 2 ? samples[reps / 2]
                        : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]);
  free(samples);
  return t;
}

void bench_report(const char *bench, const char *variant, const char *size,
                  bench_times t, double bytes, double flops, int check_ok) {
  printf("RESULT %s %s size=%s median_s=%.9g min_s=%.9g max_s=%.9g reps=%d "
         "bytes=%.0f flops=%.0f check=%s\n",
         bench, variant, size, t.median_s, t.min_s, t.max_s, t.reps, bytes,
         flops, check_ok ? "ok" : "FAIL");
  fflush(stdout);
}

void *bench_alloc(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 64)) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  return p;
}

char *bench_read_file(const char *path, size_t *bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = size < 0 ? NULL : malloc((size_t)size + 1);
  if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  data[size] = 0;
  fclose(f);
  if (bytes)
    *bytes = (size_t)size;
  return data;
}

const char *bench_beside_exe(char *buf, size_t size, const char *name) {
  ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  if (n < 0)
    n = 0;
  buf[n] = 0;
  char *slash = strrchr(buf, '/');
  size_t dir = slash ? (size_t)(slash - buf) + 1 : 0;
  snprintf(buf + dir, size - dir, "%s", name);
  return buf;
}

struct steps_run {
  const bench_steps *s;
  float *a, *b;
};

static void run_steps(void *p) {
  struct steps_run *r = p;
  r->s->kernel(r->a, r->b, r->s->n, r->s->steps);
}

int bench_run_steps(const bench_steps *s, const char *variant) {
  struct steps_run c = {s, NULL, NULL};
  size_t bytes = (size_t)s->elems * sizeof(float);
  c.a = bench_alloc(bytes);
  c.b = bench_alloc(bytes);
  s->init(c.a, c.b, s->n);
  bench_times t = bench_measure(run_steps, &c, 1, 1);

  // One run from fresh data against plain C.
  s->init(c.a, c.b, s->n);
  s->kernel(c.a, c.b, s->n, s->steps);
  float *ra = bench_alloc(bytes), *rb = bench_alloc(bytes);
  s->init(ra, rb, s->n);
  for (int k = 0; k < s->steps; ++k) {
    s->step(ra, rb, s->n);
    s->step(rb, ra, s->n);
  }
  long bad = 0;
  for (long k = 0; k < s->elems; ++k)
    if (fabsf(c.a[k] - ra[k]) > s->tol * (1 + fabsf(ra[k])) ||
        fabsf(c.b[k] - rb[k]) > s->tol * (1 + fabsf(rb[k])))
      ++bad;
  if (bad)
    fprintf(stderr, "%s: %ld wrong points\n", s->name, bad);
  bench_report(s->name, variant, s->size, t, 0, s->flops, bad == 0);
  return bad != 0;
}
