"""What the Runtime API layer needs from the driver beyond cuda-python's driver functions.

**Asynchronous contexts.** The CPU-family devices (``cpu``, ``air-sim``, ``msl-sim``) run a stream
either eagerly (in the calling thread) or on a worker thread. The driver API's contexts are eager
by default in a Python process (a kernel fault is returned by ``cuLaunchKernel`` itself, which is what
a debugger wants); in a C/C++ program (Python started by libcumetal) they are asynchronous, as CUDA's
are, so a fault comes back from the next synchronising call as programs expect. The Runtime API makes
its primary context asynchronous, as CUDA is. ``CUMETAL_ASYNC`` overrides all of them: ``1`` makes
every context asynchronous, ``0`` none. Devices that are asynchronous by nature (Metal) ignore this.
"""

from __future__ import annotations

import inspect
import os

from cumetal.driver.state import STATE, Context


def async_setting() -> bool | None:
    """``CUMETAL_ASYNC``: True (1/on), False (0/off) or None (unset: each API's default)."""
    raw = os.environ.get("CUMETAL_ASYNC", "").strip().lower()
    if raw in ("1", "on", "yes", "true"):
        return True
    if raw in ("0", "off", "no", "false"):
        return False
    return None


_driver_contexts_async = False  # set by libcumetal when it started the interpreter (a C program)


def set_driver_contexts_asynchronous(on: bool) -> None:
    """Make driver contexts created from now on asynchronous by default (``CUMETAL_ASYNC`` still wins)."""
    global _driver_contexts_async
    _driver_contexts_async = bool(on)


def driver_contexts_asynchronous() -> bool:
    """Whether a new driver context gets asynchronous streams."""
    setting = async_setting()
    return _driver_contexts_async if setting is None else setting


def supports_async_streams(device: object) -> bool:
    create = getattr(device, "create_stream", None)
    return create is not None and "asynchronous" in inspect.signature(create).parameters


def make_asynchronous(ctx: Context) -> bool:
    """Give ``ctx`` asynchronous streams from now on (its null stream is replaced once idle).

    Returns whether the context is asynchronous afterwards."""
    if ctx.asynchronous:
        return True
    dev = ctx.device
    if not supports_async_streams(dev):
        return False
    with STATE.lock:
        old = ctx.null_stream
        faults = dev.synchronize(old)
        new = dev.create_stream(legacy_default=True, asynchronous=True)
        new.pending_faults.extend(faults)
        ctx.null_stream = new
        ctx.asynchronous = True
        dev.destroy_stream(old)
    return True
