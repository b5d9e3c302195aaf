// -fsanitize=undefined: the checks report through a runtime devices do not
// have, so inside nodes they are dropped, with a note, and the host code
// keeps them (it used to fail with "[unnamed-pointer] ... pointer @13").
// -fsanitize=address links (compiler-rt) and instruments the host code.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O1 -fsanitize=undefined %s -o %t.ub 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: %t.ub 2>&1 | FileCheck %s --check-prefix=UB
// RUN: %hpvm-clang -emit-hpvm-ir -S -O1 -fsanitize=undefined %s -o - 2>/dev/null | FileCheck %s --check-prefix=IR
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = 1000;
  float *x = malloc(n * sizeof(float));
#pragma hpvm parallel for out(x[0:n]) name(fill)
  for (int i = 0; i < n; i++) {
    int k = i * i; // a checked signed multiply in host code, not here
    x[i] = (float)(k % 7);
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  int big = INT_MAX - 1;
  big += argc + 1; // overflows on the host: reported
  printf("sum %g\n", s);
  free(x);
  return big == 0;
}
// NOTE: hpvm-clang: note: sanitizer checks are not made inside nodes (devices have no sanitizer runtime); host code is checked
// UB: e2e-sanitizers.c:[[@LINE-6]]:7: runtime error: signed integer overflow
// UB: sum 2001
// IR: define {{.*}} @main(
// IR: call token @llvm.directive.region.entry()
// IR-NOT: __ubsan_handle
// IR: call void @llvm.directive.region.exit(
// IR: call void @__ubsan_handle_add_overflow
