"""fp8 conversions (PTX ISA, cvt with .e4m3x2/.e5m2x2, sm_89+): f32 pairs and f16x2 to fp8x2 with
.satfinite and .relu, and fp8x2 back to f16x2 (.relu).

Inputs are exhaustive where that is feasible: every f16 value (each one in the low and in the high
half of an f16x2), every 16-bit fp8x2 pattern; for the f32 sources every f16 value widened, plus the
f32 values on and either side of every rounding boundary of both fp8 formats (midpoints between
neighbours, the overflow threshold), the edge values and random bit patterns.
"""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Case
from ..ptxgen import elementwise

FAM = "fp8"
FORMATS = {"e4m3": (4, 3), "e5m2": (5, 2)}  # exponent bits, mantissa bits
TARGET = "sm_90"  # ptxas: sm_89 needs PTX 8.1 for these, sm_90 takes 7.8+


def fp8_values(fmt: str) -> np.ndarray:
    """The finite non-negative values of fmt, ascending (exact, as float64)."""
    e_bits, m_bits = FORMATS[fmt]
    bias = (1 << (e_bits - 1)) - 1
    vals = []
    for e in range(1 << e_bits):
        for m in range(1 << m_bits):
            if fmt == "e4m3" and e == 15 and m == 7:  # S.1111.111 is NaN; e4m3 has no infinity
                continue
            if fmt == "e5m2" and e == 31:  # infinities and NaNs
                continue
            vals.append(np.ldexp(m, 1 - bias - m_bits) if e == 0 else np.ldexp((1 << m_bits) + m, e - bias - m_bits))
    return np.array(vals, dtype=np.float64)


def _boundaries_f32() -> np.ndarray:
    """f32 bit patterns of every rounding boundary of both formats and their f32 neighbours."""
    pts = []
    for fmt in FORMATS:
        v = fp8_values(fmt)
        mids = (v[:-1] + v[1:]) / 2
        top = v[-1] + (v[-1] - v[-2]) / 2  # where rounding would leave the finite range
        pts.append(np.concatenate([v, mids, [top, 2 * v[-1], 1e6]]))
    mag = np.concatenate(pts).astype(np.float32)
    bits = mag.view(np.uint32)
    near = np.concatenate([bits, bits + 1, bits - 1, np.array([1], np.uint32)])  # bits - 1 of 0 wraps: dropped
    near = near[(near & 0x7FFFFFFF) <= 0x7F7FFFFF]
    return np.concatenate([near, near | np.uint32(0x80000000)])


def _f32_inputs() -> tuple[np.ndarray, np.ndarray]:
    f16 = np.arange(1 << 16, dtype=np.uint16)
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten when widened; NaN payloads come below
        widened = f16.view(np.float16).astype(np.float32).view(np.uint32)
    nan_like = np.array([0x7F800001, 0xFF800001, 0x7FC00000, 0xFFC00000, 0x7FFFFFFF, 0x7FA12345, 0xFFC54321],
                        np.uint32)
    a = np.concatenate([widened, _boundaries_f32(), V.edges("f32"), nan_like, V.random_bits("f32", 4096, 880),
                        V.random_floats("f32", 4096, -600, 600, 881)])
    b = np.roll(a[::-1], 7919)  # every value also meets others in the low byte
    return a, b


def _f16x2_inputs() -> np.ndarray:
    lo = np.arange(1 << 16, dtype=np.uint32)
    hi = (lo * np.uint32(40503) + np.uint32(12345)) & np.uint32(0xFFFF)  # a permutation (odd multiplier)
    return (hi << np.uint32(16)) | lo


def cases() -> list[Case]:
    out: list[Case] = []
    a, b = _f32_inputs()
    x2 = _f16x2_inputs()
    fp8x2 = np.arange(1 << 16, dtype=np.uint16)
    for fmt in FORMATS:
        for relu in ("", ".relu"):
            tag = relu.replace(".", "_")
            instr = f"cvt.rn.satfinite{relu}.{fmt}x2.f32"
            out.append(elementwise(f"cvt_rn_satfinite{tag}_{fmt}x2_f32", FAM, f"    {instr} %d, %a, %b;",
                                   [("a", "f32", a), ("b", "f32", b)], [("d", "b16")], target=TARGET,
                                   note="d = {hi: cvt(a), lo: cvt(b)}"))
            instr = f"cvt.rn.satfinite{relu}.{fmt}x2.f16x2"
            out.append(elementwise(f"cvt_rn_satfinite{tag}_{fmt}x2_f16x2", FAM, f"    {instr} %d, %a;",
                                   [("a", "b32", x2)], [("d", "b16")], target=TARGET))
            instr = f"cvt.rn{relu}.f16x2.{fmt}x2"
            out.append(elementwise(f"cvt_rn{tag}_f16x2_{fmt}x2", FAM, f"    {instr} %d, %a;",
                                   [("a", "b16", fp8x2)], [("d", "b32")], target=TARGET))
    return out
