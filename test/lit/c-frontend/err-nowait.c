// Errors of `nowait` and `#pragma hpvm taskwait`: nowait takes no
// arguments, once, on graph nodes only (not on a node inside another, not
// on data or update); taskwait takes no clauses, is host code outside every
// node and a statement of its own.
// RUN: not %hpvm-clang -fsyntax-only -ferror-limit=0 %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=note:

void clauses(long n, float *x) {
#pragma hpvm parallel for nowait(x) inout(x[0:n])
  // CHECK-DAG: err-nowait.c:[[@LINE-1]]:33: error: clause 'nowait' takes no arguments; write it without parentheses
  for (long i = 0; i < n; ++i)
    x[i] = 0;
#pragma hpvm parallel for nowait nowait inout(x[0:n])
  // CHECK-DAG: err-nowait.c:[[@LINE-1]]:34: error: clause 'nowait' may appear only once
  for (long i = 0; i < n; ++i)
    x[i] = 0;
#pragma hpvm data nowait inout(x[0:n])
  // CHECK-DAG: err-nowait.c:[[@LINE-1]]:19: error: clause 'nowait' is not allowed on '#pragma hpvm data'
  {}
#pragma hpvm taskwait nowait
  // CHECK-DAG: err-nowait.c:[[@LINE-1]]:23: error: clause 'nowait' is not allowed on '#pragma hpvm taskwait'
}

void nested(long n, float *x) {
#pragma hpvm task name(outer) inout(x[0:n])
  {
#pragma hpvm parallel for name(inner) nowait inout(x[0:n])
    // CHECK-DAG: err-nowait.c:[[@LINE-1]]:39: error: 'nowait' on a node inside another node: only a graph's launch (a node outside every other) can go on while the code after it runs
    for (long i = 0; i < n; ++i)
      x[i] = 0;
  }
}

void placement(long n, float *x, int c) {
#pragma hpvm task name(graph) inout(x[0:n])
  {
#pragma hpvm taskwait
    // CHECK-DAG: err-nowait.c:[[@LINE-1]]:1: error: '#pragma hpvm taskwait' is host code and is not allowed inside an hpvm node; put it outside the graph
  }
  if (c)
#pragma hpvm taskwait
  // CHECK-DAG: err-nowait.c:[[@LINE-1]]:1: error: '#pragma hpvm taskwait' is a statement of its own and cannot be the body of an 'if', a loop or another statement; put it in braces
  x[0] = 1;
}
