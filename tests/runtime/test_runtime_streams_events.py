"""Streams, events and callbacks: real asynchrony on the CPU device (a kernel that spins until the
host releases it), the legacy default stream's implicit synchronisation, event waits, callbacks."""

from __future__ import annotations

import ctypes
import threading
import time

import numpy as np
import pytest
from tests.runtime.conftest import check, kernel

from cumetal import runtime as rt

E = rt.cudaError_t


@pytest.fixture(autouse=True)
def short_watchdog(monkeypatch):
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "30")


class Gate:
    """A device int the spin_forever kernel waits on; the host opens it by writing memory directly."""

    def __init__(self):
        self.flag = check(rt.cudaMalloc(4))
        check(rt.cudaMemset(self.flag, 0, 4))

    def open(self):
        ctypes.c_int.from_address(self.flag).value = 1

    def spin(self, lib, stream):
        f = kernel(lib, "spin_forever")
        check(rt.cudaLaunchKernel(f, (1, 1, 1), (1, 1, 1), ((self.flag,), (ctypes.c_void_p,)), 0, stream))


def host_bytes(addr, n):
    return ctypes.string_at(addr, n)


def test_launch_returns_at_once_and_queries_say_not_ready(lib):
    gate = Gate()
    s = check(rt.cudaStreamCreate())
    ev = check(rt.cudaEventCreate())
    gate.spin(lib, s)  # returns while the kernel spins
    check(rt.cudaEventRecord(ev, s))
    assert rt.cudaStreamQuery(s) == (E.cudaErrorNotReady,)
    assert rt.cudaEventQuery(ev) == (E.cudaErrorNotReady,)
    assert rt.cudaGetLastError() == (E.cudaSuccess,)  # "not ready" is not recorded as an error
    gate.open()
    check(rt.cudaStreamSynchronize(s))
    assert rt.cudaStreamQuery(s) == (E.cudaSuccess,)
    assert rt.cudaEventQuery(ev) == (E.cudaSuccess,)


def test_legacy_stream_waits_for_blocking_streams(lib):
    gate = Gate()
    buf = check(rt.cudaMalloc(64))
    check(rt.cudaMemset(buf, 0, 64))
    s = check(rt.cudaStreamCreate())  # blocking
    gate.spin(lib, s)
    check(rt.cudaMemsetAsync(buf, 7, 64, 0))  # legacy stream: must wait for s
    time.sleep(0.2)
    assert host_bytes(buf, 64) == bytes(64)
    assert rt.cudaStreamQuery(0) == (E.cudaErrorNotReady,)
    gate.open()
    check(rt.cudaStreamSynchronize(0))
    assert host_bytes(buf, 64) == b"\x07" * 64


def test_blocking_stream_waits_for_the_legacy_stream(lib):
    gate = Gate()
    buf = check(rt.cudaMalloc(16))
    check(rt.cudaMemset(buf, 0, 16))
    s = check(rt.cudaStreamCreate())
    gate.spin(lib, 0)
    check(rt.cudaMemsetAsync(buf, 3, 16, s))  # s is blocking: waits for the null stream's kernel
    time.sleep(0.2)
    assert host_bytes(buf, 16) == bytes(16)
    gate.open()
    check(rt.cudaStreamSynchronize(s))
    assert host_bytes(buf, 16) == b"\x03" * 16


def test_non_blocking_stream_does_not_wait(lib):
    gate = Gate()
    buf = check(rt.cudaMalloc(16))
    check(rt.cudaMemset(buf, 0, 16))
    nb = check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
    assert check(rt.cudaStreamGetFlags(nb)) == rt.cudaStreamNonBlocking
    gate.spin(lib, nb)
    check(rt.cudaMemsetAsync(buf, 5, 16, 0))
    check(rt.cudaStreamSynchronize(0))  # returns while the kernel on nb still spins
    assert host_bytes(buf, 16) == b"\x05" * 16
    assert rt.cudaStreamQuery(nb) == (E.cudaErrorNotReady,)
    gate.open()
    check(rt.cudaDeviceSynchronize())


def test_stream_wait_event_orders_two_streams(lib):
    gate = Gate()
    buf = check(rt.cudaMalloc(16))
    check(rt.cudaMemset(buf, 0, 16))
    s1 = check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
    s2 = check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
    ev = check(rt.cudaEventCreateWithFlags(rt.cudaEventDisableTiming))
    gate.spin(lib, s1)
    check(rt.cudaEventRecord(ev, s1))
    check(rt.cudaStreamWaitEvent(s2, ev, 0))
    check(rt.cudaMemsetAsync(buf, 9, 16, s2))
    time.sleep(0.2)
    assert host_bytes(buf, 16) == bytes(16)
    gate.open()
    check(rt.cudaStreamSynchronize(s2))
    assert host_bytes(buf, 16) == b"\x09" * 16
    assert rt.cudaStreamWaitEvent(s2, 12345, 0) == (E.cudaErrorInvalidResourceHandle,)


