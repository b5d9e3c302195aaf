// `#pragma omp` left in a program: without -fopenmp each is a warning that
// names it and the `#pragma hpvm` to write (or why there is none), and the
// program still compiles; with -fopenmp Clang compiles them and says nothing.
// Calls of OpenMP's runtime inside a node are errors.
// RUN: %hpvm-clang -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// RUN: %hpvm-clang -fopenmp -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=OMP --allow-empty
// RUN: not %hpvm-clang -fsyntax-only -DIN_NODE %s 2>&1 | FileCheck %s --check-prefix=NODE

// OMP-NOT: warning:

int counter;
#pragma omp threadprivate(counter)
// CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp threadprivate' is ignored (OpenMP directives are compiled only with -fopenmp): HPVM has no equivalent

void leftovers(int n, float *a) {
  int i;
#pragma omp parallel for private(i) schedule(static)
  // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp parallel for' is ignored (OpenMP directives are compiled only with -fopenmp, and then for host threads); write '#pragma hpvm parallel for' with in(), out() or inout() clauses for the pointers it uses: as it is, the code runs sequentially
  for (i = 0; i < n; i++)
    a[i] = 0;
#pragma omp target teams distribute parallel for simd map(tofrom: a[0:n])
  // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp target teams distribute parallel for simd' is ignored {{.*}}; write '#pragma hpvm parallel for' with
  for (i = 0; i < n; i++)
    a[i] += 1;
#pragma omp target data map(tofrom: a[0:n])
  // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp target data' is ignored {{.*}}; write '#pragma hpvm data'{{$}}
  {
#pragma omp task
    // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp task' is ignored {{.*}}; write '#pragma hpvm task' with
    a[0] = 1;
#pragma omp taskwait
    // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp taskwait' is ignored {{.*}}; write '#pragma hpvm taskwait'{{$}}
  }
#pragma omp parallel
  // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp parallel' is ignored (OpenMP directives are compiled only with -fopenmp): a parallel region runs code on a team of threads, which HPVM does not have: write its loops as '#pragma hpvm parallel for' (docs/c-frontend.md, 'Porting from OpenMP')
  {
#pragma omp critical
    // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp critical' is ignored (OpenMP directives are compiled only with -fopenmp): instances of a node are not threads and do not synchronise; use reduction() or __atomic builtins
    a[1] += 1;
#pragma omp atomic
    // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp atomic' is ignored (OpenMP directives are compiled only with -fopenmp): inside a node, use __atomic builtins or reduction()
    a[2] += 1;
  }
#pragma omp parallel \
    for private(i)
  // CHECK: openmp-leftovers.c:[[@LINE-2]]:1: warning: '#pragma omp parallel for' is ignored {{.*}}; write '#pragma hpvm parallel for' with
  for (i = 0; i < n; i++)
    a[i] *= 2;
#pragma omp simd
  // CHECK: openmp-leftovers.c:[[@LINE-1]]:1: warning: '#pragma omp simd' is ignored (OpenMP directives are compiled only with -fopenmp): the CPU backend vectorises parallel loops and the loops inside nodes itself: delete it
  for (i = 0; i < n; i++)
    a[i] += 3;
#if 0
#pragma omp parallel for
#endif
}

#ifdef IN_NODE
int omp_get_thread_num(void);
void in_node(int n, float *a) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = omp_get_thread_num();
  // NODE: openmp-leftovers.c:[[@LINE-1]]:12: error: 'omp_get_thread_num' is OpenMP's runtime, which HPVM provides for host code only: the instances of a node are not threads (index per-instance data by the loop variable, or use private() or reduction())
}
#endif
