; hpvm-strip leaves a module without regions or graphs exactly as it was.
; RUN: %hpvm-opt --strip %s -S -o %t.strip.ll
; RUN: %opt %s -S -o %t.plain.ll
; RUN: diff %t.plain.ll %t.strip.ll

@table = private unnamed_addr constant [3 x i32] [i32 1, i32 2, i32 3]

define i32 @lookup(i64 %i) {
entry:
  %p = getelementptr inbounds [3 x i32], ptr @table, i64 0, i64 %i
  %v = load i32, ptr %p, align 4
  ret i32 %v
}
