"""cumetal.nvrtc used as cuda-python's NVRTC: compile, load through cumetal.driver, run on the CPU
backend, compare with numpy."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from cumetal import nvrtc

R = nvrtc.nvrtcResult


def ok(result):
    err, *values = result
    assert err == R.NVRTC_SUCCESS, err
    return values[0] if len(values) == 1 else tuple(values)


def compile_program(src: str, name: str = "prog.cu", options=(), headers=None, names=()):
    headers = headers or {}
    prog = ok(nvrtc.nvrtcCreateProgram(src.encode(), name.encode(), len(headers),
                                       [h.encode() for h in headers.values()],
                                       [n.encode() for n in headers]))
    for expr in names:
        ok(nvrtc.nvrtcAddNameExpression(prog, expr.encode()))
    opts = [o.encode() for o in options]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    return prog, err


def program_log(prog) -> str:
    size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
    buf = b" " * size
    ok(nvrtc.nvrtcGetProgramLog(prog, buf))
    return buf.rstrip(b"\0").decode()


def ptx_of(prog) -> bytes:
    size = ok(nvrtc.nvrtcGetPTXSize(prog))
    buf = b" " * size
    ok(nvrtc.nvrtcGetPTX(prog, buf))
    assert buf.endswith(b"\0")
    return buf


SAXPY = """
extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n) {
  size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) out[tid] = a * x[tid] + y[tid];
}
"""


def test_saxpy_compiles_loads_and_runs(device):
    prog, err = compile_program(SAXPY, "saxpy.cu", ["--gpu-architecture=compute_80", "--fmad=false"])
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    ptx = ptx_of(prog)
    assert b".visible .entry saxpy(" in ptx
    fn = device.function(ptx, "saxpy")
    n = 4000
    rng = np.random.default_rng(7)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    dx, dy, dout = device.to_device(x), device.to_device(y), device.to_device(np.zeros(n, np.float32))
    device.run(fn, (n + 127) // 128, 128, [(2.0, ctypes.c_float), (dx, None), (dy, None), (dout, None),
                                            (n, ctypes.c_size_t)])
    np.testing.assert_array_equal(device.from_device(dout, x), np.float32(2.0) * x + y)  # no fma: -fmad=false
    ok(nvrtc.nvrtcDestroyProgram(prog))
    assert nvrtc.nvrtcGetPTXSize(prog)[0] == R.NVRTC_ERROR_INVALID_PROGRAM


def test_templates_name_expressions_and_in_memory_headers(device):
    headers = {"ops/scale.h": "#pragma once\n#include \"factor.h\"\ntemplate <typename T> __device__ T scale(T v) "
                              "{ return v * T(FACTOR); }\n",
               "factor.h": "#define FACTOR 3\n"}
    src = """
#include "ops/scale.h"
namespace kern {
template <typename T, int ADD>
__global__ void apply(T *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = scale(data[i]) + T(ADD);
}
}
__device__ int counter;
"""
    exprs = ["kern::apply<float, 1>", "kern::apply<int, -2>", "&counter"]
    prog, err = compile_program(src, "tmpl.cu", ["-arch=sm_80", "-std=c++17"], headers, exprs)
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    lowered = {e: ok(nvrtc.nvrtcGetLoweredName(prog, e.encode())) for e in exprs}
    assert lowered["&counter"] == b"counter"
    assert lowered["kern::apply<float, 1>"] == b"_ZN4kern5applyIfLi1EEEvPT_i"
    assert lowered["kern::apply<int, -2>"] == b"_ZN4kern5applyIiLin2EEEvPT_i"
    assert nvrtc.nvrtcGetLoweredName(prog, b"kern::apply<double, 0>")[0] == R.NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID
    assert nvrtc.nvrtcAddNameExpression(prog, b"x")[0] == R.NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION
    # sm_XX: a "CUBIN" exists, and it is what cuModuleLoadData accepts (the PTX bytes)
    size = ok(nvrtc.nvrtcGetCUBINSize(prog))
    cubin = bytearray(size)
    ok(nvrtc.nvrtcGetCUBIN(prog, cubin))
    assert bytes(cubin) == ptx_of(prog)
    assert b"__cumetal" not in cubin
    n = 100
    f = np.arange(n, dtype=np.float32) / 3
    i = np.arange(n, dtype=np.int32) - 50
    df, di = device.to_device(f), device.to_device(i)
    device.run(device.function(bytes(cubin), lowered["kern::apply<float, 1>"]), 1, 128,
               [(df, None), (n, ctypes.c_int)])
    device.run(device.function(bytes(cubin), lowered["kern::apply<int, -2>"]), 1, 128,
               [(di, None), (n, ctypes.c_int)])
    np.testing.assert_array_equal(device.from_device(df, f), f * np.float32(3) + np.float32(1))
    np.testing.assert_array_equal(device.from_device(di, i), i * 3 - 2)


def test_compile_error_gives_compilation_and_located_log():
    src = "__global__ void k(int *p) {\n  p[0] = undefined_name;\n}\n"
    prog, err = compile_program(src, "broken.cu")
    assert err == R.NVRTC_ERROR_COMPILATION
    log = program_log(prog)
    assert re.search(r"broken\.cu:2:10: error: use of undeclared identifier 'undefined_name'", log), log
    assert nvrtc.nvrtcGetLoweredName(prog, b"k")[0] == R.NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION


@pytest.mark.parametrize("option", ["--no-such-option", "-arch=compute_10", "--std=c++99", "-ftz=maybe"])
def test_unknown_or_bad_options_are_invalid_option(option):
    prog, err = compile_program(SAXPY, options=[option])
    assert err == R.NVRTC_ERROR_INVALID_OPTION
    assert "nvrtc: error:" in program_log(prog)


def test_defines_undefines_and_include_paths(tmp_path, device):
    (tmp_path / "disk.h").write_text("#define FROM_DISK 5\n")
    src = """
