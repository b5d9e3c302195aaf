// A pragma must be followed by the statement it applies to; the token after
// it is checked before Clang parses on, so the error is ours, not a parse
// error about code the user did not write.
// RUN: not %hpvm-clang -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:

void before_declaration(float *a, int n) {
#pragma hpvm task out(a[0:n])
  // CHECK: err-placement.c:[[@LINE-1]]:1: error: '#pragma hpvm task' must be followed by the statement it runs (a block '{ ... }', a loop, a call), not a declaration or the end of a block
  int x = 5;
  a[0] = x;
}

void at_end_of_block(float *a, int n) {
  {
    a[0] = 1;
#pragma hpvm parallel for out(a[0:n])
    // CHECK: err-placement.c:[[@LINE-1]]:1: error: '#pragma hpvm parallel for' must be followed by a 'for' loop
  }
}
