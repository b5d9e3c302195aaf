// A replicated leaf inside a replicated parent: its kernel also has the
// grid-mapped launch form of NVPTXABI.h. With the form flag (the last, u32
// parameter) set, the parent's id is the block id and the block's threads
// stride over all of the leaf's instances; otherwise the flat form: the
// parent's id comes from its outer-id parameter and id = ctaid*ntid + tid.
// The parent, blocks, has one dim: its instance's ids are the 3 u64
// parameters after the leaf's own 4 (w, v, w.bytes, n), and its id 0 is
// parameter 4.
//
// RUN: %hpvm-clang -O2 -emit-hpvm-ir -S %s -o %t.ll
// RUN: %hpvm-opt --extract %t.ll -S -o %t.g.ll
// RUN: %hpvm-backend --target=nvptx %t.g.ll -S -o - | FileCheck %s
// RUN: rm -rf %t.d && %hpvm-backend --target=nvptx %t.g.ll --nvptx-dir=%t.d
// RUN: %if ptxas %{ %ptxas-each -arch=sm_80 %t.d %}

enum { Block = 64 };

void blocks(long n, const float *w, float *v) {
  long nb = (n + Block - 1) / Block;
#pragma hpvm parallel for name(blocks)
  for (long b = 0; b < nb; ++b) {
#pragma hpvm parallel for name(elems) in(w[0:n]) out(v[0:n])
    for (long j = 0; j < Block; ++j) {
      long i = b * Block + j;
      if (i < n)
        v[i] = w[i] * 2.0f + (float)b;
    }
  }
}

// CHECK-LABEL: // node 'blocks/elems', entry 'hpvm_nvptx_blocks_elems'
// CHECK:       .visible .entry hpvm_nvptx_blocks_elems(
// CHECK-COUNT-7: .param .u64 hpvm_nvptx_blocks_elems_param_{{[0-6]}},
// CHECK-NEXT:  .param .u32 hpvm_nvptx_blocks_elems_param_7
// CHECK-NEXT:  )
// CHECK-NEXT:  .maxntid 256, 1, 1
// The form flag chooses where instances start and how far they stride...
// CHECK:       ld.param.u32 %[[FORM:r[0-9]+]], [hpvm_nvptx_blocks_elems_param_7];
// CHECK-NEXT:  setp.eq.s32 %[[FLAT:p[0-9]+]], %[[FORM]], 0;
// CHECK-DAG:   mov.u32 %[[CTAID:r[0-9]+]], %ctaid.x;
// CHECK-DAG:   mov.u32 %{{r[0-9]+}}, %nctaid.x;
// ...and whether the parent's id is the outer-id parameter or the block id.
// CHECK-DAG:   cvt.u64.u32 %[[BLOCK:rd[0-9]+]], %[[CTAID]];
// CHECK-DAG:   ld.param.u64 %[[OUTER:rd[0-9]+]], [hpvm_nvptx_blocks_elems_param_4];
// CHECK:       selp.b64 %{{rd[0-9]+}}, %[[OUTER]], %[[BLOCK]], %[[FLAT]];
// The block-stride loop over the leaf's 64 instances.
// CHECK:       setp.lt.u64 %{{p[0-9]+}}, %{{rd[0-9]+}}, 64;
// CHECK:       ld.global.f32
// CHECK:       st.global.f32
