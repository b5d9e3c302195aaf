// `nowait` on a graph's node makes its launch asynchronous and
// `#pragma hpvm taskwait` waits for the thread's such launches: the clause
// becomes the marker tag NOWAIT (8), an "hpvm.nowait" bundle on the region,
// the same bundle on EXTRACT's @hpvm.launch (PREPARE puts it back on the
// region), and in the host code a call of hpvm_launch_nowait_or_exit
// instead of hpvm_launch_or_exit (their launch-site forms for `first` and
// `third`, one CPU leaf each: launch-site.c); taskwait is
// hpvm_exit_on_error(hpvm_wait_all()).
// clang-format off
// RUN: %hpvm-clang -O1 -emit-hpvm-ir -S %s -o %t.region.ll
// RUN: FileCheck %s --check-prefix=REGION < %t.region.ll
// RUN: %hpvm-opt --extract %t.region.ll -S -o %t.graph.ll
// RUN: FileCheck %s --check-prefix=GRAPH < %t.graph.ll
// RUN: %hpvm-opt --prepare --verify %t.graph.ll -S | FileCheck %s --check-prefix=REGION
// RUN: %hpvm-clang -O1 -S %s -o - | FileCheck %s --check-prefix=HOST
// clang-format on

void twice(long n, float *x, float *y) {
#pragma hpvm parallel for name(first) nowait inout(x[0:n])
  for (long i = 0; i < n; ++i)
    x[i] *= 2;
#pragma hpvm task name(second), nowait inout(y[0:n])
  {
#pragma hpvm parallel for name(inner) inout(y[0:n])
    for (long i = 0; i < n; ++i)
      y[i] += 1;
  }
#pragma hpvm parallel for name(third) inout(x[0:n])
  for (long i = 0; i < n; ++i)
    x[i] -= 1;
#pragma hpvm taskwait
}

// REGION-LABEL: define {{.*}}void @twice(
// REGION:         call token @llvm.directive.region.entry() [ "hpvm.node"({{.*}}), "hpvm.dims"({{.*}}), "hpvm.inout"({{.*}}), "hpvm.nowait"() ]
// REGION:         call token @llvm.directive.region.entry() [ "hpvm.node"({{.*}}), "hpvm.inout"({{.*}}), "hpvm.nowait"() ]
// REGION:         call token @llvm.directive.region.entry() [ "hpvm.node"({{.*}}), "hpvm.dims"({{.*}}), "hpvm.inout"({{.*}}) ]
// REGION-NOT:     hpvm.nowait
// REGION:         call i32 @hpvm_wait_all()

// GRAPH-LABEL: define {{.*}}void @twice(
// GRAPH:         call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.first, {{.*}}) [ "hpvm.nowait"() ]
// GRAPH:         call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.second, {{.*}}) [ "hpvm.nowait"() ]
// GRAPH:         call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.third, {{.*}}){{$}}
// GRAPH:         call i32 @hpvm_wait_all()

// HOST-LABEL: {{^}}twice:
// HOST:         call{{q?}} hpvm_launch_nowait_site_or_exit
// HOST:         call{{q?}} hpvm_launch_nowait_or_exit
// HOST:         call{{q?}} hpvm_launch_site_or_exit
// HOST:         call{{q?}} hpvm_wait_all
// HOST:         call{{q?}} hpvm_exit_on_error
