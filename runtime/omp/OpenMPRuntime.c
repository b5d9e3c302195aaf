/*===- OpenMPRuntime.c - OpenMP's runtime calls for ported programs -------===//
 *
 * Programs ported from OpenMP keep calling its runtime outside the loops:
 * timing (omp_get_wtime) and thread counts. hpvm-clang links this library
 * into programs built without -fopenmp (with it, Clang links libomp), so
 * they link unchanged. Thread counts are the CPU device's: the host threads
 * that run a node's instances. Host code outside nodes runs on one thread,
 * as outside an OpenMP parallel region. Inside a node these calls are
 * errors (hpvm-clang says why): instances are not threads.
 *
 *===----------------------------------------------------------------------===*/
#include "hpvm/rt/hpvm_rt.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double omp_get_wtime(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (double)T.tv_sec + (double)T.tv_nsec * 1e-9;
}

double omp_get_wtick(void) {
  struct timespec R;
  clock_getres(CLOCK_MONOTONIC, &R);
  return (double)R.tv_sec + (double)R.tv_nsec * 1e-9;
}

int omp_get_max_threads(void) { return hpvm_cpu_threads(); }

int omp_get_num_procs(void) {
  long N = sysconf(_SC_NPROCESSORS_ONLN);
  return N > 0 ? (int)N : 1;
}

/* Outside a parallel region OpenMP has a team of one. */
int omp_get_num_threads(void) { return 1; }
int omp_get_thread_num(void) { return 0; }
int omp_in_parallel(void) { return 0; }
int omp_get_level(void) { return 0; }

void omp_set_num_threads(int threads) {
  static int Told;
  if (threads < 1 || hpvm_set_cpu_threads((uint32_t)threads) == HPVM_OK)
    return;
  /* Like OMP_NUM_THREADS read too late: say so once, run on. */
  if (!Told++)
    fprintf(stderr, "hpvm-rt: note: omp_set_num_threads(%d) ignored: %s\n",
            threads, hpvm_error_message());
}
