// Tasks: a graph of nested nodes whose order comes from their buffers.
//
//   graph (task)
//   |-- twice     x -> t1                     } independent of each other
//   |-- plus3     x -> t2                     }
//   |-- combine   t1, t2 -> y                 read after write (both)
//   |-- reset     -> t1                       write after read (combine)
//   |-- inner (task)
//   |   |-- scale     y, t1 -> z              read after write (combine, reset)
//   |   `-- deepest (task)
//   |       |-- shift  z -> w                 read after write (scale)
//   |       `-- double w -> w (inout)         write after write (shift)
//   |-- blocks (parallel for, a node with a child)
//   |   `-- elems (parallel for)  w -> v      read after write (double)
//   `-- total (task, one instance)  v -> sum  after(blocks): explicit order
//                                             (also implied by v)
//
// Every reader walks its input in reverse order and every node does some
// work per element, so a missing edge lets a reader see elements its
// producer has not written yet. The graph is launched several times.
//
//   tasks n
#include "e2e.h"

enum { Block = 64 };

static float work(float v) {
  for (int k = 0; k < 20; ++k)
    v = v * 0.75f + 0.25f;
  return v;
}

static void graph(long n, float s, const float *x, float *t1, float *t2,
                  float *y, float *z, float *w, float *v, double *sum) {
  long blocks = (n + Block - 1) / Block;
#pragma hpvm task name(graph)
  {
#pragma hpvm parallel for name(twice) in(x[0:n]) out(t1[0:n])
    for (long i = 0; i < n; ++i)
      t1[i] = work(x[i]) * 2.0f;
#pragma hpvm parallel for name(plus3) in(x[0:n]) out(t2[0:n])
    for (long i = 0; i < n; ++i)
      t2[i] = work(x[i]) + 3.0f;
#pragma hpvm parallel for name(combine) in(t1[0:n], t2[0:n]) out(y[0:n])
    for (long i = 0; i < n; ++i)
      y[i] = t1[n - 1 - i] - t2[i];
#pragma hpvm parallel for name(reset) out(t1[0:n])
    for (long i = 0; i < n; ++i)
      t1[i] = work((float)(i % 3));
#pragma hpvm task name(inner)
    {
#pragma hpvm parallel for name(scale) in(y[0:n], t1[0:n]) out(z[0:n])      \
    value(s)
      for (long i = 0; i < n; ++i)
        z[i] = y[n - 1 - i] * t1[i] * s;
#pragma hpvm task name(deepest)
      {
#pragma hpvm parallel for name(shift) in(z[0:n]) out(w[0:n])
        for (long i = 0; i < n; ++i)
          w[i] = work(z[n - 1 - i]) + 1.0f;
#pragma hpvm parallel for name(double) inout(w[0:n])
        for (long i = 0; i < n; ++i)
          w[i] = w[i] * 2.0f;
      }
    }
#pragma hpvm parallel for name(blocks)
    for (long b = 0; b < blocks; ++b) {
#pragma hpvm parallel for name(elems) in(w[0:n]) out(v[0:n])
      for (long j = 0; j < Block; ++j) {
        long i = b * Block + j;
        if (i < n)
          v[i] = w[n - 1 - i] - 1.0f;
      }
    }
    // A single-instance leaf writing a scalar through its pointer.
#pragma hpvm task name(total) in(v[0:n]) out(sum[0:1]) after(blocks)
    {
      double acc = 0;
      for (long i = 0; i < n; ++i)
        acc += v[i];
      sum[0] = acc;
    }
  }
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 10007);
  size_t bytes = (size_t)n * sizeof(float);
  float *x = e2e_alloc(bytes), *t1 = e2e_alloc(bytes), *t2 = e2e_alloc(bytes),
        *y = e2e_alloc(bytes), *z = e2e_alloc(bytes), *w = e2e_alloc(bytes),
        *v = e2e_alloc(bytes);
  float *ry = malloc(bytes + 1), *rz = malloc(bytes + 1),
        *rw = malloc(bytes + 1);
  if (!ry || !rz || !rw)
    return 2;
  const float s = 0.5f;

  // The reference: the same statements in program order.
  for (long i = 0; i < n; ++i)
    x[i] = (float)(i % 17) - 8.0f;
  for (long i = 0; i < n; ++i)
    ry[i] = work(x[n - 1 - i]) * 2.0f - (work(x[i]) + 3.0f);
  for (long i = 0; i < n; ++i)
    rz[i] = ry[n - 1 - i] * work((float)(i % 3)) * s;
  for (long i = 0; i < n; ++i)
    rw[i] = (work(rz[n - 1 - i]) + 1.0f) * 2.0f;

  long bad = 0;
  for (int round = 0; round < 10; ++round) {
    for (long i = 0; i < n; ++i)
      t1[i] = t2[i] = y[i] = z[i] = w[i] = v[i] = -99.0f;
    double sum = -1;
    graph(n, s, x, t1, t2, y, z, w, v, &sum);
    double want_sum = 0;
    for (long i = 0; i < n; ++i)
      want_sum += v[i];
    E2E_CHECK(sum == want_sum, "round %d: total %.17g, want %.17g", round, sum,
              want_sum);
    for (long i = 0; i < n; ++i) {
      float rv = rw[n - 1 - i] - 1.0f;
      if (!e2e_close(y[i], ry[i], fabsf(ry[i]) + 8) ||
          !e2e_close(z[i], rz[i], fabsf(rz[i]) + 8) ||
          !e2e_close(w[i], rw[i], fabsf(rw[i]) + 8) ||
          !e2e_close(v[i], rv, fabsf(rv) + 8)) {
        E2E_FAIL("round %d, element %ld: y %g/%g z %g/%g w %g/%g v %g/%g "
                 "(got/want)",
                 round, i, y[i], ry[i], z[i], rz[i], w[i], rw[i], v[i], rv);
        ++bad;
      }
    }
  }
  printf("tasks n=%ld: %ld mismatching elements in 10 launches\n", n, bad);
  e2e_free(x, bytes, "x");
  e2e_free(t1, bytes, "t1");
  e2e_free(t2, bytes, "t2");
  e2e_free(y, bytes, "y");
  e2e_free(z, bytes, "z");
  e2e_free(w, bytes, "w");
  e2e_free(v, bytes, "v");
  free(ry);
  free(rz);
  free(rw);
  return e2e_finish("tasks");
}
