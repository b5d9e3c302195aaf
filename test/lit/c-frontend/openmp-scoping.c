// Code ported from OpenMP keeps C's scoping through the rewrite: a private()
// variable that the loop's own `int i` hides gets no copy (a copy named `i`
// would hide the loop's variable, and every instance would read an
// uninitialised index); the loop's own variable in private() is private
// already; a body that declares a private's name hides the copy, which sits
// in a block of its own around the body; a typedef'd loop variable is
// declared by its canonical type.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll -save-temps=obj
// RUN: %hpvm-opt --verify --extract %t.ll -disable-output
// RUN: FileCheck %s --check-prefix=SRC < %t.hpvm.c

typedef long idx;

void shadowed(int n, const double *a, double *b) {
  int i, k;
#pragma hpvm parallel for name(shadowed) private(i, k) in(a[0:n]) out(b[0:n])
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (k = 0; k < 3; k++)
      s += a[i];
    b[i] = s;
  }
}
// The copy of k, none of i; the loop keeps its own i.
// SRC: for (int i = 0; i < __hpvm_t{{[0-9]+}}; i++) { __typeof__(k) k; {
// SRC-NOT: __typeof__(i{{[)]}} i;

void own_variable(int n, float *a) {
  idx i, j;
#pragma hpvm parallel for name(own) private(i, j) inout(a[0:n])
  for (i = n - 1; i >= 0; i--)
    for (j = 0; j < 2; j++)
      a[i] += 1;
}
// The loop variable comes from the counter, declared by its canonical type;
// j gets its copy.
// SRC: { __typeof__(j) j; long i = (long)(__hpvm_lb{{[0-9]+}} - __hpvm_iv{{[0-9]+}} * 1); for (j = 0;

void own_declaration(int n, const float *x, float *y) {
  float t = 5, *p;
#pragma hpvm parallel for name(decl) private(t, p) in(x[0:n]) out(y[0:n])
  for (int i = 0; i < n; i++) {
    float t = x[i] * 2;
    p = &y[i];
    *p = t;
  }
}
// Neither t (the body declares its own) nor a redeclaration error; p is a
// private pointer.
// SRC: for (int i = 0; i < __hpvm_t{{[0-9]+}}; i++) { __typeof__(p) p; {
