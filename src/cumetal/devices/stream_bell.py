"""The doorbell of a stream's worker (``stream_bell.c``): the worker waits for work it should start
without the interpreter lock. Built on first use with the system C compiler into the CuMetal cache
(as the air-sim runtime is); without a compiler, :class:`PyBell` keeps the same rules with a
``threading.Condition`` (its waits take the interpreter lock at each wake-up)."""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

SOURCE = Path(__file__).with_name("stream_bell.c")
_lock = threading.Lock()
_lib: tuple[ctypes.PyDLL, ctypes.CDLL] | None = None
_failed: str | None = None


def _cache_dir() -> Path:
    root = (os.environ.get("CUMETAL_CACHE_DIR") or os.environ.get("CUMETAL_CACHE")
            or os.path.join(os.path.expanduser("~"), ".cache", "cumetal"))
    return Path(root) / "streams"


def _build(out: Path) -> None:
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise OSError("no C compiler (gcc, cc or $CC) on PATH")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out.parent, suffix=".so", delete=False) as tmp:
        tmp_path = Path(tmp.name)
    cmd = [cc, "-O2", "-shared", "-fPIC", "-o", str(tmp_path), str(SOURCE), "-lpthread"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        tmp_path.unlink(missing_ok=True)
        raise OSError(f"{' '.join(cmd)}: {e}") from None
    if done.returncode != 0:
        tmp_path.unlink(missing_ok=True)
        raise OSError(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
    os.replace(tmp_path, out)  # atomic: concurrent builders never see a partial file


def _library() -> tuple[ctypes.PyDLL, ctypes.CDLL] | None:
    """(the library with the interpreter lock held during calls, the same without it), or None
    when it cannot be built (said once on stderr with CUMETAL_DEBUG)."""
    global _lib, _failed
    if _lib is not None or _failed is not None:
        return _lib
    with _lock:
        if _lib is not None or _failed is not None:
            return _lib
        try:
            digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
            path = _cache_dir() / f"stream-bell-{digest}.so"
            if not path.exists():
                _build(path)
            held, free = ctypes.PyDLL(str(path)), ctypes.CDLL(str(path))
            p, i64 = ctypes.c_void_p, ctypes.c_int64
            held.cm_bell_size.restype = ctypes.c_size_t
            held.cm_bell_init.argtypes = [p]
            for name, args in (("cm_bell_ring", [p, i64]), ("cm_bell_take", [p]), ("cm_bell_hurry", [p]),
                               ("cm_bell_close", [p])):
                getattr(held, name).argtypes = args
                getattr(held, name).restype = None
            held.cm_bell_detach.argtypes = [p, ctypes.POINTER(p), ctypes.POINTER(ctypes.c_size_t)]
            held.cm_bell_detach.restype = i64
            held.cm_bell_free.argtypes = [p]
            held.cm_bell_free.restype = None
            free.cm_bell_wait.argtypes = [p, i64, i64, i64, i64, i64]
            free.cm_bell_wait.restype = ctypes.c_int
            _lib = (held, free)
        except OSError as e:
            _failed = str(e)
            if os.environ.get("CUMETAL_DEBUG"):
                print(f"cumetal: stream doorbell unavailable ({e}); using the Python one", file=sys.stderr, flush=True)
        return _lib


_bells: weakref.WeakSet[NativeBell] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    """A forked child has none of the parent's threads: a worker may have held a bell's mutex at
    the fork, so every bell starts afresh (its counts are the queue's; the child cannot use the
    parent's driver state anyway, but it may wait for its streams at exit)."""
    for bell in list(_bells):
        bell.reset()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class NativeBell:
    """``stream_bell.c``'s doorbell (see there)."""

    def __init__(self, lib: tuple[ctypes.PyDLL, ctypes.CDLL]) -> None:
        held, free = lib
        self._init = held.cm_bell_init
        self._buf = ctypes.create_string_buffer(held.cm_bell_size())
        self._p = ctypes.addressof(self._buf)
        self.reset()
        _bells.add(self)
        self._ring, self._take, self._hurry, self._close = (held.cm_bell_ring, held.cm_bell_take,
                                                            held.cm_bell_hurry, held.cm_bell_close)
        self._wait = free.cm_bell_wait
        self._detach, self._free = held.cm_bell_detach, held.cm_bell_free
        self.push_address = ctypes.cast(held.cm_bell_push, ctypes.c_void_p).value  # (native launches)
        self.address = self._p

    def reset(self) -> None:
        """(Re)initialise: nothing pending, nobody waiting."""
        if self._init(self._p) != 0:
            raise OSError("cm_bell_init failed")

    def ring(self, burst: int) -> None:
        self._ring(self._p, burst)

    def take(self) -> None:
        self._take(self._p)

    def hurry(self) -> None:
        self._hurry(self._p)

    def close(self) -> None:
        self._close(self._p)

    def detach(self) -> tuple[int, int] | None:
        """The launches logged from C since the last detach (capi/csrc/cm_native_launch.c): (the log's
        address, its length), to be released with :meth:`release`; None when there are none."""
        log, length = ctypes.c_void_p(), ctypes.c_size_t()
        if self._detach(self._p, ctypes.byref(log), ctypes.byref(length)) == 0:
            return None
        return int(log.value or 0), int(length.value)

    def release(self, log: int) -> None:
        self._free(log)

    def wait(self, quiet_s: float, max_s: float, burst: int, poll_s: float, linger_s: float) -> bool:
        return bool(self._wait(self._p, int(quiet_s * 1e9), int(max_s * 1e9), burst, int(poll_s * 1e9),
                               int(linger_s * 1e9)))


class PyBell:
    """The same doorbell in Python (no C compiler; no native launches)."""

    push_address = None

    def detach(self) -> None:
        return None

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.pending = 0
        self.last = self.first = 0.0
        self.urgent = self.closed = False
        self.waiting = 0

    def ring(self, burst: int) -> None:
        with self._cond:
            now = time.monotonic()
            if self.pending == 0:
                self.first = now
            self.pending += 1
            self.last = now
            if self.waiting == 1 or (self.waiting and self.pending >= burst):
                self._cond.notify()

    def take(self) -> None:
        with self._cond:
            if self.pending > 0:
                self.pending -= 1
                if self.pending == 0:
                    self.urgent = False

    def hurry(self) -> None:
        with self._cond:
            self.urgent = True
            self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify()

    def wait(self, quiet_s: float, max_s: float, burst: int, poll_s: float, linger_s: float) -> bool:
        """(``poll_s``, ``linger_s``: the C doorbell's polling after work; this one is always
        signalled, since each of its wake-ups takes the interpreter lock anyway)"""
        with self._cond:
            while True:
                if self.pending > 0:
                    if self.urgent or self.closed or self.pending >= burst:
                        return True
                    due = min(self.last + quiet_s, self.first + max_s)
                    now = time.monotonic()
                    if now >= due:
                        return True
                    self.waiting = 2
                    self._cond.wait(due - now)
                elif self.closed:
                    return False
                else:
                    self.waiting = 1
                    self._cond.wait()
                self.waiting = 0


def new_bell() -> NativeBell | PyBell:
    """A doorbell for one queue: the C one when it builds (``CUMETAL_STREAM_BELL=python``: the other)."""
    if os.environ.get("CUMETAL_STREAM_BELL", "").strip().lower() != "python":
        lib = _library()
        if lib is not None:
            try:
                return NativeBell(lib)
            except OSError:
                pass
    return PyBell()
