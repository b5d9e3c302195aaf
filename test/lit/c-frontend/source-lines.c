// The rewritten source keeps every line where it was: Clang's warnings
// (given once, by the first parse) and debug locations point at the user's
// lines and columns; the region entry is at the pragma's '#'.
// RUN: %hpvm-clang -emit-hpvm-ir -S -g -Wall %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --check-prefix=DBG < %t.ll
// Without -g the line tables used for diagnostics are dropped again.
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o - 2>/dev/null | FileCheck %s --check-prefix=NODBG

void scale(float *x, float s, int n) {
#pragma hpvm parallel for inout(x[0:n]) name(scale)
  for (int i = 0; i < n; i++) {
    int unused;
    x[i] = x[i] * s;
  }
}

// WARN: source-lines.c:12:9: warning: unused variable 'unused' [-Wunused-variable]
// WARN-NOT: warning:

// DBG: %scale.region = call token @llvm.directive.region.entry() {{.*}}, !dbg ![[ENTRY:[0-9]+]]
// DBG: store float %{{.*}}, !dbg ![[STORE:[0-9]+]]
// DBG: call void @llvm.directive.region.exit(token %scale.region), !dbg ![[EXIT:[0-9]+]]
// DBG-DAG: ![[ENTRY]] = !DILocation(line: 10, column: 1,
// DBG-DAG: ![[STORE]] = !DILocation(line: 13, column: 10,
// DBG-DAG: ![[EXIT]] = !DILocation(line: 14, column: {{[0-9]+}},

// NODBG-NOT: !dbg
// NODBG-NOT: DILocation
