// Launch overhead: a node (an OpenMP parallel loop) with as little work as
// possible, one instance per thread. An empty body would be the purest
// measure, but hpvm-clang currently deletes the empty loop and then rejects
// the node ([parallel-loop], "found 0 outermost loops"), so each instance
// stores one int. See saxpy.c for how one file makes all three variants.
void kernel_launch(long n, int *flag) {
#pragma hpvm parallel for name(tiny) out(flag [0:n])
#pragma omp parallel for
  for (long i = 0; i < n; ++i)
    flag[i] = 1;
}