def test_callbacks_run_in_stream_order_off_the_calling_and_stream_threads(lib):
    gate = Gate()
    s = check(rt.cudaStreamCreate())
    seen = []
    gate.spin(lib, s)

    def cb(stream, status, data):
        seen.append((data, status, threading.current_thread().name, int(stream)))

    check(rt.cudaStreamAddCallback(s, cb, "first", 0))
    check(rt.cudaLaunchHostFunc(s, lambda d: seen.append((d, None, threading.current_thread().name, 0)), "second"))
    time.sleep(0.1)
    assert seen == []  # the kernel still spins: callbacks wait for it
    gate.open()
    check(rt.cudaStreamSynchronize(s))
    assert [x[0] for x in seen] == ["first", "second"]
    assert seen[0][1] == E.cudaSuccess and seen[0][3] == int(s)
    names = {x[2] for x in seen}
    assert threading.current_thread().name not in names
    assert all("callbacks" in n for n in names)  # not the stream's worker either
    assert rt.cudaStreamAddCallback(s, cb, None, 1) == (E.cudaErrorInvalidValue,)


def test_c_function_pointers_as_host_functions():
    hit = ctypes.c_int(0)

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def host_fn(data):
        ctypes.c_int.from_address(data).value += 1

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    def stream_cb(stream, status, data):
        ctypes.c_int.from_address(data).value += 10 + status

    s = check(rt.cudaStreamCreate())
    fn_addr = ctypes.cast(host_fn, ctypes.c_void_p).value
    cb_addr = ctypes.cast(stream_cb, ctypes.c_void_p).value
    check(rt.cudaLaunchHostFunc(s, fn_addr, ctypes.addressof(hit)))
    check(rt.cudaStreamAddCallback(s, cb_addr, ctypes.addressof(hit), 0))
    check(rt.cudaStreamSynchronize(s))
    assert hit.value == 11


