"""NVVM IR → PTX (cumetal.nvvmir) → cumetal.driver on the CPU backend, checked against numpy."""

from __future__ import annotations

import ctypes
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest

from cumetal.nvvmir import NvvmError, NvvmModule, compile_nvvm, compile_nvvm_to_ptx, parse_nvvm_options

DATA = pathlib.Path(__file__).with_name("data")


def _ll(name: str) -> str:
    return (DATA / name).read_text()


def test_typed_pointer_saxpy_with_annotations_runs(device):
    ptx = compile_nvvm_to_ptx([_ll("saxpy_typed.ll")], ["-arch=compute_80"])
    assert re.search(r"\.visible \.entry saxpy\(", ptx)
    assert re.search(r"\.maxntid 256", ptx)  # maxntidx annotation kept
    fn = device.function(ptx, "saxpy")
    n = 1000
    rng = np.random.default_rng(1)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    dx, dy = device.to_device(x), device.to_device(y)
    device.run(fn, 4, 256, [(2.5, ctypes.c_float), (dx, None), (dy, None), (n, ctypes.c_int)])
    # -fma=1 (default) contracts a*x+y into one fma, rounded once, like libNVVM
    expect = (np.float64(2.5) * x.astype(np.float64) + y).astype(np.float32)
    np.testing.assert_array_equal(device.from_device(dy, y), expect)


def test_opaque_pointers_address_spaces_barrier_atomic(device):
    ptx = compile_nvvm_to_ptx([_ll("block_sum_opaque.ll")], ["-arch=compute_80", "-opt=3"])
    fn = device.function(ptx, "block_sum")
    blocks = 3
    x = np.arange(blocks * 128, dtype=np.float32) / 7
    dx, dout, dcount = device.to_device(x), device.to_device(np.zeros(blocks, np.float32)), \
        device.to_device(np.zeros(1, np.int32))
    device.run(fn, blocks, 128, [(dx, None), (dout, None), (dcount, None)])
    expect = np.array([np.float32(0) + np.cumsum(2 * x[b * 128:(b + 1) * 128], dtype=np.float32)[-1]
                       for b in range(blocks)], np.float32)
    np.testing.assert_array_equal(device.from_device(dout, np.zeros(blocks, np.float32)), expect)
    assert device.from_device(dcount, np.zeros(1, np.int32))[0] == blocks


@pytest.mark.parametrize("opt", ["-opt=0", "-opt=3"])
def test_libdevice_calls_are_linked_and_accurate(device, opt):
    ptx = compile_nvvm_to_ptx([_ll("math_libdevice.ll")], [opt])
    assert "__nv_" not in re.sub(r"//.*", "", ptx) or opt == "-opt=0"  # inlined at -opt=3
    assert ".extern" not in ptx  # nothing left unresolved
    fn = device.function(ptx, "transcendental")
    x = np.linspace(-10, 10, 96).astype(np.float32)
    dx = device.to_device(x)
    ds, de, dd = (device.to_device(np.zeros(96, t)) for t in (np.float32, np.float32, np.float64))
    device.run(fn, 1, 96, [(dx, None), (ds, None), (de, None), (dd, None)])
    x64 = x.astype(np.float64)
    s = device.from_device(ds, np.zeros(96, np.float32)).astype(np.float64)
    e = device.from_device(de, np.zeros(96, np.float32)).astype(np.float64)
    d = device.from_device(dd, np.zeros(96, np.float64))
    ulp32 = np.spacing(np.abs(np.sin(x64)).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(s - np.sin(x64)) <= 2 * ulp32 + 1e-45)   # CUDA: sinf 2 ulp
    assert np.all(np.abs(e / np.exp(x64) - 1) <= 2 * 2.0**-23)     # CUDA: expf 2 ulp
    assert np.all(np.abs(d / np.exp(x64) - 1) <= 2.0**-52)         # CUDA: exp 1 ulp


def test_bitcode_input_and_two_modules_linked(device):
    import llvmlite.binding as llvm

    helper = """
target triple = "nvptx64-nvidia-cuda"
define float @twice(float %v) {
  %r = fmul float %v, 2.0
  ret float %r
}
"""
    kernel = """
target triple = "nvptx64-nvidia-cuda"
declare float @twice(float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = getelementptr float, ptr addrspace(1) %p, i32 %t
  %v = load float, ptr addrspace(1) %a
  %w = call float @twice(float %v)
  store float %w, ptr addrspace(1) %a
  ret void
}
"""
    bitcode = llvm.parse_assembly(helper).as_bitcode()
    assert bitcode.startswith(b"BC\xc0\xde")
    ptx = compile_nvvm_to_ptx([kernel, bitcode], names=["kernel.ll", "helper.bc"])
    fn = device.function(ptx, "k")
    x = np.arange(32, dtype=np.float32)
    dx = device.to_device(x)
    device.run(fn, 1, 32, [(dx, None)])
    np.testing.assert_array_equal(device.from_device(dx, x), 2 * x)


