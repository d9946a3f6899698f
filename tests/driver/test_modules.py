"""Modules: loading nvcc's PTX in every accepted form, globals, function attributes, launch checks."""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import numpy as np
import pytest
from tests.driver.conftest import check

from cumetal import driver as cu

R = cu.CUresult
F = cu.CUfunction_attribute
PTX_PATH = Path(__file__).parent / "data" / "kernels.ptx"
PTX = PTX_PATH.read_text()
KERNELS = ["vector_add", "affine", "use_globals", "hello", "write_past_end", "spin_forever", "scale_dynamic_shared"]


@pytest.fixture
def module(ctx):
    m = check(cu.cuModuleLoadData(PTX.encode()))
    yield m
    check(cu.cuModuleUnload(m))


def test_load_forms(ctx):
    mods = [check(cu.cuModuleLoadData(PTX)),
            check(cu.cuModuleLoadData(PTX.encode() + b"\0garbage after the terminator")),
            check(cu.cuModuleLoadData(np.frombuffer(PTX.encode() + b"\0", np.uint8))),
            check(cu.cuModuleLoad(str(PTX_PATH))),
            check(cu.cuModuleLoad(str(PTX_PATH).encode())),
            check(cu.cuModuleLoadDataEx(PTX, 0, [], [])),
            check(cu.cuModuleLoadDataEx(PTX, 1, [cu.CUjit_option.CU_JIT_OPTIMIZATION_LEVEL], [4]))]
    keep = ctypes.create_string_buffer(PTX.encode())
    mods.append(check(cu.cuModuleLoadData(ctypes.addressof(keep))))
    assert len({int(m) for m in mods}) == len(mods)
    for m in mods:
        assert isinstance(check(cu.cuModuleGetFunction(m, b"vector_add")), cu.CUfunction)
        check(cu.cuModuleUnload(m))
    assert cu.cuModuleUnload(mods[0]) == (R.CUDA_ERROR_INVALID_HANDLE,)


def test_load_errors(ctx, tmp_path):
    assert cu.cuModuleLoad(str(tmp_path / "missing.ptx")) == (R.CUDA_ERROR_FILE_NOT_FOUND, None)
    assert cu.cuModuleLoadData(b"\x7fELF\x02\x01\x01" + bytes(64))[0] == R.CUDA_ERROR_NO_BINARY_FOR_GPU
    assert cu.cuModuleLoadData(b"\x50\xed\x55\xba" + bytes(64))[0] == R.CUDA_ERROR_NO_BINARY_FOR_GPU
    assert cu.cuModuleLoadData(b"")[0] == R.CUDA_ERROR_INVALID_IMAGE
    assert cu.cuModuleLoadData(b"\xff\xfe\x00")[0] == R.CUDA_ERROR_INVALID_IMAGE
    assert cu.cuModuleLoadData(".version 8.0\n.target sm_80\n.address_size 64\n.entry k( {")[0] == R.CUDA_ERROR_INVALID_PTX
    assert cu.cuModuleLoadData(3.5)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuModuleLoadData(0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuModuleLoadDataEx(PTX, 2, [cu.CUjit_option.CU_JIT_OPTIMIZATION_LEVEL], [4])[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuModuleLoadDataEx(PTX, 1, [999], [4])[0] == R.CUDA_ERROR_INVALID_VALUE


def test_functions_and_globals(module):
    fns = {name: check(cu.cuModuleGetFunction(module, name)) for name in KERNELS}
    assert check(cu.cuModuleGetFunction(module, "vector_add")) == fns["vector_add"]  # stable handle
    assert check(cu.cuFuncGetName(fns["affine"])) == b"affine"
    assert cu.cuModuleGetFunction(module, "nope") == (R.CUDA_ERROR_NOT_FOUND, None)
    assert cu.cuModuleGetFunction(module, 7) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuModuleGetFunction(cu.CUmodule(1), "vector_add") == (R.CUDA_ERROR_INVALID_HANDLE, None)
    ptr, size = check(cu.cuModuleGetGlobal(module, b"coeffs"))
    assert size == 16
    host = np.zeros(4, np.float32)
    check(cu.cuMemcpyDtoH(host, ptr, 16))
    np.testing.assert_array_equal(host, [1, 2, 3, 4])  # the .const initializer from nvcc
    cptr, csize = check(cu.cuModuleGetGlobal(module, "counter"))
    assert csize == 4
    check(cu.cuMemcpyHtoD(cptr, struct.pack("<i", 41), 4))  # globals are ordinary device memory
    assert cu.cuModuleGetGlobal(module, "missing") == (R.CUDA_ERROR_NOT_FOUND, None, None)


def test_function_attributes(module):
    f = check(cu.cuModuleGetFunction(module, "scale_dynamic_shared"))
    assert check(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f)) == 1024
    assert check(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)) == 0
    assert check(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f)) == 48 * 1024  # CUDA's
    assert check(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, f)) == 16
    assert check(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_PTX_VERSION, f)) == 80
    check(cu.cuFuncSetAttribute(f, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 4096))
    assert check(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f)) == 4096
    assert cu.cuFuncSetAttribute(f, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 20) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuFuncSetAttribute(f, F.CU_FUNC_ATTRIBUTE_NUM_REGS, 3) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuFuncGetAttribute(1234, f) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_NUM_REGS, cu.CUfunction(3)) == (R.CUDA_ERROR_INVALID_HANDLE, None)


