"""CuMetal's 128-byte tensor-map descriptor: what ``cuTensorMapEncode*`` (``cumetal.driver.tensormap``)
writes and what ``cp.async.bulk.tensor`` reads back on every backend (the cpu engine's
``backends/cpu/tensorcopy.py``, the Apple paths' ``passes/legalize/rules/async_copy.py``). A data
format shared by the layers, so it lives below all of them. Layout (little-endian)::

    0  u64 global address          40 u64[4] global strides of dims 1..4 (bytes)
    8  u32 magic 'CMTM'            72 u16[5] box dims
    12 u8 rank, u8 data type,      82 u8[5] element strides
       u8 interleave, u8 swizzle   87 u8 L2 promotion, u8 OOB fill, u8 mode (0 tile)
    16 u32[5] global dims - 1      90 u16 channelsPerPixel, u16 pixelsPerColumn (im2col, mode 1)
                                   94 i16[3] pixel box lower corner, 100 i16[3] upper corner (im2col)
                                   106..127 zero
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAGIC = 0x4D544D43  # 'CMTM'
_FMT = struct.Struct("<QIBBBB5II4Q5H5BBBB")
assert _FMT.size == 90
_IM2COL = struct.Struct("<HH3h3h")  # at byte 90: channels, pixels, lower corner, upper corner

# CUtensorMapDataType -> (element bytes, PTX type name for reductions, takes the NaN fill)
DTYPES: dict[int, tuple[int, str | None, bool]] = {
    0: (1, None, False), 1: (2, None, False), 2: (4, "u32", False), 3: (4, "s32", False),
    4: (8, "u64", False), 5: (8, "s64", False), 6: (2, "f16", True), 7: (4, "f32", True),
    8: (8, "f64", True), 9: (2, "bf16", True), 10: (4, "f32", True), 11: (4, None, True), 12: (4, None, True),
}
# cp.reduce.async.bulk.tensor: the map data types (code -> PTX type) each reduction is defined for.
# add/min/max on every integer and float type CuMetal can reduce, the bitwise reductions on integers,
# inc/dec (atom.inc/dec's wrapping counters) on unsigned integers; any other pairing has no meaning:
# an illegal-instruction fault, on every backend.
_ARITH = {c: t for c, (_, t, _) in DTYPES.items() if t is not None}
_INTS = {c: t for c, t in _ARITH.items() if t[0] in "us"}
_UINTS = {c: t for c, t in _ARITH.items() if t[0] == "u"}
REDUCE_DTYPES: dict[str, dict[int, str]] = {
    "add": _ARITH, "min": _ARITH, "max": _ARITH, "inc": _UINTS, "dec": _UINTS, "and": _INTS, "or": _INTS, "xor": _INTS,
}
NAN_FILL = 0x7FF7  # measured on an H100: every 16 bits of an element filled 'NaN request zero FMA' (f16..f64)
SWIZZLE_BYTES = {0: 0, 1: 32, 2: 64, 3: 128}


@dataclass(frozen=True)
class TensorMap:
    address: int
    rank: int
    dtype: int
    interleave: int
    swizzle: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]  # bytes, dims 1..rank-1
    box: tuple[int, ...]
    estrides: tuple[int, ...]
    l2promo: int = 0
    oobfill: int = 0
    mode: int = 0
    # im2col (mode 1): channels and pixels of one copy, the pixel box corners (spatial dims, W first)
    channels: int = 0
    pixels: int = 0
    lower: tuple[int, ...] = ()
    upper: tuple[int, ...] = ()

    def pack(self) -> bytes:
        pad = lambda t, n: tuple(t) + (0,) * (n - len(t))  # noqa: E731
        raw = _FMT.pack(self.address, MAGIC, self.rank, self.dtype, self.interleave, self.swizzle,
                        *pad([d - 1 for d in self.dims], 5), 0, *pad(self.strides, 4), *pad(self.box, 5),
                        *pad(self.estrides, 5), self.l2promo, self.oobfill, self.mode)
        raw += _IM2COL.pack(self.channels, self.pixels, *pad(self.lower, 3), *pad(self.upper, 3))
        return raw + bytes(128 - len(raw))

    @staticmethod
    def unpack(raw: bytes) -> TensorMap | None:
        f = _FMT.unpack(raw[:_FMT.size])
        if f[1] != MAGIC or not 1 <= f[2] <= 5:
            return None
        r = f[2]
        ch, px, *corners = _IM2COL.unpack(raw[_FMT.size:_FMT.size + _IM2COL.size])
        spatial = max(r - 2, 0)
        return TensorMap(f[0], r, f[3], f[4], f[5], tuple(d + 1 for d in f[6:6 + r]), tuple(f[12:12 + r - 1]),
                         tuple(f[16:16 + r]), tuple(f[21:21 + r]), f[26], f[27], f[28], ch, px,
                         tuple(corners[:spatial]), tuple(corners[3:3 + spatial]))


def reduce_start_ok(coords: list[int], esize: int) -> bool:
    """Whether an H100 runs a tensor reduction box starting at ``coords``: every coordinate >= 0 and
    the dimension-0 start a multiple of 16 bytes (measured, sweep cases tred_*: any other start is a
    sticky CUDA_ERROR_ILLEGAL_INSTRUCTION, while a box reaching past the upper bounds is fine)."""
    return all(c >= 0 for c in coords) and coords[0] * esize % 16 == 0
