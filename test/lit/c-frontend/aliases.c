// Pointers computed from a buffer before the node (in a task body or before
// the graph) stand for that buffer: EXTRACT recomputes them inside the leaf
// from its buffer parameter. Writes through them count as writes of it.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --verify --extract --print %t.ll -disable-output | FileCheck %s
// RUN: not %hpvm-clang -fsyntax-only -DWRITE_INPUT %s 2>&1 | FileCheck %s --check-prefix=ERR

void halves(float *a, int n) {
  float *second = a + n / 2;
#pragma hpvm task name(halves)
  {
    float *first = a;
#pragma hpvm parallel for out(a[0:n]) name(both)
    for (int i = 0; i < n / 2; i++) {
      first[i] = 1;
      second[i] = 2;
    }
  }
}
// CHECK: internal halves
// CHECK: leaf both
// CHECK-NEXT: param a: buffer out

#ifdef WRITE_INPUT
void write_input(const float *a, int n) {
  float *p = (float *)a + 1;
#pragma hpvm parallel for in(a[0:n]) name(w)
  for (int i = 0; i < n - 1; i++)
    p[i] = 0;
  // ERR: aliases.c:[[@LINE-1]]:10: error: write to 'a', which the node declares in(); declare it out() or inout() to write it
}
#endif
