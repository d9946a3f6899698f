"""Streams and events: ordering, completion, elapsed time, and handle errors."""

from __future__ import annotations

import time

import numpy as np
from tests.driver.conftest import check

from cumetal import driver as cu

R = cu.CUresult


def test_stream_lifecycle(ctx):
    s = check(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
    assert isinstance(s, cu.CUstream) and int(s) != 0
    assert check(cu.cuStreamGetFlags(s)) == 1
    assert cu.cuStreamQuery(s) == (R.CUDA_SUCCESS,)
    check(cu.cuStreamSynchronize(s))
    for null in (0, None, cu.CUstream(0), cu.CU_STREAM_LEGACY, cu.CU_STREAM_PER_THREAD):
        check(cu.cuStreamSynchronize(null))
    check(cu.cuStreamDestroy(s))
    assert cu.cuStreamSynchronize(s) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert cu.cuStreamDestroy(s) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert cu.cuStreamDestroy(0) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert cu.cuStreamCreate(4) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuStreamSynchronize(cu.CUevent(5)) == (R.CUDA_ERROR_INVALID_VALUE,)


def test_events_time_the_work_between_them(ctx):
    s = check(cu.cuStreamCreate(0))
    start = check(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DEFAULT))
    end = check(cu.cuEventCreate(0))
    big = np.ones(1 << 24, np.uint8)
    d = check(cu.cuMemAlloc(big.nbytes))
    t0 = time.perf_counter()
    check(cu.cuEventRecord(start, s))
    for _ in range(4):
        check(cu.cuMemcpyHtoDAsync(d, big, big.nbytes, s))
    check(cu.cuEventRecord(end, s))
    check(cu.cuEventSynchronize(end))
    wall_ms = (time.perf_counter() - t0) * 1000
    assert cu.cuEventQuery(end) == (R.CUDA_SUCCESS,)
    ms = check(cu.cuEventElapsedTime(start, end))
    assert isinstance(ms, float) and 0 < ms <= wall_ms
    assert check(cu.cuEventElapsedTime(end, start)) == -ms
    check(cu.cuEventDestroy(start))
    check(cu.cuEventDestroy(end))
    check(cu.cuStreamDestroy(s))


def test_event_errors(ctx):
    a = check(cu.cuEventCreate(0))
    b = check(cu.cuEventCreate(0))
    assert cu.cuEventQuery(a) == (R.CUDA_SUCCESS,)  # never recorded: nothing to wait for
    assert cu.cuEventElapsedTime(a, b) == (R.CUDA_ERROR_INVALID_HANDLE, None)
    check(cu.cuEventRecord(a, 0))
    check(cu.cuEventRecord(b, None))
    assert check(cu.cuEventElapsedTime(a, b)) >= 0
    nt = check(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    check(cu.cuEventRecord(nt, 0))
    assert cu.cuEventElapsedTime(a, nt) == (R.CUDA_ERROR_INVALID_HANDLE, None)
    s = check(cu.cuStreamCreate(0))
    check(cu.cuStreamWaitEvent(s, a, 0))
    assert cu.cuStreamWaitEvent(s, a, 8) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_INTERPROCESS) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuEventCreate(64) == (R.CUDA_ERROR_INVALID_VALUE, None)
    check(cu.cuEventDestroy(a))
    assert cu.cuEventRecord(a, 0) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert cu.cuEventSynchronize(a) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert cu.cuEventQuery(cu.CUevent(0)) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert cu.cuEventRecord(b, cu.CUstream(0xBAD)) == (R.CUDA_ERROR_INVALID_HANDLE,)


def test_stream_of_another_context_is_rejected(ctx):
    s = check(cu.cuStreamCreate(0))
    d = check(cu.cuMemAlloc(16))
    other = check(cu.cuCtxCreate(None, 0, 0))
    assert cu.cuMemsetD8Async(d, 1, 16, s) == (R.CUDA_ERROR_INVALID_CONTEXT,)
    check(cu.cuCtxDestroy(other))  # `ctx` is current again
    check(cu.cuMemsetD8Async(d, 1, 16, s))
    check(cu.cuStreamDestroy(s))
