"""End to end: nvcc's PTX (data/kernels.cu) loaded and run through the driver API on the CPU device.

Results are compared with numpy computing the same arithmetic in the same precision.
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import numpy as np
import pytest
from tests.driver.conftest import check

from cumetal import driver as cu

R = cu.CUresult
PTX_PATH = Path(__file__).parent / "data" / "kernels.ptx"


@pytest.fixture
def mod(ctx):
    m = check(cu.cuModuleLoad(str(PTX_PATH)))
    yield m
    check(cu.cuModuleUnload(m))


def fn(mod, name):
    return check(cu.cuModuleGetFunction(mod, name))


def upload(arr):
    d = check(cu.cuMemAlloc(arr.nbytes))
    check(cu.cuMemcpyHtoD(d, arr, arr.nbytes))
    return d


def download(d, like):
    out = np.empty_like(like)
    check(cu.cuMemcpyDtoH(out, d, out.nbytes))
    return out


def vector_add_inputs(n):
    rng = np.random.default_rng(n)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def test_vector_add(mod):
    n = 100_003  # not a multiple of the block: the bounds check matters
    a, b = vector_add_inputs(n)
    da, db, dc = upload(a), upload(b), check(cu.cuMemAlloc(a.nbytes))
    f = fn(mod, "vector_add")
    check(cu.cuLaunchKernel(f, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0,
                            ((da, db, dc, n), (None, None, None, ctypes.c_int)), None))
    np.testing.assert_array_equal(download(dc, a), a + b)


def test_vector_add_with_every_parameter_form(mod):
    n = 1000
    a, b = vector_add_inputs(n)
    da, db = upload(a), upload(b)
    f = fn(mod, "vector_add")
    outs = [check(cu.cuMemAlloc(a.nbytes)) for _ in range(5)]
    grid = (n + 127) // 128

    def launch(params=None, extra=None):
        check(cu.cuLaunchKernel(f, grid, 1, 1, 128, 1, 1, 0, 0, params, extra))

    launch(((int(da), int(db), int(outs[0]), n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)))
    # the numpy idiom: one array per argument, then an array of their addresses
    args = [np.array([int(da)], np.uint64), np.array([int(db)], np.uint64), np.array([int(outs[1])], np.uint64),
            np.array([n], np.int32)]
    ptrs = np.array([x.ctypes.data for x in args], np.uint64)
    launch(ptrs.ctypes.data)
    args[2][0] = int(outs[2])
    launch(ptrs)
    packed = np.zeros(28, np.uint8)
    packed[:24] = np.array([int(da), int(db), int(outs[3])], np.uint64).view(np.uint8)
    packed[24:] = np.array([n], np.int32).view(np.uint8)
    size = ctypes.c_size_t(28)
    launch(extra=[cu.CU_LAUNCH_PARAM_BUFFER_POINTER, packed, cu.CU_LAUNCH_PARAM_BUFFER_SIZE, size,
                  cu.CU_LAUNCH_PARAM_END])
    packed[16:24] = np.array([int(outs[4])], np.uint64).view(np.uint8)
    c_extra = (ctypes.c_void_p * 5)(1, packed.ctypes.data, 2, ctypes.addressof(size), 0)
    launch(extra=ctypes.addressof(c_extra))
    for d in outs:
        np.testing.assert_array_equal(download(d, a), a + b)


class Affine(ctypes.Structure):
    _fields_ = [("scale", ctypes.c_float), ("offset", ctypes.c_int), ("bias", ctypes.c_double)]


def test_struct_by_value_and_64_bit_scalar(mod):
    n = 777
    src = np.arange(-300, n - 300, dtype=np.int32)
    p = Affine(0.375, 11, -1e-3)
    din, dout = upload(src), check(cu.cuMemAlloc(n * 8))
    check(cu.cuLaunchKernel(fn(mod, "affine"), 4, 1, 1, 256, 1, 1, 0, 0,
                            ((p, din, dout, n), (None, None, None, ctypes.c_ulonglong)), None))
    want = (np.float32(0.375) * (src + 11).astype(np.float32)).astype(np.float64) + np.float64(-1e-3)
    np.testing.assert_array_equal(download(dout, np.zeros(n, np.float64)), want)


def test_module_globals(mod):
    out = check(cu.cuMemAlloc(64 * 4))
    counter, _ = check(cu.cuModuleGetGlobal(mod, "counter"))
    check(cu.cuMemcpyHtoD(counter, np.array([100], np.int32), 4))
    check(cu.cuLaunchKernel(fn(mod, "use_globals"), 2, 1, 1, 64, 1, 1, 0, 0, ((out,), (None,)), None))
    np.testing.assert_array_equal(download(out, np.zeros(64, np.float32)), np.tile([1, 2, 3, 4], 16))
    assert download(counter, np.zeros(1, np.int32))[0] == 100 + 128


def test_printf_reaches_stdout(mod, capfd):
    check(cu.cuLaunchKernel(fn(mod, "hello"), 2, 1, 1, 3, 1, 1, 0, 0, ((42,), (ctypes.c_int,)), None))
    lines = capfd.readouterr().out.splitlines()
    want = {f"hello from thread {t} block {b} tag 42" for t in range(3) for b in range(2)}
    assert sorted(lines) == sorted(want)


def test_dynamic_shared_memory(mod):
    n, block = 512, 128
    data = np.arange(n, dtype=np.float32)
    d = upload(data)
    f = fn(mod, "scale_dynamic_shared")
    check(cu.cuLaunchKernel(f, n // block, 1, 1, block, 1, 1, block * 4, 0, ((d, 2.0), (None, ctypes.c_float)), None))
    want = (data.reshape(-1, block)[:, ::-1] * np.float32(2)).reshape(-1)
    np.testing.assert_array_equal(download(d, data), want)


def test_out_of_bounds_store_faults_and_the_context_survives(mod, capfd):
    n = 16
    d = check(cu.cuMemAlloc(n * 4))
    keep = upload(np.arange(8, dtype=np.int32))
    r = cu.cuLaunchKernel(fn(mod, "write_past_end"), 1, 1, 1, 4, 1, 1, 0, 0, ((d, n), (None, ctypes.c_int)), None)
    assert r == (R.CUDA_ERROR_ILLEGAL_ADDRESS,)
    err = capfd.readouterr().err
    assert re.search(r"write_past_end.*illegal.address.* 0x[0-9a-f]+", err)
    assert "instruction 'st.global.u32'" in err  # air-sim/msl-sim: the CPU engine's rerun names it
    assert cu.cuCtxSynchronize() == (R.CUDA_ERROR_ILLEGAL_ADDRESS,)
    assert cu.cuCtxSynchronize() == (R.CUDA_SUCCESS,)
    np.testing.assert_array_equal(download(keep, np.zeros(8, np.int32)), np.arange(8))
    test_vector_add(mod)


def test_watchdog_stops_an_infinite_loop(mod, monkeypatch, capfd):
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "0.3")
    flag = upload(np.zeros(1, np.int32))
    r = cu.cuLaunchKernel(fn(mod, "spin_forever"), 1, 1, 1, 32, 1, 1, 0, 0, ((flag,), (None,)), None)
    assert r == (R.CUDA_ERROR_LAUNCH_TIMEOUT,)
    assert "spin_forever" in capfd.readouterr().err
    assert cu.cuCtxSynchronize() == (R.CUDA_ERROR_LAUNCH_TIMEOUT,)
    # a set flag lets the same kernel finish
    check(cu.cuMemsetD32(flag, 1, 1))
    check(cu.cuLaunchKernel(fn(mod, "spin_forever"), 1, 1, 1, 32, 1, 1, 0, 0, ((flag,), (None,)), None))


def test_launches_in_a_stream_with_events(mod):
    n = 4096
    a, b = vector_add_inputs(n)
    da, db, dc = upload(a), upload(b), check(cu.cuMemAlloc(a.nbytes))
    s = check(cu.cuStreamCreate(0))
    e0, e1 = check(cu.cuEventCreate(0)), check(cu.cuEventCreate(0))
    out = np.zeros_like(a)
    check(cu.cuEventRecord(e0, s))
    f = fn(mod, "vector_add")
    check(cu.cuLaunchKernel(f, n // 256, 1, 1, 256, 1, 1, 0, s, ((da, db, dc, n), (None, None, None, ctypes.c_int)), None))
    check(cu.cuLaunchKernel(f, n // 256, 1, 1, 256, 1, 1, 0, s, ((dc, db, dc, n), (None, None, None, ctypes.c_int)), None))
    check(cu.cuMemcpyDtoHAsync(out, dc, out.nbytes, s))
    check(cu.cuEventRecord(e1, s))
    check(cu.cuStreamSynchronize(s))
    np.testing.assert_array_equal(out, (a + b) + b)
    assert check(cu.cuEventElapsedTime(e0, e1)) > 0
