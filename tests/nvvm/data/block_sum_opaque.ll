; Opaque-pointer NVVM IR (LLVM >= 17 style): ptx_kernel calling convention instead of annotations,
; a __shared__ array in addrspace(3), a __constant__ in addrspace(4), a local array in addrspace(5),
; the CTA barrier, a generic->global addrspacecast and a 32-bit atomic add.
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [128 x float] undef, align 4
@scale = addrspace(4) global float 2.000000e+00, align 4

define ptx_kernel void @block_sum(ptr %in, ptr addrspace(1) %out, ptr addrspace(1) %count) {
entry:
  %scratch = alloca [2 x float], align 4, addrspace(5)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %ctaid, 7
  %i = add i32 %base, %tid
  %gin = addrspacecast ptr %in to ptr addrspace(1)
  %p = getelementptr float, ptr addrspace(1) %gin, i32 %i
  %v = load float, ptr addrspace(1) %p, align 4
  %s = load float, ptr addrspace(4) @scale, align 4
  %slot = getelementptr [2 x float], ptr addrspace(5) %scratch, i32 0, i32 1
  %vs = fmul float %v, %s
  store float %vs, ptr addrspace(5) %slot, align 4
  %back = load float, ptr addrspace(5) %slot, align 4
  %t = getelementptr [128 x float], ptr addrspace(3) @tile, i32 0, i32 %tid
  store float %back, ptr addrspace(3) %t, align 4
  call void @llvm.nvvm.barrier0()
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %sum, label %done

sum:
  %k = phi i32 [ 0, %entry ], [ %k1, %sum ]
  %acc = phi float [ 0.000000e+00, %entry ], [ %acc1, %sum ]
  %e = getelementptr [128 x float], ptr addrspace(3) @tile, i32 0, i32 %k
  %ev = load float, ptr addrspace(3) %e, align 4
  %acc1 = fadd float %acc, %ev
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, 128
  br i1 %more, label %sum, label %write

write:
  %o = getelementptr float, ptr addrspace(1) %out, i32 %ctaid
  store float %acc1, ptr addrspace(1) %o, align 4
  %old = atomicrmw add ptr addrspace(1) %count, i32 1 monotonic
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
