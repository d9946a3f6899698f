"""The stream queue's side of native launches (devices/stream_worker.py, devices/stream_bell.c): launches
C logs in a stream's doorbell become one operation in their place — after the work enqueued before
them, before the work enqueued after — whichever thread looks at the queue first (an enqueue, a wait,
the worker); a closed queue refuses them (C then takes the Python path)."""

from __future__ import annotations

import ctypes
import struct
import threading

import pytest

from cumetal.devices.stream_bell import NativeBell
from cumetal.devices.stream_worker import WorkQueue

PUSH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64)


def _queue() -> tuple[WorkQueue, list, object]:
    q = WorkQueue("test-native")
    if not isinstance(q.bell, NativeBell):
        pytest.skip("no C compiler: the Python doorbell has no native launches")
    log: list = []

    def runner(address: int, length: int) -> None:  # what native_launch._run_batch gets: the entries
        data = ctypes.string_at(address, length)
        log.append(("native", [data[i:i + 8] for i in range(0, length, 8)]))

    q.native_runner = runner
    return q, log, PUSH(q.bell.push_address)


def _entry(n: int) -> bytes:
    return struct.pack("<II", n, 8)  # (slot, bytes): an 8-byte entry


def test_logged_launches_run_in_their_place_between_python_operations(monkeypatch) -> None:
    # the worker must not start the queue's work while the test logs and enqueues (it would adopt the
    # logged launches at another moment, as it may: one operation per adoption); a loaded machine
    # can take more than START_QUIET_S between two of these lines, so the batching delays are
    # lengthened for this queue's worker (it reads them at each wait) and q.wait() runs everything
    from cumetal.devices import stream_worker

    monkeypatch.setattr(stream_worker, "START_QUIET_S", 60.0)
    monkeypatch.setattr(stream_worker, "START_MAX_DELAY_S", 60.0)
    monkeypatch.setattr(stream_worker, "LINGER_S", 0.0)
    q, log, push = _queue()
    q.enqueue(lambda: log.append("A"))
    for n in range(3):
        assert push(q.bell.address, _entry(n), 8, 1024) == 0
    q.enqueue(lambda: log.append("B"))  # adopts the three first: they come before B
    assert push(q.bell.address, _entry(7), 8, 1024) == 0
    q.wait()  # adopts the last one, then runs everything
    assert log == ["A", ("native", [_entry(0), _entry(1), _entry(2)]), "B", ("native", [_entry(7)])]
    assert q.completed == q.enqueued == 4


def test_the_worker_starts_logged_launches_nobody_waits_for() -> None:
    q, log, push = _queue()
    done = threading.Event()
    q.enqueue(lambda: None)
    q.wait()  # (the worker exists and lingers)
    q.native_runner = lambda address, length: (log.append(length), done.set())
    assert push(q.bell.address, _entry(1), 8, 1024) == 0
    assert done.wait(10.0), "the worker never ran the logged launch"
    assert log == [8]


def test_a_closed_queue_refuses_logged_launches_and_runs_the_ones_before() -> None:
    q, log, push = _queue()
    assert push(q.bell.address, _entry(5), 8, 1024) == 0
    q.close()  # adopts the pending entry first
    assert push(q.bell.address, _entry(6), 8, 1024) == -1
    q.wait()
    assert log == [("native", [_entry(5)])]
