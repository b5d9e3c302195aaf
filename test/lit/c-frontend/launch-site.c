// A launch of a graph that is one leaf compiled for the CPU gets a launch
// site (hpvm_rt.h, hpvm_launch_site): a zeroed internal global named after
// the node, an inline check of its limit and budget, an indirect call of
// the function the runtime put in it, and hpvm_launch_site_or_exit
// (hpvm_launch_nowait_site_or_exit for a `nowait` one) otherwise. Graphs of
// several nodes, leaves that may not run on the CPU and programs without
// the cpu target get none.
// clang-format off
// RUN: %hpvm-clang -O1 --hpvm-target=cpu,spirv -S %s -o - | FileCheck %s --check-prefix=HOST
// RUN: %hpvm-clang -O1 --hpvm-target=spirv -S %s -o - | FileCheck %s --check-prefix=NOCPU
// clang-format on

void scale(long n, float *x) {
#pragma hpvm parallel for name(scale) inout(x[0:n])
  for (long i = 0; i < n; ++i)
    x[i] = 2.0f * x[i];
}
// HOST-LABEL: {{^}}scale:
// HOST:         hpvm.site.scale
// HOST:         call{{q?}} *
// HOST:         call{{q?}} hpvm_launch_site_or_exit
// HOST-NOT:     hpvm_launch_or_exit
// HOST:         .Lfunc_end

void grid(long n, long m, float *x) {
#pragma hpvm parallel for collapse(2) name(grid) inout(x[0:n * m])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j)
      x[i * m + j] += 1.0f;
}
// HOST-LABEL: {{^}}grid:
// HOST:         hpvm.site.grid
// HOST:         call{{q?}} hpvm_launch_site_or_exit
// HOST:         .Lfunc_end

void later(long n, float *x) {
#pragma hpvm parallel for name(later) nowait inout(x[0:n])
  for (long i = 0; i < n; ++i)
    x[i] = x[i] + 1.0f;
}
// HOST-LABEL: {{^}}later:
// HOST:         hpvm.site.later
// HOST:         call{{q?}} *
// HOST:         call{{q?}} hpvm_launch_nowait_site_or_exit
// HOST-NOT:     hpvm_launch_nowait_or_exit
// HOST:         .Lfunc_end

void two(long n, float *x, float *y) {
#pragma hpvm task name(two) inout(x[0:n], y[0:n])
  {
#pragma hpvm parallel for name(first) inout(x[0:n])
    for (long i = 0; i < n; ++i)
      x[i] = x[i] + 1.0f;
#pragma hpvm parallel for name(second) inout(y[0:n])
    for (long i = 0; i < n; ++i)
      y[i] = y[i] * 3.0f;
  }
}
// HOST-LABEL: {{^}}two:
// HOST-NOT:     hpvm.site
// HOST:         call{{q?}} hpvm_launch_or_exit
// HOST-NOT:     hpvm.site
// HOST:         .Lfunc_end

void gpu_only(long n, float *x) {
#pragma hpvm parallel for name(gpu_only) target(spirv) inout(x[0:n])
  for (long i = 0; i < n; ++i)
    x[i] = -x[i];
}
// HOST-LABEL: {{^}}gpu_only:
// HOST-NOT:     hpvm.site
// HOST:         call{{q?}} hpvm_launch_or_exit
// HOST-NOT:     hpvm.site
// HOST:         .Lfunc_end

// NOCPU-NOT: hpvm.site
// NOCPU-NOT: _site_or_exit