def test_lazy_module_keeps_only_what_is_used():
    lazy = """
target triple = "nvptx64-nvidia-cuda"
define float @used(float %v) {
  ret float %v
}
define float @unused_helper(float %v) {
  %r = fadd float %v, 1.0
  ret float %r
}
"""
    main = """
target triple = "nvptx64-nvidia-cuda"
declare float @used(float)
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %v = load float, ptr addrspace(1) %p
  %w = call float @used(float %v)
  store float %w, ptr addrspace(1) %p
  ret void
}
"""
    out = compile_nvvm([NvvmModule(main, "main.ll"), NvvmModule(lazy, "lib.ll", lazy=True)], ["-opt=0"])
    assert "unused_helper" not in out.ptx
    eager = compile_nvvm([NvvmModule(main, "main.ll"), NvvmModule(lazy, "lib.ll")], ["-opt=0"])
    assert "unused_helper" in eager.ptx


FP_KERNEL = """
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr addrspace(1) %p, float %a, float %b) {
  %v = load float, ptr addrspace(1) %p
  %m = fmul float %v, %a
  %s = fadd float %m, %b
  %d = fdiv float %s, %a
  %q = call float @llvm.sqrt.f32(float %d)
  store float %q, ptr addrspace(1) %p
  ret void
}
declare float @llvm.sqrt.f32(float)
"""


def _body(ptx: str) -> str:
    return "\n".join(ln.split("//")[0] for ln in ptx.splitlines())


@pytest.mark.parametrize("options, present, absent", [
    ([], ["fma.rn.f32", "div.rn.f32", "sqrt.rn.f32"], [".ftz"]),
    (["-fma=0"], ["mul.rn.f32", "add.rn.f32"], ["fma."]),
    (["-ftz=1"], ["fma.rn.ftz.f32", "div.rn.ftz.f32", "sqrt.rn.ftz.f32"], []),
    (["-prec-div=0", "-prec-sqrt=0"], ["div.full.f32", "sqrt.approx.f32"], ["div.rn", "sqrt.rn"]),
])
def test_floating_point_options_reach_the_ptx(options, present, absent):
    body = _body(compile_nvvm_to_ptx([FP_KERNEL], options))
    for text in present:
        assert text in body, (options, text)
    for text in absent:
        assert text not in body, (options, text)
    # process-wide codegen settings are restored after each compile
    assert "div.rn.f32" in _body(compile_nvvm_to_ptx([FP_KERNEL]))


def test_arch_option_sets_target():
    assert ".target sm_90" in compile_nvvm_to_ptx([FP_KERNEL], ["-arch=compute_90"])
    assert ".target sm_75" in compile_nvvm_to_ptx([FP_KERNEL])  # libNVVM 13's default


def test_malformed_text_names_module_line_and_column():
    src = "target triple = \"nvptx64-nvidia-cuda\"\ndefine void @f() {\n  %x = add i32 1\n  ret void\n}\n"
    with pytest.raises(NvvmError) as info:
        compile_nvvm_to_ptx([src], names=["broken.ll"])
    assert info.value.kind == "invalid_ir"
    assert re.match(r"broken\.ll:4:3: error: expected ','", info.value.log)


def test_missing_libdevice_function_is_named():
    src = """
target triple = "nvptx64-nvidia-cuda"
declare float @__nv_no_such_function(float)
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %v = load float, ptr addrspace(1) %p
  %w = call float @__nv_no_such_function(float %v)
  store float %w, ptr addrspace(1) %p
  ret void
}
"""
    with pytest.raises(NvvmError) as info:
        compile_nvvm_to_ptx([src], names=["m.ll"])
    assert info.value.kind == "compilation"
    assert "__nv_no_such_function" in info.value.log and info.value.log.startswith("m.ll:")


