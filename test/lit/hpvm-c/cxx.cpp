// HPVM-C in C++: hints from namespace hpvm, node functions named by their
// source names (not mangled), host code free to use C++; leaves stay in the
// C subset, and what C++ adds to them is an error naming it.
// RUN: %hpvm-clang -O1 -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract --print %t.ll -disable-output | FileCheck %s
// Outputs without a return statement: C++ ends such a function with a trap at
// -O0, which the launch never reaches.
// RUN: %hpvm-clang -O0 --hpvm-target=cpu,spirv -c %s -o %t.o
// RUN: not %hpvm-clang -O1 -DBAD -emit-hpvm-ir -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not=error:
#include <hpvm.h>

#include <vector>

namespace kernels {
void fill(int *v, size_t bytes, int value) {
  __hpvm__hint(hpvm::DEVICE);
  __hpvm__attributes(0, 1, v);
  v[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = value;
}

void root(int *v, size_t bytes, int value) {
  void *leaf = __hpvm__createNodeND(1, fill, (long)(bytes / sizeof(int)));
  for (unsigned p = 0; p < 3; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
}
} // namespace kernels
// CHECK-LABEL: graph fill
// CHECK-NEXT:    leaf fill dims [{{.*}}] targets nvptx,spirv function @hpvm.node.fill
// CHECK-NEXT:      param v{{[0-9]*}}: buffer out bytes

struct __attribute__((__packed__)) Args {
  int *v;
  size_t bytes;
  int value;
};

void host(std::vector<int> &v) {
  Args args{v.data(), v.size() * sizeof(int), 7};
  __hpvm__wait(__hpvm__launch(0, kernels::root, &args));
}

struct Sizes {
  size_t bytes;
};

Sizes sized(int *v, size_t bytes) {
  v[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = 1;
  __hpvm__return(1, bytes);
}

Sizes sized_root(int *v, size_t bytes) {
  void *leaf = __hpvm__createNodeND(1, sized, (long)(bytes / sizeof(int)));
  __hpvm__bindIn(leaf, 0, 0, 0);
  __hpvm__bindIn(leaf, 1, 1, 0);
  __hpvm__bindOut(leaf, 0, 0, 0);
}
// CHECK-LABEL: graph sized
// CHECK-NEXT:    leaf sized

struct __attribute__((__packed__)) SizedArgs {
  int *v;
  size_t bytes;
  Sizes out;
};

size_t host_sized(SizedArgs *args) {
  __hpvm__wait(__hpvm__launch(0, sized_root, args));
  return args->out.bytes;
}

#ifdef BAD
struct Shape {
  virtual int sides() const = 0;
};

void leaf_new(int *v, size_t bytes) {
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  int *t = new int[2];
  v[i] = t[0];
}
// BAD: cxx.cpp:[[#@LINE-3]]:12: error: [hpvm-c] function 'leaf_new(int*, unsigned long)': leaf 'leaf_new' allocates memory with new or delete: a leaf's code is in the C subset (docs/hpvm-c.md)

void leaf_throw(int *v, size_t bytes) {
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getNode());
  if (v[i] < 0)
    throw i;
}
// BAD: cxx.cpp:[[#@LINE-2]]:5: error: [hpvm-c] function 'leaf_throw(int*, unsigned long)': leaf 'leaf_throw' throws or catches C++ exceptions: a leaf's code is in the C subset (docs/hpvm-c.md)

const Shape *shape;
void leaf_virtual(int *v, size_t bytes) {
  v[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = shape->sides();
}
// BAD: cxx.cpp:[[#@LINE-2]]:{{[0-9]+}}: error: [hpvm-c] function 'leaf_virtual(int*, unsigned long)': leaf 'leaf_virtual' calls through a pointer (a virtual function?): a leaf's code is in the C subset (docs/hpvm-c.md)

struct __attribute__((__packed__)) Bad {
  int *v;
  size_t bytes;
};

void bad(Bad *b) {
  __hpvm__launch(0, leaf_new, b);
  __hpvm__launch(0, leaf_throw, b);
  __hpvm__launch(0, leaf_virtual, b);
}
#endif
