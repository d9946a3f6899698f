"""``cuda.core.typing``: the string enumerations ``cumetal.core``'s texture API takes.

Each accepts its plain string value too (``"float32"``, ``"clamp"``, ``"linear"``…).
"""

from __future__ import annotations

import enum


class ArrayFormatType(enum.StrEnum):
    """Element format of an opaque (CUDA) array; each one is a numpy dtype."""

    UINT8 = "uint8"
    UINT16 = "uint16"
    UINT32 = "uint32"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    FLOAT16 = "float16"
    FLOAT32 = "float32"


class AddressModeType(enum.StrEnum):
    """What a texture fetch outside the texture returns: wrapped, clamped, mirrored or the border."""

    WRAP = "wrap"
    CLAMP = "clamp"
    MIRROR = "mirror"
    BORDER = "border"


class FilterModeType(enum.StrEnum):
    """Nearest-texel (``POINT``) or interpolated (``LINEAR``) sampling."""

    POINT = "point"
    LINEAR = "linear"


class ReadModeType(enum.StrEnum):
    """Integer texels read as themselves (``ELEMENT_TYPE``) or as floats in [0, 1] / [-1, 1]."""

    ELEMENT_TYPE = "element_type"
    NORMALIZED_FLOAT = "normalized_float"


__all__ = ["AddressModeType", "ArrayFormatType", "FilterModeType", "ReadModeType"]
