"""NVVM IR made by numba-cuda (recorded by scripts/make_numba_nvvm_ir.py: LLVM 7-style typed
pointers, !nvvm.annotations kernels, __nv_* libdevice calls), compiled by cumetal.nvvm and run on
the CPU backend against numpy."""

from __future__ import annotations

import ctypes
import math
import pathlib
import re

import numpy as np
import pytest

from cumetal import nvvm

DATA = pathlib.Path(__file__).with_name("data") / "numba"


def compile_recorded(name: str) -> tuple[bytes, str]:
    text = (DATA / f"{name}.ll").read_bytes()
    options = re.search(rb"^; options: (.*)$", text, re.M).group(1).decode().split()
    prog = nvvm.create_program()
    try:
        nvvm.add_module_to_program(prog, text, len(text), f"{name}.ll")
        nvvm.compile_program(prog, len(options), options)
        ptx = bytearray(nvvm.get_compiled_result_size(prog))
        nvvm.get_compiled_result(prog, ptx)
    finally:
        nvvm.destroy_program(prog)
    kernel = re.search(rb"\.visible \.entry (\w+)\(", ptx).group(1).decode()
    return bytes(ptx), kernel


def array_args(dptr, arr: np.ndarray) -> list[tuple]:
    """numba's 1-D array ABI: meminfo, parent, nitems, itemsize, data, shape[0], strides[0]."""
    i64 = ctypes.c_int64
    return [(0, ctypes.c_void_p), (0, ctypes.c_void_p), (arr.size, i64), (arr.itemsize, i64), (dptr, None),
            (arr.size, i64), (arr.itemsize, i64)]


def test_numba_saxpy_with_sin(device):
    ptx, kernel = compile_recorded("saxpy_sin")
    n = 500
    rng = np.random.default_rng(3)
    x, y = rng.random(n, dtype=np.float32), (rng.random(n, dtype=np.float32) - 0.5) * 20
    out = np.zeros(n, np.float32)
    dx, dy, dout = device.to_device(x), device.to_device(y), device.to_device(out)
    args = [(1.5, ctypes.c_float)] + array_args(dx, x) + array_args(dy, y) + array_args(dout, out)
    device.run(device.function(ptx, kernel), 4, 128, args)
    got = device.from_device(dout, out).astype(np.float64)
    ax, siny = np.float32(1.5) * x.astype(np.float64), np.sin(y.astype(np.float64))
    expect = ax + siny
    # sinf is within 2 ulp (CUDA's bound), then one rounding of the product and one of the sum
    bound = 2 * np.spacing(np.abs(siny).astype(np.float32)) + np.spacing(ax.astype(np.float32)) \
        + np.spacing(np.abs(expect).astype(np.float32))
    assert np.all(np.abs(got - expect) <= bound)


def test_numba_shared_memory_reduction_with_atomic(device):
    ptx, kernel = compile_recorded("block_sum")
    n = 1000
    x = np.arange(n, dtype=np.float32) % 17
    out = np.zeros(1, np.float32)
    dx, dout = device.to_device(x), device.to_device(out)
    device.run(device.function(ptx, kernel), 8, 128, array_args(dx, x) + array_args(dout, out))
    assert device.from_device(dout, out)[0] == x.sum()  # small integers: exact in any order


def test_numba_double_exp(device):
    ptx, kernel = compile_recorded("exp_f64")
    x = np.linspace(-20, 20, 256)
    out = np.zeros_like(x)
    dx, dout = device.to_device(x), device.to_device(out)
    device.run(device.function(ptx, kernel), 2, 128, array_args(dx, x) + array_args(dout, out))
    got = device.from_device(dout, out) + np.arange(256)
    np.testing.assert_allclose(got, np.exp(x), rtol=2 * 2.0**-52, atol=1e-9)


def test_live_numba_compile_ptx_uses_cumetal_nvvm():
    """Where numba-cuda is installed: numba's own compile_ptx goes through cumetal.nvvm."""
    numba_nvvm = pytest.importorskip("numba.cuda.cudadrv.nvvm")
    numba_nvrtc = pytest.importorskip("numba.cuda.cudadrv.nvrtc")
    from numba import cuda, float32, void

    from cumetal import libdevice, nvrtc

    class OurLibdevice:
        def get(self) -> bytes:
            return libdevice.bitcode_path().read_bytes()

    saved = numba_nvvm._nvvm, numba_nvvm.LibDevice, numba_nvrtc.bindings_nvrtc
    numba_nvvm._nvvm, numba_nvvm.LibDevice, numba_nvrtc.bindings_nvrtc = nvvm, OurLibdevice, nvrtc
    try:
        def k(x):
            i = cuda.grid(1)
            if i < x.size:
                x[i] = math.cos(x[i])

        ptx, _ = cuda.compile_ptx(k, void(float32[:]), cc=(8, 0))
    finally:
        numba_nvvm._nvvm, numba_nvvm.LibDevice, numba_nvrtc.bindings_nvrtc = saved
    assert ".visible .entry" in ptx and ".target sm_80" in ptx
