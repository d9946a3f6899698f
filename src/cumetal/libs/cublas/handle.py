"""cuBLAS handles: the per-handle settings (stream, pointer mode, math and atomics modes, workspace)."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass

from cumetal.libs.cublas import status as S
from cumetal.libs.devmem import LibError


@dataclass
class Handle:
    stream: int = 0
    pointer_mode: int = S.POINTER_HOST
    math_mode: int = S.DEFAULT_MATH
    atomics_mode: int = S.ATOMICS_NOT_ALLOWED
    workspace: int = 0
    workspace_size: int = 0
    sm_count_target: int = 0  # cublasSetSmCountTarget: stored (CuMetal does not partition the device)
    # floating-point emulation settings (stored: CuMetal computes natively, as cuBLAS does where no
    # emulated algorithm exists); the defaults are the documented ones
    emulation_strategy: int = 0
    special_values: int = 0xFFFF
    mantissa_control: int = 0
    max_mantissa_bits: int | None = None  # unset: 79 with DYNAMIC control, 55 with FIXED
    mantissa_bit_offset: int = 0
    mantissa_bit_count_ptr: int = 0


_handles: dict[int, Handle] = {}
_lock = threading.Lock()
# handle values are opaque non-zero numbers (never dereferenced), aligned like a real pointer
_ids = itertools.count(0xCB1A5000, 0x40)


def create() -> int:
    with _lock:
        h = next(_ids)
        _handles[h] = Handle()
    return h


def destroy(h: int) -> None:
    with _lock:
        if _handles.pop(h, None) is None:
            raise LibError(S.NOT_INITIALIZED, f"handle 0x{h:x} is not a live cuBLAS handle")


def get(h: int) -> Handle:
    found = _handles.get(h)
    if found is None:
        raise LibError(S.NOT_INITIALIZED, f"handle 0x{h:x} is not a live cuBLAS handle (cublasCreate first)")
    return found
