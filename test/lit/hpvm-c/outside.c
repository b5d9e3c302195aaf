// HPVM-C's calls belong in node functions that a launch reaches: a node
// function called as a plain function, or a query in host code, is an
// error at the call, from hpvm-clang and from hpvm-opt alike.
// RUN: not %hpvm-clang -O1 -emit-hpvm-ir -S %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %clang -O1 -Xclang -disable-llvm-passes -D__HPVM__=1 -I %S/../../../frontends/c/include -S -emit-llvm %s -o %t.ll
// RUN: not %hpvm-opt --lower-hpvm-c %t.ll -disable-output 2>&1 | FileCheck %s --check-prefix=OPT
#include <hpvm.h>

void clear(float *a, size_t bytes_a) {
  a[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = 0;
}
// CHECK: outside.c:[[#@LINE-2]]:33: error: [hpvm-c] function 'clear': '__hpvm__getNode' is outside the node functions of every launch (a node function may only be created or launched, not called)
// OPT: hpvm-opt: error: [hpvm-c] function 'clear': '__hpvm__getNode' is outside the node functions of every launch

int main(void) {
  float a[4];
  clear(a, sizeof a);
  return 0;
}
