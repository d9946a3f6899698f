"""One limits table: cudaDeviceSet/GetLimit read and write the runtime's context's limits, the same
table cuCtxSet/GetLimit use, so each API sees what the other set and a limit set through either takes
effect on the device (the printf FIFO truncates a kernel's output)."""

from __future__ import annotations

import ctypes

from tests.runtime.conftest import check, kernel

from cumetal import driver as cu
from cumetal import runtime as rt

E = rt.cudaError_t
L = rt.cudaLimit
CL = cu.CUlimit


def _drv(result):
    err, *rest = result
    assert err == cu.CUresult.CUDA_SUCCESS, cu.CUresult(err).name
    return rest[0] if rest else None


def test_runtime_and_driver_share_the_context_limits():
    check(rt.cudaDeviceSetLimit(L.cudaLimitStackSize, 8192))
    check(rt.cudaDeviceSetLimit(L.cudaLimitMallocHeapSize, 32 << 20))
    # the runtime made its primary context current in this thread: the driver reads that context
    assert _drv(cu.cuCtxGetLimit(CL.CU_LIMIT_STACK_SIZE)) == 8192
    assert _drv(cu.cuCtxGetLimit(CL.CU_LIMIT_MALLOC_HEAP_SIZE)) == 32 << 20
    _drv(cu.cuCtxSetLimit(CL.CU_LIMIT_PRINTF_FIFO_SIZE, 4096))
    assert check(rt.cudaDeviceGetLimit(L.cudaLimitPrintfFifoSize)) == 4096
    # both APIs refuse the same limits with the same code
    assert rt.cudaDeviceSetLimit(L.cudaLimitDevRuntimeSyncDepth, 4) == (E.cudaErrorUnsupportedLimit,)
    assert cu.cuCtxSetLimit(CL.CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4) == (cu.CUresult.CUDA_ERROR_UNSUPPORTED_LIMIT,)
    assert rt.cudaDeviceSetLimit(L.cudaLimitMaxL2FetchGranularity, 48) == (E.cudaErrorInvalidValue,)


def test_reset_starts_again_from_cuda_defaults():
    check(rt.cudaDeviceSetLimit(L.cudaLimitStackSize, 8192))
    check(rt.cudaDeviceReset())
    assert check(rt.cudaDeviceGetLimit(L.cudaLimitStackSize)) == 1024
    assert _drv(cu.cuCtxGetLimit(CL.CU_LIMIT_STACK_SIZE)) == 1024


def test_a_driver_context_made_current_takes_the_runtime_calls():
    _drv(cu.cuInit(0))
    own = _drv(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))
    try:
        check(rt.cudaDeviceSetLimit(L.cudaLimitStackSize, 2048))  # CUDA: the current context's limit
        assert _drv(cu.cuCtxGetLimit(CL.CU_LIMIT_STACK_SIZE)) == 2048
    finally:
        _drv(cu.cuCtxDestroy(own))
    assert check(rt.cudaDeviceGetLimit(L.cudaLimitStackSize)) == 1024  # the primary context's own


def test_a_fifo_size_set_through_the_driver_truncates_printf(lib, capfd):
    check(rt.cudaFree(0))  # the runtime's context, current in this thread
    _drv(cu.cuCtxSetLimit(CL.CU_LIMIT_PRINTF_FIFO_SIZE, 100))
    f = kernel(lib, "hello")
    check(rt.cudaLaunchKernel(f, (4,), (32,), ((1,), (ctypes.c_int,)), 0, 0))
    check(rt.cudaDeviceSynchronize())
    out, err = capfd.readouterr()
    assert len(out.encode()) == 100 and "cudaLimitPrintfFifoSize" in err
