; The push-constant block of a leaf with a value parameter of every type,
; inside a 2-D internal node: one 8-byte slot per parameter (values below
; 32 bits travel in a 32-bit word, an i1 as 0 or 1), then 3 slots per
; ancestor level (tile, then the root g) for their ids. The leaf reads
; instance.id(1, 0) and (1, 1) from slots 9 and 10. The OpenCL
; flavour takes the same slots as kernel arguments.
; REQUIRES: spirv-tools
; RUN: %hpvm-backend --target=spirv %s -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %s -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -S -o - | FileCheck %s --check-prefix=CL
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %s -o %t.cl.spv
; RUN: %spirv-val --target-env opencl2.1 %t.cl.spv

; CHECK:      OpEntryPoint GLCompute %{{.*}} "hpvm.spirv.g.tile.leaf" %hpvm_params
; CHECK-NEXT: OpExecutionMode %{{.*}} LocalSize 1 1 1
; CHECK:      OpMemberName %hpvm_push_constants 0 "out"
; CHECK-NEXT: OpMemberName %hpvm_push_constants 1 "flag"
; CHECK:      OpMemberName %hpvm_push_constants 8 "p"
; CHECK-NEXT: OpMemberName %hpvm_push_constants 9 "outer.1.0"
; CHECK-NEXT: OpMemberName %hpvm_push_constants 10 "outer.1.1"
; CHECK-NEXT: OpMemberName %hpvm_push_constants 11 "outer.1.2"
; CHECK-NEXT: OpMemberName %hpvm_push_constants 12 "outer.2.0"
; CHECK-NEXT: OpMemberName %hpvm_push_constants 13 "outer.2.1"
; CHECK-NEXT: OpMemberName %hpvm_push_constants 14 "outer.2.2"
; CHECK:      OpDecorate %hpvm_push_constants Block
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 0 Offset 0
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 1 Offset 8
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 2 Offset 16
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 3 Offset 24
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 4 Offset 32
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 5 Offset 40
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 6 Offset 48
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 7 Offset 56
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 8 Offset 64
; CHECK-NEXT: OpMemberDecorate %hpvm_push_constants 9 Offset 72
; CHECK:      OpMemberDecorate %hpvm_push_constants 14 Offset 112
; out, flag, c, s, w, l, f, d, p; two levels of ids.
; CHECK:      %hpvm_push_constants = OpTypeStruct %ulong %uint %uint %uint %uint %ulong %float %double %ulong %ulong %ulong %ulong %ulong %ulong %ulong
; CHECK:      %entry = OpLabel
; CHECK:      %[[FLAG:.*]] = OpLoad %uint
; CHECK-NEXT: %flag = OpINotEqual %bool %[[FLAG]] %uint_0
; CHECK:      %[[C:.*]] = OpLoad %uint
; CHECK-NEXT: %c = OpUConvert %uchar %[[C]]
; CHECK:      %[[S:.*]] = OpLoad %uint
; CHECK-NEXT: %s = OpUConvert %ushort %[[S]]
; CHECK:      %f = OpLoad %float
; CHECK:      %d = OpLoad %double
; CHECK:      %[[ROW:.*]] = OpAccessChain %_ptr_PushConstant_ulong %hpvm_params %uint_9
; CHECK-NEXT: %outer_id_1_0 = OpLoad %ulong %[[ROW]]
; CHECK-NEXT: %[[COL:.*]] = OpAccessChain %_ptr_PushConstant_ulong %hpvm_params %uint_10
; CHECK-NEXT: %outer_id_1_1 = OpLoad %ulong %[[COL]]

; CL:      OpTypeFunction %void %_ptr_CrossWorkgroup_uchar %uint %uint %uint %uint %ulong %float %double %ulong %ulong %ulong %ulong %ulong %ulong %ulong
; CL:      %out = OpFunctionParameter %_ptr_CrossWorkgroup_uchar
; CL-NEXT: %flag = OpFunctionParameter %uint
; CL:      %p = OpFunctionParameter %ulong
; CL-NEXT: %outer_1_0 = OpFunctionParameter %ulong
; CL-NEXT: %outer_1_1 = OpFunctionParameter %ulong
; CL-NEXT: %outer_1_2 = OpFunctionParameter %ulong
; CL-NEXT: %outer_2_0 = OpFunctionParameter %ulong
; CL-NEXT: %outer_2_1 = OpFunctionParameter %ulong
; CL-NEXT: %outer_2_2 = OpFunctionParameter %ulong
; CL-NEXT: %entry = OpLabel

