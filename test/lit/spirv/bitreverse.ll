; llvm.bitreverse for every width. Vulkan has OpBitReverse for 32 bits
; only: narrower values are reversed in a 32-bit word and shifted down,
; 64-bit ones in halves that swap places, and an i1 is itself (a random
; program's `(x & 1) << 7 >> 7` pattern became bitreverse.i1).
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv
; OpenCL's environment has no bit reversal at all.
; RUN: not %hpvm-backend --target=spirv --spirv-flavour=opencl %s -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=CL

; CHECK-NOT: OpBitReverse %u{{short|char|long}}
; CHECK: [[W8:%[0-9]+]] = OpUConvert %uint %{{.*}}
; CHECK-NEXT: [[R8:%[0-9]+]] = OpBitReverse %uint [[W8]]
; CHECK-NEXT: [[S8:%[0-9]+]] = OpShiftRightLogical %uint [[R8]] %uint_24
; CHECK-NEXT: %r8_i = OpUConvert %uchar [[S8]]
; CHECK: OpShiftRightLogical %uint %{{[0-9]+}} %uint_16
; CHECK: %r32_i = OpBitReverse %uint
; CHECK: [[LO:%[0-9]+]] = OpUConvert %ulong %{{[0-9]+}}
; CHECK: [[HI:%[0-9]+]] = OpUConvert %ulong %{{[0-9]+}}
; CHECK: [[UP:%[0-9]+]] = OpShiftLeftLogical %ulong [[LO]] %ulong_32
; CHECK-NEXT: %r64_i = OpBitwiseOr %ulong [[UP]] [[HI]]
; The i1 is its own reverse: the select uses the comparison directly.
; CHECK: %sel_i = OpSelect %uint %big_i

; CL: error: {{.*}}bitreverse in the OpenCL environment

declare i64 @hpvm.instance.id(i32, i32) memory(none)
declare i1 @llvm.bitreverse.i1(i1)
declare i8 @llvm.bitreverse.i8(i8)
declare i16 @llvm.bitreverse.i16(i16)
declare i32 @llvm.bitreverse.i32(i32)
declare i64 @llvm.bitreverse.i64(i64)
define internal void @hpvm.node.k(ptr %a, ptr %b, ptr %c, ptr %d, i64 %n) {
entry:
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pa = getelementptr inbounds i8, ptr %a, i64 %i
  %x8 = load i8, ptr %pa, align 1
  %r8 = call i8 @llvm.bitreverse.i8(i8 %x8)
  store i8 %r8, ptr %pa, align 1
  %pb = getelementptr inbounds i16, ptr %b, i64 %i
  %x16 = load i16, ptr %pb, align 2
  %r16 = call i16 @llvm.bitreverse.i16(i16 %x16)
  store i16 %r16, ptr %pb, align 2
  %pc = getelementptr inbounds i32, ptr %c, i64 %i
  %x32 = load i32, ptr %pc, align 4
  %r32 = call i32 @llvm.bitreverse.i32(i32 %x32)
  store i32 %r32, ptr %pc, align 4
  %pd = getelementptr inbounds i64, ptr %d, i64 %i
  %x64 = load i64, ptr %pd, align 8
  %r64 = call i64 @llvm.bitreverse.i64(i64 %x64)
  store i64 %r64, ptr %pd, align 8
  %big = icmp ugt i32 %x32, 7
  %rbig = call i1 @llvm.bitreverse.i1(i1 %big)
  %sel = select i1 %rbig, i32 1, i32 2
  %pc1 = getelementptr inbounds i32, ptr %pc, i64 1
  store i32 %sel, ptr %pc1, align 4
  ret void
}
!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"k", !1}
!1 = !{!"hpvm.node", !"name", !"k", !"kind", !"leaf", !"function", ptr @hpvm.node.k, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 4}
!4 = !{!5, !7, !8, !9, !6}
!5 = !{!"buffer", !"a", !"inout", i64 4096}
!7 = !{!"buffer", !"b", !"inout", i64 8192}
!8 = !{!"buffer", !"c", !"inout", i64 16384}
!9 = !{!"buffer", !"d", !"inout", i64 32768}
!6 = !{!"value", !"n", !"i64"}
