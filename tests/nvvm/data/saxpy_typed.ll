; LLVM 7-style NVVM IR (typed pointers), as libNVVM documents it: kernel marked by !nvvm.annotations,
; thread index from the sreg intrinsics, 64-bit NVVM data layout and triple.
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-unknown-cuda"

define void @saxpy(float %a, float addrspace(1)* %x, float addrspace(1)* %y, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %inside = icmp slt i32 %i, %n
  br i1 %inside, label %body, label %done

body:
  %px = getelementptr float, float addrspace(1)* %x, i32 %i
  %py = getelementptr float, float addrspace(1)* %y, i32 %i
  %vx = load float, float addrspace(1)* %px, align 4
  %vy = load float, float addrspace(1)* %py, align 4
  %ax = fmul float %a, %vx
  %r = fadd float %ax, %vy
  store float %r, float addrspace(1)* %py, align 4
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x() nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x() nounwind readnone

!nvvm.annotations = !{!0, !1}
!0 = !{void (float, float addrspace(1)*, float addrspace(1)*, i32)* @saxpy, !"kernel", i32 1}
!1 = !{void (float, float addrspace(1)*, float addrspace(1)*, i32)* @saxpy, !"maxntidx", i32 256}
!nvvmir.version = !{!2}
!2 = !{i32 2, i32 0}
