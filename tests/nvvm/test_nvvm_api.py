"""cumetal.nvvm as libNVVM: both cuda.bindings spellings, results loadable by cumetal.driver."""

from __future__ import annotations

import ctypes
import pathlib

import numpy as np
import pytest

from cumetal import nvvm

DATA = pathlib.Path(__file__).with_name("data")
S = nvvm.nvvmResult


def test_c_names_with_err_tuples_compile_and_run(device):
    src = (DATA / "saxpy_typed.ll").read_bytes()
    err, prog = nvvm.nvvmCreateProgram()
    assert err == S.NVVM_SUCCESS
    assert nvvm.nvvmAddModuleToProgram(prog, src, len(src), "saxpy.ll") == (S.NVVM_SUCCESS,)
    assert nvvm.nvvmVerifyProgram(prog, 0, []) == (S.NVVM_SUCCESS,)
    assert nvvm.nvvmCompileProgram(prog, 2, [b"-arch=compute_80", b"-fma=0"]) == (S.NVVM_SUCCESS,)
    err, size = nvvm.nvvmGetCompiledResultSize(prog)
    ptx = b" " * size
    assert nvvm.nvvmGetCompiledResult(prog, ptx) == (S.NVVM_SUCCESS,)
    assert ptx.endswith(b"\0") and b".entry saxpy" in ptx
    err, log_size = nvvm.nvvmGetProgramLogSize(prog)
    assert (err, log_size) == (S.NVVM_SUCCESS, 1)
    fn = device.function(ptx, "saxpy")
    n = 300
    x, y = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    dx, dy = device.to_device(x), device.to_device(y)
    device.run(fn, 2, 256, [(0.5, ctypes.c_float), (dx, None), (dy, None), (n, ctypes.c_int)])
    np.testing.assert_array_equal(device.from_device(dy, y), np.float32(0.5) * x + y)
    assert nvvm.nvvmDestroyProgram(prog) == (S.NVVM_SUCCESS,)
    assert nvvm.nvvmCompileProgram(prog, 0, [])[0] == S.NVVM_ERROR_INVALID_PROGRAM


def test_snake_case_spelling_raises_nvvm_error_with_log():
    prog = nvvm.create_program()
    bad = b'target triple = "nvptx64-nvidia-cuda"\ndefine void @f() {\n  ret i32 0\n}\n'
    nvvm.add_module_to_program(prog, bad, len(bad), "bad.ll")
    with pytest.raises(nvvm.nvvmError) as info:
        nvvm.compile_program(prog, 0, [])
    assert info.value.status == nvvm.Result.ERROR_INVALID_IR
    buf = bytearray(nvvm.get_program_log_size(prog))
    nvvm.get_program_log(prog, buf)
    assert buf.decode().startswith("bad.ll:3:7: error:")
    with pytest.raises(nvvm.nvvmError) as info:
        nvvm.compile_program(prog, 1, ["-opt=9"])
    assert info.value.status == nvvm.Result.ERROR_INVALID_OPTION
    nvvm.destroy_program(prog)


def test_no_module_and_lazy_only_programs():
    prog = nvvm.create_program()
    assert nvvm.nvvmCompileProgram(prog, 0, [])[0] == S.NVVM_ERROR_NO_MODULE_IN_PROGRAM
    src = b'target triple = "nvptx64-nvidia-cuda"\ndefine void @f() {\n  ret void\n}\n'
    nvvm.lazy_add_module_to_program(prog, src, len(src), "lazy.ll")
    assert nvvm.nvvmCompileProgram(prog, 0, [])[0] == S.NVVM_ERROR_NO_MODULE_IN_PROGRAM
    nvvm.destroy_program(prog)


def test_version_queries():
    assert nvvm.nvvmVersion() == (S.NVVM_SUCCESS, 2, 0)
    err, *ir = nvvm.nvvmIRVersion()
    assert err == S.NVVM_SUCCESS and tuple(ir) == nvvm.ir_version() and ir[0] == 2
    assert nvvm.nvvmGetErrorString(S.NVVM_ERROR_COMPILATION) == (S.NVVM_SUCCESS, b"NVVM_ERROR_COMPILATION")
    assert nvvm.get_error_string(6) == "NVVM_ERROR_INVALID_IR"


def test_gen_lto_returns_bitcode():
    src = (DATA / "saxpy_typed.ll").read_bytes()
    prog = nvvm.create_program()
    nvvm.add_module_to_program(prog, src, len(src), "saxpy.ll")
    nvvm.compile_program(prog, 1, ["-gen-lto"])
    out = bytearray(nvvm.get_compiled_result_size(prog))
    nvvm.get_compiled_result(prog, out)
    assert out[:4] == b"BC\xc0\xde"