def _launch(f, grid=(1, 1, 1), block=(32, 1, 1), shared=0, stream=0, params=None, extra=None):
    return cu.cuLaunchKernel(f, *grid, *block, shared, stream, params, extra)


def test_launch_configuration_is_validated_before_running(module):
    f = check(cu.cuModuleGetFunction(module, "vector_add"))
    d = check(cu.cuMemAlloc(64))
    args = ((d, d, d, 16), (None, None, None, ctypes.c_int))
    bad = [dict(block=(1025, 1, 1)), dict(block=(32, 32, 2)), dict(block=(0, 1, 1)), dict(grid=(0, 1, 1)),
           dict(grid=(1, 65536, 1)), dict(grid=(2**31, 1, 1)), dict(block=(1, 1, 1025)), dict(shared=48 * 1024 + 1),
           dict(grid=(-1, 1, 1)), dict(block=("32", 1, 1))]
    for cfg in bad:
        assert _launch(f, params=args, **cfg) == (R.CUDA_ERROR_INVALID_VALUE,), cfg
    assert _launch(f, params=None) == (R.CUDA_ERROR_INVALID_VALUE,)  # four parameters expected
    assert _launch(f, params=((d, d), (None, None))) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert _launch(f, params=args, stream=cu.CUstream(77)) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert _launch(cu.CUfunction(5), params=args) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert _launch(module, params=args)[0] == R.CUDA_ERROR_INVALID_VALUE  # a CUmodule is not a CUfunction


def test_module_with_an_unsupported_kernel_loads_the_rest(ctx, capfd):
    # hand-written: `uses_tcgen05` needs a Blackwell tensor-core instruction CuMetal has no model of
    m = check(cu.cuModuleLoad(str(PTX_PATH.parent / "partly_unsupported.ptx")))
    err = capfd.readouterr().err
    assert "kernel 'uses_tcgen05'" in err and "partly_unsupported.ptx:16" in err and "kernel 'good'" not in err
    assert isinstance(check(cu.cuModuleGetFunction(m, "good")), cu.CUfunction)
    assert cu.cuModuleGetFunction(m, "uses_tcgen05") == (R.CUDA_ERROR_NOT_SUPPORTED, None)
    assert "tcgen05" in cu.last_error_message()
    check(cu.cuModuleUnload(m))
