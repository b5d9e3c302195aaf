; Arithmetic with an overflow flag (`llvm.*.with.overflow`), which LLVM's
; -O2 pipeline makes of overflow checks in C (`x * y / y != x` for a u16
; product: found by test/random, where it was "cannot compile the intrinsic
; '@llvm.umul.with.overflow.i16'"), becomes plain arithmetic: products in
; twice the width, or for 64 bits checked by dividing back.
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -o %t.cl.spv
; RUN: %spirv-val --target-env opencl2.1 %t.cl.spv

; CHECK-NOT: with.overflow
; The u16 product in 32 bits, compared with the 16-bit one widened back.
; CHECK:     %[[R:[0-9]+]] = OpIMul %ushort %a16_i %b16_i
; CHECK-DAG: %[[B:[0-9]+]] = OpUConvert %uint %b16_i
; CHECK-DAG: %[[A:[0-9]+]] = OpUConvert %uint %a16_i
; CHECK:     %[[P:[0-9]+]] = OpIMul %uint %[[A]] %[[B]]
; CHECK-NEXT: %[[RW:[0-9]+]] = OpUConvert %uint %[[R]]
; CHECK-NEXT: OpINotEqual %bool %[[P]] %[[RW]]
; The i64 signed product: divided back by a divisor that is never 0 or -1.
; CHECK:     OpSDiv %ulong
; CHECK:     OpUDiv %ulong
; CHECK:     OpFunctionEnd

declare i64 @hpvm.instance.id(i32, i32) memory(none)
declare { i16, i1 } @llvm.umul.with.overflow.i16(i16, i16)
declare { i32, i1 } @llvm.smul.with.overflow.i32(i32, i32)
declare { i64, i1 } @llvm.smul.with.overflow.i64(i64, i64)
declare { i64, i1 } @llvm.umul.with.overflow.i64(i64, i64)
declare { i32, i1 } @llvm.sadd.with.overflow.i32(i32, i32)
declare { i32, i1 } @llvm.uadd.with.overflow.i32(i32, i32)
declare { i32, i1 } @llvm.ssub.with.overflow.i32(i32, i32)
declare { i32, i1 } @llvm.usub.with.overflow.i32(i32, i32)

define internal void @hpvm.node.k(ptr %h, ptr %w, ptr %d, ptr %flags, i64 %n) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %ph = getelementptr inbounds i16, ptr %h, i64 %i
  %a16 = load i16, ptr %ph, align 2
  %pb = getelementptr inbounds i16, ptr %ph, i64 1
  %b16 = load i16, ptr %pb, align 2
  %m16 = call { i16, i1 } @llvm.umul.with.overflow.i16(i16 %a16, i16 %b16)
  %r16 = extractvalue { i16, i1 } %m16, 0
  %o16 = extractvalue { i16, i1 } %m16, 1
  store i16 %r16, ptr %ph, align 2
  %pw = getelementptr inbounds i32, ptr %w, i64 %i
  %a32 = load i32, ptr %pw, align 4
  %pw1 = getelementptr inbounds i32, ptr %pw, i64 1
  %b32 = load i32, ptr %pw1, align 4
  %sm = call { i32, i1 } @llvm.smul.with.overflow.i32(i32 %a32, i32 %b32)
  %osm = extractvalue { i32, i1 } %sm, 1
  %sa = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %a32, i32 %b32)
  %osa = extractvalue { i32, i1 } %sa, 1
  %ua = call { i32, i1 } @llvm.uadd.with.overflow.i32(i32 %a32, i32 %b32)
  %oua = extractvalue { i32, i1 } %ua, 1
  %ss = call { i32, i1 } @llvm.ssub.with.overflow.i32(i32 %a32, i32 %b32)
  %oss = extractvalue { i32, i1 } %ss, 1
  %us = call { i32, i1 } @llvm.usub.with.overflow.i32(i32 %a32, i32 %b32)
  %rus = extractvalue { i32, i1 } %us, 0
  %ous = extractvalue { i32, i1 } %us, 1
  store i32 %rus, ptr %pw, align 4
  %pd = getelementptr inbounds i64, ptr %d, i64 %i
  %a64 = load i64, ptr %pd, align 8
  %pd1 = getelementptr inbounds i64, ptr %pd, i64 1
  %b64 = load i64, ptr %pd1, align 8
  %s64 = call { i64, i1 } @llvm.smul.with.overflow.i64(i64 %a64, i64 %b64)
  %os64 = extractvalue { i64, i1 } %s64, 1
  %u64 = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %a64, i64 %b64)
  %ru64 = extractvalue { i64, i1 } %u64, 0
  %ou64 = extractvalue { i64, i1 } %u64, 1
  store i64 %ru64, ptr %pd, align 8
  %f1 = or i1 %o16, %osm
  %f2 = or i1 %osa, %oua
  %f3 = or i1 %oss, %ous
  %f4 = or i1 %os64, %ou64
  %f12 = or i1 %f1, %f2
  %f34 = or i1 %f3, %f4
  %f = or i1 %f12, %f34
  %pf = getelementptr inbounds i8, ptr %flags, i64 %i
  %fb = zext i1 %f to i8
  store i8 %fb, ptr %pf, align 1
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"k", !1}
!1 = !{!"hpvm.node", !"name", !"k", !"kind", !"leaf", !"function", ptr @hpvm.node.k, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 4}
!4 = !{!5, !6, !7, !8, !9}
!5 = !{!"buffer", !"h", !"inout", i64 4096}
!6 = !{!"buffer", !"w", !"inout", i64 4096}
!7 = !{!"buffer", !"d", !"inout", i64 8192}
!8 = !{!"buffer", !"flags", !"out", i64 1024}
!9 = !{!"value", !"n", !"i64"}
