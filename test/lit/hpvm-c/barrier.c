// __hpvm__barrier and __hpvm__malloc: a leaf with barriers becomes a node
// of phases run in order, one per stretch between barriers, with a loop
// around barriers a node run in order (SEQUENTIAL, 9) around the phases of
// its body, its trip count computed in front of the launch. Node-local
// memory from an allocation node and the scratch that carries values across
// barriers are buffers made in front of the launch (allocate.local,
// leaf.scratch) and freed once the launch has run: at once for a
// synchronous launch, after the wait for one that runs in the background
// (NOWAIT, 8). A phase names
// only the buffers it uses, and runs over the work-groups and their
// work-items as dims of their own ([groups, 16]: x is the work-item's id).
// RUN: %clang -O1 -Xclang -disable-llvm-passes -D__HPVM__=1 -I %S/../../../frontends/c/include -S -emit-llvm %s -o %t.ll
// RUN: %hpvm-opt --lower-hpvm-c -S %t.ll -o - | FileCheck %s
// RUN: %hpvm-clang -O1 -emit-hpvm-ir -S %s -o %t.g.ll
// RUN: %hpvm-opt --verify --extract --print %t.g.ll -disable-output | FileCheck %s --check-prefix=GRAPH
#include <hpvm.h>

typedef struct __attribute__((__packed__)) {
  float *a;
  size_t bytes_a;
  int steps;
} Args;

void allocate(void) {
  void *row = __hpvm__malloc(16 * sizeof(float));
  __hpvm__return(2, row, (size_t)(16 * sizeof(float)));
}

void leaf(float *a, size_t bytes_a, int steps, float *row, size_t bytes_row) {
  __hpvm__hint(CPU_OR_GPU_TARGET);
  __hpvm__attributes(1, a, 1, a);
  void *self = __hpvm__getNode();
  long l = __hpvm__getNodeInstanceID_x(self);
  long g = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self));
  float mine = a[g * 16 + l];
  for (int s = 0; s < steps; ++s) {
    row[l] = mine;
    __hpvm__barrier();
    mine += row[15 - l];
    __hpvm__barrier();
  }
  a[g * 16 + l] = mine;
}

void group(float *a, size_t bytes_a, int steps) {
  void *alloc = __hpvm__createNodeND(0, allocate);
  void *node = __hpvm__createNodeND(1, leaf, 16L);
  __hpvm__bindIn(node, 0, 0, 0);
  __hpvm__bindIn(node, 1, 1, 0);
  __hpvm__bindIn(node, 2, 2, 0);
  __hpvm__edge(alloc, node, 1, 0, 3, 0);
  __hpvm__edge(alloc, node, 1, 1, 4, 0);
}

void root(float *a, size_t bytes_a, int steps) {
  void *groups = __hpvm__createNodeND(1, group, bytes_a / (16 * sizeof(float)));
  __hpvm__bindIn(groups, 0, 0, 0);
  __hpvm__bindIn(groups, 1, 1, 0);
  __hpvm__bindIn(groups, 2, 2, 0);
}

void host(Args *args) {
  void *dfg = __hpvm__launch(0, root, args);
  __hpvm__wait(dfg);
}

void host_later(Args *args, float *x) {
  void *dfg = __hpvm__launch(0, root, args);
  x[0] = 1;
  __hpvm__wait(dfg);
}

// CHECK-LABEL: define {{.*}} @host(
// CHECK:      %allocate.local = call ptr @malloc(
// CHECK:      %leaf.scratch = call ptr @malloc(
// CHECK:      %leaf.node = call ptr (ptr, ...) @__hpvm_region_begin({{.*}}, i32 4, ptr %allocate.local, {{.*}}, i32 4, ptr %leaf.scratch, {{[^)]*}}, i32 0)
// CHECK:      %leaf.phase0.node = call ptr (ptr, ...) @__hpvm_region_begin({{.*}}, i32 1, i32 2, i64 %{{[0-9a-z.]+}}, i64 16, i32 4, ptr %{{[0-9]+}}, i64 %{{[0-9]+}}, i32 4, ptr %leaf.scratch, i64 %{{[0-9]+}}, i32 6, i32 7, i32 0)
// CHECK:      %leaf.loop1.node = call ptr (ptr, ...) @__hpvm_region_begin({{.*}}, i32 1, i32 1, i64 %{{.*}}, i32 9, i32 0)
// The loop's first phase stores the carried value into local memory: it
// uses no other buffer.
// CHECK:      %leaf.phase2.node = call ptr (ptr, ...) @__hpvm_region_begin({{.*}}, i32 1, i32 2, i64 %{{[0-9a-z.]+}}, i64 16, i32 4, ptr %allocate.local, i64 %{{[0-9]+}}, i32 4, ptr %leaf.scratch, i64 %{{[0-9]+}}, i32 6, i32 7, i32 0)
// CHECK:      %leaf.phase3.node = call ptr (ptr, ...) @__hpvm_region_begin(
// The step from one iteration to the next changes nothing that is kept (the
// counter is recomputed, the sum shares its slot): no phase.
// CHECK-NOT:  @__hpvm_region_begin
// CHECK:      call void @__hpvm_region_end(ptr %leaf.loop1.node)
// CHECK:      %leaf.phase4.node = call ptr
// CHECK:      call void @__hpvm_region_end(ptr %leaf.node)
// CHECK-NEXT: call void @free(ptr %allocate.local)
// CHECK-NEXT: call void @free(ptr %leaf.scratch)
// CHECK-NEXT: call void @__hpvm__wait(

// CHECK-LABEL: define {{.*}} @host_later(
// CHECK:      %leaf.node = call ptr (ptr, ...) @__hpvm_region_begin({{.*}}, i32 8, i32 0)
// CHECK:      call void @__hpvm__wait(
// CHECK-NEXT: call void @free(ptr %allocate.local)
// CHECK-NEXT: call void @free(ptr %leaf.scratch)

// GRAPH:      internal leaf dims [] targets cpu,nvptx,spirv
// GRAPH:        leaf leaf.phase0 dims {{\[}}[[GROUPS:[a-z0-9.]+]], 16{{\]}}
// GRAPH:        internal leaf.loop1 dims {{\[.*\]}} in order
// GRAPH:          leaf leaf.phase2 dims {{\[}}[[GROUPS]], 16{{\]}}
// GRAPH-NEXT:       param allocate.local: buffer inout
// GRAPH-NEXT:       param leaf.scratch: buffer inout
// GRAPH:          leaf leaf.phase3 dims {{\[}}[[GROUPS]], 16{{\]}}
// GRAPH-NOT:      leaf leaf.phase5
// GRAPH:        leaf leaf.phase4 dims {{\[}}[[GROUPS]], 16{{\]}}
// GRAPH-NEXT:     param a: buffer inout