@pytest.mark.parametrize("module, kind, words", [
    (b"\x00\xff\xfe junk", "invalid_ir", "not NVVM IR"),
    (b"BC\xc0\xde\x00\x00\x00\x00", "invalid_ir", "malformed LLVM bitcode"),
    ('target triple = "nvptx-unknown-cuda"\n', "invalid_ir", "32-bit"),
    ('target triple = "x86_64-unknown-linux-gnu"\n', "invalid_ir", "not an NVPTX triple"),
    ('target triple = "nvptx64-nvidia-cuda"\n!nvvmir.version = !{!0}\n!0 = !{i32 9, i32 0}\n',
     "ir_version_mismatch", "9.0"),
])
def test_bad_modules_are_refused_with_a_reason(module, kind, words):
    with pytest.raises(NvvmError) as info:
        compile_nvvm_to_ptx([module], names=["in.ll"])
    assert info.value.kind == kind and words in info.value.log and "in.ll" in info.value.log


@pytest.mark.parametrize("option", ["-arch=compute_10", "-opt=7", "-ftz=2", "-bogus", "arch=compute_80"])
def test_bad_options_are_refused(option):
    with pytest.raises(NvvmError) as info:
        compile_nvvm_to_ptx([FP_KERNEL], [option])
    assert info.value.kind == "invalid_option"


def test_option_parsing():
    o = parse_nvvm_options(["-arch=compute_86", "-opt=0", "-ftz=1", "-prec-sqrt=0", "-prec-div=0", "-fma=0",
                            "-g", "-generate-line-info", "-jump-table-density=50"])
    assert (o.arch, o.opt_level, o.ftz, o.prec_sqrt, o.prec_div, o.fma, o.debug, o.lineinfo) == \
        ("sm_86", 0, True, False, False, False, True, True)


CLANG_KERNEL = r"""
__global__ void k(float *x, int n) {
  __shared__ float s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  float v = s[threadIdx.x ^ 1];
  v += __shfl_down_sync(0xffffffffu, v, 1);
  if (i < n) x[i] = v + sinf(x[i]);
}
"""


@pytest.fixture(scope="module")
def clang_bitcode() -> bytes:
    from cumetal.cudacxx.compile import compile_to_bitcode
    from cumetal.cudacxx.options import CudaOptions

    return compile_to_bitcode(CLANG_KERNEL, "k.cu", CudaOptions(arch="sm_80", debug=True)).bitcode


@pytest.mark.parametrize("form", ["bitcode", "text"])
def test_clang_made_nvvm_ir_runs(device, clang_bitcode, form):
    import llvmlite.binding as llvm

    module = clang_bitcode if form == "bitcode" else str(llvm.parse_bitcode(clang_bitcode))
    ptx = compile_nvvm_to_ptx([module], ["-arch=compute_80"])
    fn = device.function(ptx, "_Z1kPfi")
    n = 64
    x = (np.arange(n, dtype=np.float32) - 30) / 5
    dx = device.to_device(x)
    device.run(fn, 1, 64, [(dx, None), (n, ctypes.c_int)])
    partner = x[np.arange(n) ^ 1]
    lane = np.arange(n)
    # shfl.down by 1: the last lane of each warp reads its own value
    shifted = np.where(lane % 32 < 31, partner[np.minimum(lane + 1, n - 1)], partner)
    expect = (partner + shifted).astype(np.float64) + np.sin(x.astype(np.float64))
    got = device.from_device(dx, x).astype(np.float64)
    assert np.all(np.abs(got - expect) <= 4 * np.spacing(np.abs(expect).astype(np.float32)) + 1e-7)


def test_debug_info_follows_g_and_line_info_options(clang_bitcode):
    plain = compile_nvvm_to_ptx([clang_bitcode])
    lines = compile_nvvm_to_ptx([clang_bitcode], ["-generate-line-info"])
    full = compile_nvvm_to_ptx([clang_bitcode], ["-g"])
    assert "\t.loc\t" not in plain and ".file" not in plain  # libNVVM ignores debug info without -g
    assert "\t.loc\t" in lines and "\t.loc\t" in full
    assert ".debug_info" in full


