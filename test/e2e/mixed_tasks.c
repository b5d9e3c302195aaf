// Fan-out / fan-in task graphs whose children run on different devices
// (built for cpu,spirv, run with HPVM_DEVICES=cpu,vulkan or cpu,opencl):
// one child produces a buffer, several siblings on different devices read
// it at the same time, and a last child combines what they wrote.
//
//   fan (task)
//   |-- produce  (cpu)    x -> a
//   |-- left     (spirv)  a -> b1            } concurrent readers of a,
//   |-- right    (cpu)    a -> b2            } in two memory spaces
//   |-- free     (any)    a -> b3            }
//   |-- ends     (spirv, one instance) a -> s
//   `-- combine  (cpu)    b1, b2, b3, s -> y
//
//   fan2 (task)
//   |-- produce  (spirv)  x -> a
//   |-- left     (cpu)    a -> b1
//   |-- right    (spirv)  a -> b2
//   |-- free     (any)    a -> b3
//   |-- combine  (spirv)  b1, b2, b3 -> y
//   |-- reset    (cpu)    -> a        write after the readers of a (other
//   space)
//   `-- again    (spirv)  a, y -> z   reads the new a: the device's copy of a
//                                     from produce is stale by then
//
// Readers walk a backwards, so a reader that starts before its producer
// ends sees old elements. Values depend on the index, the round and the
// seed; outputs are reset to a sentinel before each launch. Integer values
// (floats below 2^24, exact), compared with ==.
//
//   mixed-tasks n [seed]
#include "mixed.h"

enum { Rounds = 4 };

static void fan(long n, const float *x, float *a, float *b1, float *b2,
                float *b3, float *s, float *y) {
#pragma hpvm task name(fan)
  {
#pragma hpvm parallel for name(produce) target(cpu) in(x[0:n]) out(a[0:n])
    for (long i = 0; i < n; ++i)
      a[i] = x[i] * 2.0f + (float)(i % 13);
#pragma hpvm parallel for name(left) target(spirv) in(a[0:n]) out(b1[0:n])
    for (long i = 0; i < n; ++i)
      b1[i] = a[n - 1 - i] + 1.0f;
#pragma hpvm parallel for name(right) target(cpu) in(a[0:n]) out(b2[0:n])
    for (long i = 0; i < n; ++i)
      b2[i] = a[n - 1 - i] * 3.0f;
#pragma hpvm parallel for name(free) in(a[0:n]) out(b3[0:n])
    for (long i = 0; i < n; ++i)
      b3[i] = a[i] - (float)(i % 11);
#pragma hpvm task name(ends) target(spirv) in(a[0:n]) out(s[0:2])
    {
      float first = -5.0f, second = 7.0f;
      if (n > 0)
        first = a[0] + a[n - 1];
      if (n > 1)
        second = a[n / 2] - a[1];
      s[0] = first;
      s[1] = second;
    }
    // The address &s[1] is also computed in `ends`: the simplification
    // before EXTRACT shares it, and the frontend gives it back to each node.
#pragma hpvm parallel for name(combine) target(cpu)                            \
    in(b1[0:n], b2[0:n], b3[0:n], s[0:2]) out(y[0:n])
    for (long i = 0; i < n; ++i)
      y[i] = b1[i] + b2[n - 1 - i] - b3[i] + (i % 2 ? s[0] : s[1]);
  }
}

static void fan2(long n, const float *x, float *a, float *b1, float *b2,
                 float *b3, float *y, float *z) {
#pragma hpvm task name(fan2)
  {
#pragma hpvm parallel for name(produce) target(spirv) in(x[0:n]) out(a[0:n])
    for (long i = 0; i < n; ++i)
      a[i] = x[i] * 3.0f - (float)(i % 17);
#pragma hpvm parallel for name(left) target(cpu) in(a[0:n]) out(b1[0:n])
    for (long i = 0; i < n; ++i)
      b1[i] = a[n - 1 - i] - 2.0f;
#pragma hpvm parallel for name(right) target(spirv) in(a[0:n]) out(b2[0:n])
    for (long i = 0; i < n; ++i)
      b2[i] = a[n - 1 - i] * 2.0f;
#pragma hpvm parallel for name(free) in(a[0:n]) out(b3[0:n])
    for (long i = 0; i < n; ++i)
      b3[i] = a[i] + (float)(i % 19);
#pragma hpvm parallel for name(combine) target(spirv)                          \
    in(b1[0:n], b2[0:n], b3[0:n]) out(y[0:n])
    for (long i = 0; i < n; ++i)
      y[i] = b1[n - 1 - i] + b2[i] - b3[n - 1 - i];
#pragma hpvm parallel for name(reset) target(cpu) out(a[0:n])
    for (long i = 0; i < n; ++i)
      a[i] = (float)(i % 23) + 100.0f;
#pragma hpvm parallel for name(again) target(spirv) in(a[0:n], y[0:n])         \
    out(z[0:n])
    for (long i = 0; i < n; ++i)
      z[i] = a[n - 1 - i] + y[i];
  }
}

