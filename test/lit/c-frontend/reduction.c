// reduction(op: x) on `parallel for`: each instance works on a private x
// that starts at the operator's identity and combines it into the shared x
// atomically; x becomes an inout buffer of sizeof(x). + - & | ^ min max
// are atomicrmw operations (float ones too); * is a compare-and-swap loop.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %hpvm-opt --verify --extract %t.ll -disable-output

float sum(const float *a, int n) {
  float s = 0;
#pragma hpvm parallel for in(a[0:n]) reduction(+: s) name(sum)
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}
// CHECK-LABEL: define dso_local float @sum(
// CHECK: %sum.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i32 %n), "hpvm.in"(ptr %a, i64 %a.bytes), "hpvm.inout"(ptr %s, i64 4) ]
// CHECK: atomicrmw fadd ptr %s, float %{{.*}} monotonic
// CHECK: llvm.directive.region.exit(token %sum.region)

long ops(const int *v, int n) {
  long total = 0;
  int lo = 1 << 30, hi = -(1 << 30), bits = 0, any = 0, parity = 0;
  double prod = 1;
  float fmin = 1e30f;
#pragma hpvm parallel for in(v[0:n]) reduction(+: total) reduction(min: lo, fmin) reduction(max: hi) reduction(&: bits) reduction(|: any) reduction(^: parity) reduction(*: prod) name(ops)
  for (int i = 0; i < n; i++) {
    total += v[i];
    lo = v[i] < lo ? v[i] : lo;
    fmin = v[i] < fmin ? v[i] : fmin;
    hi = v[i] > hi ? v[i] : hi;
    bits &= v[i];
    any |= v[i];
    parity ^= v[i];
    if (v[i] == 0)
      continue; // still combined: the body is wrapped so continue reaches it
    prod *= v[i];
  }
  return total + lo + hi + bits + any + parity + (long)prod + (long)fmin;
}
// CHECK-LABEL: define dso_local i64 @ops(
// CHECK: "hpvm.inout"(ptr %total, i64 8, ptr %lo, i64 4, ptr %fmin, i64 4, ptr %hi, i64 4, ptr %bits, i64 4, ptr %any, i64 4, ptr %parity, i64 4, ptr %prod, i64 8) ]
// CHECK-DAG: atomicrmw add ptr %total
// CHECK-DAG: atomicrmw min ptr %lo
// CHECK-DAG: atomicrmw fmin ptr %fmin
// CHECK-DAG: atomicrmw max ptr %hi
// CHECK-DAG: atomicrmw and ptr %bits
// CHECK-DAG: atomicrmw or ptr %any
// CHECK-DAG: atomicrmw xor ptr %parity
// CHECK-DAG: cmpxchg ptr %prod
// CHECK: llvm.directive.region.exit
