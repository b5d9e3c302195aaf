// hpvm-lower-hpvm-c on its own: each __hpvm__launch becomes the marker form
// of its graph in place. The root's arguments are loaded from the packed
// struct (volatile: as the launch reads them, whatever LLVM knows of them); a launch waited for at once is synchronous, one that the host
// works beside runs in the background (NOWAIT, 8); a leaf's region holds a
// loop per dim around its inlined body, whose instance id is the loop
// counter; a replicated internal node of leaves becomes its leaf over the
// product of the extents, the leaf's id the remainder of the counter and the
// internal node's the quotient; a root that only holds a leaf is left out,
// and one with more keeps the extents computed for its children as values.
// RUN: %clang -O1 -Xclang -disable-llvm-passes -D__HPVM__=1 -I %S/../../../frontends/c/include -S -emit-llvm %s -o %t.ll
// RUN: %hpvm-opt --lower-hpvm-c -S %t.ll -o - | FileCheck %s
// RUN: %hpvm-opt --lower-hpvm-c -S %t.ll -o - | FileCheck %s --check-prefix=STREAM
// The marker form it makes is what LowerMarkers and EXTRACT take.
// RUN: %hpvm-opt --lower-hpvm-c --lower-markers --extract %t.ll -disable-output
#include <hpvm.h>

void leaf(float *a, size_t bytes_a, long n) {
  __hpvm__attributes(1, a, 1, a);
  a[__hpvm__getNodeInstanceID_x(__hpvm__getNode())] += 1;
}

void root(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, leaf, n);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 2, 2, 0);
}

void tile(float *a, size_t bytes_a, long n) {
  void *self = __hpvm__getNode();
  long i = __hpvm__getNodeInstanceID_x(__hpvm__getParentNode(self)) * 16 +
           __hpvm__getNodeInstanceID_x(self);
  if (i < n)
    a[i] = 0;
}

void tiles(float *a, size_t bytes_a, long n) {
  void *l = __hpvm__createNodeND(1, tile, 16L);
  __hpvm__bindIn(l, 0, 0, 0);
  __hpvm__bindIn(l, 1, 1, 0);
  __hpvm__bindIn(l, 2, 2, 0);
}

void tiled(float *a, size_t bytes_a, long n) {
  void *t = __hpvm__createNodeND(1, tiles, (n + 15) / 16);
  __hpvm__bindIn(t, 0, 0, 0);
  __hpvm__bindIn(t, 1, 1, 0);
  __hpvm__bindIn(t, 2, 2, 0);
}

void pair(float *a, size_t bytes_a, long n) {
  void *x = __hpvm__createNodeND(1, leaf, n);
  void *y = __hpvm__createNodeND(1, leaf, n / 2);
  for (int p = 0; p < 3; ++p) {
    __hpvm__bindIn(x, p, p, 0);
    __hpvm__bindIn(y, p, p, 0);
  }
}

void host(void *args, int *busy) {
  __hpvm__wait(__hpvm__launch(0, root, args));
  void *dfg = __hpvm__launch(0, tiled, args);
  *busy = 1;
  __hpvm__wait(dfg);
  __hpvm__wait(__hpvm__launch(0, pair, args));
}

