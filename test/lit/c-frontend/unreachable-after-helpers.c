// A path of a parallel loop's body that calls the program's own helpers
// and then reaches `unreachable` (undefined behaviour, which the optimiser
// leaves where a helper's result would be out of range) is no exit of the
// loop once the helpers are known to return: the frontend infers function
// attributes first (random seed 770). A helper that may not return (it
// spins forever) still makes the path an early exit, which a parallel
// loop may not have.
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o - | FileCheck %s
// RUN: not %hpvm-clang -O2 -emit-hpvm-ir -S -DEXITS %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXITS

static unsigned char to_u8(float x) { return (unsigned char)x; }

#ifdef EXITS
static void give_up(float x) {
  if (x > 0)
    for (;;) {
    }
}
#define ON_HUGE(x) give_up(x)
#else
#define ON_HUGE(x) to_u8(x)
#endif

void k(int n, const float *in, unsigned char *out) {
#pragma hpvm parallel for in(in[0:n]) out(out[0:n])
  for (int i = 0; i < n; i++) {
    if (in[i] > 1e30f) {
      ON_HUGE(in[i]);
      __builtin_unreachable();
    }
    out[i] = to_u8(in[i]);
  }
}
// CHECK: "hpvm.node"(ptr @.str), "hpvm.dims"(i32 %n)
// EXITS: unreachable-after-helpers.c:{{[0-9]+}}:9: error: [parallel-loop] function 'k', node 'k_{{[0-9]+}}': loop 'for.body' (dim 0) has more than one exit; a parallel loop may not break
