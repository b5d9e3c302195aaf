// A file holding '#pragma hpvm' lines included twice: hpvm-clang rewrites
// each file once, so it is an error that says so (it was an "internal
// error" with nothing above it).
// RUN: not %hpvm-clang -fsyntax-only -I %S/Inputs %s 2>&1 | FileCheck %s --implicit-check-not=error:
void f(int n, const float *a, float *b) {
#include "pragma-body.h"
}
void g(int n, const float *a, float *b) {
#include "pragma-body.h"
}
// CHECK: pragma-body.h:1:1: error: '{{.*}}pragma-body.h' holds '#pragma hpvm' lines and is included more than once; hpvm-clang rewrites each file once: put the code in a function the file defines once, or give the file include guards
