// EXTRACT marks an out buffer writes-all only where it proves that every
// execution of the leaf writes every byte of it (docs/ir.md §1): the runtime
// then skips copying it to a device. Where it proves dense rows (the
// interior of a grid), it records them (writes-rows): only the bytes around
// them are copied. Everything else stays a plain out buffer, whose unwritten
// bytes keep their values.
// RUN: %hpvm-clang -O3 -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt %t.ll --extract --print -disable-output | FileCheck %s

#include <string.h>

// CHECK-LABEL: leaf dense1
// CHECK: param c: buffer out bytes {{.*}} writes-all
void dense1(const float *a, float *c, long n) {
#pragma hpvm parallel for name(dense1) in(a[0:n]) out(c[0:n])
  for (long i = 0; i < n; ++i)
    c[i] = a[i] * 2.0f;
}

// CHECK-LABEL: leaf dense2
// CHECK: param c: buffer out bytes {{.*}} writes-all
void dense2(float *c, long n, long m) {
#pragma hpvm parallel for collapse(2) name(dense2) out(c[0:n * m])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j)
      c[i * m + j] = (float)(i + j);
}

// Column-major order: the instances of the outer dim step by one element.
// CHECK-LABEL: leaf transposed
// CHECK: param c: buffer out bytes {{.*}} writes-all
void transposed(float *c, long n, long m) {
#pragma hpvm parallel for collapse(2) name(transposed) out(c[0:n * m])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j)
      c[j * n + i] = (float)i;
}

// Each instance writes its row in a loop of its own.
// CHECK-LABEL: leaf rows
// CHECK: param c: buffer out bytes {{.*}} writes-all
void rows(float *c, long n) {
#pragma hpvm parallel for name(rows) out(c[0:n * 16])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < 16; ++j)
      c[i * 16 + j] = (float)j;
}

// One instance, one memset.
// CHECK-LABEL: leaf clear
// CHECK: param c: buffer out bytes {{.*}} writes-all
void clear(float *c, long n) {
#pragma hpvm task name(clear) out(c[0:n])
  { memset(c, 0, n * sizeof *c); }
}

// CHECK-LABEL: leaf scalar
// CHECK: param d: buffer out bytes 4 writes-all
void scalar(const float *a, float *d) {
#pragma hpvm task name(scalar) in(a[0:1]) out(d[0:1])
  { d[0] = a[0] + 1.0f; }
}

// --- partial writes in rows: only what is around them is copied in ---

// The interior of a grid (the borders keep their values).
// CHECK-LABEL: leaf interior
// CHECK: param c: buffer out bytes c.bytes writes interior.dim0 rows of 4*interior.dim1 every 4*w from 4*w+4{{$}}
void interior(float *c, long h, long w) {
#pragma hpvm parallel for collapse(2) name(interior) out(c[0:h * w])
  for (long y = 1; y < h - 1; ++y)
    for (long x = 1; x < w - 1; ++x)
      c[y * w + x] = 1.0f;
}

// --- nothing proven: the whole buffer is copied in ---

// CHECK-LABEL: leaf conditional
// CHECK: param c: buffer out bytes {{[^ ]*$}}
void conditional(const float *a, float *c, long n) {
#pragma hpvm parallel for name(conditional) in(a[0:n]) out(c[0:n])
  for (long i = 0; i < n; ++i)
    if (a[i] > 0)
      c[i] = a[i];
}

// CHECK-LABEL: leaf every_other
// CHECK: param c: buffer out bytes c.bytes writes n rows of 4 every 8 from 0{{$}}
void every_other(float *c, long n) {
#pragma hpvm parallel for name(every_other) out(c[0:2 * n])
  for (long i = 0; i < n; ++i)
    c[2 * i] = 1.0f;
}

// A section larger than what the loop writes.
// CHECK-LABEL: leaf short_loop
// CHECK: param c: buffer out bytes c.bytes writes 1 rows of c.bytes-4 every c.bytes-4 from 0{{$}}
void short_loop(float *c, long n) {
#pragma hpvm parallel for name(short_loop) out(c[0:n + 1])
  for (long i = 0; i < n; ++i)
    c[i] = 1.0f;
}

// Every instance writes the same row (a race, but the point is the
// address: it does not step with the instance id).
// CHECK-LABEL: leaf same_row
// CHECK: param c: buffer out bytes {{[^ ]*$}}
void same_row(float *c, long n, long m) {
#pragma hpvm parallel for name(same_row) out(c[0:m])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j)
      c[j] = (float)(i * j);
}

// An inner loop that may run fewer times than the row is long.
// CHECK-LABEL: leaf ragged
// CHECK: param c: buffer out bytes {{[^ ]*$}}
void ragged(float *c, const long *len, long n) {
#pragma hpvm parallel for name(ragged) in(len[0:n]) out(c[0:n * 16])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < len[i]; ++j)
      c[i * 16 + j] = 1.0f;
}

// The store is in a loop that may not run (m <= 0), and its address does
// not step in that loop: nothing is proven.
// CHECK-LABEL: leaf maybe_loop
// CHECK: param c: buffer out bytes {{[^ ]*$}}
void maybe_loop(float *c, long n, long m) {
#pragma hpvm parallel for name(maybe_loop) out(c[0:n])
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j)
      c[i] = (float)j;
}

// Only out buffers can be written whole: an inout one is read first.
// CHECK-LABEL: leaf update
// CHECK: param c: buffer inout bytes {{[^ ]*$}}
void update(float *c, long n) {
#pragma hpvm parallel for name(update) inout(c[0:n])
  for (long i = 0; i < n; ++i)
    c[i] = 3.0f;
}

// A child of a replicated node writes one row of the buffer it names whole:
// each execution writes part of it; and the internal nodes are never marked.
// CHECK-LABEL: internal per_row
// CHECK: param c: buffer out bytes {{[^ ]*$}}
// CHECK: leaf fill
// CHECK: param c: buffer out bytes {{[^ ]*$}}
void per_row(float *c, long n, long m) {
#pragma hpvm parallel for name(per_row) out(c[0:n * m])
  for (long i = 0; i < n; ++i) {
#pragma hpvm parallel for name(fill) out(c[0:n * m])
    for (long j = 0; j < m; ++j)
      c[i * m + j] = 1.0f;
  }
}