def test_events_time_the_work_between_them(lib):
    start, end = check(rt.cudaEventCreate()), check(rt.cudaEventCreateWithFlags(rt.cudaEventBlockingSync))
    n = 1 << 16
    a = check(rt.cudaMalloc(n * 4))
    f = kernel(lib, "vector_add")
    check(rt.cudaEventRecord(start, 0))
    for _ in range(3):
        check(rt.cudaLaunchKernel(f, (n // 256, 1, 1), (256, 1, 1),
                                  ((a, a, a, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)), 0, 0))
    check(rt.cudaEventRecord(end, 0))
    check(rt.cudaEventSynchronize(end))
    t0 = time.perf_counter()
    ms = check(rt.cudaEventElapsedTime(start, end))
    assert ms > 0 and check(rt.cudaEventElapsedTime(end, start)) == -ms
    assert time.perf_counter() - t0 < 1
    never = check(rt.cudaEventCreate())
    assert rt.cudaEventElapsedTime(start, never) == (E.cudaErrorInvalidResourceHandle, None)
    nt = check(rt.cudaEventCreateWithFlags(rt.cudaEventDisableTiming))
    check(rt.cudaEventRecord(nt, 0))
    check(rt.cudaEventSynchronize(nt))
    assert rt.cudaEventElapsedTime(start, nt) == (E.cudaErrorInvalidResourceHandle, None)
    assert rt.cudaEventQuery(never) == (E.cudaSuccess,)  # never recorded: nothing to wait for
    check(rt.cudaEventDestroy(never))
    assert rt.cudaEventQuery(never) == (E.cudaErrorInvalidResourceHandle,)
    assert rt.cudaEventCreateWithFlags(0x40) == (E.cudaErrorInvalidValue, None)


def test_elapsed_time_is_not_ready_while_pending(lib):
    gate = Gate()
    s = check(rt.cudaStreamCreate())
    a, b = check(rt.cudaEventCreate()), check(rt.cudaEventCreate())
    check(rt.cudaEventRecord(a, s))
    gate.spin(lib, s)
    check(rt.cudaEventRecord(b, s))
    assert rt.cudaEventElapsedTime(a, b) == (E.cudaErrorNotReady, None)
    gate.open()
    check(rt.cudaEventSynchronize(b))
    assert check(rt.cudaEventElapsedTime(a, b)) > 0


def test_per_thread_default_streams_are_distinct_blocking_streams():
    ids = {}

    def get(name):
        ids[name] = check(rt.cudaStreamGetId(rt.cudaStreamPerThread))

    get("main")
    t = threading.Thread(target=get, args=("other",))
    t.start()
    t.join()
    assert ids["main"] != ids["other"]
    assert check(rt.cudaStreamGetId(rt.cudaStreamPerThread)) == ids["main"]
    assert check(rt.cudaStreamGetFlags(rt.cudaStreamPerThread)) == 0
    d = check(rt.cudaMalloc(8))
    check(rt.cudaMemsetAsync(d, 1, 8, rt.cudaStreamPerThread))
    check(rt.cudaStreamSynchronize(rt.cudaStreamPerThread))
    assert host_bytes(d, 8) == b"\x01" * 8


def test_stream_handles_and_errors():
    s = check(rt.cudaStreamCreateWithPriority(0, -1))
    assert check(rt.cudaStreamGetPriority(s)) == 0
    check(rt.cudaStreamDestroy(s))
    assert rt.cudaStreamSynchronize(s) == (E.cudaErrorInvalidResourceHandle,)
    assert rt.cudaStreamDestroy(0) == (E.cudaErrorInvalidResourceHandle,)
    assert rt.cudaStreamDestroy(rt.cudaStreamPerThread) == (E.cudaErrorInvalidResourceHandle,)
    assert rt.cudaStreamCreateWithFlags(4) == (E.cudaErrorInvalidValue, None)
    assert rt.cudaStreamQuery(0xDEAD) == (E.cudaErrorInvalidResourceHandle,)
    check(rt.cudaStreamSynchronize(rt.cudaStreamLegacy))


def test_destroying_a_busy_stream_lets_its_work_finish(lib):
    gate = Gate()
    buf = check(rt.cudaMalloc(8))
    check(rt.cudaMemset(buf, 0, 8))
    s = check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
    gate.spin(lib, s)
    check(rt.cudaMemsetAsync(buf, 4, 8, s))
    check(rt.cudaStreamDestroy(s))  # returns at once
    gate.open()
    deadline = time.time() + 20
    while host_bytes(buf, 8) != b"\x04" * 8 and time.time() < deadline:
        time.sleep(0.01)
    assert host_bytes(buf, 8) == b"\x04" * 8


def test_host_buffers_of_async_copies_stay_alive():
    d = check(rt.cudaMalloc(1 << 16))
    s = check(rt.cudaStreamCreate())
    for i in range(20):
        check(rt.cudaMemcpyAsync(d, np.full(1 << 14, i, np.int32), 1 << 16, rt.cudaMemcpyKind.cudaMemcpyHostToDevice, s))
    check(rt.cudaStreamSynchronize(s))
    assert (np.frombuffer(host_bytes(d, 1 << 16), np.int32) == 19).all()


def test_capture_status_and_attach():
    assert rt.cudaStreamIsCapturing(0) == (E.cudaSuccess, rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusNone)
    M = rt.cudaStreamCaptureMode
    assert check(rt.cudaThreadExchangeStreamCaptureMode(M.cudaStreamCaptureModeRelaxed)) == M.cudaStreamCaptureModeGlobal
    assert check(rt.cudaThreadExchangeStreamCaptureMode(M.cudaStreamCaptureModeGlobal)) == M.cudaStreamCaptureModeRelaxed
    m = check(rt.cudaMallocManaged(64, rt.cudaMemAttachGlobal))
    s = check(rt.cudaStreamCreate())
    check(rt.cudaStreamAttachMemAsync(s, m, 0, rt.cudaMemAttachSingle))
    assert rt.cudaStreamAttachMemAsync(s, m + 4, 0, rt.cudaMemAttachSingle) == (E.cudaErrorInvalidValue,)
    seen = []
    check(rt.cudaLaunchHostFunc_v2(s, seen.append, 5, 0))
    check(rt.cudaStreamSynchronize(s))
    assert seen == [5]


def test_per_thread_default_stream_mode(lib, monkeypatch):
    """nvcc --default-stream per-thread: stream 0 is the thread's own stream, not the legacy one."""
    from cumetal.runtime.state import RUNTIME

    monkeypatch.setattr(RUNTIME, "per_thread_default", True)
    gate = Gate()
    buf = check(rt.cudaMalloc(8))
    check(rt.cudaMemset(buf, 0, 8))
    nb = check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
    gate.spin(lib, nb)
    check(rt.cudaMemsetAsync(buf, 2, 8, 0))  # per-thread stream: a blocking stream, but nb is non-blocking
    check(rt.cudaStreamSynchronize(0))
    assert host_bytes(buf, 8) == b"\x02" * 8
    assert check(rt.cudaStreamGetId(0)) == check(rt.cudaStreamGetId(rt.cudaStreamPerThread))
    gate.open()
    check(rt.cudaDeviceSynchronize())


def test_cuda_calls_inside_a_callback_are_not_permitted():
    s = check(rt.cudaStreamCreate())
    got = []
    check(rt.cudaLaunchHostFunc(s, lambda _d: got.append((rt.cudaMalloc(16)[0], rt.cudaGetErrorString(1)[0])), None))
    check(rt.cudaStreamSynchronize(s))
    assert got == [(E.cudaErrorNotPermitted, E.cudaSuccess)]  # device calls refused, pure queries answer


def test_driver_contexts_follow_cumetal_async(tmp_path):
    """Driver contexts are eager unless CUMETAL_ASYNC=1 (the fault comes from the launch itself)."""
    import os
    import subprocess
    import sys

    from tests.runtime.conftest import KERNELS_PTX

    code = f"""
import ctypes
from cumetal import driver as cu
cu.cuInit(0); ctx = cu.cuCtxCreate(None, 0, 0)[1]
mod = cu.cuModuleLoadData(open({str(KERNELS_PTX)!r}).read())[1]
f = cu.cuModuleGetFunction(mod, b"write_past_end")[1]
d = cu.cuMemAlloc(64)[1]
print(int(cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, ((d, 16), (None, ctypes.c_int)), None)[0]),
      int(cu.cuCtxSynchronize()[0]))
"""
    outs = {}
    for value in ("", "1"):
        env = dict(os.environ, CUMETAL_ASYNC=value, CUMETAL_QUIET="1")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode == 0, r.stderr
        outs[value] = r.stdout.split()
    assert outs[""] == ["700", "700"]  # eager: the launch itself reports the fault (and the sync once more)
    assert outs["1"] == ["0", "700"]  # asynchronous: the launch returns, the sync reports it


def test_stream_attributes_are_kept_and_copied():
    A = rt.cudaStreamAttrID
    s, t = check(rt.cudaStreamCreate()), check(rt.cudaStreamCreate())
    assert check(rt.cudaStreamGetAttribute(s, A.cudaLaunchAttributeSynchronizationPolicy)).syncPolicy == \
        rt.cudaSynchronizationPolicy.cudaSyncPolicyAuto
    v = rt.cudaStreamAttrValue()
    v.syncPolicy = rt.cudaSynchronizationPolicy.cudaSyncPolicyBlockingSync
    check(rt.cudaStreamSetAttribute(s, A.cudaLaunchAttributeSynchronizationPolicy, v))
    v.accessPolicyWindow.num_bytes = 4096
    check(rt.cudaStreamSetAttribute(s, A.cudaLaunchAttributeAccessPolicyWindow, v))
    v.accessPolicyWindow.num_bytes = 1  # the stream kept a copy
    check(rt.cudaStreamCopyAttributes(t, s))
    assert check(rt.cudaStreamGetAttribute(t, A.cudaLaunchAttributeSynchronizationPolicy)).syncPolicy == \
        rt.cudaSynchronizationPolicy.cudaSyncPolicyBlockingSync
    assert check(rt.cudaStreamGetAttribute(t, A.cudaLaunchAttributeAccessPolicyWindow)).accessPolicyWindow.num_bytes == 4096
    assert rt.cudaStreamGetAttribute(s, A.cudaLaunchAttributeCooperative)[0] == E.cudaErrorInvalidValue
    v.syncPolicy = 99
    assert rt.cudaStreamSetAttribute(s, A.cudaLaunchAttributeSynchronizationPolicy, v) == (E.cudaErrorInvalidValue,)


def test_device_synchronize_waits_for_a_destroyed_streams_work(lib):
    gate = Gate()
    buf = check(rt.cudaMalloc(8))
    check(rt.cudaMemset(buf, 0, 8))
    s = check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
    gate.spin(lib, s)
    check(rt.cudaMemsetAsync(buf, 6, 8, s))
    check(rt.cudaStreamDestroy(s))
    opener = threading.Timer(0.3, gate.open)
    opener.start()
    check(rt.cudaDeviceSynchronize())  # returns only once the destroyed stream's work is done
    assert host_bytes(buf, 8) == b"\x06" * 8
    opener.join()
