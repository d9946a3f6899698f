"""Kernel launches, function attributes, occupancy, printf, and the sticky-error model."""

from __future__ import annotations

import ctypes
import subprocess
import sys

import numpy as np
import pytest
from tests.runtime.conftest import KERNELS_PTX, ArgArray, check, download, kernel, upload

from cumetal import runtime as rt

E = rt.cudaError_t
P3 = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


def test_vector_add_with_every_argument_form(lib):
    n = 1000
    a = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    b = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    da, db, dc = upload(a), upload(b), check(rt.cudaMalloc(n * 4))
    f = kernel(lib, "vector_add")
    grid = rt.dim3()
    grid.x = (n + 255) // 256
    block = rt.dim3()
    block.x = 256
    check(rt.cudaLaunchKernel(f, grid, block, ((da, db, dc, n), P3), 0, 0))
    np.testing.assert_array_equal(download(dc, a), a + b)
    # the C form: a void* array of pointers to the values
    check(rt.cudaMemset(dc, 0, n * 4))
    args = ArgArray(ctypes.c_void_p(da), ctypes.c_void_p(db), ctypes.c_void_p(dc), ctypes.c_int(n))
    check(rt.cudaLaunchKernel(f, ((n + 127) // 128,), (128,), args.address, 0, 0))
    np.testing.assert_array_equal(download(dc, a), a + b)
    # launch_packed (what libcumetal calls) returns the int code
    check(rt.cudaMemset(dc, 0, n * 4))
    assert rt.launch_packed(int(f), 4, 1, 1, 256, 1, 1, args.address, 0, 0) == 0
    np.testing.assert_array_equal(download(dc, a), a + b)


def test_launch_configuration_errors(lib):
    f = kernel(lib, "vector_add")
    d = check(rt.cudaMalloc(16))
    params = ((d, d, d, 4), P3)
    bad = {
        "zero grid": ((0, 1, 1), (32, 1, 1), 0),
        "block too big": ((1, 1, 1), (2048, 1, 1), 0),
        "threads product": ((1, 1, 1), (32, 32, 2), 0),
        "grid y": ((1, 70000, 1), (32, 1, 1), 0),
        "shared": ((1, 1, 1), (32, 1, 1), 1 << 20),
    }
    for why, (grid, block, shared) in bad.items():
        assert rt.cudaLaunchKernel(f, grid, block, params, shared, 0) == (E.cudaErrorInvalidConfiguration,), why
        assert rt.cudaGetLastError() == (E.cudaErrorInvalidConfiguration,)
    assert rt.cudaLaunchKernel(0xBAD, (1,), (1,), params, 0, 0) == (E.cudaErrorInvalidResourceHandle,)  # CUDA 13
    assert rt.cudaLaunchKernel(0, (1,), (1,), params, 0, 0) == (E.cudaErrorInvalidDeviceFunction,)
    assert rt.cudaLaunchKernel(f, (1,), (32,), ((d, d), P3[:2]), 0, 0) == (E.cudaErrorInvalidValue,)
    assert rt.cudaLaunchKernel(f, (1,), (32,), params, 0, 0xDEAD) == (E.cudaErrorInvalidResourceHandle,)
    # beyond co-residency (occupancy x multiprocessors): CUDA refuses a cooperative grid that cannot all be resident
    assert rt.cudaLaunchCooperativeKernel(f, (100000,), (32,), params, 0, 0) == (E.cudaErrorCooperativeLaunchTooLarge,)
    check(rt.cudaLaunchCooperativeKernel(f, (1,), (4,), params, 0, 0))  # one block: its barrier is the grid's
    check(rt.cudaDeviceSynchronize())  # configuration errors are not sticky


def test_library_errors():
    assert rt.cudaLibraryLoadData(b"not ptx at all \x01\x02", None, None, 0, None, None, 0)[0] in (
        E.cudaErrorInvalidPtx, E.cudaErrorInvalidKernelImage)
    lib = check(rt.cudaLibraryLoadFromFile(str(KERNELS_PTX), None, None, 0, None, None, 0))
    assert rt.cudaLibraryGetKernel(lib, b"nope") == (E.cudaErrorSymbolNotFound, None)
    assert check(rt.cudaLibraryGetKernelCount(lib)) == 7
    names = [check(rt.cudaFuncGetName(k)) for k in check(rt.cudaLibraryEnumerateKernels(7, lib))]
    assert b"vector_add" in names and b"hello" in names
    addr, size = check(rt.cudaLibraryGetGlobal(lib, b"coeffs"))
    assert size == 16 and np.frombuffer(ctypes.string_at(addr, 16), np.float32).tolist() == [1, 2, 3, 4]
    check(rt.cudaLibraryUnload(lib))
    assert rt.cudaLibraryGetKernel(lib, b"hello") == (E.cudaErrorInvalidResourceHandle, None)
    assert rt.cudaLibraryLoadFromFile("/no/such.ptx", None, None, 0, None, None, 0)[0] == E.cudaErrorFileNotFound


def test_function_attributes_and_cache_config(lib):
    f = kernel(lib, "scale_dynamic_shared")
    a = check(rt.cudaFuncGetAttributes(f))
    assert a.maxThreadsPerBlock == 1024 and a.ptxVersion == 80 and a.sharedSizeBytes == 0
    assert a.maxDynamicSharedSizeBytes == 48 * 1024  # CUDA's per-block figure without opting in
    check(rt.cudaFuncSetAttribute(f, rt.cudaFuncAttribute.cudaFuncAttributeMaxDynamicSharedMemorySize, 4096))
    assert check(rt.cudaFuncGetAttributes(f)).maxDynamicSharedSizeBytes == 4096
    assert rt.cudaLaunchKernel(f, (1,), (32,), ((0, 1.0), (ctypes.c_void_p, ctypes.c_float)), 8192, 0) == (
        E.cudaErrorInvalidConfiguration,)
    assert rt.cudaFuncSetAttribute(f, rt.cudaFuncAttribute.cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   1 << 20) == (E.cudaErrorInvalidValue,)
    check(rt.cudaFuncSetCacheConfig(f, rt.cudaFuncCache.cudaFuncCachePreferL1))
    assert check(rt.cudaFuncGetParamCount(f)) == 2
    assert check(rt.cudaFuncGetAttributes(kernel(lib, "use_globals"))).constSizeBytes == 16
    assert rt.cudaFuncGetAttributes(0x1234)[0] == E.cudaErrorInvalidResourceHandle


def test_occupancy_answers(lib):
    f = kernel(lib, "vector_add")
    info = check(rt.cudaGetDeviceProperties(0))
    # 1024 threads per multiprocessor: 4 blocks of 256, 1 of 1024, 32 (the cap) of 32
    assert check(rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(f, 256, 0)) == 4
    assert check(rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(f, 1024, 0)) == 1
    assert check(rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(f, 32, 0)) == 32
    assert check(rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(f, 100, 0)) == 8  # whole warps: 128
    # shared memory limits: sm_80's 164 KiB per multiprocessor (16 blocks of 10000 bytes)
    assert check(rt.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(f, 64, 10000, 0)) == 16
    assert check(rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(f, 2048, 0)) == 0
    min_grid, block = check(rt.cudaOccupancyMaxPotentialBlockSize(f, 0, 0))
    assert block == 1024 and min_grid == info.multiProcessorCount
    assert check(rt.cudaOccupancyMaxPotentialBlockSize(f, 0, 200))[1] == 128  # 8 x 128 fill 1024; 5 x 192 do not
    assert check(rt.cudaOccupancyAvailableDynamicSMemPerBlock(f, 4, 256)) == 164 * 1024 // 4
    assert check(rt.cudaOccupancyAvailableDynamicSMemPerBlock(f, 1, 256)) == 48 * 1024  # without opting in


def test_printf_is_held_until_a_synchronising_call(lib, capfd):
    f = kernel(lib, "hello")
    s = check(rt.cudaStreamCreate())
    check(rt.cudaLaunchKernel(f, (1,), (2,), ((7,), (ctypes.c_int,)), 0, s))
    check(rt.cudaEventRecord(check(rt.cudaEventCreate()), s))
    import time

    time.sleep(0.3)
    assert capfd.readouterr().out == ""
    check(rt.cudaStreamSynchronize(s))
    lines = sorted(capfd.readouterr().out.splitlines())
    assert lines == [f"hello from thread {t} block 0 tag 7" for t in range(2)]


def test_printf_fifo_size_limits_output(lib, capfd):
    check(rt.cudaDeviceSetLimit(rt.cudaLimit.cudaLimitPrintfFifoSize, 100))
    f = kernel(lib, "hello")
    check(rt.cudaLaunchKernel(f, (4,), (32,), ((1,), (ctypes.c_int,)), 0, 0))
    check(rt.cudaDeviceSynchronize())
    out, err = capfd.readouterr()
    assert len(out.encode()) == 100 and "dropped" in err and "cudaLimitPrintfFifoSize" in err


def _fault(lib):
    d = check(rt.cudaMalloc(64))
    f = kernel(lib, "write_past_end")
    return rt.cudaLaunchKernel(f, (1,), (4,), ((d, 16), (ctypes.c_void_p, ctypes.c_int)), 0, 0)


def test_a_kernel_fault_is_sticky(lib, capfd, monkeypatch):
    monkeypatch.delenv("CUMETAL_QUIET")  # the device's fault report is what CUMETAL_QUIET silences
    keep = upload(np.arange(4, dtype=np.int32))
    assert _fault(lib) == (E.cudaSuccess,)  # asynchronous: nothing known yet
    assert rt.cudaDeviceSynchronize() == (E.cudaErrorIllegalAddress,)
    assert "write_past_end" in capfd.readouterr().err
    # every later call that needs the device returns it, and cudaGetLastError cannot clear it
    assert rt.cudaMalloc(16) == (E.cudaErrorIllegalAddress, None)
    assert rt.cudaMemcpy(np.zeros(4, np.int32), keep, 16, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost) == (
        E.cudaErrorIllegalAddress,)
    assert rt.cudaStreamCreate() == (E.cudaErrorIllegalAddress, None)
    assert rt.cudaGetLastError() == (E.cudaErrorIllegalAddress,)
    assert rt.cudaGetLastError() == (E.cudaErrorIllegalAddress,)
    assert rt.cudaPeekAtLastError() == (E.cudaErrorIllegalAddress,)
    assert rt.cudaGetDeviceCount() == (E.cudaSuccess, 1)  # device queries still answer
    assert rt.cudaDeviceReset() == (E.cudaSuccess,)
    assert rt.cudaGetLastError() == (E.cudaSuccess,)
    check(rt.cudaMalloc(16))


def test_recoverable_faults_behind_the_switch(lib, monkeypatch):
    monkeypatch.setenv("CUMETAL_STICKY_ERRORS", "0")
    keep = upload(np.arange(4, dtype=np.int32))
    assert _fault(lib) == (E.cudaSuccess,)
    assert rt.cudaDeviceSynchronize() == (E.cudaErrorIllegalAddress,)
    check(rt.cudaDeviceSynchronize())  # reported once
    np.testing.assert_array_equal(download(keep, np.zeros(4, np.int32)), np.arange(4))


def test_trap_is_a_launch_failure_reported_by_the_stream(lib):
    from cumetal.runtime import register_function, register_module

    misc = KERNELS_PTX.parents[2] / "functional" / "kernels" / "misc.ptx"
    libh = register_module(misc.read_bytes())
    k = register_function(libh, 0, "assert_false")
    s = check(rt.cudaStreamCreate())
    check(rt.cudaLaunchKernel(k, (1,), (1,), ((42,), (ctypes.c_int,)), 0, s))
    assert rt.cudaStreamSynchronize(s) == (E.cudaErrorLaunchFailure,)
    assert rt.cudaMemGetInfo()[0] == E.cudaErrorLaunchFailure


def test_callback_status_reports_the_fault(lib, monkeypatch):
    # recoverable mode: with sticky errors the callback could not even be added once the kernel faulted
    monkeypatch.setenv("CUMETAL_STICKY_ERRORS", "0")
    seen = []
    s = check(rt.cudaStreamCreate())
    d = check(rt.cudaMalloc(64))
    check(rt.cudaLaunchKernel(kernel(lib, "write_past_end"), (1,), (4,), ((d, 16), (ctypes.c_void_p, ctypes.c_int)), 0, s))
    check(rt.cudaStreamAddCallback(s, lambda st, status, data: seen.append(status), None, 0))
    assert rt.cudaStreamSynchronize(s) == (E.cudaErrorIllegalAddress,)
    assert seen == [E.cudaErrorIllegalAddress]


@pytest.mark.parametrize("backend", ["air-sim", "msl-sim"])
def test_runtime_on_another_backend(backend):
    code = f"""
import ctypes, numpy as np
from cumetal import runtime as rt
lib = rt.cudaLibraryLoadData(open({str(KERNELS_PTX)!r}).read(), None, None, 0, None, None, 0)[1]
f = rt.cudaLibraryGetKernel(lib, b"vector_add")[1]
a = np.arange(64, dtype=np.float32)
d = rt.cudaMalloc(256)[1]
rt.cudaMemcpy(d, a, 256, rt.cudaMemcpyKind.cudaMemcpyHostToDevice)
P = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
assert rt.cudaLaunchKernel(f, (1,), (64,), ((d, d, d, 64), P), 0, 0)[0] == 0
out = np.zeros(64, np.float32)
assert rt.cudaMemcpy(out, d, 256, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost)[0] == 0
assert (out == 2 * a).all(), out
print(rt.cudaGetDeviceProperties(0)[1].name.decode())
"""
    import os

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, CUMETAL_BACKEND=backend))
    if "not available" in r.stderr or "No module named" in r.stderr:
        pytest.skip(f"{backend} cannot run here: {r.stderr[-200:]}")
    assert r.returncode == 0, r.stderr
    assert backend in r.stdout


def test_threads_launching_on_their_own_streams(lib):
    """Four host threads, each on its per-thread default stream: results stay exact."""
    import threading

    f = kernel(lib, "vector_add")
    errors = []

    def work(seed):
        try:
            n = 512
            a = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
            da = check(rt.cudaMalloc(n * 4))
            dc = check(rt.cudaMalloc(n * 4))
            for i in range(10):
                check(rt.cudaMemcpyAsync(da, a + i, n * 4, rt.cudaMemcpyKind.cudaMemcpyHostToDevice,
                                         rt.cudaStreamPerThread))
                check(rt.cudaLaunchKernel(f, (2,), (256,), ((da, da, dc, n), P3), 0, rt.cudaStreamPerThread))
                out = np.zeros(n, np.float32)
                check(rt.cudaMemcpyAsync(out, dc, n * 4, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost,
                                         rt.cudaStreamPerThread))
                check(rt.cudaStreamSynchronize(rt.cudaStreamPerThread))
                np.testing.assert_array_equal(out, (a + i) * 2)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
