; Atomics on buffers: integer read-modify-write operations map to SPIR-V's
; (Device scope; relaxed = no semantics, stronger orderings AcquireRelease
; on UniformMemory in Vulkan, which forbids SequentiallyConsistent, and
; SequentiallyConsistent on CrossWorkgroupMemory in OpenCL); float ones and
; nand become compare-and-swap loops on the value's bits (a loop, so a
; structured one in Vulkan); float loads and stores go through integers.
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -S -o - | FileCheck %s --check-prefix=CL
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -o %t.cl.spv
; RUN: %spirv-val --target-env opencl2.1 %t.cl.spv

declare i64 @hpvm.instance.id(i32, i32) memory(none)

define internal void @hpvm.node.atom(ptr %hist, ptr %acc, ptr %in, i64 %n) {
  %i = call i64 @hpvm.instance.id(i32 0, i32 0)
  %pin = getelementptr inbounds i32, ptr %in, i64 %i
  %v = load i32, ptr %pin, align 4
  %bin = and i32 %v, 255
  %pbin = getelementptr inbounds i32, ptr %hist, i32 %bin
  %old = atomicrmw add ptr %pbin, i32 1 monotonic, align 4
  %pmax = getelementptr inbounds i32, ptr %acc, i64 1
  %m = atomicrmw umax ptr %pmax, i32 %v seq_cst, align 4
  %x = atomicrmw xchg ptr %acc, i32 %m acq_rel, align 4
  %pc = getelementptr inbounds i32, ptr %acc, i64 2
  %cx = cmpxchg ptr %pc, i32 0, i32 %x acquire monotonic, align 4
  %ok = extractvalue { i32, i1 } %cx, 1
  %seen = extractvalue { i32, i1 } %cx, 0
  %pf = getelementptr inbounds float, ptr %acc, i64 3
  %f = sitofp i32 %seen to float
  %fold = atomicrmw fadd ptr %pf, float %f monotonic, align 4
  %pl = getelementptr inbounds float, ptr %acc, i64 4
  %lf = load atomic float, ptr %pl acquire, align 4
  %sum = fadd float %lf, %fold
  fence seq_cst
  %ps = getelementptr inbounds float, ptr %acc, i64 5
  %st = select i1 %ok, float %sum, float 0.0
  store atomic float %st, ptr %ps release, align 4
  ret void
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"atom", !1}
!1 = !{!"hpvm.node", !"name", !"atom", !"kind", !"leaf", !"function", ptr @hpvm.node.atom, !"dims", !2, !"params", !4}
!2 = !{!3}
!3 = !{!"param", i32 3}
!4 = !{!5, !6, !7, !8}
!5 = !{!"buffer", !"hist", !"inout", i64 1024}
!6 = !{!"buffer", !"acc", !"inout", i64 24}
!7 = !{!"buffer", !"in", !"in", i64 4096}
!8 = !{!"value", !"n", !"i64"}

; Vulkan: every atomic access is relaxed (uint_0), whatever its ordering
; (docs/backends.md, Atomics); fences keep theirs.
; CHECK:      %[[H:.*]] = OpConvertUToPtr %_ptr_PhysicalStorageBuffer_uint %pbin_i
; CHECK-NEXT: OpAtomicIAdd %uint %[[H]] %uint_1 %uint_0 %uint_1
; CHECK:      OpAtomicUMax %uint %{{.*}} %uint_1 %uint_0 %v_i
; CHECK:      OpAtomicExchange %uint %{{.*}} %uint_1 %uint_0 %m_i
; CHECK:      %[[SEEN:.*]] = OpAtomicCompareExchange %uint %{{.*}} %uint_1 %uint_0 %uint_0 %x_i %uint_0
; CHECK-NEXT: %ok_i = OpIEqual %bool %[[SEEN]] %uint_0
; The fadd: a first guess, then a loop of compare-and-swap (the loop's one
; block, and a continue target that only branches back).
; CHECK:      %atomic_guess = OpLoad %float %{{.*}} Aligned 4
; CHECK-NEXT: OpBranch %[[LOOP:.*]]
; CHECK:      %[[LOOP]] = OpLabel
; CHECK-NEXT: %[[OLD:.*]] = OpPhi %float
; (the loop guard's count: docs/backends.md)
; CHECK:      %new = OpFAdd %float %[[OLD]] %f_i
; CHECK:      %atomic_seen = OpAtomicCompareExchange %uint %{{.*}} %uint_1 %uint_0 %uint_0
; CHECK:      OpLoopMerge %[[END:.*]] %[[LATCH:.*]] None
; CHECK-NEXT: OpBranch %[[LATCH]]
; CHECK-NEXT: %[[LATCH]] = OpLabel
; CHECK-NEXT: OpBranchConditional %atomic_done %[[END]] %[[LOOP]]
; CHECK:      %[[LF:.*]] = OpAtomicLoad %uint %{{.*}} %uint_1 %uint_0
; CHECK-NEXT: %lf_i = OpBitcast %float %[[LF]]
; CHECK:      OpMemoryBarrier %uint_1 %uint_72
; CHECK:      OpAtomicStore %{{.*}} %uint_1 %uint_0 %

; CL:         OpAtomicIAdd %uint %{{.*}} %uint_1 %uint_0 %uint_1
; CL:         OpAtomicUMax %uint %{{.*}} %uint_1 %uint_528 %v_i
; CL:         OpAtomicCompareExchange %uint %{{.*}} %uint_1 %uint_514 %uint_0
; CL-NOT:     OpLoopMerge
; CL:         OpMemoryBarrier %uint_1 %uint_528
