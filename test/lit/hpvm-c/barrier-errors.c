// Barriers and node-local memory that hpvm-clang cannot run as HPVM-C means
// them are errors at the construct, rule "hpvm-c", one per launch: a
// barrier that not every instance reaches equally often (under a condition,
// after a return, in a loop left by a break, in a loop whose trip count
// depends on memory or on an instance id), a pointer into a local array
// chosen before a barrier and used after it, __hpvm__malloc in a replicated
// node, in a streaming graph or as an output of the graph, node-local
// memory used outside the node it belongs to, and an internal node that
// only allocates.
// RUN: not %hpvm-clang -O1 -emit-hpvm-ir -S %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
#include <hpvm.h>

typedef struct __attribute__((__packed__)) {
  float *a;
  size_t bytes_a;
  long n;
} Args;

static long id(void) { return __hpvm__getNodeInstanceID_x(__hpvm__getNode()); }

void after_return(float *a, size_t bytes_a, long n) {
  if (id() > n)
    return;
  __hpvm__barrier();
  a[id()] = 1;
}
// CHECK: barrier-errors.c:[[#@LINE-3]]:3: error: [hpvm-c] function 'after_return': __hpvm__barrier is under a condition (or after a return): every instance must reach each __hpvm__barrier, and as often

void from_memory(float *a, size_t bytes_a, long n) {
  for (int s = 0; s < a[0]; ++s)
    __hpvm__barrier();
}
// CHECK: barrier-errors.c:[[#@LINE-2]]:5: error: [hpvm-c] function 'from_memory': the trip count of a loop around __hpvm__barrier must follow from the node's parameters and extents alone (not from memory, instance ids or an enclosing loop's counter), to be the same for every instance and known when the graph starts

void from_id(float *a, size_t bytes_a, long n) {
  for (long s = 0; s < id(); ++s)
    __hpvm__barrier();
}
// CHECK: barrier-errors.c:[[#@LINE-2]]:5: error: [hpvm-c] function 'from_id': the trip count of a loop around __hpvm__barrier

void triangle(float *a, size_t bytes_a, long n) {
  for (long s = 0; s < n; ++s)
    for (long t = 0; t < s; ++t)
      __hpvm__barrier();
}
// CHECK: barrier-errors.c:[[#@LINE-2]]:7: error: [hpvm-c] function 'triangle': the trip count of a loop around __hpvm__barrier

void with_break(float *a, size_t bytes_a, long n) {
  for (long s = 0; s < n; ++s) {
    __hpvm__barrier();
    if (a[s] > 0)
      break;
  }
}
// CHECK: barrier-errors.c:[[#@LINE-5]]:5: error: [hpvm-c] function 'with_break': a loop around __hpvm__barrier may only be left by its test (no break, goto or return in it): every instance must reach the barrier as often

void array_pointer(float *a, size_t bytes_a, long n) {
  float tmp[4] = {0, 0, 0, 0};
  float *p = tmp;
  for (long k = 0; k < (long)a[id()] % 4; ++k)
    ++p;
  *p = a[id()];
  __hpvm__barrier();
  a[id()] = *p + tmp[id() % 4];
}
// CHECK: barrier-errors.c:[[#@LINE-5]]:5: error: [hpvm-c] function 'array_pointer': a pointer into an array of the leaf's own is chosen before __hpvm__barrier and used after it, which is not supported (index the array after the barrier instead)

void two_buffers(float *a, size_t bytes_a, float *b, size_t bytes_b) {
  float *p = a[id()] > 0 ? &a[id()] : &b[id()];
  __hpvm__barrier();
  *p = 1;
}
// CHECK: barrier-errors.c:[[#@LINE-4]]:{{[0-9]+}}: error: [hpvm-c] function 'two_buffers': a pointer that may point into one buffer or another is chosen before __hpvm__barrier and used after it, which is not supported (choose an index into one buffer instead)

void pointer_walk(float *a, size_t bytes_a, long n) {
  float *p = a;
  for (long s = 0; s < n; ++s) {
    __hpvm__barrier();
    p += (long)a[s];
  }
  *p = 1;
}
// CHECK: barrier-errors.c:[[#@LINE-2]]:6: error: [hpvm-c] function 'pointer_walk': a pointer that changes from one iteration to the next of a loop around __hpvm__barrier, other than by the same step every time, is not supported (index the buffer instead)

