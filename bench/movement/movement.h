// What the workloads of bench/movement share: sizes from the environment,
// the timing loop, and the result line bench/movement/run.sh reads.
//
// A workload runs its computation 1 + BENCH_MOVE_REPS times (default 5),
// each time from freshly prepared inputs (untimed) and checked against a
// scalar C reference. After the first call it prints hpvm-rt's statistics
// (hpvm_print_stats: the bytes coherence moved for exactly one call); the
// statistics HPVM_STATS=1 prints at exit cover every call, so run.sh can
// check that each call moved the same. The first call also compiles the
// device kernels, so it is not timed. stdout gets
//   MOVE <workload> size=<size> min_bytes=<n> border_bytes=<n> calls=<n>
//        check=ok|FAIL times_s=<s>,<s>,...   (the timed calls)
// and a last line PASS or FAIL; the exit status is 0 only for PASS. The
// MOVE line also carries what the workload says about itself: its size, the
// least number of bytes any run of it must move between host and device
// (min_bytes), and the bytes of unwritten grid borders in the copies to the
// device it expects (border_bytes, see pipeline.c).
#ifndef HPVM_BENCH_MOVEMENT_H
#define HPVM_BENCH_MOVEMENT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void hpvm_print_stats(void); // hpvm-rt (hpvm_rt.h)

/// An integer from the environment, or `fallback`.
static long move_env(const char *name, long fallback) {
  const char *s = getenv(name);
  return s && *s ? atol(s) : fallback;
}

/// size bytes, zeroed; exits when out of memory.
static void *move_alloc(size_t size) {
  void *p = calloc(size ? size : 1, 1);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", size);
    exit(2);
  }
  return p;
}

static double move_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/// A workload: prepare(ctx) sets up the inputs, run(ctx) is the timed
/// computation, check(ctx) returns how many results differ from the
/// reference (printing the first few).
typedef struct {
  const char *name;
  char size[64]; // without blanks, e.g. "1024x1024"
  long min_bytes, border_bytes;
  void (*prepare)(void *ctx);
  void (*run)(void *ctx);
  long (*check)(void *ctx);
} move_workload;

/// Runs the workload as described at the top; returns the exit status.
static int move_main(const move_workload *wl, void *ctx) {
  long reps = move_env("BENCH_MOVE_REPS", 5);
  if (reps < 1)
    reps = 1;
  double *times = move_alloc((size_t)reps * sizeof *times);
  long bad = 0;
  for (long call = 0; call <= reps; ++call) {
    wl->prepare(ctx);
    double t0 = move_now();
    wl->run(ctx);
    double t = move_now() - t0;
    long wrong = wl->check(ctx);
    if (wrong)
      fprintf(stderr, "%s: call %ld: %ld wrong results\n", wl->name, call,
              wrong);
    bad += wrong;
    if (call == 0) {
      fflush(stdout);
      fprintf(stderr, "movement: statistics after the first call\n");
      hpvm_print_stats();
      fprintf(stderr, "movement: end of the first call's statistics\n");
    } else {
      times[call - 1] = t;
    }
  }
  printf("MOVE %s size=%s min_bytes=%ld border_bytes=%ld calls=%ld "
         "check=%s times_s=",
         wl->name, wl->size, wl->min_bytes, wl->border_bytes, reps + 1,
         bad ? "FAIL" : "ok");
  for (long i = 0; i < reps; ++i)
    printf("%s%.6g", i ? "," : "", times[i]);
  printf("\n");
  printf("%s\n", bad ? "FAIL" : "PASS");
  free(times);
  return bad != 0;
}

#endif // HPVM_BENCH_MOVEMENT_H
