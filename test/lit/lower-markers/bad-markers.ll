; Every malformed marker is reported as rule [marker], with the function and
; the call, and the module is not changed (exit status 1, nothing written).
; RUN: not %hpvm-opt --lower-markers %s -S -o %t.ll 2>&1 | FileCheck %s
; RUN: not test -e %t.ll

@.str = private unnamed_addr constant [2 x i8] c"k\00"
@.empty = private unnamed_addr constant [1 x i8] zeroinitializer

declare ptr @__hpvm_region_begin(ptr, ...)
declare void @__hpvm_region_end(ptr)

; CHECK: error: [marker] function 'tag_not_constant': node 'k': operand 1 must be a constant tag, found %tag
define void @tag_not_constant(i32 %tag) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 %tag, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'name_not_constant': the first operand of __hpvm_region_begin must be a constant, non-empty C string
define void @name_not_constant(ptr %name) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr %name, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'name_empty': the first operand
define void @name_empty() {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.empty, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'no_terminator': node 'k': tag IN needs 2 operand(s) and the list must end with 0
define void @no_terminator(ptr %p) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 2, ptr %p, i64 4)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'buffer_types': node 'k': IN must be followed by a pointer and an integer byte size, found i64 4, %p
define void @buffer_types(ptr %p) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 2, i64 4, ptr %p, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'buffer_short': node 'k': tag OUT needs 2 operand(s) and the list must end with 0
define void @buffer_short(ptr %p) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 3, ptr %p, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'dims_count': node 'k': DIMS must be followed by a constant count 1 to 3
define void @dims_count(i64 %n) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 1, i32 4, i64 %n, i64 %n, i64 %n, i64 %n, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'dims_float': node 'k': extent %x is not an integer of at most 64 bits
define void @dims_float(double %x) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 1, i32 1, double %x, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'dims_twice': node 'k': DIMS appears more than once
define void @dims_twice(i64 %n) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 1, i32 1, i64 %n, i32 1, i32 1, i64 %n, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'value_pointer': node 'k': VALUE %p is a pointer; name buffers with IN, OUT or INOUT
define void @value_pointer(ptr %p) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 5, ptr %p, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'target_bad': node 'k': TARGET must be followed by a constant mask
define void @target_bad() {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 6, i32 8, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'unknown_tag': node 'k': unknown tag 42
define void @unknown_tag() {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 42, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'trailing': node 'k': operands follow the terminating 0
define void @trailing() {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 0, i32 6)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; The handle went through memory: the code is not in SSA form.
; CHECK: error: [marker] function 'not_ssa': __hpvm_region_end must be given the handle that __hpvm_region_begin returned
; CHECK: error: [marker] function 'not_ssa': the handle of __hpvm_region_begin is used by something other than __hpvm_region_end or AFTER (markers are lowered in SSA form: run sroa or mem2reg first)
; CHECK-NEXT: at:  store ptr %h, ptr %slot
define void @not_ssa() {
  %slot = alloca ptr
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 0)
  store ptr %h, ptr %slot
  %l = load ptr, ptr %slot
  call void @__hpvm_region_end(ptr %l)
  ret void
}

; CHECK: error: [marker] function 'after_not_handle': node 'k': AFTER must be followed by the handle of an earlier __hpvm_region_begin, found %p (markers are lowered in SSA form: run sroa or mem2reg first)
define void @after_not_handle(ptr %p) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 7, ptr %p, i32 0)
  call void @__hpvm_region_end(ptr %h)
  ret void
}

; CHECK: error: [marker] function 'no_end': __hpvm_region_begin has no __hpvm_region_end
define void @no_end() {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 0)
  ret void
}

; CHECK: error: [marker] function 'two_ends': __hpvm_region_begin has more than one __hpvm_region_end
define void @two_ends(i1 %c) {
  %h = call ptr (ptr, ...) @__hpvm_region_begin(ptr @.str, i32 0)
  br i1 %c, label %a, label %b
a:
  call void @__hpvm_region_end(ptr %h)
  ret void
b:
  call void @__hpvm_region_end(ptr %h)
  ret void
}
