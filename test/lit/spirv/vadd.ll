; c[i] = a[i] + b[i]: the whole Vulkan module, as the runtime sees it.
;  * capabilities: Shader, PhysicalStorageBufferAddresses and Int64 only (no
;    8-, 16-bit or double types are used);
;  * a GLCompute entry point named hpvm.spirv.<leaf>, 64x1x1 invocations,
;    listing the push constants and the global id (SPIR-V 1.5 interface);
;  * a Block of one 8-byte slot per parameter (a, b, c, n, bytes) and no
;    other slots (a root leaf has no ancestors);
;  * buffers as u64 addresses: getelementptr is integer arithmetic, every
;    access an OpConvertUToPtr to PhysicalStorageBuffer with Aligned;
;  * the instance returns unless id < n (the dispatch rounds up).
; REQUIRES: spirv-tools
; RUN: %hpvm-opt --extract %s -S -o %t.g.ll
; RUN: %hpvm-backend --target=spirv %t.g.ll -S -o - | FileCheck %s
; RUN: %hpvm-backend --target=spirv %t.g.ll -o %t.spv
; RUN: %spirv-val --target-env vulkan1.2 %t.spv
; RUN: %spirv-dis %t.spv | FileCheck %s --check-prefix=BINARY
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %t.g.ll -S -o - | FileCheck %s --check-prefix=CL
; RUN: %hpvm-backend --target=spirv --spirv-flavour=opencl %t.g.ll -o %t.cl.spv
; RUN: %spirv-val --target-env opencl2.1 %t.cl.spv
; RUN: %spirv-val --target-env opencl1.2 %t.cl.spv

@.name.vadd = private unnamed_addr constant [5 x i8] c"vadd\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @vadd(ptr %a, ptr %b, ptr %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.vadd),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes, ptr %b, i64 %bytes),
      "hpvm.out"(ptr %c, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa, align 4
  %pb = getelementptr inbounds float, ptr %b, i64 %i
  %vb = load float, ptr %pb, align 4
  %sum = fadd float %va, %vb
  %pc = getelementptr inbounds float, ptr %c, i64 %i
  store float %sum, ptr %pc, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}

; CHECK:      ; node 'vadd', entry point 'hpvm.spirv.vadd'
; CHECK:      ; Version: 1.5
; CHECK-NEXT: ; Generator:
; CHECK-NEXT: ; Bound:
; CHECK-NEXT: ; Schema: 0
; CHECK-NEXT:  OpCapability Shader
; CHECK-NEXT:  OpCapability Int64
; CHECK-NEXT:  OpCapability SignedZeroInfNanPreserve
; CHECK-NEXT:  OpCapability PhysicalStorageBufferAddresses
; CHECK-NEXT:  OpMemoryModel PhysicalStorageBuffer64 GLSL450
; CHECK-NEXT:  OpEntryPoint GLCompute %[[FN:.*]] "hpvm.spirv.vadd" %hpvm_params %hpvm_global_id
; CHECK-NEXT:  OpExecutionMode %[[FN]] LocalSize 64 1 1
; CHECK-NEXT:  OpExecutionMode %[[FN]] SignedZeroInfNanPreserve 32
; CHECK:       OpDecorate %hpvm_push_constants Block
; CHECK-NEXT:  OpMemberDecorate %hpvm_push_constants 0 Offset 0
; CHECK-NEXT:  OpMemberDecorate %hpvm_push_constants 1 Offset 8
; CHECK-NEXT:  OpMemberDecorate %hpvm_push_constants 2 Offset 16
; CHECK-NEXT:  OpMemberDecorate %hpvm_push_constants 3 Offset 24
; CHECK-NEXT:  OpMemberDecorate %hpvm_push_constants 4 Offset 32
; CHECK-NOT:   OpMemberDecorate %hpvm_push_constants 5
; CHECK-NEXT:  OpDecorate %hpvm_global_id BuiltIn GlobalInvocationId
; CHECK:       %hpvm_push_constants = OpTypeStruct %ulong %ulong %ulong %ulong %ulong{{$}}
; CHECK:       %hpvm_params = OpVariable %_ptr_PushConstant_hpvm_push_constants PushConstant
; CHECK:       %hpvm_global_id = OpVariable %_ptr_Input_v3uint Input
; CHECK:       %[[FN]] = OpFunction %void None
; CHECK:       %entry = OpLabel
; CHECK:       %[[SLOT:.*]] = OpAccessChain %_ptr_PushConstant_ulong %hpvm_params %uint_0
; CHECK-NEXT:  %a = OpLoad %ulong %[[SLOT]]
; CHECK:       %n = OpLoad %ulong
; CHECK:       %[[GID:.*]] = OpLoad %v3uint %hpvm_global_id
; CHECK-NEXT:  %[[X:.*]] = OpCompositeExtract %uint %[[GID]] 0
; CHECK-NEXT:  %id0 = OpUConvert %ulong %[[X]]
; CHECK-NEXT:  %in0 = OpSLessThan %bool %id0 %n
; CHECK-NEXT:  OpSelectionMerge %exit None
; CHECK-NEXT:  OpBranchConditional %in0 %instance %exit
; CHECK:       %instance = OpLabel
; CHECK-NEXT:  %[[OFF:.*]] = OpIMul %ulong %id0 %ulong_4
; CHECK-NEXT:  %pa_i = OpIAdd %ulong %a %[[OFF]]
; CHECK-NEXT:  %[[P:.*]] = OpConvertUToPtr %_ptr_PhysicalStorageBuffer_float %pa_i
; CHECK-NEXT:  %va_i = OpLoad %float %[[P]] Aligned 4
; CHECK:       %sum_i = OpFAdd %float %va_i %vb_i
; CHECK:       %[[Q:.*]] = OpConvertUToPtr %_ptr_PhysicalStorageBuffer_float %pc_i
; CHECK-NEXT:  OpStore %[[Q]] %sum_i Aligned 4
; CHECK-NEXT:  OpBranch %exit
; CHECK:       %exit = OpLabel
; CHECK-NEXT:  OpReturn
; CHECK-NEXT:  OpFunctionEnd

; BINARY: OpEntryPoint GLCompute %{{.*}} "hpvm.spirv.vadd"

; The OpenCL flavour: the same slots as kernel arguments, buffers as
; CrossWorkgroup pointers, the 64-bit global id, no structured merges.
; CL:      ; Version: 1.0
; CL:       OpCapability Addresses
; CL-NEXT:  OpCapability Kernel
; CL-NEXT:  OpCapability Int64
; CL-NEXT:  OpCapability Int8
; CL-NEXT:  OpMemoryModel Physical64 OpenCL
; CL-NEXT:  OpEntryPoint Kernel %[[FN:.*]] "hpvm.spirv.vadd" %hpvm_global_id
; CL-NEXT:  OpExecutionMode %[[FN]] LocalSize 64 1 1
; CL:       OpTypeFunction %void %_ptr_CrossWorkgroup_uchar %_ptr_CrossWorkgroup_uchar %_ptr_CrossWorkgroup_uchar %ulong %ulong{{$}}
; CL:       %a = OpFunctionParameter %_ptr_CrossWorkgroup_uchar
; CL:       OpConvertPtrToU %ulong %a
; CL:       OpLoad %v3ulong %hpvm_global_id
; CL-NOT:   OpSelectionMerge
; CL:       OpConvertUToPtr %_ptr_CrossWorkgroup_float
; CL-NOT:   Merge
; CL:       OpFunctionEnd
