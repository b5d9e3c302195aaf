// End to end: compiled by hpvm-clang, linked with hpvm-rt, run, and checked
// against the sequential computation in the same program.
// REQUIRES: hpvm-link
// RUN: %hpvm-clang -O2 %s -o %t -lm && %t | FileCheck %s
// RUN: %hpvm-clang -O0 -g %s -o %t.O0 -lm && %t.O0 | FileCheck %s
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000
#define W 37
#define H 23

static int failures;
static void expect(const char *what, int ok) {
  if (!ok) {
    printf("FAIL %s\n", what);
    ++failures;
  }
}

void vadd(const float *a, const float *b, float *c, int n) {
#pragma hpvm parallel for in(a[0:n], b[0:n]) out(c[0:n])
  for (int i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

void blur(const float *in, float *out, int w, int h) {
#pragma hpvm parallel for collapse(2) in(in[0:w*h]) out(out[0:w*h]) name(blur)
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      out[y * w + x] = (in[y * w + x - 1] + in[y * w + x] + in[y * w + x + 1] +
                        in[(y - 1) * w + x] + in[(y + 1) * w + x]) / 5;
}

void reverse_strided(float *a, int n) {
#pragma hpvm parallel for inout(a[0:n]) name(rev)
  for (int i = n - 1; i >= 1; i -= 3)
    a[i] = -a[i];
}

void pipeline(const float *a, float *b, float *c, float *d, int n) {
#pragma hpvm task name(pipeline)
  {
#pragma hpvm parallel for in(a[0:n]) out(b[0:n]) name(square)
    for (int i = 0; i < n; i++)
      b[i] = a[i] * a[i];
#pragma hpvm parallel for in(b[0:n]) out(c[0:n]) name(root)
    for (int i = 0; i < n; i++)
      c[i] = sqrtf(b[i]);
#pragma hpvm task in(c[0:n]) out(d[0:1]) name(total)
    {
      float s = 0;
      for (int i = 0; i < n; i++)
        s += c[i];
      d[0] = s;
    }
  }
}

void hist(const int *v, unsigned *bins, int n) {
#pragma hpvm parallel for in(v[0:n]) inout(bins[0:8]) name(hist)
  for (int i = 0; i < n; i++)
    __atomic_fetch_add(&bins[v[i] % 8], 1u, __ATOMIC_RELAXED);
}

int main(void) {
  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  float *c = malloc(N * sizeof *c), *d = malloc(N * sizeof *d);
  for (int i = 0; i < N; i++) {
    a[i] = i * 0.5f;
    b[i] = 3 - i;
  }
  vadd(a, b, c, N);
  int ok = 1;
  for (int i = 0; i < N; i++)
    ok &= c[i] == a[i] + b[i];
  expect("vadd", ok);

  float in[W * H], out[W * H];
  for (int i = 0; i < W * H; i++)
    in[i] = out[i] = (float)(i % 7);
  blur(in, out, W, H);
  ok = 1;
  for (int y = 1; y < H - 1; y++)
    for (int x = 1; x < W - 1; x++) {
      float r = (in[y * W + x - 1] + in[y * W + x] + in[y * W + x + 1] +
                 in[(y - 1) * W + x] + in[(y + 1) * W + x]) / 5;
      ok &= fabsf(out[y * W + x] - r) < 1e-6f;
    }
  ok &= out[0] == in[0] && out[W * H - 1] == in[W * H - 1];
  expect("blur", ok);

  for (int i = 0; i < N; i++)
    c[i] = i;
  reverse_strided(c, N);
  ok = 1;
  for (int i = 0; i < N; i++)
    ok &= c[i] == ((i >= 1 && (N - 1 - i) % 3 == 0) ? -i : i);
  expect("reverse_strided", ok);

  for (int i = 0; i < N; i++)
    a[i] = i % 10;
  pipeline(a, b, c, d, N);
  float s = 0;
  for (int i = 0; i < N; i++)
    s += a[i];
  expect("pipeline", fabsf(d[0] - s) < 1e-3f);

  int v[N];
  unsigned bins[8] = {0}, ref[8] = {0};
  for (int i = 0; i < N; i++) {
    v[i] = (i * 7919) % 1000;
    ref[v[i] % 8]++;
  }
  hist(v, bins, N);
  ok = 1;
  for (int k = 0; k < 8; k++)
    ok &= bins[k] == ref[k];
  expect("hist", ok);

  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures != 0;
}
// CHECK-NOT: FAIL
// CHECK: PASSED
