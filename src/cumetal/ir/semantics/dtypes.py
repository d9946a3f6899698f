"""How IR values are stored in lane arrays: every type as an unsigned bit pattern of its width
(``i1`` as numpy bool), so NaN payloads, signed zeros and denormals survive every move."""

from __future__ import annotations

import numpy as np

UDT: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_), "i8": np.dtype(np.uint8), "i16": np.dtype(np.uint16),
    "i32": np.dtype(np.uint32), "i64": np.dtype(np.uint64), "f16": np.dtype(np.uint16),
    "bf16": np.dtype(np.uint16), "f32": np.dtype(np.uint32), "f64": np.dtype(np.uint64),
}
"""Container dtype of each IR type."""

SDT: dict[str, np.dtype] = {
    "i8": np.dtype(np.int8), "i16": np.dtype(np.int16), "i32": np.dtype(np.int32), "i64": np.dtype(np.int64),
    "f16": np.dtype(np.int16), "bf16": np.dtype(np.int16), "f32": np.dtype(np.int32), "f64": np.dtype(np.int64),
}
"""Signed view of each integer container."""

FDT: dict[str, np.dtype] = {"f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64)}

CANON_NAN = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF}

MEM_DT: dict[str, np.dtype] = {**UDT, "i1": np.dtype(np.uint8)}
"""Element dtype of a memory access of each type (a predicate occupies one byte)."""
