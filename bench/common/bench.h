// The timing driver shared by every benchmark and every variant.
//
// A benchmark is a kernel (bench/kernels/<name>.c, built three ways) and a
// driver (bench/drivers/<name>.c, built once with clang and linked with each
// build of the kernel), so the only thing that differs between the variants
// is how the kernel was compiled. A driver sets up its data, calls
// bench_measure() on a closure that runs the kernel once, checks the result
// against a scalar reference, and prints one machine-readable line with
// bench_report(), which bench/report.py turns into the tables.
#ifndef HPVM_BENCH_H
#define HPVM_BENCH_H

#include <stddef.h>

/// Seconds on a monotonic clock (clock_gettime(CLOCK_MONOTONIC)).
double bench_now(void);

/// What bench_measure found: per-run times over the timed repetitions.
typedef struct {
  double median_s, min_s, max_s;
  int reps;
} bench_times;

/// Runs fn(ctx) `warmup` times untimed (first-touch page faults, thread pool
/// start-up, program loading), then times repetitions one by one until
/// BENCH_BUDGET_S seconds (default 1.0) have been spent or BENCH_MAX_REPS
/// (default 50) were done, and at least BENCH_MIN_REPS (default 5).
/// `per_call` > 1: fn runs that many iterations per call and the times
/// reported are per iteration (for operations too short to time alone).
bench_times bench_measure(void (*fn)(void *), void *ctx, int warmup,
                          long per_call);

/// Prints the result line:
///   RESULT <bench> <variant> size=<size> median_s=.. min_s=.. max_s=..
///          reps=.. bytes=.. flops=.. check=ok|FAIL
/// `size`: the problem size in words, without blanks (e.g. "1024x1024");
/// `bytes`: the bytes one run must move to or from memory (0: not a
/// bandwidth benchmark); `flops`: its floating-point operations (0: none
/// worth counting).
void bench_report(const char *bench, const char *variant, const char *size,
                  bench_times t, double bytes, double flops, int check_ok);

/// A buffer of `bytes` aligned to 64 bytes (exits when out of memory).
void *bench_alloc(size_t bytes);

/// A time-step benchmark over two float arrays of `elems` elements: the
/// kernel runs `steps` steps of two sweeps each, a -> b then b -> a;
/// `step(src, dst, n)` is one sweep in plain C, the reference.
typedef struct {
  const char *name;
  long n, elems;
  int steps;
  void (*kernel)(float *a, float *b, long n, int steps);
  void (*init)(float *a, float *b, long n);
  void (*step)(const float *src, float *dst, long n);
  /// A result r of the kernel passes where |r - reference| <= tol * (1 +
  /// |reference|).
  float tol;
  /// bench_report's size and floating-point operations of one run.
  const char *size;
  double flops;
} bench_steps;

/// Times s's kernel, checks one run from fresh data against the reference,
/// reports (bench_report) and returns the exit status.
int bench_run_steps(const bench_steps *s, const char *variant);

/// The whole of the file at `path`, NUL-terminated (for C-string formats
/// such as PTX), its size in `*bytes` when that is not NULL; exits saying
/// why when it cannot be read.
char *bench_read_file(const char *path, size_t *bytes);

/// <directory of this executable>/<name>, written to `buf` (of `size`).
const char *bench_beside_exe(char *buf, size_t size, const char *name);

/// An integer from the environment, or `fallback`.
long bench_env_long(const char *name, long fallback);

#endif // HPVM_BENCH_H
