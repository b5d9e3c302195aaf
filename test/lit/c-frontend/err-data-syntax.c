// Errors in the line of '#pragma hpvm data' and '#pragma hpvm update',
// each with its file:line:col.
// RUN: not %hpvm-clang -fsyntax-only -ferror-limit=0 %s 2>&1 | FileCheck %s --implicit-check-not=error:

void f(float *a, int n) {
#pragma hpvm data map(tofrom: a[0:n])
  // CHECK: err-data-syntax.c:[[@LINE-1]]:19: error: OpenMP's 'map' clause is written in(), out() or inout() here: map(to: x) is in(x), map(from: x) is out(x), map(tofrom: x) is inout(x)
  {}
#pragma hpvm data inout(a[0:n]) name(region)
  // CHECK: err-data-syntax.c:[[@LINE-1]]:33: error: clause 'name' is not allowed on '#pragma hpvm data'
  {}
#pragma hpvm data
  // CHECK: err-data-syntax.c:[[@LINE-1]]:14: error: '#pragma hpvm data' needs in(), out() or inout()
  {}
#pragma hpvm data inout()
  // CHECK: err-data-syntax.c:[[@LINE-1]]:19: error: clause 'inout' needs at least one item
  {}
#pragma hpvm data inout(a[0:n])
  // CHECK: err-data-syntax.c:[[@LINE-1]]:1: error: '#pragma hpvm data' must be followed by a compound statement '{ ... }'
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma hpvm update to(a[0:n])
  // CHECK: err-data-syntax.c:[[@LINE-1]]:21: error: OpenMP's 'to' clause of 'target update' is written device() here
#pragma hpvm update from(a[0:n])
  // CHECK: err-data-syntax.c:[[@LINE-1]]:21: error: OpenMP's 'from' clause of 'target update' is written host() here
#pragma hpvm update in(a[0:n])
  // CHECK: err-data-syntax.c:[[@LINE-1]]:21: error: clause 'in' is not allowed on '#pragma hpvm update'
#pragma hpvm update
  // CHECK: err-data-syntax.c:[[@LINE-1]]:14: error: '#pragma hpvm update' needs host() or device()
#pragma hpvm update host() device()
  // CHECK: err-data-syntax.c:[[@LINE-1]]:21: error: clause 'host' needs at least one item
  // CHECK: err-data-syntax.c:[[@LINE-2]]:28: error: clause 'device' needs at least one item
#pragma hpvm update host(a[1])
  // CHECK: err-data-syntax.c:[[@LINE-1]]:26: error: expected a variable or an array section 'a[lo:len]' or 'a[:len]' (one per dimension: 'a[lo:len][lo2:len2]') in clause 'host'
#pragma hpvm task host(a[0:n])
  // CHECK: err-data-syntax.c:[[@LINE-1]]:19: error: clause 'host' is not allowed on '#pragma hpvm task'
  {}
}
