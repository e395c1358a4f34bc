; LLVM IR sample
@.str = private unnamed_addr constant [6 x i8] c"hello\00", align 1

define dso_local i32 @add(i32 noundef %a, i32 noundef %b) #0 {
entry:
  %sum = add nsw i32 %a, %b
  %cmp = icmp sgt i32 %sum, 10
  br i1 %cmp, label %big, label %small

big:
  ret i32 %sum

small:
  %r = call i32 @puts(ptr noundef @.str)
  ret i32 0
}

declare i32 @puts(ptr noundef)
attributes #0 = { noinline nounwind }
