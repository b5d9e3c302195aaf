// OpenMP constructs a port keeps: && and || reductions (an instance whose
// copy decides the result stores it; a shared int other than 0 or 1 becomes
// 1 by compare-and-swap, a _Bool needs none), a task of one statement, a
// scalar whose address is taken (here by a later reduction) read as an in()
// buffer rather than from memory no clause names, and a private() copy read
// before it is written: a warning naming it, and the copy starts at 0.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll 2> %t.err
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: %hpvm-opt --verify --extract %t.ll -disable-output

void logical(int n, const int *v, int *all, _Bool *any) {
  int ok = 1;
  _Bool found = 0;
#pragma hpvm parallel for name(logical) in(v[0:n]) reduction(&&: ok) reduction(||: found)
  for (int i = 0; i < n; i++) {
    ok = ok && v[i] > 0;
    found = found || v[i] == 7;
  }
  *all = ok;
  *any = found;
}
// CHECK: %logical.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %v, i64 %v.bytes), "hpvm.inout"(ptr %ok, i64 4, ptr %found, i64 1) ]
// CHECK: store i32 0, ptr %ok
// CHECK: cmpxchg ptr %ok, i32 %{{.*}}, i32 1 monotonic monotonic
// CHECK: store i8 1, ptr %found
// CHECK: call void @llvm.directive.region.exit(token %logical.region)

void single_statement(int n, const float *x, float *y) {
#pragma hpvm task name(single) in(x[0:n]) out(y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[i] + 1;
}
// CHECK: %single.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.in"(ptr %x, i64 %x.bytes), "hpvm.out"(ptr %y, i64 %x.bytes) ]

double read_then_reduce(int n, const double *a, double *b) {
  double scale = 2, sum = 0;
#pragma hpvm parallel for name(reader) in(a[0:n]) out(b[0:n])
  for (int i = 0; i < n; i++)
    b[i] = a[i] * scale;
#pragma hpvm parallel for name(reducer) in(b[0:n]) reduction(+: sum, scale)
  for (int i = 0; i < n; i++) {
    sum += b[i];
    scale += 1;
  }
  return sum + scale;
}
// No node of the reader's graph writes `scale`: it takes the value scale has
// when the graph starts (here the constant 2), not its memory.
// CHECK: %reader.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %b.bytes), "hpvm.out"(ptr %b, i64 %b.bytes) ]
// CHECK: fmul double %{{.*}}, 2.000000e+00

// In one graph, a node that reads what an earlier sibling reduces reads it
// from memory, after that sibling.
double reduce_then_read(int n, const double *a, double *b) {
  double total = 0;
#pragma hpvm task name(graph)
  {
#pragma hpvm parallel for name(total) in(a[0:n]) reduction(+: total)
    for (int i = 0; i < n; i++)
      total += a[i];
#pragma hpvm parallel for name(use) in(a[0:n]) out(b[0:n])
    for (int i = 0; i < n; i++)
      b[i] = a[i] / total;
  }
  return total;
}
// CHECK: %use.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes, ptr %total, i64 8), "hpvm.out"(ptr %b, i64 %a.bytes) ]

void read_first(int n, const float *x, float *y) {
  float t;
#pragma hpvm parallel for name(first) private(t) in(x[0:n]) out(y[0:n])
  for (int i = 0; i < n; i++) {
    if (x[i] > 0)
      t = x[i];
    y[i] = t;
  }
}
// WARN: openmp-clauses.c:[[@LINE-3]]:12: warning: private variable 't' may be read here before this instance writes it; a private() copy starts without a value (OpenMP leaves it undefined), so here it starts at 0; write 't' first on every path, or use firstprivate(t) for the value it has before the loop
// The copy starts at 0 on the path that does not write it.
// CHECK: %first.region = call token @llvm.directive.region.entry()
// CHECK: select i1 %{{.*}}, float %{{.*}}, float 0.000000e+00

// `continue` ends an instance: the analysis runs on the loop, not its body.
void read_first_continue(int n, const float *x, float *y) {
  float t;
#pragma hpvm parallel for name(third) private(t) in(x[0:n]) out(y[0:n])
  for (int i = 0; i < n; i++) {
    if (x[i] == 5)
      continue;
    if (x[i] > 0)
      t = x[i];
    y[i] = x[i] > 0 ? t : 0;
  }
}
// WARN: openmp-clauses.c:[[@LINE-3]]:23: warning: private variable 't' may be read here

void written_first(int n, const float *x, float *y) {
  float t;
#pragma hpvm parallel for name(second) private(t) in(x[0:n]) out(y[0:n])
  for (int i = 0; i < n; i++) {
    t = x[i];
    if (t > 0)
      t += 1;
    y[i] = t;
  }
}
// WARN-NOT: warning:
