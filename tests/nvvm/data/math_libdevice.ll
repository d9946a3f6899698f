; libdevice calls from NVVM IR: __nv_sinf / __nv_expf (float) and __nv_exp (double) are resolved
; from CuMetal's libdevice bitcode.
target triple = "nvptx64-nvidia-cuda"

declare float @__nv_sinf(float)
declare float @__nv_expf(float)
declare double @__nv_exp(double)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define void @transcendental(ptr addrspace(1) %x, ptr addrspace(1) %sin_out, ptr addrspace(1) %exp_out, ptr addrspace(1) %dexp_out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %px = getelementptr float, ptr addrspace(1) %x, i32 %t
  %v = load float, ptr addrspace(1) %px, align 4
  %s = call float @__nv_sinf(float %v)
  %e = call float @__nv_expf(float %v)
  %d = fpext float %v to double
  %de = call double @__nv_exp(double %d)
  %ps = getelementptr float, ptr addrspace(1) %sin_out, i32 %t
  %pe = getelementptr float, ptr addrspace(1) %exp_out, i32 %t
  %pd = getelementptr double, ptr addrspace(1) %dexp_out, i32 %t
  store float %s, ptr addrspace(1) %ps, align 4
  store float %e, ptr addrspace(1) %pe, align 4
  store double %de, ptr addrspace(1) %pd, align 8
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @transcendental, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0, i32 3, i32 1}
