// __hpvm__barrier and __hpvm__malloc: a leaf with barriers becomes a leaf
// run once per work-group (over its folded parent's dims), whose body runs
// the group's work-items phase by phase: the stretches between barriers, each
// in a loop over the work-items marked hpvm.work_items (what the CPU backend
// vectorises), and a loop around barriers a loop around the phases of its
// body, its trip count computed in front of the launch. Node-local memory
// from an allocation node and the scratch that carries values across
// barriers are buffers made in front of the launch (allocate.local,
// leaf.scratch) and freed once the launch has run: at once for a synchronous
// launch, after the wait for one that runs in the background (NOWAIT, 8).
// Beside the phases, the region holds the leaf as written for one work-item,
// for a GPU that runs a group as its own work-group (hpvm.work_group.native).
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
// One region over the groups (GROUP, 10: of 16 work-items), with every
// buffer the leaf uses:
// CHECK:      %leaf.node = call ptr (ptr, ...) @__hpvm_region_begin({{.*}}, i32 1, i32 1, i64 %{{[0-9a-z.]+}}, i32 4, ptr %{{[0-9]+}}, i64 %{{[0-9]+}}, i32 4, ptr %allocate.local, i64 %{{[0-9]+}}, i32 4, ptr %leaf.scratch, i64 %{{[0-9]+}}, i32 6, i32 7, i32 10, i32 1, i64 16, i32 0)
// CHECK-NOT:  @__hpvm_region_begin
// A group as a GPU's work-group runs it: the leaf as written for one
// work-item, its barriers the device's...
// CHECK:      call i1 @hpvm.work_group.native()
// CHECK:      %work.item = call i64 @hpvm.work_item.id(i32 0)
// CHECK:      call void @hpvm.barrier()
// CHECK:      call void @hpvm.barrier()
// ... and as every device can, its phases. The first (the work-item's
// value), over the 16 work-items:
// CHECK:      br label %[[P0:hpvmc.loop[0-9]+]], !llvm.loop ![[ITEMS0:[0-9]+]]
// The loop around the barriers, with the two phases of its body; the step
// from one iteration to the next changes nothing that is kept (the counter
// is recomputed, the sum shares its slot): no third phase.
// CHECK:      [[STEPS:hpvmc.loop[0-9]+]]:
// CHECK:      br label %{{hpvmc.loop[0-9]+}}, !llvm.loop ![[ITEMS1:[0-9]+]]
// CHECK:      br label %{{hpvmc.loop[0-9]+}}, !llvm.loop ![[ITEMS2:[0-9]+]]
// CHECK-NOT:  !llvm.loop
// CHECK:      br label %[[STEPS]]{{$}}
// The last phase (the store of the result):
// CHECK:      br label %{{hpvmc.loop[0-9]+}}, !llvm.loop ![[ITEMS3:[0-9]+]]
// CHECK:      call void @__hpvm_region_end(ptr %leaf.node)
// CHECK-NEXT: call void @free(ptr %allocate.local)
// CHECK-NEXT: call void @free(ptr %leaf.scratch)
// CHECK-NEXT: call void @__hpvm__wait(

// CHECK-LABEL: define {{.*}} @host_later(
// CHECK:      %leaf.node = call ptr (ptr, ...) @__hpvm_region_begin({{.*}}, i32 8, i32 0)
// CHECK:      call void @__hpvm__wait(
// CHECK-NEXT: call void @free(ptr %allocate.local)
// CHECK-NEXT: call void @free(ptr %leaf.scratch)

// CHECK-DAG:  ![[ITEMS0]] = distinct !{![[ITEMS0]], ![[WORKITEMS:[0-9]+]], ![[NOUNROLL:[0-9]+]]}
// CHECK-DAG:  ![[WORKITEMS]] = !{!"hpvm.work_items"}
// CHECK-DAG:  ![[NOUNROLL]] = !{!"llvm.loop.unroll.disable"}
// CHECK-DAG:  ![[ITEMS1]] = distinct !{![[ITEMS1]], ![[WORKITEMS]], ![[NOUNROLL]]}

// GRAPH:      leaf leaf dims [leaf.dim0] groups of [16] targets cpu,nvptx,spirv
// GRAPH-NEXT:   param a: buffer inout
// GRAPH-NEXT:   param allocate.local: buffer inout
// GRAPH-NEXT:   param leaf.scratch: buffer inout
// GRAPH-NOT:  leaf.phase
