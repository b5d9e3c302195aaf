// OpenMP's runtime calls outside nodes link without -fopenmp (hpvm-clang
// links its own: time, and thread counts that are the CPU device's), and
// with -fopenmp (libomp's). omp_set_num_threads before the first launch
// sets the CPU device's threads; after it, it is ignored with a note.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 %s -o %t && %t 2>&1 | FileCheck %s
// RUN: env HPVM_NUM_THREADS=1 %t 2>&1 | FileCheck %s
// RUN: %hpvm-clang -O2 -fopenmp %s -o %t.omp && %t.omp 2>&1 | FileCheck %s --check-prefix=LIBOMP
#include <omp.h>
#include <stdio.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  double start = omp_get_wtime();
  omp_set_num_threads(3);
  printf("max %d procs>0 %d team %d id %d\n", omp_get_max_threads(),
         omp_get_num_procs() > 0, omp_get_num_threads(), omp_get_thread_num());
  float a[64];
#pragma hpvm parallel for
  for (int i = 0; i < 64; i++)
    a[i] = i * 0.5f;
  omp_set_num_threads(5);
  double took = omp_get_wtime() - start;
  printf("after %d a %g time %d\n", omp_get_max_threads(), a[63],
         took >= 0 && took < 60);
  return 0;
}
// CHECK: max 3 procs>0 1 team 1 id 0
// CHECK: hpvm-rt: note: omp_set_num_threads(5) ignored: the CPU device has started with 3 threads; set its threads before the first launch
// CHECK: after 3 a 31.5 time 1
// LIBOMP: max 3 procs>0 1 team 1 id 0
// LIBOMP: after 5 a 31.5 time 1
