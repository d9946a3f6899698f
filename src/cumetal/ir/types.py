"""Scalar types of the kernel IR.

Types are plain strings: integers carry no signedness (operations say how they read bits),
floats are IEEE formats, ``i1`` is a predicate. Values of every type are stored as raw bit
patterns, so the IR is exact about NaN payloads, signed zeros and denormals.
"""

from __future__ import annotations

INT_TYPES = ("i1", "i8", "i16", "i32", "i64")
FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
ALL_TYPES = INT_TYPES + FLOAT_TYPES

BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "f16": 16, "bf16": 16, "f32": 32, "f64": 64}

# Integer type of the same width: the container the bits of a value travel in.
INT_OF_WIDTH = {1: "i1", 8: "i8", 16: "i16", 32: "i32", 64: "i64"}


def is_int(t: str) -> bool:
    return t in INT_TYPES


def is_float(t: str) -> bool:
    return t in FLOAT_TYPES


def bits(t: str) -> int:
    return BITS[t]


def bytes_of(t: str) -> int:
    return max(1, BITS[t] // 8)


def int_type(width: int) -> str:
    return INT_OF_WIDTH[width]


def mask(t: str) -> int:
    return (1 << BITS[t]) - 1


def to_signed(value: int, t: str) -> int:
    """Interpret the bit pattern ``value`` of integer type ``t`` as two's complement."""
    n = BITS[t]
    value &= (1 << n) - 1
    return value - (1 << n) if value >> (n - 1) else value
