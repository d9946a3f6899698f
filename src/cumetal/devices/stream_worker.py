"""Asynchronous streams for the host-executed devices (``cpu``, ``air-sim``, ``msl-sim``).

An asynchronous :class:`WorkQueue` owns one worker thread that runs the stream's operations in
order; ``enqueue`` returns at once. Every operation gets a ticket (its position in the stream); the
stream is done up to ticket ``t`` once ``completed >= t``. Cross-stream ordering (an event wait,
the legacy null stream's implicit barriers) is an operation that waits for another queue's ticket.
Dependencies only ever point at work enqueued earlier, so waiting cannot form a cycle.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
from collections.abc import Callable

Op = Callable[[], None]


class WorkQueue:
    """In-order operations run by a lazily started daemon worker thread."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.cond = threading.Condition()
        self.ops: collections.deque[tuple[int, Op]] = collections.deque()
        self.enqueued = 0
        self.completed = 0
        self.closed = False
        self.worker: threading.Thread | None = None

    def enqueue(self, op: Op) -> int:
        with self.cond:
            if self.closed:
                raise RuntimeError(f"stream {self.name} is destroyed")
            self.enqueued += 1
            ticket = self.enqueued
            self.ops.append((ticket, op))
            if self.worker is None:
                self.worker = threading.Thread(target=self._run, name=f"cumetal-{self.name}", daemon=True)
                self.worker.start()
            self.cond.notify_all()
            return ticket

    def _run(self) -> None:
        while True:
            with self.cond:
                while not self.ops and not self.closed:
                    self.cond.wait()
                if not self.ops:
                    return
                ticket, op = self.ops[0]
            try:
                op()
            except BaseException as e:  # an operation must never kill the worker (ops report their own faults)
                print(f"cumetal: internal error in stream {self.name}: {e!r}", file=sys.stderr, flush=True)
                if os.environ.get("CUMETAL_DEBUG"):
                    import traceback

                    traceback.print_exc()
            with self.cond:
                self.ops.popleft()
                self.completed = ticket
                self.cond.notify_all()

    def ticket(self) -> int:
        with self.cond:
            return self.enqueued

    def done(self, ticket: int | None = None) -> bool:
        with self.cond:
            return self.completed >= (self.enqueued if ticket is None else ticket)

    def wait(self, ticket: int | None = None, timeout: float | None = None) -> bool:
        """Block until the work up to ``ticket`` (default: everything enqueued so far) has run;
        False if ``timeout`` seconds passed first."""
        with self.cond:
            target = self.enqueued if ticket is None else ticket
            if self.worker is threading.current_thread():
                return True  # waiting on oneself from inside an operation would deadlock
            return self.cond.wait_for(lambda: self.completed >= target, timeout)

    def close(self) -> None:
        """Stop the worker after the work already enqueued."""
        with self.cond:
            self.closed = True
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
        done.wait()