@pytest.mark.skipif(shutil.which("llvm-as-14") is None, reason="needs llvm-as-14 (LLVM 14: typed-pointer bitcode)")
def test_typed_pointer_bitcode_from_llvm14_runs(device, tmp_path):
    bc = tmp_path / "saxpy.bc"
    subprocess.run(["llvm-as-14", str(DATA / "saxpy_typed.ll"), "-o", str(bc)], check=True)
    data = bc.read_bytes()
    assert data.startswith(b"BC\xc0\xde")
    fn = device.function(compile_nvvm_to_ptx([data], ["-fma=0"], names=["saxpy.bc"]), "saxpy")
    x, y = np.arange(64, dtype=np.float32), np.full(64, 0.25, np.float32)
    dx, dy = device.to_device(x), device.to_device(y)
    device.run(fn, 1, 64, [(3.0, ctypes.c_float), (dx, None), (dy, None), (64, ctypes.c_int)])
    np.testing.assert_array_equal(device.from_device(dy, y), np.float32(3) * x + y)


OLD_STYLE = """
target triple = "nvptx64-unknown-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.shfl.down.i32(i32, i32, i32)
declare i32 @llvm.nvvm.vote.ballot(i1)
declare float @llvm.sin.f32(float)
define void @k(i32 addrspace(1)* %p, float addrspace(1)* %f) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = getelementptr i32, i32 addrspace(1)* %p, i32 %t
  %v = load i32, i32 addrspace(1)* %a
  %s = call i32 @llvm.nvvm.shfl.down.i32(i32 %v, i32 1, i32 31)
  %odd = icmp ne i32 %s, 0
  %b = call i32 @llvm.nvvm.vote.ballot(i1 %odd)
  %r = add i32 %s, %b
  store i32 %r, i32 addrspace(1)* %a
  %fa = getelementptr float, float addrspace(1)* %f, i32 %t
  %x = load float, float addrspace(1)* %fa
  %y = call float @llvm.sin.f32(float %x)
  store float %y, float addrspace(1)* %fa
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{void (i32 addrspace(1)*, float addrspace(1)*)* @k, !"kernel", i32 1}
"""


def test_pre_volta_warp_intrinsics_and_llvm_sin_are_upgraded(device):
    ptx = compile_nvvm_to_ptx([OLD_STYLE], ["-arch=compute_80"])
    assert "shfl.sync.down" in ptx and "vote.sync.ballot" in ptx
    fn = device.function(ptx, "k")
    v = np.arange(32, dtype=np.int32) % 3
    x = np.linspace(-3, 3, 32).astype(np.float32)
    dv, dx = device.to_device(v), device.to_device(x)
    device.run(fn, 1, 32, [(dv, None), (dx, None)])
    shifted = np.append(v[1:], v[31])  # the last lane reads its own value
    ballot = int(sum(1 << i for i in range(32) if shifted[i] != 0))
    expect = (shifted.astype(np.int64) + ballot).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(device.from_device(dv, v), expect)
    got = device.from_device(dx, x).astype(np.float64)
    assert np.all(np.abs(got - np.sin(x.astype(np.float64))) <= 2 * np.spacing(np.float32(1)))


def test_code_generator_abort_is_an_error_not_a_crash():
    # A texture fetch through a plain integer handle makes LLVM's NVPTX back end abort the process;
    # the abort happens in the code-generation worker and comes back as an error.
    src = """
target triple = "nvptx64-nvidia-cuda"
declare { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.s32(i64, i32)
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %t = call { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.s32(i64 5, i32 0)
  %f = extractvalue { float, float, float, float } %t, 0
  store float %f, ptr addrspace(1) %p
  ret void
}
"""
    with pytest.raises(NvvmError) as info:
        compile_nvvm_to_ptx([src], names=["tex.ll"])
    assert info.value.kind == "compilation" and info.value.log.startswith("tex.ll: error: LLVM's NVPTX back end")
    assert ".entry" in compile_nvvm_to_ptx([FP_KERNEL])  # and the next compile works


@pytest.mark.parametrize("options, value", [(["-opt=0"], 0), (["-opt=3"], 0), (["-opt=0", "-ftz=1"], 1),
                                            (["-ftz=1"], 1)])
def test_nvvm_reflect_answers_the_ftz_option(options, value):
    src = """
target triple = "nvptx64-nvidia-cuda"
@.str = private unnamed_addr constant [11 x i8] c"__CUDA_FTZ\\00"
declare i32 @__nvvm_reflect(ptr)
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %r = call i32 @__nvvm_reflect(ptr @.str)
  store i32 %r, ptr addrspace(1) %p
  ret void
}
"""
    ptx = compile_nvvm_to_ptx([src], options)
    assert "__nvvm_reflect" not in ptx
    assert re.search(rf"st\.global\.b32\s+\[%rd\d+\], {value};", ptx)
