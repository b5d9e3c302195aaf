; An irreducible cycle in a leaf body: the state machine
;   x = a[i]; c = 0; if (x odd) goto A; else goto B;
;   A: x = 3x + 1; c++; if (x > 1000 || c > 50) goto done; goto B;
;   B: x /= 2; c++; if (x < 10 || c > 50) goto done; if (x & 4) goto A;
;      goto B;
;   done: out[i] = 100 x + c;
; has two entries (A and B), so it is no natural loop; fix-irreducible must
; turn it into one before structurizecfg.

@.name.irreducible = private unnamed_addr constant [12 x i8] c"irreducible\00"

declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)

define void @irreducible(ptr %a, ptr %out, i64 %n) {
entry:
  %bytes = shl i64 %n, 2
  %t = call token @llvm.directive.region.entry() [ "hpvm.node"(ptr @.name.irreducible),
      "hpvm.dims"(i64 %n),
      "hpvm.in"(ptr %a, i64 %bytes),
      "hpvm.out"(ptr %out, i64 %bytes) ]
  br label %for.cond

for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %done ]
  %cmp = icmp slt i64 %i, %n
  br i1 %cmp, label %body, label %for.end

body:
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %x0 = load i32, ptr %pa, align 4
  %odd = and i32 %x0, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %A, label %B

A:
  %xa = phi i32 [ %x0, %body ], [ %xb2, %B.next ]
  %ca = phi i32 [ 0, %body ], [ %cb2, %B.next ]
  %xa2 = mul i32 %xa, 3
  %xa3 = add i32 %xa2, 1
  %ca2 = add i32 %ca, 1
  %big = icmp sgt i32 %xa3, 1000
  %tired.a = icmp sgt i32 %ca2, 50
  %stop.a = or i1 %big, %tired.a
  br i1 %stop.a, label %done, label %B

B:
  %xb = phi i32 [ %x0, %body ], [ %xa3, %A ], [ %xb2, %B.next ]
  %cb = phi i32 [ 0, %body ], [ %ca2, %A ], [ %cb2, %B.next ]
  %xb2 = sdiv i32 %xb, 2
  %cb2 = add i32 %cb, 1
  %small = icmp slt i32 %xb2, 10
  %tired.b = icmp sgt i32 %cb2, 50
  %stop.b = or i1 %small, %tired.b
  br i1 %stop.b, label %done, label %B.next

B.next:
  %bit = and i32 %xb2, 4
  %toA = icmp ne i32 %bit, 0
  br i1 %toA, label %A, label %B

done:
  %x = phi i32 [ %xa3, %A ], [ %xb2, %B ]
  %c = phi i32 [ %ca2, %A ], [ %cb2, %B ]
  %r = mul i32 %x, 100
  %r2 = add i32 %r, %c
  %po = getelementptr inbounds i32, ptr %out, i64 %i
  store i32 %r2, ptr %po, align 4
  %i.next = add nuw nsw i64 %i, 1
  br label %for.cond

for.end:
  call void @llvm.directive.region.exit(token %t)
  ret void
}
