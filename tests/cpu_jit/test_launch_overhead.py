"""The launch path's shortcuts keep every semantic of the general path (docs/cpu-backend.md,
"Launch overhead"): the struct-packed kernel parameters equal ctypes' bytes, and every value the
shortcut cannot take goes the general way (same bytes or the same error); a launch configuration
checked once is still refused when it stops being valid; a stream's work runs in order whether a
waiting thread or the worker runs it, starts without any synchronisation, and survives a failing
or interrupted operation."""

from __future__ import annotations

import ctypes
import threading
import time
from dataclasses import dataclass

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.devices import stream_worker
from cumetal.devices.stream_worker import WorkQueue
from cumetal.driver import kernel_params
from cumetal.driver.enums import CUfunction_attribute
from cumetal.driver.errors import CudaError
from cumetal.driver.kernel_params import pack_launch_params

OK = cu.CUresult.CUDA_SUCCESS
INVALID = cu.CUresult.CUDA_ERROR_INVALID_VALUE


@dataclass
class Slot:
    name: str
    size: int
    offset: int


def _layout(*sizes: int) -> tuple[list[Slot], int]:
    slots, off = [], 0
    for i, size in enumerate(sizes):
        off = (off + size - 1) // size * size
        slots.append(Slot(f"p{i}", size, off))
        off += size
    return slots, (off + 7) // 8 * 8


def _ctypes_bytes(slots, values, types, size) -> bytes:
    """The buffer as C would lay it out: each value converted by its ctypes type at its offset."""
    buf = bytearray(size)
    for slot, value, ctype in zip(slots, values, types, strict=True):
        data = int(value).to_bytes(8, "little") if ctype in (None, ctypes.c_void_p) else bytes(ctype(value))
        buf[slot.offset: slot.offset + slot.size] = data
    return bytes(buf)


TYPES = (None, ctypes.c_int, ctypes.c_float, ctypes.c_ubyte, ctypes.c_double, ctypes.c_short, ctypes.c_uint,
         ctypes.c_longlong, ctypes.c_void_p)
SLOTS, SIZE = _layout(8, 4, 4, 1, 8, 2, 4, 8, 8)


def test_struct_packing_equals_ctypes_bytes_for_random_values():
    rng = np.random.default_rng(7)
    for _ in range(200):
        values = (int(rng.integers(0, 2**63)) * 2, int(rng.integers(-2**31, 2**31)), float(rng.normal() * 1e3),
                  int(rng.integers(0, 256)), float(rng.normal()), int(rng.integers(-2**15, 2**15)),
                  int(rng.integers(0, 2**32)), int(rng.integers(-2**63, 2**63)), int(rng.integers(0, 2**48)))
        got = pack_launch_params((values, TYPES), None, SLOTS, SIZE)
        assert got == _ctypes_bytes(SLOTS, values, TYPES, SIZE)
    hit = kernel_params._packers[(id(SLOTS), TYPES)]
    assert hit[0] is SLOTS and hit[1] is not None  # the struct path was taken


@pytest.mark.parametrize("ctype, value, want", [
    (None, -1, (2**64 - 1).to_bytes(8, "little")),  # wraps as an address (general path)
    (ctypes.c_int, 2**40 + 5, bytes(ctypes.c_int(2**40 + 5))),  # C truncation, not struct's range error
    (ctypes.c_float, 1e300, bytes(ctypes.c_float(1e300))),  # inf, where struct refuses
    (ctypes.c_float, np.float32(1.5), bytes(ctypes.c_float(1.5))),  # a numpy scalar
    (ctypes.c_void_p, cu.CUdeviceptr(0x1234), (0x1234).to_bytes(8, "little")),  # a handle
    (None, np.int64(-2), (2**64 - 2).to_bytes(8, "little")),
])
def test_values_the_struct_refuses_take_the_general_path(ctype, value, want):
    slots, size = _layout(len(want))
    assert pack_launch_params(((value,), (ctype,)), None, slots, size)[: len(want)] == want


@pytest.mark.parametrize("ctype, value", [(None, True), (ctypes.c_int, 1.5), (None, 2.0), (ctypes.c_void_p, "x"),
                                          (None, cu.CUdevice(0))])
def test_values_the_general_path_refuses_are_refused(ctype, value):
    slots, size = _layout(8)
    with pytest.raises(CudaError) as e:
        pack_launch_params(((value,), (ctype,)), None, slots, size)
    assert e.value.code == INVALID


def test_a_narrower_type_is_widened_by_the_general_path():
    slots, size = _layout(8)
    with pytest.warns(RuntimeWarning, match="sign-extends"):
        got = pack_launch_params(((-3,), (ctypes.c_int,)), None, slots, size)
    assert got == (2**64 - 3).to_bytes(8, "little")


