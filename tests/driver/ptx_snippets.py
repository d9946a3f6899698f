"""Small PTX modules written for the tests of the driver calls added beside the core driver."""

SCALE = r"""
.version 8.0
.target sm_80
.address_size 64

.visible .entry scale(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.f32 %f1, [a];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    mul.f32 %f2, %f2, %f1;
    st.global.f32 [%rd5], %f2;
DONE:
    ret;
}
"""

# Two modules for the linker: the kernel calls a function the second module defines.
CALLER = r"""
.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 out) twice(.param .b32 v);

.visible .entry use_twice(.param .u64 p)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    {
    .param .b32 arg;
    .param .b32 ret;
    st.param.b32 [arg], %r1;
    call.uni (ret), twice, (arg);
    ld.param.b32 %r2, [ret];
    }
    st.global.u32 [%rd3], %r2;
    ret;
}
"""

CALLEE = r"""
.version 8.0
.target sm_80
.address_size 64

.visible .func (.param .b32 out) twice(.param .b32 v)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [v];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [out], %r2;
    ret;
}
"""

# NVVM IR (LLVM 7-style typed pointers, as libNVVM documents): out[tid] = tid * 3
NVVM_TRIPLE = r"""
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define void @triple(i32 addrspace(1)* %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = mul i32 %t, 3
  %idx = zext i32 %t to i64
  %p = getelementptr i32, i32 addrspace(1)* %out, i64 %idx
  store i32 %v, i32 addrspace(1)* %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (i32 addrspace(1)*)* @triple, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0}
"""
