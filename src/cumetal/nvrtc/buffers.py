"""Filling a caller's output buffer in place, as cuda-python's ``char*`` arguments do."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np


class BufferError_(ValueError):  # noqa: N801 - not the builtin BufferError
    """The buffer cannot be written (None, NULL, read-only, not a buffer)."""


def fill_buffer(buffer: Any, data: bytes) -> None:
    """Copy ``data`` (truncated to the buffer's length) into ``buffer``: a ``bytes`` object made
    by the caller (cuda-python writes into its storage), a ``bytearray`` or other writable buffer,
    or an integer address."""
    if buffer is None:
        raise BufferError_("NULL buffer")
    if isinstance(buffer, int) and not isinstance(buffer, bool):
        if buffer == 0:
            raise BufferError_("NULL buffer")
        ctypes.memmove(buffer, data, len(data))
        return
    if isinstance(buffer, bytes):
        # Objects of length 0 or 1 may be interpreter-wide singletons and are never written.
        n = min(len(buffer), len(data))
        if len(buffer) > 1 and n:
            address = ctypes.cast(ctypes.c_char_p(buffer), ctypes.c_void_p).value
            ctypes.memmove(address, data, n)
        return
    try:
        view = memoryview(buffer).cast("B")
    except TypeError:
        try:
            view = memoryview(np.asarray(buffer)).cast("B")
        except (TypeError, ValueError):
            raise BufferError_(f"{type(buffer).__name__} is not a writable buffer") from None
    if view.readonly:
        raise BufferError_("read-only buffer")
    n = min(len(view), len(data))
    view[:n] = data[:n]