def test_pointer_array_form():
    a, b = ctypes.c_uint64(0xDEADBEEF00), ctypes.c_float(2.5)
    arr = (ctypes.c_void_p * 2)(ctypes.addressof(a), ctypes.addressof(b))
    slots, size = _layout(8, 4)
    assert pack_launch_params(ctypes.addressof(arr), None, slots, size) == \
        struct_bytes(slots, size, [bytes(a), bytes(b)])
    arr[1] = None
    with pytest.raises(CudaError, match=r"kernelParams\[1\] is a NULL pointer"):
        pack_launch_params(ctypes.addressof(arr), None, slots, size)


def struct_bytes(slots, size, parts) -> bytes:
    buf = bytearray(size)
    for slot, data in zip(slots, parts, strict=True):
        buf[slot.offset: slot.offset + slot.size] = data
    return bytes(buf)


# ---------------------------------------------------------------- configurations checked once
SHARED_PTX = """
.version 7.0
.target sm_80
.address_size 64
.extern .shared .align 4 .b8 dyn[];
.visible .entry touch(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 7;
    st.shared.u32 [dyn], %r1;
    ld.shared.u32 %r1, [dyn];
    st.global.u32 [%rd1], %r1;
    ret;
}
"""


@pytest.fixture
def ctx():
    assert cu.cuInit(0)[0] == OK
    err, dev = cu.cuDeviceGet(0)
    err, c = cu.cuCtxCreate(None, 0, dev)
    assert err == OK
    yield c
    assert cu.cuCtxDestroy(c)[0] == OK


def test_a_configuration_launched_before_is_refused_once_it_is_invalid(ctx):
    err, mod = cu.cuModuleLoadData(SHARED_PTX.encode() + b"\0")
    assert err == OK
    err, f = cu.cuModuleGetFunction(mod, b"touch")
    err, out = cu.cuMemAlloc(4)
    args = ((out,), (None,))
    optin = 64 << 10
    launch = lambda shared: cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, shared, 0, args, 0)[0]  # noqa: E731
    assert launch(1024) == OK and launch(1024) == OK  # the second one from the checked configurations
    assert launch(optin) == INVALID  # beyond the default 48 KiB
    attr = CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    assert cu.cuFuncSetAttribute(f, attr, optin)[0] == OK
    assert launch(optin) == OK
    assert cu.cuFuncSetAttribute(f, attr, 1024)[0] == OK
    assert launch(optin) == INVALID  # the opt-in is part of what was checked
    # a bool is not a dimension, even where the same int configuration was launched
    assert cu.cuLaunchKernel(f, True, 1, 1, 32, 1, 1, 1024, 0, args, 0)[0] == INVALID
    assert cu.cuLaunchKernel(f, 1, 1, 1, 4096, 1, 1, 0, 0, args, 0)[0] == INVALID
    assert cu.cuCtxSynchronize()[0] == OK
    got = ctypes.c_uint32()
    assert cu.cuMemcpyDtoH(ctypes.addressof(got), out, 4)[0] == OK and got.value == 7


def test_the_compiled_launcher_is_rebuilt_when_it_is_replaced(monkeypatch):
    from cumetal.devices.cpu_jit_device import CpuJitDevice

    dev = CpuJitDevice(tiered=False)
    first = dev._launch_function()
    assert dev._launch_function() is first
    calls = []
    monkeypatch.setattr(CpuJitDevice, "_launcher", lambda self: calls.append(1) or (lambda *a, **k: None))
    replaced = dev._launch_function()
    assert replaced is not first and calls == [1] and dev._launch_function() is replaced


# ---------------------------------------------------------------- the stream hand-off
def test_a_waiting_thread_runs_the_work_in_order_and_the_rest_runs_on_the_worker(monkeypatch):
    monkeypatch.setattr(stream_worker, "START_QUIET_S", 30.0)  # the worker leaves the work to the waiter
    q = WorkQueue("t-order")
    seen: list[tuple[int, int]] = []
    tickets = [q.enqueue(lambda i=i: seen.append((i, threading.get_ident()))) for i in range(50)]
    assert q.wait(tickets[24])
    assert seen == [(i, threading.get_ident()) for i in range(25)]  # up to the ticket, here
    q.close()  # the worker runs the rest at once
    q.worker.join(5.0)
    assert [i for i, _ in seen] == list(range(50)) and q.done()
    assert {t for _, t in seen[25:]} == {q.worker.ident}


@pytest.mark.parametrize("bell", ["native", "python"])
def test_work_starts_without_any_synchronisation(bell, monkeypatch):
    monkeypatch.setenv("CUMETAL_STREAM_BELL", bell)
    q = WorkQueue("t-start")
    assert type(q.bell).__name__ == ("NativeBell" if bell == "native" else "PyBell")
    done = threading.Event()
    q.enqueue(done.set)
    assert done.wait(5.0)  # the worker runs it once the host is quiet
    for _ in range(3):  # launch/synchronise cycles run on this thread...
        q.enqueue(lambda: None)
        q.wait()
    again = threading.Event()
    q.enqueue(again.set)
    assert again.wait(5.0)  # ... and the worker still starts what nobody waits for
    # a long burst: the worker starts at START_BURST operations or after START_MAX_DELAY_S
    ran = [threading.Event() for _ in range(3)]
    for e in ran:
        q.enqueue(e.set)
    assert all(e.wait(5.0) for e in ran)
    q.close()
    q.worker.join(5.0)
    assert not q.worker.is_alive()


