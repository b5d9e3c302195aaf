// Gathers on Intel processors that the Gather Data Sampling microcode fix
// slowed down (Skylake to Tiger and Rocket Lake): the CPU backend asks
// LLVM for scalar loads there (prefer-no-gather, prefer-no-scatter), so a
// jammed syrk, whose four instances each load A[j][k] a row apart, loads
// them one by one; on Sapphire Rapids (not affected) and with
// -mattr=-prefer-no-gather it gathers them, as LLVM's tuning says.
// clang-format off
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=cascadelake %t.g.ll -S -o - | FileCheck %s --check-prefix=SCALAR
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake %t.g.ll -S -o - | FileCheck %s --check-prefix=SCALAR
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=icelake-server %t.g.ll -S -o - | FileCheck %s --check-prefix=SCALAR
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=cascadelake %t.g.ll -filetype=asm -o - | FileCheck %s --check-prefix=SCALAR-ASM
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=sapphirerapids %t.g.ll -S -o - | FileCheck %s --check-prefix=GATHER
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=cascadelake -mattr=-prefer-no-gather %t.g.ll -S -o - | FileCheck %s --check-prefix=GATHER
// clang-format on

void syrk(long n, long m, float alpha, float C[n][n], float A[n][m]) {
#pragma hpvm parallel for name(syrk) collapse(2) in(A [0:n] [0:m])             \
    inout(C [0:n] [0:n])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j <= i; ++j) {
      float acc = 0.0f;
      for (long k = 0; k < m; ++k)
        acc += A[i][k] * A[j][k];
      C[i][j] += alpha * acc;
    }
}

// SCALAR:     define {{.*}}@hpvm.cpu.syrk(
// SCALAR-NOT: llvm.masked.gather
// SCALAR:     attributes #{{[0-9]+}} = {{.*}}+prefer-no-gather{{.*}}+prefer-no-scatter
// SCALAR-ASM: hpvm.cpu.syrk:
// SCALAR-ASM-NOT: vgather
// SCALAR-ASM: .size hpvm.cpu.syrk,

// GATHER:     define {{.*}}@hpvm.cpu.syrk(
// GATHER:     call <{{[0-9]+}} x float> @llvm.masked.gather