void allocate(long bytes) {
  void *p = __hpvm__malloc(bytes);
  __hpvm__return(2, p, bytes);
}
// CHECK: barrier-errors.c:[[#@LINE-3]]:13: error: [hpvm-c] function 'allocate': a node that calls __hpvm__malloc allocates for the instances of its parent: it must be created with no dims (__hpvm__createNodeND(0, ...)) inside the graph

void use(float *a, size_t bytes_a, long n, float *local, size_t bytes_local) {
  local[id()] = a[id()];
}

void replicated_allocation(float *a, size_t bytes_a, long n) {
  void *alloc = __hpvm__createNodeND(1, allocate, 4L);
  void *leaf = __hpvm__createNodeND(1, use, n);
  __hpvm__bindIn(alloc, 2, 0, 0);
  for (int p = 0; p < 3; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(alloc, leaf, 1, 0, 3, 0);
  __hpvm__edge(alloc, leaf, 1, 1, 4, 0);
}

void only_allocates(float *a, size_t bytes_a, long n) {
  void *alloc = __hpvm__createNodeND(0, allocate);
  __hpvm__bindIn(alloc, 2, 0, 0);
}
// CHECK: barrier-errors.c:[[#@LINE-3]]:17: error: [hpvm-c] function 'only_allocates': 'only_allocates' only creates nodes that allocate memory

typedef struct {
  float *p;
  size_t bytes;
} Local;

Local group_out(float *a, size_t bytes_a, long n) {
  void *alloc = __hpvm__createNodeND(0, allocate);
  __hpvm__bindIn(alloc, 2, 0, 0);
  void *leaf = __hpvm__createNodeND(1, use, n);
  for (int p = 0; p < 3; ++p)
    __hpvm__bindIn(leaf, p, p, 0);
  __hpvm__edge(alloc, leaf, 1, 0, 3, 0);
  __hpvm__edge(alloc, leaf, 1, 1, 4, 0);
  __hpvm__bindOut(alloc, 0, 0, 0);
  __hpvm__bindOut(alloc, 1, 1, 0);
}

Local as_output(float *a, size_t bytes_a, long n) {
  void *group = __hpvm__createNodeND(0, group_out);
  for (int p = 0; p < 3; ++p)
    __hpvm__bindIn(group, p, p, 0);
  __hpvm__bindOut(group, 0, 0, 0);
  __hpvm__bindOut(group, 1, 1, 0);
}

void outside(float *a, size_t bytes_a, long n) {
  void *group = __hpvm__createNodeND(0, group_out);
  void *other = __hpvm__createNodeND(1, use, n);
  for (int p = 0; p < 3; ++p) {
    __hpvm__bindIn(group, p, p, 0);
    __hpvm__bindIn(other, p, p, 0);
  }
  __hpvm__edge(group, other, 1, 0, 3, 0);
  __hpvm__edge(group, other, 1, 1, 4, 0);
}

void streamed(float *a, size_t bytes_a, long n) {
  __hpvm__barrier();
}

void host(Args *args) {
  __hpvm__wait(__hpvm__launch(0, after_return, args));
  __hpvm__wait(__hpvm__launch(0, from_memory, args));
  __hpvm__wait(__hpvm__launch(0, from_id, args));
  __hpvm__wait(__hpvm__launch(0, triangle, args));
  __hpvm__wait(__hpvm__launch(0, with_break, args));
  __hpvm__wait(__hpvm__launch(0, array_pointer, args));
  __hpvm__wait(__hpvm__launch(0, two_buffers, args));
  __hpvm__wait(__hpvm__launch(0, pointer_walk, args));
  __hpvm__wait(__hpvm__launch(0, replicated_allocation, args));
  __hpvm__wait(__hpvm__launch(0, only_allocates, args));
  __hpvm__wait(__hpvm__launch(0, as_output, args));
  // CHECK: barrier-errors.c:[[#@LINE-1]]:16: error: [hpvm-c] function 'host': node-local memory (__hpvm__malloc) is gone when the graph ends: it cannot be an output of the root 'as_output'
  __hpvm__wait(__hpvm__launch(0, outside, args));
  // CHECK: barrier-errors.c:{{[0-9]+}}:17: error: [hpvm-c] function 'use': leaf 'use' uses the memory allocated for each instance of 'group_out', outside it
  void *stream = __hpvm__launch(1, streamed, args);
  // CHECK: barrier-errors.c:{{[0-9]+}}:3: error: [hpvm-c] function 'streamed': __hpvm__barrier in a graph launched for streaming is not supported yet (docs/hpvm-c.md)
  __hpvm__push(stream, args);
  __hpvm__wait(stream);
}
