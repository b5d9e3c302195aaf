// Rules the frontend leaves to the HPVM IR verifier (docs/ir.md §2.3) are
// reported with the source location of the instruction, like Clang's
// errors; -v adds the instruction.
// RUN: not %hpvm-clang -emit-hpvm-ir -S %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not %hpvm-clang -emit-hpvm-ir -S -v %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERBOSE
// The file is named as the command line names it, absolute or relative,
// from whatever directory.
// RUN: rm -rf %t && mkdir -p %t/src %t/work && cp %s %t/src/rules.c
// RUN: not %hpvm-clang -emit-hpvm-ir -S %t/src/rules.c -o /dev/null 2>&1 | FileCheck %s --check-prefix=ABS -DDIR=%t
// RUN: cd %t/work && not %hpvm-clang -emit-hpvm-ir -S ../src/rules.c -o /dev/null 2>&1 | FileCheck %s --check-prefix=REL
// ABS: {{^}}[[DIR]]/src/rules.c:{{[0-9]+}}:5: error: [write-to-input]
// REL: {{^}}../src/rules.c:{{[0-9]+}}:5: error: [write-to-input]

static void set(float *p, float v) { *p = v; }

void write_through_call(float *a, int n) {
#pragma hpvm parallel for in(a[0:n]) name(k)
  for (int i = 0; i < n; i++)
    set(&a[i], 0);
}
// CHECK: err-ir-rules.c:[[#@LINE-2]]:5: error: [write-to-input] function 'write_through_call', node 'k': writes through %arrayidx, part of buffer %a which the node declares hpvm.in only
// VERBOSE: err-ir-rules.c:[[#@LINE-3]]:5: error: [write-to-input]
// VERBOSE-NEXT: at: call void @set(

void internal_load(float *a, int n) {
#pragma hpvm task name(outer)
  {
    int m = (int)a[0];
#pragma hpvm parallel for inout(a[0:n]) name(inner)
    for (int i = 0; i < m; i++)
      a[i] = 0;
  }
}
// CHECK: err-ir-rules.c:[[#@LINE-6]]:18: error: [internal-side-effect] function 'internal_load', node 'outer': an internal node may not read memory outside its children
// CHECK: err-ir-rules.c:[[#@LINE-6]]:1: error: [dynamic-extent] function 'internal_load', node 'inner': extent %inner.dim0 depends on an instance id or on memory of an enclosing node
