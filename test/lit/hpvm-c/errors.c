// Misuse of HPVM-C's graph calls is reported at the call, with the rule
// "hpvm-c", one error per launch; so are what is not supported yet
// (barrier-errors.c has more for barriers and node-local memory).
// RUN: not %hpvm-clang -O1 -emit-hpvm-ir -S %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// A leaf hinted to a GPU in a program built for the CPU alone (hpvm-clang's
// default) is refused, with the targets it allows and the way out.
// RUN: not %hpvm-clang -O1 -DDEVICE_ONLY -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGETS
// TARGETS: hpvm-clang: error: node gpu_only (allows nvptx,spirv, compiling for cpu) can run on none of the targets being compiled; compile for one it allows as well
#ifdef DEVICE_ONLY
#include <hpvm.h>
void gpu_only(float *a, size_t bytes_a) {
  __hpvm__hint(DEVICE);
  a[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = 0;
}
void launch_gpu_only(void *args) {
  __hpvm__wait(__hpvm__launch(0, gpu_only, args));
}
#else
#include <hpvm.h>

typedef struct __attribute__((__packed__)) {
  float *a;
  size_t bytes_a;
  long n;
} Args;

void leaf(float *a, size_t bytes_a, long n) {
  __hpvm__attributes(1, a, 1, a);
  a[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] += 1;
}

void leaf_int(float *a, size_t bytes_a, int n) {
  a[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = n;
}

// A child's parameter that does not exist.
void child_out_of_range(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf, n);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 2, 3, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'child_out_of_range': __hpvm__bindIn binds parameter 3 of 'leaf', which has 3 parameters

// A parent's parameter that does not exist.
void parent_out_of_range(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf, n);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 5, 2, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'parent_out_of_range': __hpvm__bindIn binds parameter 5 of 'parent_out_of_range', which has 3 parameters

// long to int.
void type_mismatch(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf_int, n);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 2, 2, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'type_mismatch': __hpvm__bindIn binds parameter 2 of 'type_mismatch' (i64) to parameter 2 of 'leaf_int' (i32): the types differ

void bound_twice(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf, n);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 2, 2, 0);
  __hpvm__bindIn(l, 2, 2, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'bound_twice': parameter 2 of 'leaf' is bound twice

void unbound(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf, n);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
}
// CHECK: errors.c:[[#@LINE-4]]:13: error: [hpvm-c] function 'unbound': parameter 2 of 'leaf' is not bound (__hpvm__bindIn or __hpvm__edge)

void not_a_node(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf, n);
  __hpvm__bindIn(a, 0, 0, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'not_a_node': __hpvm__bindIn must name a node this function created before, not %a

void attributes_value(float *a, size_t bytes_a, long n) {
  __hpvm__attributes(1, a + 1, 0);
  a[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = 0;
}
// CHECK: errors.c:[[#@LINE-3]]:3: error: [hpvm-c] function 'attributes_value': __hpvm__attributes names %add.ptr, which is not a pointer parameter of 'attributes_value'

void no_size(float *a, float v, long n) {
  a[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = v;
}
// CHECK: errors.c:[[#@LINE-2]]:{{[0-9]+}}: error: [hpvm-c] function 'no_size': pointer parameter 0 of leaf 'no_size' is not followed by its size in bytes (an integer parameter), as HPVM-C passes every buffer

void barrier(float *a, size_t bytes_a, long n) {
  if (n > 1)
    __hpvm__barrier();
}
// CHECK: errors.c:[[#@LINE-2]]:5: error: [hpvm-c] function 'barrier': __hpvm__barrier is under a condition (or after a return): every instance must reach each __hpvm__barrier, and as often

void local_memory(float *a, size_t bytes_a, long n) {
  float *tile = __hpvm__malloc(64);
  tile[0] = a[0];
  a[1] = tile[0];
}
// CHECK: errors.c:[[#@LINE-3]]:13: error: [hpvm-c] function 'local_memory': leaf 'local_memory' calls __hpvm__malloc, so it may only allocate memory and return it (__hpvm__return) to the nodes that use it

typedef struct {
  long n;
} Out;

Out count(float *a, size_t bytes_a, long n) {
  __hpvm__return(1, n);
}

Out loaded(float *a, size_t bytes_a, long n) {
  __hpvm__return(1, (long)a[0]);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'loaded': the outputs of a node may only be computed from the node's parameters and constants, not from %{{.*}}

void take(float *a, size_t bytes_a, int n) { a[0] = n; }

void no_output(float *a, size_t bytes_a, long n) {
  void *x = __hpvm__createNodeND(0, leaf);
  void *y = __hpvm__createNodeND(0, leaf);
  __hpvm__bindIn(x, 0, 0, 0);
  __hpvm__bindIn(x, 1, 1, 0);
  __hpvm__bindIn(x, 2, 2, 0);
  __hpvm__bindIn(y, 0, 0, 0);
  __hpvm__bindIn(y, 1, 1, 0);
  __hpvm__edge(x, y, 1, 0, 2, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'no_output': 'leaf' has no output 0 (it has 0)

void edge_types(float *a, size_t bytes_a, long n) {
  void *x = __hpvm__createNodeND(0, count);
  void *y = __hpvm__createNodeND(0, take);
  __hpvm__bindIn(x, 0, 0, 0);
  __hpvm__bindIn(x, 1, 1, 0);
  __hpvm__bindIn(x, 2, 2, 0);
  __hpvm__bindIn(y, 0, 0, 0);
  __hpvm__bindIn(y, 1, 1, 0);
  __hpvm__edge(x, y, 1, 0, 2, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'edge_types': __hpvm__edge joins output 0 of 'count' (i64) to parameter 2 of 'take' (i32): the types differ

Out relay(float *a, size_t bytes_a, long n) {
  a[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] = n;
  __hpvm__return(1, n);
}

void cycle(float *a, size_t bytes_a, long n) {
  void *x = __hpvm__createNodeND(0, relay);
  void *y = __hpvm__createNodeND(0, relay);
  __hpvm__bindIn(x, 0, 0, 0);
  __hpvm__bindIn(x, 1, 1, 0);
  __hpvm__bindIn(y, 0, 0, 0);
  __hpvm__bindIn(y, 1, 1, 0);
  __hpvm__edge(x, y, 1, 0, 2, 0);
  __hpvm__edge(y, x, 1, 0, 2, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'cycle': __hpvm__edge makes a cycle: 'relay' takes an output of a node that depends on it

Out unbound_output(float *a, size_t bytes_a, long n) {
  void *x = __hpvm__createNodeND(0, count);
  __hpvm__bindIn(x, 0, 0, 0);
  __hpvm__bindIn(x, 1, 1, 0);
  __hpvm__bindIn(x, 2, 2, 0);
  __hpvm__bindOut(x, 0, 1, 0);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'unbound_output': output 0 of 'unbound_output' is not bound (__hpvm__bindOut)

void streaming_bind(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf, n);
  __hpvm__bindIn(l, 0, 0, 1);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'streaming_bind': __hpvm__bindIn with streaming (the last operand 1) belongs in a graph launched for streaming (__hpvm__launch(1, ...))

void branches(float *a, size_t bytes_a, long n) {
  if (n > 4)
    __hpvm__createNodeND(1, leaf, n);
}
// CHECK: errors.c:[[#@LINE-3]]:7: error: [hpvm-c] function 'branches': internal node function 'branches' has branches: it may only create and bind nodes, unconditionally

void side_effect(float *a, size_t bytes_a, long n) {
  a[0] = 1;
  void *l = __hpvm__createNodeND(1, leaf, n);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 2, 2, 0);
}
// CHECK: errors.c:[[#@LINE-6]]:8: error: [hpvm-c] function 'side_effect': internal node function 'side_effect' may only create and bind nodes, and compute their extents from its parameters; it writes memory

void extent_from_memory(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf, (long)a[0]);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 2, 2, 0);
}
// CHECK: errors.c:[[#@LINE-5]]:49: error: [hpvm-c] function 'extent_from_memory': internal node function 'extent_from_memory' may only create and bind nodes, and compute their extents from its parameters; it reads memory

void itself(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(0, itself);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 2, 2, 0);
}
// CHECK: errors.c:[[#@LINE-5]]:13: error: [hpvm-c] function 'itself': node function 'itself' creates itself

void above_root(float *a, size_t bytes_a, long n) {
  a[0] = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(__hpvm__getNode()));
}
// CHECK: errors.c:[[#@LINE-2]]:10: error: [hpvm-c] function 'above_root': __hpvm__getParentNode goes above the root of the graph

void *escaped;
void handle_escapes(float *a, size_t bytes_a, long n) {
  escaped = __hpvm__getNode();
}
// CHECK: errors.c:[[#@LINE-2]]:13: error: [hpvm-c] function 'handle_escapes': a node handle may only be passed to HPVM-C's queries

void bad_hint(float *a, size_t bytes_a, long n) {
  __hpvm__hint((enum Target)n);
}
// CHECK: errors.c:[[#@LINE-2]]:3: error: [hpvm-c] function 'bad_hint': __hpvm__hint needs a constant target of hpvm.h's enum Target

void host(Args *args, void (*f)(float *, size_t, long)) {
  __hpvm__launch(0, child_out_of_range, args);
  __hpvm__launch(0, parent_out_of_range, args);
  __hpvm__launch(0, type_mismatch, args);
  __hpvm__launch(0, bound_twice, args);
  __hpvm__launch(0, unbound, args);
  __hpvm__launch(0, not_a_node, args);
  __hpvm__launch(0, attributes_value, args);
  __hpvm__launch(0, no_size, args);
  __hpvm__launch(0, barrier, args);
  __hpvm__launch(0, local_memory, args);
  __hpvm__launch(0, loaded, args);
  __hpvm__launch(0, no_output, args);
  __hpvm__launch(0, edge_types, args);
  __hpvm__launch(0, cycle, args);
  __hpvm__launch(0, unbound_output, args);
  __hpvm__launch(0, streaming_bind, args);
  __hpvm__launch(0, branches, args);
  __hpvm__launch(0, side_effect, args);
  __hpvm__launch(0, extent_from_memory, args);
  __hpvm__launch(0, itself, args);
  __hpvm__launch(0, above_root, args);
  __hpvm__launch(0, handle_escapes, args);
  __hpvm__launch(0, bad_hint, args);
  void *stream = __hpvm__launch(1, leaf, args);
  escaped = stream;
  // CHECK: errors.c:[[#@LINE-1]]:11: error: [hpvm-c] function 'host': the handle of a streaming launch may only go to __hpvm__push, __hpvm__pop and __hpvm__wait (kept in a local variable)
  __hpvm__launch(0, f, args);
  // CHECK: errors.c:[[#@LINE-1]]:3: error: [hpvm-c] function 'host': __hpvm__launch must name a node function, not %f
}
#endif
