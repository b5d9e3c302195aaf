; Differential test of a time-step loop around child nodes: a task 'steps'
; holding a plain loop over t (a sequential node, "hpvm.sequential", of dims
; [steps]) whose children 'ab' and 'ba' each sweep one array into the other,
; 'ba' adding t. Made by hpvm-clang -O1 -emit-hpvm-ir from:
;
;   void kernel_steps(long n, long steps, uint32_t *a, uint32_t *b) {
;   #pragma hpvm task name(steps) inout(a[0:n], b[0:n])
;     {
;       for (long t = 0; t < steps; ++t) {
;   #pragma hpvm parallel for name(ab) in(a[0:n]) inout(b[0:n])
;         for (long i = 1; i < n - 1; ++i)
;           b[i] = (a[i - 1] + 2u * a[i] + 3u * a[i + 1]) % 1000003u;
;   #pragma hpvm parallel for name(ba) in(b[0:n]) inout(a[0:n])
;         for (long i = 1; i < n - 1; ++i)
;           a[i] = (b[i - 1] + 2u * b[i] + 3u * b[i + 1] + (uint32_t)t) % 1000003u;
;       }
;     }
;   }
;
; strip, extract+prepare+strip, the same after the -O1 function pipeline,
; and the graph form after LLVM's -O2 PREPAREd and stripped must all match a
; plain C reference (the steps run in order: any other order differs).
; RUN: %hpvm-opt --strip %s -S -o %t.a.ll
; RUN: %clang -O2 -Wno-override-module %t.a.ll %S/Inputs/time-steps-main.c -o %t.a
; RUN: %t.a > %t.a.out
; RUN: FileCheck %s < %t.a.out
; RUN: %hpvm-opt --extract --prepare --strip %s -S -o %t.b.ll
; RUN: %clang -O2 -Wno-override-module %t.b.ll %S/Inputs/time-steps-main.c -o %t.b
; RUN: %t.b > %t.b.out
; RUN: diff %t.a.out %t.b.out
; RUN: %opt -passes='function(sroa,instcombine,simplifycfg,loop-mssa(loop-rotate,licm),indvars,simplifycfg)' %s -S -o %t.c0.ll
; RUN: %hpvm-opt --extract --prepare --strip %t.c0.ll -S -o %t.c.ll
; RUN: %clang -O2 -Wno-override-module %t.c.ll %S/Inputs/time-steps-main.c -o %t.c
; RUN: %t.c > %t.c.out
; RUN: diff %t.a.out %t.c.out
; RUN: %hpvm-opt --extract %s -S -o %t.d0.ll
; RUN: %opt -O2 %t.d0.ll -S -o %t.d1.ll
; RUN: %hpvm-opt --prepare --strip %t.d1.ll -S -o %t.d.ll
; RUN: %clang -O2 -Wno-override-module %t.d.ll %S/Inputs/time-steps-main.c -o %t.d
; RUN: %t.d > %t.d.out
; RUN: diff %t.a.out %t.d.out
; PREPARE gives the loop's region its flag back.
; RUN: %hpvm-opt --extract --prepare %s -S | FileCheck %s --check-prefix=PREPARED
; CHECK: PASS time-steps checksum={{[0-9a-f]+}}
; PREPARED: call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @{{.*}}), "hpvm.dims"(i64 %{{[^)]*}}), "hpvm.sequential"(),
@.str = private unnamed_addr constant [6 x i8] c"steps\00", align 1
@.str.1 = private unnamed_addr constant [15 x i8] c"kernel_steps_5\00", align 1
@.str.2 = private unnamed_addr constant [3 x i8] c"ab\00", align 1
@.str.3 = private unnamed_addr constant [3 x i8] c"ba\00", align 1


define dso_local void @kernel_steps(i64 noundef %n, i64 noundef %steps, ptr noundef %a, ptr noundef %b) {
entry:
  %cmp = icmp sgt i64 %n, 2
  %sub1 = add i64 %n, -2
  %ab.dim0 = select i1 %cmp, i64 %sub1, i64 0
  %sub6 = add nsw i64 %n, -2
  %ba.dim0 = select i1 %cmp, i64 %sub6, i64 0
  %b.bytes = shl i64 %n, 2
  %steps.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str), "hpvm.inout"(ptr %a, i64 %b.bytes, ptr %b, i64 %b.bytes) ]
  %kernel_steps_5.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.1), "hpvm.dims"(i64 %steps), "hpvm.inout"(ptr %a, i64 %b.bytes, ptr %b, i64 %b.bytes), "hpvm.sequential"() ]
  %cmp45150 = icmp slt i64 0, %steps
  br i1 %cmp45150, label %for.body.lr.ph, label %for.end87

