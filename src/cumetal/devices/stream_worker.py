"""Asynchronous streams for the host-executed devices (``cpu``, ``air-sim``, ``msl-sim``).

An asynchronous :class:`WorkQueue` owns one worker thread that runs the stream's operations in
order; ``enqueue`` returns at once. Every operation gets a ticket (its position in the stream); the
stream is done up to ticket ``t`` once ``completed >= t``. Cross-stream ordering (an event wait,
the legacy null stream's implicit barriers) is an operation that waits for another queue's ticket.
Dependencies only ever point at work enqueued earlier, so waiting cannot form a cycle.

Launch overhead (docs/cpu-backend.md): the host thread and the worker share one interpreter lock,
and a thread hand-off costs two wake-ups (tens of microseconds on a loaded machine, where a worker
preempted while it holds the interpreter lock stalls the host for a time slice). So

* a thread that waits for a queue (``wait`` without a timeout) runs the operations it waits for
  itself when the worker has not started them: a launch followed by a synchronisation costs no
  hand-off;
* the worker waits for work in C without the interpreter lock (``stream_bell.c``) and starts on
  an idle queue's work once the host has enqueued nothing for ``START_QUIET_S``, once the oldest
  operation has waited ``START_MAX_DELAY_S``, or at once when someone waits for the queue (and
  cannot run it), polls it, or it holds ``START_BURST`` operations — submission batching, as a GPU
  driver flushes its command buffer: a burst of launches is enqueued without the worker competing
  for the interpreter lock, and work still starts without any synchronisation. Once started, the
  worker runs operations until the queue is empty. For ``LINGER_S`` after an enqueue the idle
  worker looks for work every ``POLL_S`` (in C) instead of being signalled by each enqueue.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
from collections.abc import Callable

from cumetal.devices.stream_bell import new_bell

Op = Callable[[], None]
START_QUIET_S = 100e-6
START_MAX_DELAY_S = 20e-3
START_BURST = 1024
POLL_S = 500e-6  # after work, the idle worker looks for more this often (in C) ...
LINGER_S = 0.1  # ... for this long since the last enqueue, instead of being woken by each enqueue


class WorkQueue:
    """In-order operations run by a lazily started daemon worker thread (see the module doc).

    Operations run one at a time and in order: ``running`` says the first one is claimed (by the
    worker or by a waiting thread), and it stays in ``ops`` until it is done, so an empty ``ops``
    means the queue is idle. ``bell`` counts the unclaimed operations for the worker's wait."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.cond = threading.Condition()  # the queue's lock; notified when an operation completes
        self.ops: collections.deque[tuple[int, Op]] = collections.deque()
        self.enqueued = 0
        self.completed = 0
        self.closed = False
        self.worker: threading.Thread | None = None
        self.running = False  # ops[0] is being run, by the worker or by a waiting thread
        self.runner = 0  # the thread ident running it
        self.bell = new_bell()
        # runs a log of launches C enqueued without Python (devices/native_launch.py); set with the
        # stream's first native-launch plan
        self.native_runner: Callable[[int, int], None] | None = None

    def adopt_native(self) -> None:
        """(under the lock) The launches C logged in the doorbell since the last look become one
        operation, in their place: every look at the queue (enqueue, ticket, done, wait, the worker)
        adopts first, so they stay ahead of any work enqueued after them."""
        runner = self.native_runner
        if runner is None:
            return
        got = self.bell.detach()
        if got is None:
            return
        log, length = got
        release = self.bell.release

        def run_native() -> None:
            try:
                runner(log, length)
            finally:
                release(log)

        self.enqueued += 1
        self.ops.append((self.enqueued, run_native))
        self.bell.ring(START_BURST)

    def enqueue(self, op: Op) -> int:
        with self.cond:
            if self.closed:
                raise RuntimeError(f"stream {self.name} is destroyed")
            self.adopt_native()
            self.enqueued += 1
            ticket = self.enqueued
            self.ops.append((ticket, op))
            self.bell.ring(START_BURST)
            if self.worker is None:
                self.worker = threading.Thread(target=self._run, name=f"cumetal-{self.name}", daemon=True)
                self.worker.start()
            return ticket

    def _claim(self) -> tuple[int, Op]:
        """(under the lock, ``ops`` not empty and not running) the first operation, for this thread."""
        ticket, op = self.ops[0]
        self.running, self.runner = True, threading.get_ident()
        self.bell.take()
        return ticket, op

    def _run(self) -> None:
        draining = False  # (once started, the worker runs until the queue is empty)
        while True:
            if not draining and not self.bell.wait(START_QUIET_S, START_MAX_DELAY_S, START_BURST, POLL_S, LINGER_S):
                with self.cond:
                    self.adopt_native()
                    if not self.ops:
                        return  # closed, and everything enqueued has run
            with self.cond:
                while self.running:  # a waiting thread runs the first one: the rest comes after it
                    self.cond.wait()
                self.adopt_native()
                if not self.ops:
                    draining = False
                    continue
                ticket, op = self._claim()
            try:
                op()
            except BaseException as e:  # an operation must never kill the worker (ops report their own faults)
                self._internal_error(e)
            with self.cond:
                self._finished(ticket)
            draining = True

    def _internal_error(self, e: BaseException) -> None:
        print(f"cumetal: internal error in stream {self.name}: {e!r}", file=sys.stderr, flush=True)
        if os.environ.get("CUMETAL_DEBUG"):
            import traceback

            traceback.print_exc()

    def _finished(self, ticket: int) -> None:
        """(under the lock) the claimed first operation has run."""
        self.ops.popleft()
        self.running, self.runner = False, 0
        self.completed = ticket
        self.cond.notify_all()

    def start_now(self) -> None:
        """The worker starts the pending work at once (someone waits for it by other means)."""
        with self.cond:
            self.adopt_native()
            if self.ops:
                self.bell.hurry()

    def ticket(self) -> int:
        with self.cond:
            self.adopt_native()
            return self.enqueued

    def done(self, ticket: int | None = None) -> bool:
        with self.cond:
            self.adopt_native()
            if self.completed >= (self.enqueued if ticket is None else ticket):
                return True
            if self.ops and not self.running:
                self.bell.hurry()  # someone polls for it: start it now
            return False

    def wait(self, ticket: int | None = None, timeout: float | None = None) -> bool:
        """Block until the work up to ``ticket`` (default: everything enqueued so far) has run;
        False if ``timeout`` seconds passed first. Without a timeout, a thread that is not a
        queue's worker runs the operations up to ``ticket`` that the worker has not started."""
        cond = self.cond
        with cond:
            self.adopt_native()
            target = self.enqueued if ticket is None else ticket
            if self.completed >= target:
                return True
            if self.worker is threading.current_thread() or self.runner == threading.get_ident():
                return True  # waiting on oneself from inside an operation would deadlock
            if timeout is not None:
                self.bell.hurry()
                return cond.wait_for(lambda: self.completed >= target, timeout)
            helps = not threading.current_thread().name.startswith("cumetal-")  # never another queue's worker
            hurried = False
            while self.completed < target:
                if helps and self.ops and not self.running and self.ops[0][0] <= target:
                    ticket_now, op = self._claim()
                    cond.release()
                    try:
                        op()
                    except Exception as e:  # (KeyboardInterrupt reaches the caller once the op is accounted)
                        self._internal_error(e)
                    finally:
                        cond.acquire()
                        self._finished(ticket_now)
                else:
                    if not hurried:
                        self.bell.hurry()
                        hurried = True
                    cond.wait()
            return True

    def close(self) -> None:
        """Stop the worker after the work already enqueued."""
        with self.cond:
            self.adopt_native()
            self.closed = True
            self.bell.close()
            self.cond.notify_all()


class CallbackRunner:
    """Runs host callbacks on a thread of their own (never a stream's worker, §6.3.2), in order."""

    def __init__(self) -> None:
        self.queue = WorkQueue("callbacks")

    def run_and_wait(self, fn: Op) -> None:
        done = threading.Event()

        def call() -> None:
            try:
                fn()
            finally:
                done.set()

        self.queue.enqueue(call)
        self.queue.start_now()  # (its caller waits: no submission batching for callbacks)
        done.wait()
