// `#pragma hpvm data` and `#pragma hpvm update` become calls of hpvm-rt's
// data regions around and between the graphs: each buffer's pointer and
// byte size are evaluated once, hpvm_data_enter for each before the data
// statement and hpvm_data_exit for each after it, in reverse order; an
// update is one hpvm_data_request (host) or hpvm_data_update (device) per
// item, for exactly the elements it names. Sections and sizes are those of
// node clauses; a buffer of no bytes is skipped.
// RUN: %hpvm-clang -O1 -emit-hpvm-ir -S %s -o - | FileCheck %s

// A graph in another function: the runtime keys regions by pointer.
static void scale(float *a, long n) {
#pragma hpvm parallel for name(scale) inout(a[0:n])
  for (long i = 0; i < n; i++)
    a[i] *= 2;
}

void region(float *a, float *b, double *c, long n, int lo, int len, int T) {
  float s = 0;
#pragma hpvm data inout(a[0:n]) in(b[lo:len]) out(c[:n], s)
  {
    for (int t = 0; t < T; ++t) {
#pragma hpvm parallel for name(step) in(b[lo:len]) inout(a[0:n])
      for (long i = 0; i < n; i++)
        a[i] += b[lo + i % len];
      scale(a, n);
    }
#pragma hpvm update host(a[0:n], c[lo:len])
    a[0] = (float)c[lo];
#pragma hpvm update device(a[:1], s)
  }
}

// CHECK-LABEL: define dso_local void @region(
// CHECK: %s = alloca float
// CHECK: %a.bytes = shl i64 %n, 2
// CHECK: %[[LO:[a-z0-9.]+]] = sext i32 %lo to i64
// CHECK: %[[LEN:[a-z0-9.]+]] = sext i32 %len to i64
// CHECK: %[[END:[a-z0-9.]+]] = add nsw i64 %[[LO]], %[[LEN]]
// CHECK: %b.bytes = shl nsw i64 %[[END]], 2
// CHECK: %[[CBYTES:[a-z0-9.]+]] = shl i64 %n, 3
// CHECK: %[[AIN:[a-z0-9.]+]] = icmp sgt i64 %a.bytes, 0
// CHECK: call i32 @hpvm_data_enter(ptr noundef %a, i64 noundef %a.bytes)
// CHECK-NEXT: call void @hpvm_exit_on_error(
// CHECK: call i32 @hpvm_data_enter(ptr noundef %b, i64 noundef %b.bytes)
// CHECK-NEXT: call void @hpvm_exit_on_error(
// CHECK: call i32 @hpvm_data_enter(ptr noundef %c, i64 noundef %[[CBYTES]])
// CHECK-NEXT: call void @hpvm_exit_on_error(
// CHECK: call i32 @hpvm_data_enter(ptr noundef nonnull %s, i64 noundef 4)
// CHECK-NEXT: call void @hpvm_exit_on_error(
// The graphs inside are graphs of their own, with the same pointers.
// CHECK: %step.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %n), "hpvm.in"(ptr %b, i64 %b.bytes), "hpvm.inout"(ptr %a, i64 %a.bytes) ]
// CHECK: call void @llvm.directive.region.exit(token %step.region)
// CHECK: call void @scale(ptr noundef %a, i64 noundef %n)
// update host(a[0:n], c[lo:len]): c from element lo, len elements.
// CHECK: %[[COFF:[a-z0-9.]+]] = shl nsw i64 %[[LO]], 3
// CHECK: %[[CLEN:[a-z0-9.]+]] = shl nsw i64 %[[LEN]], 3
// CHECK: call i32 @hpvm_data_request(ptr noundef %a, i64 noundef %a.bytes)
// CHECK: %[[CPTR:[a-z0-9.]+]] = getelementptr inbounds i8, ptr %c, i64 %[[COFF]]
// CHECK: call i32 @hpvm_data_request(ptr noundef %[[CPTR]], i64 noundef %[[CLEN]])
// CHECK: store float
// update device(a[:1], s)
// CHECK: call i32 @hpvm_data_update(ptr noundef nonnull %a, i64 noundef 4)
// CHECK: call i32 @hpvm_data_update(ptr noundef nonnull %s, i64 noundef 4)
// The exits, last buffer first.
// CHECK: call i32 @hpvm_data_exit(ptr noundef nonnull %s)
// CHECK-NEXT: call void @hpvm_exit_on_error(
// CHECK: call i32 @hpvm_data_exit(ptr noundef %c)
// CHECK: call i32 @hpvm_data_exit(ptr noundef %b)
// CHECK: br i1 %[[AIN]],
// CHECK: call i32 @hpvm_data_exit(ptr noundef nonnull %a)
// CHECK: ret void

// Regions nest; an array is its whole size; an update outside a region is
// allowed (it does nothing at run time).
float nested(float *p, long n) {
  float grid[64];
  for (int i = 0; i < 64; i++)
    grid[i] = (float)i;
#pragma hpvm update device(grid)
#pragma hpvm data inout(grid) in(p[0:n])
  {
#pragma hpvm data inout(grid[0:32])
    {
#pragma hpvm parallel for name(add) in(p[0:n]) inout(grid)
      for (int i = 0; i < 64; i++)
        grid[i] += p[i % n];
    }
#pragma hpvm update host(grid[8:])
  }
  return grid[9];
}

// CHECK-LABEL: define dso_local float @nested(
// CHECK: %grid = alloca [64 x float]
// CHECK: call i32 @hpvm_data_update(ptr noundef nonnull %grid, i64 noundef 256)
// CHECK: %p.bytes = shl i64 %n, 2
// CHECK: call i32 @hpvm_data_enter(ptr noundef nonnull %grid, i64 noundef 256)
// CHECK: call i32 @hpvm_data_enter(ptr noundef %p, i64 noundef %p.bytes)
// CHECK: call i32 @hpvm_data_enter(ptr noundef nonnull %grid, i64 noundef 128)
// CHECK: %add.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 64), "hpvm.in"(ptr %p, i64 %p.bytes), "hpvm.inout"(ptr %grid, i64 256) ]
// CHECK: call i32 @hpvm_data_exit(ptr noundef nonnull %grid)
// grid[8:] of a 64-element array: elements 8 to 63.
// CHECK: %[[G8:[a-z0-9.]+]] = getelementptr inbounds i8, ptr %grid, i64 32
// CHECK: call i32 @hpvm_data_request(ptr noundef nonnull %[[G8]], i64 noundef 224)
// CHECK: call i32 @hpvm_data_exit(ptr noundef %p)
// CHECK: call i32 @hpvm_data_exit(ptr noundef nonnull %grid)