#include "disk.h"
extern "C" __global__ void k(int *out) {
#ifdef DROPPED
  out[0] = -1;
#else
  out[0] = VALUE + FROM_DISK;
#endif
}
"""
    prog, err = compile_program(src, options=["-DVALUE=37", "-D", "DROPPED", "-UDROPPED", f"-I{tmp_path}"])
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    d = device.to_device(np.zeros(1, np.int32))
    device.run(device.function(ptx_of(prog), "k"), 1, 1, [(d, None)])
    assert device.from_device(d, np.zeros(1, np.int32))[0] == 42


def test_dlto_gives_bitcode_and_compute_arch_gives_no_cubin():
    prog, err = compile_program(SAXPY, options=["-dlto", "-arch=compute_80"])
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    size = ok(nvrtc.nvrtcGetLTOIRSize(prog))
    buf = bytearray(size)
    ok(nvrtc.nvrtcGetLTOIR(prog, buf))
    assert buf[:4] == b"BC\xc0\xde"
    assert ok(nvrtc.nvrtcGetCUBINSize(prog)) == 0


def test_default_device_makes_unannotated_functions_callable_on_the_device(device):
    src = "int twice(int v) { return 2 * v; }\nextern \"C\" __global__ void k(int *p) { p[0] = twice(p[0]); }\n"
    prog, err = compile_program(src)
    assert err == R.NVRTC_ERROR_COMPILATION  # like NVRTC: a host function called from a kernel
    prog, err = compile_program(src, options=["-default-device"])
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    d = device.to_device(np.array([21], np.int32))
    device.run(device.function(ptx_of(prog), "k"), 1, 1, [(d, None)])
    assert device.from_device(d, np.zeros(1, np.int32))[0] == 42


def test_info_functions():
    assert nvrtc.nvrtcVersion() == (R.NVRTC_SUCCESS, 13, 0)
    n = ok(nvrtc.nvrtcGetNumSupportedArchs())
    archs = ok(nvrtc.nvrtcGetSupportedArchs())
    assert len(archs) == n and archs == sorted(archs) and 80 in archs
    assert nvrtc.nvrtcGetErrorString(R.NVRTC_ERROR_COMPILATION) == (R.NVRTC_SUCCESS, b"NVRTC_ERROR_COMPILATION")
    assert nvrtc.nvrtcGetErrorString(999) == (R.NVRTC_SUCCESS, b"NVRTC_ERROR unknown")
    assert nvrtc.nvrtcCompileProgram(12345, 0, [])[0] == R.NVRTC_ERROR_INVALID_PROGRAM
    assert nvrtc.nvrtcCreateProgram(b"", b"x", 2, [b"a"], [b"a"]) == (R.NVRTC_ERROR_INVALID_INPUT, None)


def test_error_in_an_in_memory_header_is_named_by_its_include_name():
    prog, err = compile_program('#include <ops/bad.h>\n__global__ void k() {}\n', "main.cu",
                                headers={"ops/bad.h": "int x = ;\n"})
    assert err == R.NVRTC_ERROR_COMPILATION
    log = program_log(prog)
    assert "In file included from main.cu:1:" in log
    assert re.search(r"^ops/bad\.h:1:9: error: expected expression", log, re.M), log


def test_pre_include_and_disable_warnings(device):
    headers = {"pre.h": "#define PRE_VALUE 9\n"}
    src = 'extern "C" __global__ void k(int *p) { int unused_var; p[0] = PRE_VALUE; }\n'
    prog, err = compile_program(src, "w.cu", ["--pre-include=pre.h"], headers)
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    d = device.to_device(np.zeros(1, np.int32))
    device.run(device.function(ptx_of(prog), "k"), 1, 1, [(d, None)])
    assert device.from_device(d, np.zeros(1, np.int32))[0] == 9
    src_warn = 'extern "C" __global__ void k(int *p) { p[0] = 1 << 40; }\n'  # overflowing shift: a warning
    prog, err = compile_program(src_warn, "w.cu")
    assert err == R.NVRTC_SUCCESS and "w.cu:1:" in program_log(prog) and "warning" in program_log(prog)
    prog, err = compile_program(src_warn, "w.cu", ["-w"])
    assert err == R.NVRTC_SUCCESS and "warning" not in program_log(prog)


def test_dense_switch_runs(device):
    # clang lowers this switch on a uniform value to a jump table (PTX brx.idx, which CuMetal's PTX
    # front end cannot run) unless told not to
    src = """
