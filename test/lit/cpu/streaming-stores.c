// Streaming-store variants (backends/cpu/StreamingStores.cpp): a leaf that
// only writes a buffer gets a second wrapper, <wrapper>.stream, whose
// instance loop is peeled until the store reaches a 64-byte boundary and
// whose vector stores to that buffer are then aligned and non-temporal,
// with an sfence before it returns. Leaves that read what they write, or
// whose stores cannot be aligned, get none; neither do -O1 builds and
// targets other than x86-64.
// clang-format off
// RUN: %hpvm-clang -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 %t.g.ll -S -o - | FileCheck %s
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 %t.g.ll -filetype=asm -o - | FileCheck %s --check-prefix=ASM
// The peel, before the vectoriser runs.
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 %t.g.ll -S -o /dev/null \
// RUN:   -print-after=hpvm-align-stores -filter-print-funcs=hpvm.cpu.jacobi.stream 2>&1 | FileCheck %s --check-prefix=PEEL
// RUN: %hpvm-backend --target=cpu -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 -O1 %t.g.ll -S -o - | FileCheck %s --check-prefix=NONE
// RUN: sed -e '/^target triple/d' %t.g.ll > %t.any.ll
// RUN: %hpvm-backend --target=cpu -mtriple=aarch64-unknown-linux-gnu %t.any.ll -S -o - | FileCheck %s --check-prefix=NONE
// clang-format on

// The 2-D 5-point stencil of bench/kernels/stencil.c: dst is only written.
void jacobi(const float *src, float *dst, long h, long w) {
#pragma hpvm parallel for collapse(2) name(jacobi) in(src [0:h * w])           \
    out(dst [0:h * w])
  for (long y = 1; y < h - 1; ++y)
    for (long x = 1; x < w - 1; ++x) {
      long c = y * w + x;
      dst[c] =
          0.2f * (src[c] + src[c - 1] + src[c + 1] + src[c - w] + src[c + w]);
    }
}

// y = a x into a buffer of its own.
void scaled(long n, float a, const float *x, float *y) {
#pragma hpvm parallel for name(scaled) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = a * x[i];
}

// saxpy reads y before writing it: streaming y out would evict what the
// next instances read.
void saxpy(long n, float a, const float *x, float *y) {
#pragma hpvm parallel for name(saxpy) in(x [0:n])inout(y [0:n])
  for (long i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

// Only written, but every other element: the vector stores are interleaved,
// not one element per instance, and cannot be aligned.
void spread(long n, const float *x, float *y) {
#pragma hpvm parallel for name(spread) in(x [0:n])out(y [0:2 * n])
  for (long i = 0; i < n; ++i)
    y[2 * i] = x[i];
}

// Stores in some instances only: masked vector stores, which are not made
// non-temporal, so no variant.
void some(long n, const float *x, float *y) {
#pragma hpvm parallel for name(some) in(x [0:n])out(y [0:n])
  for (long i = 0; i < n; ++i)
    if (i % 3 != 1)
      y[i] = x[i];
}

// clang-format off
// The wrappers, as always; the variants come after them.
// CHECK-LABEL: define void @hpvm.cpu.jacobi(
// CHECK-NOT:     !nontemporal
// CHECK-NOT:     sfence
// CHECK:       }
// CHECK-LABEL: define void @hpvm.cpu.scaled(
// CHECK-NOT:     !nontemporal
// CHECK:       }
// CHECK-LABEL: define void @hpvm.cpu.saxpy(
// CHECK:       }
// CHECK-LABEL: define void @hpvm.cpu.spread(
// CHECK:       }
// CHECK-LABEL: define void @hpvm.cpu.some(
// CHECK:       }

// The variant: the peel loop (scalar, plain stores), a 64-byte-aligned base,
// whole-line vector stores (512-bit even where the processor prefers 256)
// marked non-temporal, and sfence before the return.
// CHECK-LABEL: define void @hpvm.cpu.jacobi.stream(
// CHECK:         call void @llvm.x86.sse.sfence()
// CHECK-NEXT:    ret void
// CHECK:       {{.*}}.peel:
// CHECK-NOT:     <16 x float>
// CHECK:         store float {{.*}}, align 4
// CHECK-NOT:     !nontemporal
// CHECK:         br i1 {{.*}}, !llvm.loop [[PEELLOOP:![0-9]+]]
// CHECK:         %align.base = tail call align 64 ptr @llvm.ptrmask.p0.i64(ptr %align.aligned, i64 -64)
// CHECK:       vector.body:
// CHECK:         store <16 x float> {{.*}}, align 64, !nontemporal [[NT:![0-9]+]]
// CHECK:       }
// CHECK-LABEL: define void @hpvm.cpu.scaled.stream(
// CHECK:         call void @llvm.x86.sse.sfence()
// CHECK:         store <16 x float> {{.*}}, align 64, !nontemporal
// CHECK:       }
// The read-modify-write, stride-2 and conditional leaves have none.
// CHECK-NOT:   define void @hpvm.cpu.saxpy.stream(
// CHECK-NOT:   define void @hpvm.cpu.spread.stream(
// CHECK-NOT:   define void @hpvm.cpu.some.stream(
// CHECK-DAG:   [[NT]] = !{i32 1}
// CHECK-DAG:   [[PEELLOOP]] = distinct !{[[PEELLOOP]], {{![0-9]+}}, [[NOVEC:![0-9]+]], [[NOUNROLL:![0-9]+]]}
// CHECK-DAG:   [[NOVEC]] = !{!"llvm.loop.vectorize.enable", i1 false}
// CHECK-DAG:   [[NOUNROLL]] = !{!"llvm.loop.unroll.disable"}

// ASM-LABEL: hpvm.cpu.jacobi:
// ASM-NOT:     vmovnt
// ASM-NOT:     sfence
// ASM-LABEL: hpvm.cpu.jacobi.stream:
// ASM:         vmovntps %zmm{{[0-9]+}}, ({{.*}})
// ASM:         sfence
// ASM-LABEL: hpvm.cpu.scaled.stream:
// ASM:         vmovntps %zmm
// ASM-NOT:   hpvm.cpu.saxpy.stream:

// Before vectorisation: iterations up to the first aligned store run in the
// peel; the loop after it stores at base + an offset counted from 0.
// PEEL-LABEL: define void @hpvm.cpu.jacobi.stream(
// PEEL:         %align.to.line = and i64 %{{.*}}, 63
// PEEL:         %align.peel = call i64 @llvm.umin.i64(
// PEEL:         %align.offset = phi i64 [ 0, %align.main ], [ %align.offset.next, %{{.*}} ]
// PEEL:         %align.addr = getelementptr inbounds i8, ptr %align.base, i64 %align.offset
// PEEL-NEXT:    store float %{{.*}}, ptr %align.addr, align 4
// PEEL:         %align.offset.next = add nuw i64 %align.offset, 4
// PEEL:       align.main:
// PEEL:         %align.base = call ptr @llvm.ptrmask.p0.i64(ptr %align.aligned, i64 -64)

// NONE:     define void @hpvm.cpu.jacobi(
// NONE:     vector.body:
// NONE-NOT: .stream
// NONE-NOT: nontemporal
// NONE-NOT: sfence