// A streaming launch starts a stream; each push is a frame: the graph,
// unfolded at the push with the arguments pushed, between
// __hpvmc_stream_push_begin (which also records where the frame's outputs
// are: after the root's parameters, 24 bytes in) and _push_end; the wait
// ends the stream.
void frames(void **inputs, int count) {
  void *graph = __hpvm__launch(1, root, inputs[0]);
  for (int f = 0; f < count; ++f)
    __hpvm__push(graph, inputs[f]);
  for (int f = 0; f < count; ++f)
    __hpvm__pop(graph);
  __hpvm__wait(graph);
}
// STREAM-LABEL: define {{.*}}@frames(
// STREAM:         [[G:%.*]] = call ptr @hpvmc_stream_begin()
// STREAM:         [[IN:%.*]] = load ptr, ptr
// STREAM:         [[OUTS:%.*]] = getelementptr inbounds i8, ptr [[IN]], i64 24
// STREAM-NEXT:    call void @hpvmc_stream_push_begin(ptr [[G]], ptr [[OUTS]])
// STREAM:         [[FRAME:%.*]] = call ptr (ptr, ...) @__hpvm_region_begin(ptr @hpvmc.name.{{[0-9]+}}, {{.*}}i32 8, i32 0)
// STREAM:         call void @__hpvm_region_end(ptr [[FRAME]])
// STREAM-NEXT:    call void @hpvmc_stream_push_end(ptr [[G]])
// STREAM:         call ptr @__hpvm__pop(ptr {{.*}}[[G]])
// STREAM:         call void @hpvmc_stream_end(ptr [[G]])
// STREAM-NOT:     @__hpvm__push(
// STREAM-LABEL: {{^}}}
// CHECK: @hpvmc.name = {{.*}} c"leaf\00"
// CHECK: @hpvmc.name.1 = {{.*}} c"tile\00"
// CHECK: @hpvmc.name.2 = {{.*}} c"pair\00"
// The node functions live on only in the launches.
// CHECK-NOT: define {{.*}}@leaf(
// CHECK-NOT: define {{.*}}@root(
// CHECK:       define {{.*}}@host(ptr noundef [[ARGS:%[0-9a-z]+]], ptr noundef [[BUSY:%[0-9a-z]+]])
// CHECK:       [[A:%.*]] = load volatile ptr, ptr {{%.*}}, align 1
// CHECK-NEXT:  [[AT1:%.*]] = getelementptr inbounds <{ ptr, i64, i64 }>, ptr [[ARGS]], i32 0, i32 1
// CHECK-NEXT:  [[BYTES:%.*]] = load volatile i64, ptr [[AT1]], align 1
// CHECK-NEXT:  [[AT2:%.*]] = getelementptr inbounds <{ ptr, i64, i64 }>, ptr [[ARGS]], i32 0, i32 2
// CHECK-NEXT:  [[N:%.*]] = load volatile i64, ptr [[AT2]], align 1
// CHECK-NEXT:  [[LEAF:%.*]] = call ptr (ptr, ...) @__hpvm_region_begin(ptr @hpvmc.name, i32 1, i32 1, i64 [[N]], i32 4, ptr [[A]], i64 [[BYTES]], i32 0)
// CHECK:       hpvmc.loop:
// CHECK-NEXT:  [[ID:%.*]] = phi i64 [ 0, %{{.*}} ], [ [[NEXT:%.*]], %hpvmc.next ]
// CHECK-NEXT:  icmp slt i64 [[ID]], [[N]]
// CHECK:       getelementptr inbounds float, ptr [[A]], i64 [[ID]]
// CHECK:       hpvmc.next:
// CHECK-NEXT:  [[NEXT]] = add nuw nsw i64 [[ID]], 1
// CHECK:       call void @__hpvm_region_end(ptr [[LEAF]])
// CHECK-NEXT:  call void @__hpvm__wait(ptr noundef [[ARGS]])
//
// The second graph: tiles is folded, tile runs over ((n + 15) / 16) * 16, in
// the background while the host stores.
// CHECK:       [[GROUPS:%.*]] = sdiv i64 {{.*}}, 16
// CHECK-NEXT:  [[FLAT:%.*]] = mul i64 [[GROUPS]], 16
// CHECK-NEXT:  [[TILE:%.*]] = call ptr (ptr, ...) @__hpvm_region_begin(ptr @hpvmc.name.1, i32 1, i32 1, i64 [[FLAT]], i32 4, ptr {{%.*}}, i64 {{%.*}}, i32 8, i32 0)
// CHECK:       [[FID:%.*]] = phi i64 [ 0,
// CHECK:       urem i64 [[FID]], 16
// CHECK-NEXT:  udiv i64 [[FID]], 16
// CHECK:       call void @__hpvm_region_end(ptr [[TILE]])
// CHECK-NEXT:  store i32 1, ptr [[BUSY]]
// CHECK-NEXT:  call void @__hpvm__wait(
//
// The third: a root of two leaves, the extents of both its values.
// CHECK:       [[HALF:%.*]] = sdiv i64 [[N2:%.*]], 2
// CHECK-NEXT:  [[PAIR:%.*]] = call ptr (ptr, ...) @__hpvm_region_begin(ptr @hpvmc.name.2, i32 4, ptr {{%.*}}, i64 {{%.*}}, i32 5, i64 [[N2]], i32 5, i64 [[HALF]], i32 0)
// CHECK-NEXT:  call ptr (ptr, ...) @__hpvm_region_begin(ptr @hpvmc.name.3, i32 1, i32 1, i64 [[N2]],
// CHECK:       call ptr (ptr, ...) @__hpvm_region_begin(ptr @hpvmc.name.4, i32 1, i32 1, i64 [[HALF]],
// CHECK:       call void @__hpvm_region_end(ptr [[PAIR]])
// CHECK:       {{^}}}

