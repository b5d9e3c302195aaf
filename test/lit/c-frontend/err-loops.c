// Non-canonical parallel loops: each part of the loop header is checked,
// and the loop variable may not change in the body.
// RUN: not %hpvm-clang -fsyntax-only -ferror-limit=0 %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=note:

void init(float *a, int n) {
  int i = 0;
#pragma hpvm parallel for out(a[0:n])
  for (; i < n; i++)
    // CHECK: err-loops.c:[[@LINE-1]]:8: error: non-canonical parallel loop: the initialization must assign or declare one integer loop variable
    a[i] = 0;
}

void two_vars(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0, j = 0; i < n; i++)
    // CHECK: err-loops.c:[[@LINE-1]]:8: error: non-canonical parallel loop: the initialization must assign or declare one integer loop variable
    a[i + j] = 0;
}

void float_var(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (float x = 0; x < n; x++)
    // CHECK: err-loops.c:[[@LINE-1]]:14: error: non-canonical parallel loop: loop variable 'x' must have integer type
    a[(int)x] = 0;
}

void cond(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i * 2 < n; i++)
    // CHECK: err-loops.c:[[@LINE-1]]:19: error: non-canonical parallel loop: the condition must compare the loop variable 'i' with '<', '<=', '>', '>=' or '!='
    a[i] = 0;
}

void no_cond(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0;; i++)
    // CHECK: err-loops.c:[[@LINE-1]]:7: error: non-canonical parallel loop: the condition must compare the loop variable 'i'
    a[i] = 0;
}

void inc(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 1; i < n; i *= 2)
    // CHECK: err-loops.c:[[@LINE-1]]:26: error: non-canonical parallel loop: the increment must add an integer constant to the loop variable 'i' or subtract one from it
    a[i] = 0;
}

void variable_step(float *a, int n, int s) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i += s)
    // CHECK: err-loops.c:[[@LINE-1]]:26: error: non-canonical parallel loop: the increment must add
    a[i] = 0;
}

void direction(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i--)
    // CHECK: err-loops.c:[[@LINE-1]]:26: error: non-canonical parallel loop: with '<', a step of -1 does not reach the bound
    a[i] = 0;
}

void ne_step(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i != n; i += 2)
    // CHECK: err-loops.c:[[@LINE-1]]:27: error: non-canonical parallel loop: with '!=', a step of 2 does not reach the bound
    a[i] = 0;
}

// Bounds affine in an enclosing collapsed loop's variable are a triangle
// (triangular-collapse.c); others are not.
void not_affine(float *a, int n) {
#pragma hpvm parallel for collapse(2) out(a[0:n*n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i * i; j++)
      // CHECK: err-loops.c:[[@LINE-1]]:25: error: non-canonical parallel loop: the bound depends on loop variable 'i'; a collapsed loop's bounds may use one enclosing collapsed loop's variable, affinely, in a loop that counts up by 1
      a[i * n + j % n] = 0;
}

void triangle_down(float *a, int n) {
#pragma hpvm parallel for collapse(2) out(a[0:n*n])
  for (int i = 0; i < n; i++)
    for (int j = i; j > 0; j--)
      // CHECK: err-loops.c:[[@LINE-1]]:18: error: non-canonical parallel loop: the bound depends on loop variable 'i'; a collapsed loop's bounds may use one enclosing collapsed loop's variable, affinely, in a loop that counts up by 1
      a[i * n + j] = 0;
}

void modified(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    a[i] = 0;
    i += 1;
    // CHECK: err-loops.c:[[@LINE-1]]:7: error: non-canonical parallel loop: loop variable 'i' is modified in the loop body
  }
}

void address_taken(float *a, int n) {
  void take(int *);
#pragma hpvm parallel for out(a[0:n])
  for (int i = 0; i < n; i++) {
    int *p = &i;
    // CHECK: err-loops.c:[[@LINE-1]]:14: error: non-canonical parallel loop: loop variable 'i' is modified in the loop body
    a[*p] = 0;
  }
}

#define FOR_FROM_ONE(i, n) for (int i = 1; i < n; i++)
void from_macro(float *a, int n) {
#pragma hpvm parallel for out(a[0:n])
  FOR_FROM_ONE(i, n) a[i] = 0;
  // CHECK: err-loops.c:[[@LINE-1]]:3: error: this parallel loop's header comes from a macro expansion, which hpvm-clang cannot rewrite; write the loop header in the source
  // CHECK: note: expanded from macro 'FOR_FROM_ONE'
}
