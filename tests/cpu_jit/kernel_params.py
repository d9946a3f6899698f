"""The parameter buffer of a launch, packed as CUDA lays kernel parameters out (each value at its
natural alignment): shared by the compiled backend's tests."""

from __future__ import annotations

import struct


def pack_params(*vals: tuple[str, int | float]) -> bytes:
    """``pack_params(("Q", ptr), ("i", n))``: each value aligned to its size, little-endian."""
    out = b""
    for fmt, v in vals:
        size = struct.calcsize(fmt)
        out += b"\0" * (-len(out) % size) + struct.pack("<" + fmt, v)
    return out
