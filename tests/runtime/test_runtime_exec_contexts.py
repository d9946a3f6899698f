"""Green contexts and execution contexts through the Runtime API: SM resources against the device's
multiprocessor count and CUDA's split rules (groups of at least 2 SMs, a multiple of 2, below compute
capability 9.0), kernels on a green context's stream against numpy, event records and
synchronisation of execution contexts, and CUDA's error codes for bad input."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.runtime.conftest import D2H, H2D, KERNELS_PTX, check

from cumetal import runtime as rt

E = rt.cudaError_t
SM = rt.cudaDevResourceType.cudaDevResourceTypeSm
ARGS = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


def _sms():
    return check(rt.cudaDeviceGetAttribute(rt.cudaDeviceAttr.cudaDevAttrMultiProcessorCount, 0))


def _green(sms_wanted=2):
    res = check(rt.cudaDeviceGetDevResource(0, SM))
    groups, made, rest = check(rt.cudaDevSmResourceSplitByCount(1, res, 0, sms_wanted))
    desc = check(rt.cudaDevResourceGenerateDesc(groups, made))
    return check(rt.cudaGreenCtxCreate(desc, 0, 0)), groups, rest


def test_sm_resources_follow_the_split_rules():
    total = _sms()
    res = check(rt.cudaDeviceGetDevResource(0, SM))
    assert res.type == SM and res.sm.smCount == total
    # a query (nbGroups = 0) says how many groups of max(minCount, 2) SMs (a multiple of 2) fit
    for min_count in range(min(total, 5) + 1):
        size = max(2, -(-max(min_count, 1) // 2) * 2)
        _, possible, rest = check(rt.cudaDevSmResourceSplitByCount(0, res, 0, min_count))
        assert possible == total // size and rest.sm.smCount == total - possible * size
    ignore = rt.cudaDevSmResourceSplitByCount_flags.cudaDevSmResourceSplitIgnoreSmCoscheduling
    groups, made, rest = check(rt.cudaDevSmResourceSplitByCount(total, res, ignore, 1))
    assert made == total and [g.sm.smCount for g in groups] == [1] * total and rest.sm.smCount == 0
    assert rt.cudaDeviceGetDevResource(0, rt.cudaDevResourceType.cudaDevResourceTypeWorkqueue)[0] == \
        E.cudaErrorInvalidResourceType
    assert rt.cudaDeviceGetDevResource(3, SM)[0] == E.cudaErrorInvalidDevice
    assert rt.cudaDevSmResourceSplitByCount(1, res, 0, total + 1)[0] == E.cudaErrorInvalidValue
    assert rt.cudaDevSmResourceSplitByCount(1, None, 0, 2)[0] == E.cudaErrorInvalidValue
    assert rt.cudaDevResourceGenerateDesc([], 0)[0] == E.cudaErrorInvalidValue


def test_green_context_runs_kernels_and_orders_work():
    if _sms() < 2:
        return  # a one-core machine has no 2-SM group to make
    g, groups, rest = _green()
    assert check(rt.cudaExecutionCtxGetDevResource(g, SM)).sm.smCount == groups[0].sm.smCount == 2
    assert check(rt.cudaExecutionCtxGetDevice(g)) == 0
    dev_ctx = check(rt.cudaDeviceGetExecutionCtx(0))
    assert check(rt.cudaExecutionCtxGetId(g)) != check(rt.cudaExecutionCtxGetId(dev_ctx))
    assert check(rt.cudaExecutionCtxGetDevResource(dev_ctx, SM)).sm.smCount == _sms()
    s = check(rt.cudaExecutionCtxStreamCreate(g, rt.cudaStreamDefault, 0))
    assert check(rt.cudaStreamGetDevResource(s, SM)).sm.smCount == 2
    assert check(rt.cudaStreamGetDevResource(0, SM)).sm.smCount == _sms()
    assert check(rt.cudaStreamGetFlags(s)) == rt.cudaStreamNonBlocking  # green streams never block
    n = 5000
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    d = check(rt.cudaMalloc(n * 4))
    check(rt.cudaMemcpy(d, x, n * 4, H2D))
    lib = check(rt.cudaLibraryLoadData(KERNELS_PTX.read_text(), None, None, 0, None, None, 0))
    k = check(rt.cudaLibraryGetKernel(lib, b"vector_add"))
    for _ in range(3):  # x -> 8x, on the green context's stream
        check(rt.cudaLaunchKernel(k, ((n + 255) // 256, 1, 1), (256, 1, 1), ((d, d, d, n), ARGS), 0, s))
    ev = check(rt.cudaEventCreate())
    check(rt.cudaExecutionCtxRecordEvent(g, ev))  # completes once the green context's work has
    check(rt.cudaEventSynchronize(ev))
    got = np.zeros(n, np.float32)
    check(rt.cudaMemcpyAsync(got, d, n * 4, D2H, s))
    check(rt.cudaExecutionCtxSynchronize(g))
    np.testing.assert_array_equal(got, 8 * x)
    # the device context's synchronize covers its green contexts
    check(rt.cudaLaunchKernel(k, ((n + 255) // 256, 1, 1), (256, 1, 1), ((d, d, d, n), ARGS), 0, s))
    check(rt.cudaMemcpyAsync(got, d, n * 4, D2H, s))
    check(rt.cudaExecutionCtxSynchronize(dev_ctx))
    np.testing.assert_array_equal(got, 16 * x)
    check(rt.cudaExecutionCtxWaitEvent(g, ev))
    check(rt.cudaExecutionCtxWaitEvent(dev_ctx, ev))
    check(rt.cudaStreamDestroy(s))
    check(rt.cudaExecutionCtxDestroy(g))
    assert rt.cudaExecutionCtxGetDevice(g)[0] == E.cudaErrorInvalidValue  # destroyed
    assert rt.cudaExecutionCtxDestroy(g)[0] == E.cudaErrorInvalidValue
    check(rt.cudaEventDestroy(ev))
    check(rt.cudaFree(d))


def test_execution_context_bad_input():
    dev_ctx = check(rt.cudaDeviceGetExecutionCtx(0))
    assert rt.cudaExecutionCtxDestroy(dev_ctx)[0] == E.cudaErrorNotPermitted
    for bad in (None, 0, 12345, "ctx", 2.5):
        assert rt.cudaExecutionCtxSynchronize(bad)[0] == E.cudaErrorInvalidValue
        assert rt.cudaExecutionCtxGetId(bad)[0] == E.cudaErrorInvalidValue
    assert rt.cudaDeviceGetExecutionCtx(4)[0] == E.cudaErrorInvalidDevice
    assert rt.cudaExecutionCtxStreamCreate(dev_ctx, 0x40, 0)[0] == E.cudaErrorInvalidValue
    s = check(rt.cudaExecutionCtxStreamCreate(dev_ctx, rt.cudaStreamDefault, 0))  # an ordinary stream
    assert check(rt.cudaStreamGetFlags(s)) == rt.cudaStreamDefault
    check(rt.cudaStreamDestroy(s))
    assert rt.cudaExecutionCtxRecordEvent(dev_ctx, 777)[0] != E.cudaSuccess
    assert rt.cudaGreenCtxCreate(rt.cudaDevResourceDesc_t(999), 0, 0)[0] == E.cudaErrorInvalidValue
    if _sms() >= 2:
        res = check(rt.cudaDeviceGetDevResource(0, SM))
        groups, made, _rest = check(rt.cudaDevSmResourceSplitByCount(1, res, 0, 2))
        desc = check(rt.cudaDevResourceGenerateDesc(groups, made))
        assert rt.cudaGreenCtxCreate(desc, 0, 1)[0] == E.cudaErrorInvalidValue  # flags are reserved
        assert rt.cudaGreenCtxCreate(desc, 2, 0)[0] == E.cudaErrorInvalidDevice
