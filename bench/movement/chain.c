// chain: one task graph whose middle node can only run on the accelerator
// and whose ends only on the CPU, n floats (BENCH_MOVE_CHAIN_N, default
// 2^22):
//
//   produce (cpu)    a[i] = f(i)
//   left    (spirv)  b[i] = a[i] * a[i]        a up, b written whole
//   combine (cpu)    c[i] = a[i] + b[i]        b down
//
// The least any runtime can move: a to the device once and b back once,
// 8n bytes; b is not copied up (the compiler proves that left writes all
// of it) and c never leaves host memory. Run with HPVM_DEVICES=cpu,vulkan
// or cpu,opencl.
#include "movement.h"

static float f(long i) { return (float)(i % 1000) * 0.001f; }

static void chain(float *a, float *b, float *c, long n) {
#pragma hpvm task name(chain) out(a[0:n], b[0:n], c[0:n])
  {
#pragma hpvm parallel for name(produce) target(cpu) out(a[0:n])
    for (long i = 0; i < n; ++i)
      a[i] = f(i);
#pragma hpvm parallel for name(left) target(spirv) in(a[0:n]) out(b[0:n])
    for (long i = 0; i < n; ++i)
      b[i] = a[i] * a[i];
#pragma hpvm parallel for name(combine) target(cpu) in(a[0:n], b[0:n])     \
    out(c[0:n])
    for (long i = 0; i < n; ++i)
      c[i] = a[i] + b[i];
  }
}

struct ctx {
  long n;
  float *a, *b, *c;
};

static void prepare(void *p) {
  struct ctx *x = p;
  for (long i = 0; i < x->n; ++i)
    x->a[i] = x->b[i] = x->c[i] = -1.0f;
}

static void run(void *p) {
  struct ctx *x = p;
  chain(x->a, x->b, x->c, x->n);
}

// Each value is one correctly rounded operation of exact inputs: equal on
// every device.
static long check(void *p) {
  struct ctx *x = p;
  long bad = 0;
  for (long i = 0; i < x->n; ++i) {
    float a = f(i), b = a * a, c = a + b;
    if (x->a[i] != a || x->b[i] != b || x->c[i] != c) {
      if (bad < 5)
        fprintf(stderr, "chain: [%ld]: %g %g %g, want %g %g %g\n", i, x->a[i],
                x->b[i], x->c[i], a, b, c);
      ++bad;
    }
  }
  return bad;
}

int main(void) {
  struct ctx x = {move_env("BENCH_MOVE_CHAIN_N", 1L << 22), 0, 0, 0};
  size_t bytes = (size_t)x.n * sizeof(float);
  x.a = move_alloc(bytes);
  x.b = move_alloc(bytes);
  x.c = move_alloc(bytes);
  move_workload wl = {"chain", "", 8 * x.n, 0, prepare, run, check};
  snprintf(wl.size, sizeof wl.size, "%ld-floats", x.n);
  return move_main(&wl, &x);
}