def test_a_worker_thread_waiting_for_another_queue_does_not_run_its_work():
    a, b = WorkQueue("t-a"), WorkQueue("t-b")
    ran_on: list[int] = []
    t = a.enqueue(lambda: ran_on.append(threading.get_ident()))
    finished = threading.Event()
    b.enqueue(lambda: (a.wait(t), finished.set()))
    assert finished.wait(5.0)
    assert ran_on and ran_on[0] != b.worker.ident
    a.close()
    b.close()


def test_a_timed_wait_does_not_run_work_inline_and_times_out():
    q = WorkQueue("t-timeout")
    gate = threading.Event()
    q.enqueue(lambda: gate.wait(10.0))
    t0 = time.monotonic()
    assert not q.wait(timeout=0.05)
    assert time.monotonic() - t0 < 5.0
    gate.set()
    assert q.wait()
    q.close()


def test_a_failing_operation_is_reported_and_the_queue_goes_on(capsys):
    q = WorkQueue("t-fail")
    out: list[int] = []
    q.enqueue(lambda: 1 / 0)
    q.enqueue(lambda: out.append(1))
    assert q.wait() and out == [1]
    assert "internal error in stream t-fail: ZeroDivisionError" in capsys.readouterr().err
    q.close()


def test_an_interrupt_in_work_run_by_the_waiting_thread_reaches_it_and_the_queue_stays_consistent(monkeypatch):
    monkeypatch.setattr(stream_worker, "START_QUIET_S", 30.0)

    def interrupted() -> None:
        raise KeyboardInterrupt

    q = WorkQueue("t-interrupt")
    out: list[int] = []
    t1 = q.enqueue(interrupted)
    q.enqueue(lambda: out.append(2))
    with pytest.raises(KeyboardInterrupt):
        q.wait()
    assert q.completed == t1 and not q.running and len(q.ops) == 1
    assert q.wait() and out == [2]
    q.close()


def test_close_runs_what_is_enqueued_and_refuses_more():
    q = WorkQueue("t-close")
    out: list[int] = []
    for i in range(5):
        q.enqueue(lambda i=i: out.append(i))
    q.close()
    q.worker.join(5.0)
    assert out == list(range(5)) and not q.worker.is_alive()
    with pytest.raises(RuntimeError, match="destroyed"):
        q.enqueue(lambda: None)


def test_a_forked_child_can_wait_for_a_queue_without_hanging():
    import os

    q = WorkQueue("t-fork")
    gate = threading.Event()
    q.enqueue(lambda: gate.wait(10.0))  # the worker is busy (and may hold the bell's mutex) at the fork
    q.enqueue(lambda: None)
    time.sleep(0.01)
    pid = os.fork()
    if pid == 0:  # the child: no worker thread; waiting with a timeout must return, not hang
        ok = q.wait(timeout=0.05)
        os._exit(3 if ok else 0)
    deadline = time.monotonic() + 20.0
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    gate.set()
    if not done:
        import signal

        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert done, "the forked child hung"
    assert os.waitstatus_to_exitcode(status) == 0
    assert q.wait()
    q.close()


def test_host_callbacks_and_polled_events_start_without_batching_delay(monkeypatch):
    """A callback's caller and an event's poller wait by other means than WorkQueue.wait: the
    queue starts at once for them (with a quiet time of 30 s, batching would show)."""
    monkeypatch.setattr(stream_worker, "START_QUIET_S", 30.0)
    monkeypatch.setattr(stream_worker, "START_MAX_DELAY_S", 30.0)
    runner = stream_worker.CallbackRunner()
    t0 = time.monotonic()
    seen: list[int] = []
    runner.run_and_wait(lambda: seen.append(threading.get_ident()))
    assert seen == [runner.queue.worker.ident] and time.monotonic() - t0 < 10.0
    from cumetal.devices.cpu_device import CpuDevice

    dev = CpuDevice()
    s = dev.create_stream(asynchronous=True)
    ev = dev.create_event()
    gate = threading.Event()
    s.work.enqueue(lambda: gate.wait(10.0))
    dev.record_event(s, ev)
    assert not dev.event_done(ev)  # starts the queue's worker
    gate.set()
    deadline = time.monotonic() + 10.0
    while not dev.event_done(ev) and time.monotonic() < deadline:
        time.sleep(0.001)
    assert dev.event_done(ev)
    dev.destroy_stream(s)
    q = WorkQueue("t-poll")
    q.enqueue(lambda: None)
    deadline = time.monotonic() + 10.0
    while not q.done() and time.monotonic() < deadline:  # cudaStreamQuery's loop
        time.sleep(0.001)
    assert q.done()
    q.close()
