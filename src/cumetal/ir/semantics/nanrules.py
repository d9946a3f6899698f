"""NaN results as NVIDIA hardware produces them where they are not simply the canonical NaN.

Measured on H200 by the PTX sweep (tests/ptx_sweep/golden; summary in the lead's sweep findings):
- f64 arithmetic (fneg/fabs included, which leave a NaN's sign alone) propagates a NaN operand,
  quieted (bit 51 set), sign and payload kept, choosing
  among NaN operands by a per-op priority (add/sub/mul/min/max: b then a; div: a then b;
  fma(a, b, c): b, c, a); a NaN made from non-NaN operands is 0xFFF8000000000000.
- Float conversions: f64->f32 / f64->f16 give the quiet NaN with the operand's sign;
  f32->f64 and f16->f64 keep the payload (shifted) and quiet it; bf16->f32 widens the bits
  exactly; every other conversion gives the canonical NaN.
- Float->int of NaN: 0 from f32/f16/bf16 into <= 32 bits; 1 << (bits - 1) from f64 or into 64 bits.
"""

from __future__ import annotations

import numpy as np

QUIET64 = np.uint64(1 << 51)
DEFAULT_NAN64 = np.uint64(0xFFF8000000000000)

PRIORITY = {"fadd": (1, 0), "fsub": (1, 0), "fmul": (1, 0), "fmin": (1, 0), "fmax": (1, 0),
            "fdiv": (0, 1), "fma": (1, 2, 0), "fsqrt": (0,), "frint": (0,), "fapprox": (0, 1),
            "fneg": (0,), "fabs": (0,)}
"""Operand indices in the order hardware prefers them when several are NaN."""


def isnan64(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits) & np.uint64(0x7FFFFFFFFFFFFFFF)) > np.uint64(0x7FF0000000000000)


def f64_result(op: str, out: np.ndarray, args: list) -> np.ndarray:
    """Replace the NaN lanes of an f64 result (bits) by the hardware's NaN for ``op``."""
    bad = isnan64(out)
    if not bad.any():
        return out
    res = np.where(bad, DEFAULT_NAN64, out)
    for i in reversed(PRIORITY.get(op, (0,))):
        if i < len(args):
            a = np.asarray(args[i], dtype=np.uint64)
            res = np.where(bad & isnan64(a), a | QUIET64, res)
    return res


def convert_nan(a: np.ndarray, src: str, dst: str) -> np.ndarray | None:
    """NaN bits of a float conversion for every lane (only meaningful where ``a`` is NaN), or None
    when the destination's canonical NaN applies."""
    a = np.asarray(a)
    if src == "f64" and dst in ("f32", "f16"):
        # sign kept, the payload's top bits kept (truncated), quieted (H100: cvt.*.f32.f64, .f16.f64)
        sign = (a >> np.uint64(63)).astype(np.uint32)
        if dst == "f32":
            top = ((a >> np.uint64(29)) & np.uint64(0x7FFFFF)).astype(np.uint32)
            return (np.uint32(0x7FC00000) | top | (sign << np.uint32(31))).astype(np.uint32)
        top16 = ((a >> np.uint64(42)) & np.uint64(0x3FF)).astype(np.uint16)
        return (np.uint16(0x7E00) | top16 | (sign.astype(np.uint16) << np.uint16(15))).astype(np.uint16)
    if dst == "f64" and src in ("f32", "f16", "bf16"):
        if src == "f32":
            b, man_bits, width = a.astype(np.uint64), 23, 32
        elif src == "f16":
            b, man_bits, width = a.astype(np.uint64), 10, 16
        else:
            b, man_bits, width = a.astype(np.uint64) << np.uint64(16), 23, 32
        sign = (b >> np.uint64(width - 1)) & np.uint64(1)
        man = b & np.uint64((1 << man_bits) - 1)
        return ((sign << np.uint64(63)) | np.uint64(0x7FF0000000000000) | (man << np.uint64(52 - man_bits))
                | QUIET64)
    if src == "bf16" and dst == "f32":
        return a.astype(np.uint32) << np.uint32(16)
    return None


def f2i_nan(src: str, dst_bits: int) -> int:
    return 1 << (dst_bits - 1) if (src == "f64" or dst_bits == 64) else 0