for.body.lr.ph:                                   ; preds = %entry
  %cmp48144 = icmp slt i64 0, %ab.dim0
  %invariant.gep = getelementptr inbounds i8, ptr %a, i64 8
  %cmp64146 = icmp slt i64 0, %ba.dim0
  %invariant.gep148 = getelementptr inbounds i8, ptr %b, i64 8
  br label %for.body

for.body:                                         ; preds = %for.body.lr.ph, %for.end84
  %t.0151 = phi i64 [ 0, %for.body.lr.ph ], [ %inc86, %for.end84 ]
  %ab.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.2), "hpvm.dims"(i64 %ab.dim0), "hpvm.in"(ptr %a, i64 %b.bytes), "hpvm.inout"(ptr %b, i64 %b.bytes) ]
  br i1 %cmp48144, label %for.body50, label %for.end

for.body50:                                       ; preds = %for.body, %for.body50
  %__hpvm_iv1.0145 = phi i64 [ %add52, %for.body50 ], [ 0, %for.body ]
  %add52 = add nuw nsw i64 %__hpvm_iv1.0145, 1
  %arrayidx = getelementptr inbounds i32, ptr %a, i64 %__hpvm_iv1.0145
  %0 = load i32, ptr %arrayidx, align 4
  %arrayidx54 = getelementptr inbounds i32, ptr %a, i64 %add52
  %1 = load i32, ptr %arrayidx54, align 4
  %mul55 = shl i32 %1, 1
  %add56 = add i32 %0, %mul55
  %gep = getelementptr inbounds i32, ptr %invariant.gep, i64 %__hpvm_iv1.0145
  %2 = load i32, ptr %gep, align 4
  %mul59 = mul i32 %2, 3
  %add60 = add i32 %add56, %mul59
  %rem = urem i32 %add60, 1000003
  %arrayidx61 = getelementptr inbounds i32, ptr %b, i64 %add52
  store i32 %rem, ptr %arrayidx61, align 4
  %exitcond = icmp ne i64 %add52, %ab.dim0
  br i1 %exitcond, label %for.body50, label %for.end

for.end:                                          ; preds = %for.body50, %for.body
  call void @llvm.directive.region.exit(token %ab.region)
  %ba.region = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.str.3), "hpvm.dims"(i64 %ba.dim0), "hpvm.in"(ptr %b, i64 %b.bytes), "hpvm.inout"(ptr %a, i64 %b.bytes) ]
  br i1 %cmp64146, label %for.body66.lr.ph, label %for.end84

for.body66.lr.ph:                                 ; preds = %for.end
  %conv = trunc i64 %t.0151 to i32
  br label %for.body66

for.body66:                                       ; preds = %for.body66.lr.ph, %for.body66
  %__hpvm_iv2.0147 = phi i64 [ 0, %for.body66.lr.ph ], [ %add69, %for.body66 ]
  %add69 = add nuw nsw i64 %__hpvm_iv2.0147, 1
  %arrayidx71 = getelementptr inbounds i32, ptr %b, i64 %__hpvm_iv2.0147
  %3 = load i32, ptr %arrayidx71, align 4
  %arrayidx72 = getelementptr inbounds i32, ptr %b, i64 %add69
  %4 = load i32, ptr %arrayidx72, align 4
  %mul73 = shl i32 %4, 1
  %add74 = add i32 %3, %mul73
  %gep149 = getelementptr inbounds i32, ptr %invariant.gep148, i64 %__hpvm_iv2.0147
  %5 = load i32, ptr %gep149, align 4
  %mul77 = mul i32 %5, 3
  %add78 = add i32 %add74, %mul77
  %add79 = add i32 %add78, %conv
  %rem80 = urem i32 %add79, 1000003
  %arrayidx81 = getelementptr inbounds i32, ptr %a, i64 %add69
  store i32 %rem80, ptr %arrayidx81, align 4
  %exitcond152 = icmp ne i64 %add69, %ab.dim0
  br i1 %exitcond152, label %for.body66, label %for.end84

for.end84:                                        ; preds = %for.body66, %for.end
  call void @llvm.directive.region.exit(token %ba.region)
  %inc86 = add nuw nsw i64 %t.0151, 1
  %exitcond153 = icmp ne i64 %inc86, %steps
  br i1 %exitcond153, label %for.body, label %for.end87

for.end87:                                        ; preds = %for.end84, %entry
  call void @llvm.directive.region.exit(token %kernel_steps_5.region)
  call void @llvm.directive.region.exit(token %steps.region)
  ret void
}


declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture)


declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture)

declare token @llvm.directive.region.entry()

declare void @llvm.directive.region.exit(token)



