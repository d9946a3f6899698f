"""cuda_runtime.h: qualifiers, built-in variables, vector types, device printf, assert, and what
happens to device-side allocation."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest
from cuda_headers_harness import F32, I32, KERNELS, compile_kernels, ok

from cumetal import driver as cu


class Float4(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("z", ctypes.c_float), ("w", ctypes.c_float)]


class Params(ctypes.Structure):
    _fields_ = [("scale", ctypes.c_int), ("pad", ctypes.c_int * 3), ("bias", Float4)]


@pytest.fixture(scope="module")
def g(gpu):
    gpu.load("runtime_basics.cu")
    return gpu


def test_builtin_variables_vectors_qualifiers(g):
    grid, block = (3, 2, 2), (4, 2, 3)
    n = 12 * 24
    d_out = g.to_device(np.zeros(8 * n, np.int32))
    p = Params(3, (ctypes.c_int * 3)(), Float4(0, 0, 0, 7.0))
    g.run("indexing", grid, block, [(d_out, None), (p, Params)])
    out = g.from_device(d_out, np.zeros(8 * n, np.int32)).reshape(n, 8)
    k = 0
    for bz in range(2):
        for by in range(2):
            for bx in range(3):
                for tz in range(3):
                    for ty in range(2):
                        for tx in range(4):
                            o = out[k].tolist()
                            assert o[:5] == [tx + 10 * ty + 100 * tz, bx + 10 * by + 100 * bz, 4 + 20 + 300,
                                             3 + 20 + 200, 32]
                            assert o[5] == [10, 20, 30, 40][k % 4] * 3 + 7
                            assert o[6] == 3 * k + 1
                            assert o[7] == 10 + 2 + 711
                            k += 1


def test_device_printf(g, capfd):
    g.run("hello", (2,), (2,), [(7, I32), (2.5, F32)])
    lines = sorted(capfd.readouterr().out.splitlines())
    assert lines == sorted(f"hello from block {b} thread {t}: a=7 b=2.50 s=str c=Z" for b in range(2) for t in range(2))


def test_assert_prints_cuda_message_and_fails_the_launch(g, capfd):
    vals = np.array([1, 2, -3, 4], np.int32)
    d_in, d_out = g.to_device(vals), g.to_device(np.zeros(4, np.int32))
    g.run("checked", (1,), (2,), [(d_in, None), (d_out, None)])  # the first two values pass
    err, sync = g.launch("checked", (1,), (4,), [(d_in, None), (d_out, None)])
    assert cu.CUresult.CUDA_ERROR_ASSERT in (err, sync)
    out = capfd.readouterr().out
    # CUDA's format: file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `expr` failed.
    # (the function name is what the C library's assert macro passes)
    line = (KERNELS / "runtime_basics.cu").read_text().splitlines().index("    assert(v >= 0);") + 1
    assert re.search(rf"runtime_basics\.cu:{line}: [^\n]*checked[^\n]*: block: \[0,0,0\], thread: \[2,0,0\] "
                     r"Assertion `v >= 0` failed\.", out), out


def test_device_heap_malloc_and_new(g):
    # malloc/free/new/delete compile as in CUDA and run on the cpu backend's device heap
    # (tests/functional/test_device_heap.py has more, and the other backends' refusal)
    ptx = compile_kernels("device_heap.cu")
    mod = ok(cu.cuModuleLoadData(ptx.encode()))
    d_out = g.to_device(np.zeros(2, np.uint64))
    for name in ("uses_malloc", "uses_new"):
        fn = ok(cu.cuModuleGetFunction(mod, name.encode()))
        assert cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((d_out,), (ctypes.c_void_p,)), 0)[0] == 0
        assert cu.cuCtxSynchronize()[0] == 0
        assert g.from_device(d_out, np.zeros(2, np.uint64))[0] != 0  # a non-NULL heap pointer


def test_nv_target_dispatch(g):
    d_out = g.to_device(np.full(5, -1, np.int32))
    g.run("nv_target", (1,), (1,), [(d_out, None)])
    assert g.from_device(d_out, np.zeros(5, np.int32)).tolist() == [1, 80, 1, -1, 6]


def test_libcudacxx_atomics_and_std(g):
    d_g, d_u, d_f = g.to_device(np.array([0, -1000, 7], np.int32)), g.to_device(np.zeros(1, np.uint64)), \
        g.to_device(np.zeros(1, np.float32))
    d_out = g.to_device(np.zeros(8, np.int64))
    g.run("libcu", (1,), (64,), [(d_g, None), (d_u, None), (d_f, None), (d_out, None)])
    assert g.from_device(d_g, np.zeros(3, np.int32)).tolist() == [sum(range(64)), 63 * 3 - 50, 7 + 2 * 64]
    assert int(g.from_device(d_u, np.zeros(1, np.uint64))[0]) == (1 << 64) - 1
    assert g.from_device(d_f, np.zeros(1, np.float32))[0] == 32.0
    out = g.from_device(d_out, np.zeros(8, np.int64)).tolist()
    assert out[:6] == [-64, 32767 + 255, 1, 9 * 100 + 3 * 10 + 4, 1, 10]