extern "C" __global__ void pick(int *p, int s) {
  int v;
  switch (s) {
    case 0: v = 11; break;          case 1: v = p[3]; break;    case 2: v = p[1] * 7; break;
    case 3: v = p[2] + 9; break;    case 4: v = 5; break;       case 5: v = p[5] ^ 3; break;
    case 6: v = 99; break;          case 7: v = p[7]; break;
    default: v = -1;
  }
  p[0] = v;
}
"""
    prog, err = compile_program(src, "switch.cu", ["-arch=sm_80"])
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    ptx = ptx_of(prog)
    assert b"brx.idx" not in ptx
    fn = device.function(ptx, "pick")
    base = np.arange(8, dtype=np.int32) * 10
    for sel in range(-1, 9):
        d = device.to_device(base)
        device.run(fn, 1, 1, [(d, None), (sel, ctypes.c_int)])
        table = [11, base[3], base[1] * 7, base[2] + 9, 5, base[5] ^ 3, 99, base[7]]
        assert device.from_device(d, base)[0] == (table[sel] if 0 <= sel < 8 else -1), sel


def test_builtin_environment_without_includes():
    # NVRTC gives programs the NV_IF_TARGET macros and std::move without an #include; NVIDIA's own
    # cuda_fp16.h (as numba-cuda ships it) relies on both under __CUDACC_RTC__
    src = """
    struct pair { int a, b; };
    extern "C" __global__ void k(int *out) {
        pair p{3, 4};
        pair q = ::std::move(p);
        NV_IF_ELSE_TARGET(NV_IS_DEVICE, out[0] = q.a + q.b; , out[0] = -1;)
    }
    """
    prog, err = compile_program(src)
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    assert b".entry k" in ptx_of(prog)


def test_half_functions_only_declared_link_from_the_builtin_library(device):
    # NVIDIA's cuda_fp16.h, compiled by NVRTC 12.3+, only declares its functions (NVRTC links their
    # definitions); numba-cuda compiles it so. CuMetal's math library carries them under the same names.
    src = """
    struct __align__(2) __half { unsigned short __x; };
    __device__ __half __float2half(const float a);
    __device__ float __half2float(const __half a);
    __device__ __half operator*(const __half &lh, const __half &rh);
    __device__ __half htrunc(const __half h);
    extern "C" __global__ void k(const float *x, float *out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = __half2float(htrunc(__float2half(x[i]) * __float2half(x[i])));
    }
    """
    prog, err = compile_program(src, "halfs.cu")
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    ptx = ptx_of(prog)
    assert b".extern .func" not in ptx  # everything was linked in
    fn = device.function(ptx, "k")
    x = np.linspace(-20, 20, 200).astype(np.float32)
    dx, dout = device.to_device(x), device.to_device(np.zeros(200, np.float32))
    device.run(fn, 2, 128, [(dx, None), (dout, None), (200, ctypes.c_int)])
    h = x.astype(np.float16)
    expect = np.trunc((h * h).astype(np.float16)).astype(np.float32)
    np.testing.assert_array_equal(device.from_device(dout, x), expect)


def test_boolean_options_take_nvrtcs_true_false_spelling():
    """NVRTC writes several switches as --name={true|false} (cuda.core's ProgramOptions passes them
    so): they are accepted; a value that is neither is an invalid option."""
    src = 'extern "C" __global__ void k(int *p) { p[0] = 1; }\n'
    for opt in ("--builtin-move-forward=false", "--builtin-initializer-list=true", "--pch-verbose=true",
                "--instantiate-templates-in-pch=false", "--brief-diagnostics=true", "--device-stack-protector=false",
                "-Ofast-compile=max", "--Wext-lambda-captures-this"):
        prog, err = compile_program(src, options=[opt])
        assert err == R.NVRTC_SUCCESS, (opt, program_log(prog))
    prog, err = compile_program(src, options=["--extra-device-vectorization=maybe"])
    assert err == R.NVRTC_ERROR_INVALID_OPTION and "expected true or false" in program_log(prog)