@hpvm.graph.g = private unnamed_addr constant [2 x i8] c"g\00"
@llvm.compiler.used = appending global [1 x ptr] [ptr @hpvm.node.g.tile.leaf], section "llvm.metadata"

declare void @hpvm.launch(ptr, ...)
declare i64 @hpvm.instance.id(i32, i32) memory(none)

define void @host(ptr %out, i1 %flag, i8 %c, i16 %s, i32 %w, i64 %l, float %f, double %d, ptr %p) {
  call void (ptr, ...) @hpvm.launch(ptr @hpvm.graph.g, ptr %out, i1 %flag, i8 %c, i16 %s, i32 %w, i64 %l, float %f, double %d, ptr %p)
  ret void
}

define internal void @hpvm.node.g.tile.leaf(ptr %out, i1 %flag, i8 %c, i16 %s, i32 %w, i64 %l, float %f, double %d, ptr %p) {
  %row = call i64 @hpvm.instance.id(i32 1, i32 0)
  %col = call i64 @hpvm.instance.id(i32 1, i32 1)
  %cz = zext i8 %c to i64
  %sz = sext i16 %s to i64
  %wz = sext i32 %w to i64
  %fz = fptosi float %f to i64
  %dz = fptosi double %d to i64
  %pz = ptrtoint ptr %p to i64
  %a1 = add i64 %cz, %sz
  %a2 = add i64 %a1, %wz
  %a3 = add i64 %a2, %l
  %a4 = add i64 %a3, %fz
  %a5 = add i64 %a4, %dz
  %a6 = add i64 %a5, %pz
  %a7 = add i64 %a6, %row
  %a8 = add i64 %a7, %col
  %r = select i1 %flag, i64 %a8, i64 0
  store i64 %r, ptr %out, align 8
  ret void
}

!hpvm.graphs = !{!0}
!0 = !{!"hpvm.graph", !"g", !1}
!1 = !{!"hpvm.node", !"name", !"g", !"kind", !"internal", !"params", !10, !"children", !20, !"bindings", !50}
!10 = !{!11, !12, !13, !14, !15, !16, !17, !18, !19}
!11 = !{!"buffer", !"out", !"out", i64 8}
!12 = !{!"value", !"flag", !"i1"}
!13 = !{!"value", !"c", !"i8"}
!14 = !{!"value", !"s", !"i16"}
!15 = !{!"value", !"w", !"i32"}
!16 = !{!"value", !"l", !"i64"}
!17 = !{!"value", !"f", !"f32"}
!18 = !{!"value", !"d", !"f64"}
!19 = !{!"value", !"p", !"ptr"}
!20 = !{!21}
!21 = !{!"hpvm.node", !"name", !"tile", !"kind", !"internal", !"dims", !22, !"params", !10, !"children", !30, !"bindings", !40}
!22 = !{i64 2, i64 3}
!30 = !{!31}
!31 = !{!"hpvm.node", !"name", !"leaf", !"kind", !"leaf", !"function", ptr @hpvm.node.g.tile.leaf, !"params", !10}
!40 = !{!41, !42, !43, !44, !45, !46, !47, !48, !49}
!41 = !{i32 0, i32 0, !"param", i32 0}
!42 = !{i32 0, i32 1, !"param", i32 1}
!43 = !{i32 0, i32 2, !"param", i32 2}
!44 = !{i32 0, i32 3, !"param", i32 3}
!45 = !{i32 0, i32 4, !"param", i32 4}
!46 = !{i32 0, i32 5, !"param", i32 5}
!47 = !{i32 0, i32 6, !"param", i32 6}
!48 = !{i32 0, i32 7, !"param", i32 7}
!49 = !{i32 0, i32 8, !"param", i32 8}
!50 = !{!51, !52, !53, !54, !55, !56, !57, !58, !59}
!51 = !{i32 0, i32 0, !"param", i32 0}
!52 = !{i32 0, i32 1, !"param", i32 1}
!53 = !{i32 0, i32 2, !"param", i32 2}
!54 = !{i32 0, i32 3, !"param", i32 3}
!55 = !{i32 0, i32 4, !"param", i32 4}
!56 = !{i32 0, i32 5, !"param", i32 5}
!57 = !{i32 0, i32 6, !"param", i32 6}
!58 = !{i32 0, i32 7, !"param", i32 7}
!59 = !{i32 0, i32 8, !"param", i32 8}
