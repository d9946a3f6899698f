"""Contexts: the current-context stack, primary contexts, destruction and stale handles."""

from __future__ import annotations

from tests.driver.conftest import check

from cumetal import driver as cu

R = cu.CUresult


def setup_module():
    assert cu.cuInit(0)[0] == 0


def test_create_makes_current_and_destroy_pops():
    before = check(cu.cuCtxGetCurrent())
    c = check(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))
    assert isinstance(c, cu.CUcontext) and int(c) != 0
    assert check(cu.cuCtxGetCurrent()) == c
    assert check(cu.cuCtxGetDevice()) == cu.CUdevice(0)
    assert check(cu.cuCtxGetFlags()) == 0
    assert cu.cuCtxDestroy(c) == (R.CUDA_SUCCESS,)
    assert check(cu.cuCtxGetCurrent()) == before
    # stale handle
    assert cu.cuCtxDestroy(c) == (R.CUDA_ERROR_INVALID_CONTEXT,)
    assert cu.cuCtxSetCurrent(c) == (R.CUDA_ERROR_INVALID_CONTEXT,)


def test_cuda12_two_argument_form_and_flags():
    c = check(cu.cuCtxCreate(cu.CUctx_flags.CU_CTX_SCHED_BLOCKING_SYNC, 0))
    assert check(cu.cuCtxGetFlags()) == 4
    check(cu.cuCtxDestroy(c))
    both = cu.CUctx_flags.CU_CTX_SCHED_SPIN | cu.CUctx_flags.CU_CTX_SCHED_YIELD
    assert cu.cuCtxCreate(None, both, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuCtxCreate(None, 1 << 12, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuCtxCreate(None, 0, 5) == (R.CUDA_ERROR_INVALID_DEVICE, None)
    assert cu.cuCtxCreate("x", 0, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuCtxCreate(None, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)
    params = cu.CUctxCreateParams()
    c = check(cu.cuCtxCreate(params, 0, 0))
    check(cu.cuCtxDestroy(c))
    params.numExecAffinityParams = 1
    assert cu.cuCtxCreate(params, 0, 0)[0] == R.CUDA_ERROR_NOT_SUPPORTED


def test_push_pop_set_current():
    a = check(cu.cuCtxCreate(None, 0, 0))
    b = check(cu.cuCtxCreate(None, 0, 0))
    assert check(cu.cuCtxGetCurrent()) == b
    assert check(cu.cuCtxPopCurrent()) == b
    assert check(cu.cuCtxGetCurrent()) == a
    check(cu.cuCtxPushCurrent(b))
    check(cu.cuCtxSetCurrent(a))  # replaces the top of the stack
    assert check(cu.cuCtxGetCurrent()) == a
    check(cu.cuCtxDestroy(a))
    check(cu.cuCtxDestroy(b))
    while check(cu.cuCtxGetCurrent()):
        check(cu.cuCtxPopCurrent())
    assert cu.cuCtxPopCurrent() == (R.CUDA_ERROR_INVALID_CONTEXT, None)
    assert check(cu.cuCtxGetCurrent()) == cu.CUcontext(0)
    assert cu.cuCtxSynchronize() == (R.CUDA_ERROR_INVALID_CONTEXT,)
    assert cu.cuMemAlloc(16) == (R.CUDA_ERROR_INVALID_CONTEXT, None)
    check(cu.cuCtxSetCurrent(None))  # unbinding nothing is fine


def test_contexts_are_per_thread():
    import threading

    c = check(cu.cuCtxCreate(None, 0, 0))
    seen = []
    t = threading.Thread(target=lambda: seen.append(cu.cuCtxGetCurrent()))
    t.start()
    t.join()
    assert seen == [(R.CUDA_SUCCESS, cu.CUcontext(0))]
    check(cu.cuCtxDestroy(c))


def test_primary_context_refcount():
    dev = cu.CUdevice(0)
    # tests run earlier in this process (tests/programs' in-process ones) may hold the primary context
    check(cu.cuInit(0))
    check(cu.cuDevicePrimaryCtxReset(dev))
    assert check(cu.cuDevicePrimaryCtxGetState(dev)) == (0, 0)
    p1 = check(cu.cuDevicePrimaryCtxRetain(dev))
    p2 = check(cu.cuDevicePrimaryCtxRetain(0))
    assert p1 == p2
    assert check(cu.cuDevicePrimaryCtxGetState(dev)) == (0, 1)
    assert cu.cuCtxDestroy(p1) == (R.CUDA_ERROR_INVALID_CONTEXT,)  # primary contexts are released, not destroyed
    check(cu.cuCtxSetCurrent(p1))
    ptr = check(cu.cuMemAlloc(64))
    check(cu.cuDevicePrimaryCtxRelease(dev))
    assert cu.cuMemGetAddressRange(ptr)[0] == R.CUDA_SUCCESS  # still retained once
    check(cu.cuDevicePrimaryCtxRelease(dev))
    assert check(cu.cuDevicePrimaryCtxGetState(dev)) == (0, 0)
    assert cu.cuDevicePrimaryCtxRelease(dev) == (R.CUDA_ERROR_INVALID_CONTEXT,)
    # the released context's allocations are gone and it is no longer usable as current
    assert cu.cuMemAlloc(16)[0] == R.CUDA_ERROR_CONTEXT_IS_DESTROYED
    check(cu.cuCtxSetCurrent(None))
    p3 = check(cu.cuDevicePrimaryCtxRetain(dev))
    check(cu.cuCtxSetCurrent(p3))
    assert cu.cuMemGetAddressRange(ptr)[0] == R.CUDA_ERROR_NOT_FOUND
    check(cu.cuDevicePrimaryCtxReset(dev))
    check(cu.cuCtxSetCurrent(None))


def test_destroy_frees_the_contexts_memory():
    c = check(cu.cuCtxCreate(None, 0, 0))
    free0, total = check(cu.cuMemGetInfo())
    check(cu.cuMemAlloc(1 << 20))
    check(cu.cuMemAllocHost(1 << 16))
    free1, _ = check(cu.cuMemGetInfo())
    assert free0 - free1 == (1 << 20) + (1 << 16)
    check(cu.cuCtxDestroy(c))
    c2 = check(cu.cuCtxCreate(None, 0, 0))
    assert check(cu.cuMemGetInfo()) == (free0, total)
    check(cu.cuCtxDestroy(c2))