int main(int argc, char **argv) {
  long n = e2e_count(argc, argv, 1, 10007);
  long seed = e2e_count(argc, argv, 2, 1);
  size_t bytes = (size_t)n * sizeof(float);
  float *x = e2e_alloc(bytes), *a = e2e_alloc(bytes), *b1 = e2e_alloc(bytes),
        *b2 = e2e_alloc(bytes), *b3 = e2e_alloc(bytes), *y = e2e_alloc(bytes),
        *z = e2e_alloc(bytes), *s = e2e_alloc(2 * sizeof(float));
  float *ra = malloc(bytes + 1), *rb1 = malloc(bytes + 1),
        *rb2 = malloc(bytes + 1), *rb3 = malloc(bytes + 1),
        *ry = malloc(bytes + 1), *rz = malloc(bytes + 1);
  if (!ra || !rb1 || !rb2 || !rb3 || !ry || !rz)
    return 2;

  for (int round = 0; round < Rounds; ++round) {
    for (long i = 0; i < n; ++i)
      x[i] = (float)(((seed % 65521) * 389 + round * 71 + i * 29) % 3001) -
             1500.0f;

    // fan
    mixed_reset(n, a);
    mixed_reset(n, b1);
    mixed_reset(n, b2);
    mixed_reset(n, b3);
    mixed_reset(n, y);
    mixed_reset(2, s);
    for (long i = 0; i < n; ++i)
      ra[i] = x[i] * 2.0f + (float)(i % 13);
    for (long i = 0; i < n; ++i) {
      rb1[i] = ra[n - 1 - i] + 1.0f;
      rb2[i] = ra[n - 1 - i] * 3.0f;
      rb3[i] = ra[i] - (float)(i % 11);
    }
    float rs[2] = {n > 0 ? ra[0] + ra[n - 1] : -5.0f,
                   n > 1 ? ra[n / 2] - ra[1] : 7.0f};
    for (long i = 0; i < n; ++i)
      ry[i] = rb1[i] + rb2[n - 1 - i] - rb3[i] + (i % 2 ? rs[0] : rs[1]);
    fan(n, x, a, b1, b2, b3, s, y);
    mixed_check("fan", "a", round, 1, n, a, ra);
    mixed_check("fan", "b1", round, 1, n, b1, rb1);
    mixed_check("fan", "b2", round, 1, n, b2, rb2);
    mixed_check("fan", "b3", round, 1, n, b3, rb3);
    mixed_check("fan", "s", round, 1, 2, s, rs);
    mixed_check("fan", "y", round, 1, n, y, ry);

    // fan2
    mixed_reset(n, a);
    mixed_reset(n, b1);
    mixed_reset(n, b2);
    mixed_reset(n, b3);
    mixed_reset(n, y);
    mixed_reset(n, z);
    for (long i = 0; i < n; ++i)
      ra[i] = x[i] * 3.0f - (float)(i % 17);
    for (long i = 0; i < n; ++i) {
      rb1[i] = ra[n - 1 - i] - 2.0f;
      rb2[i] = ra[n - 1 - i] * 2.0f;
      rb3[i] = ra[i] + (float)(i % 19);
    }
    for (long i = 0; i < n; ++i)
      ry[i] = rb1[n - 1 - i] + rb2[i] - rb3[n - 1 - i];
    for (long i = 0; i < n; ++i)
      ra[i] = (float)(i % 23) + 100.0f;
    for (long i = 0; i < n; ++i)
      rz[i] = ra[n - 1 - i] + ry[i];
    fan2(n, x, a, b1, b2, b3, y, z);
    mixed_check("fan2", "a", round, 1, n, a, ra);
    mixed_check("fan2", "b1", round, 1, n, b1, rb1);
    mixed_check("fan2", "b2", round, 1, n, b2, rb2);
    mixed_check("fan2", "b3", round, 1, n, b3, rb3);
    mixed_check("fan2", "y", round, 1, n, y, ry);
    mixed_check("fan2", "z", round, 1, n, z, rz);
  }
  printf("mixed-tasks n=%ld seed=%ld: %d rounds\n", n, seed, Rounds);
  e2e_free(x, bytes, "x");
  e2e_free(a, bytes, "a");
  e2e_free(b1, bytes, "b1");
  e2e_free(b2, bytes, "b2");
  e2e_free(b3, bytes, "b3");
  e2e_free(y, bytes, "y");
  e2e_free(z, bytes, "z");
  e2e_free(s, 2 * sizeof(float), "s");
  free(ra);
  free(rb1);
  free(rb2);
  free(rb3);
  free(ry);
  free(rz);
  return e2e_finish("mixed-tasks");
}
