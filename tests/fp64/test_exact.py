"""What the fp64 emulation does exactly: compares, min/max, neg/abs, conversions to and from every
other type in every rounding mode, round-to-integral, ftz/fsat, and arithmetic whose result fits
the float-float pair (integers, powers of two, zeros, infinities and NaNs, with NVIDIA's NaN rules):
the emulated result (legalized IR, cpu engine) has the bits of native binary64 (the IR's definition
on the cpu engine)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.fp64.ir_kernels import emulated_on_reference, kernel, reference

N = 512
RNG = np.random.default_rng(11)
MODES = ("rn", "rz", "rm", "rp")
SPECIAL = np.array([0, 1 << 63, 1, (1 << 63) + 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x3FF0000000000000,
                    0xBFF0000000000000, 0x3FE0000000000000, 0x3FF8000000000000, 0x4004000000000000,
                    0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000,
                    0x7FF8000000000000, 0xFFF8000000000001, 0x7FF0000000000001, 0x7FF4000000000123,
                    0x4330000000000000, 0x4330000000000001, 0x43E0000000000000, 0xC3E0000000000000,
                    0x41E0000000000000, 0xC1E0000000000000, 0x41EFFFFFFFE00000, 0x3CA0000000000000,
                    0x47EFFFFFE0000000, 0x47EFFFFFF0000000, 0x380FFFFFC0000000, 0x36A0000000000000,
                    0x3F1FFC0000000000, 0x40F0000000000000], dtype=np.uint64)


def f64_operands(n: int = N) -> np.ndarray:
    """Special values, then random bit patterns, then moderate random values (every exponent)."""
    rand = RNG.integers(0, 1 << 64, size=n, dtype=np.uint64)
    rand[n // 3: 2 * n // 3] = (RNG.standard_normal(n - n // 3 - n // 3) * 1e3).view(np.uint64) if False else \
        np.ldexp(RNG.standard_normal(2 * n // 3 - n // 3), RNG.integers(-60, 60, 2 * n // 3 - n // 3)).view(np.uint64)
    out = np.concatenate([SPECIAL, rand])[:n]
    return out


def exact_operands(n: int = N) -> np.ndarray:
    """Values whose sums, products and the quotients below fit 48 bits: small integers, powers of two
    (from 2^-1074 to 2^1023), zeros, infinities, NaNs."""
    ints = RNG.integers(-2000, 2000, size=n // 2).astype(np.float64)
    pows = np.ldexp(RNG.choice([-1.0, 1.0], size=n // 4), RNG.integers(-1074, 1024, size=n // 4))
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0 ** -1074, 2.0 ** 1023])
    vals = np.concatenate([ints, pows, specials]).view(np.uint64).copy()
    vals[-5] = 0xFFF4000000000ABC  # a signalling NaN with a payload: NVIDIA quiets it, keeping the payload
    RNG.shuffle(vals)
    return np.resize(vals, n)


def same_bits(module, inputs, dst_bytes):
    want = reference(module, inputs, dst_bytes)
    got = emulated_on_reference(module, inputs, dst_bytes)
    bad = np.flatnonzero(want != got)
    assert bad.size == 0, (f"{bad.size} of {len(want)} differ; first: operands "
                           + ", ".join(f"0x{int(x[bad[0]]):x}" for x in inputs)
                           + f" -> native 0x{int(want[bad[0]]):x}, emulated 0x{int(got[bad[0]]):x}")


def _pairs():
    a = f64_operands()
    b = np.roll(a, 7)
    b[::5] = a[::5]  # equal operands too
    return [a, b]


@pytest.mark.parametrize("cond", ["oeq", "one", "olt", "ole", "ogt", "oge", "ord", "uno", "ueq", "une", "ult",
                                  "ule", "ugt", "uge"])
def test_compares(cond):
    same_bits(kernel("fcmp", "i1", ("f64", "f64"), {"cond": cond}), _pairs(), 1)


@pytest.mark.parametrize(("op", "attrs"), [("fmin", {"nan": "num"}), ("fmax", {"nan": "num"}),
                                           ("fmin", {"nan": "propagate"}), ("fmax", {"nan": "propagate"})])
def test_min_max(op, attrs):
    same_bits(kernel(op, "f64", ("f64", "f64"), attrs), _pairs(), 8)


@pytest.mark.parametrize("op", ["fneg", "fabs", "ftz", "fsat"])
def test_sign_and_clamps(op):
    same_bits(kernel(op, "f64", ("f64",), {}), [f64_operands()], 8)


@pytest.mark.parametrize("rnd", MODES)
@pytest.mark.parametrize("dst", ["f32", "f16", "bf16"])
def test_narrowing_conversions(dst, rnd):
    same_bits(kernel("fcvt", dst, ("f64",), {"rnd": rnd}), [f64_operands()], 2 if dst != "f32" else 4)


@pytest.mark.parametrize("src", ["f32", "f16", "bf16"])
def test_widening_conversions(src):
    width = 4 if src == "f32" else 2
    bits = RNG.integers(0, 1 << (8 * width), size=N, dtype=np.uint64).astype(f"u{width}")
    same_bits(kernel("fcvt", "f64", (src,), {"rnd": "rn"}), [bits], 8)


@pytest.mark.parametrize("rnd", MODES)
@pytest.mark.parametrize(("dst", "signed"), [("i32", True), ("i32", False), ("i64", True), ("i64", False),
                                             ("i16", True)])
def test_float_to_int(dst, signed, rnd):
    same_bits(kernel("f2i", dst, ("f64",), {"signed": signed, "rnd": rnd}), [f64_operands()], int(dst[1:]) // 8)


@pytest.mark.parametrize("rnd", MODES)
@pytest.mark.parametrize(("src", "signed"), [("i32", True), ("i32", False), ("i64", True), ("i64", False)])
def test_int_to_float(src, signed, rnd):
    width = int(src[1:]) // 8
    vals = RNG.integers(0, 1 << (8 * width), size=N, dtype=np.uint64).astype(f"u{width}")
    vals[: N // 4] >>= RNG.integers(0, 8 * width, N // 4).astype(f"u{width}")  # every magnitude
    same_bits(kernel("i2f", "f64", (src,), {"signed": signed, "rnd": rnd}), [vals], 8)


@pytest.mark.parametrize("rnd", MODES)
def test_round_to_integral(rnd):
    a = f64_operands()
    a[-N // 4:] = (RNG.uniform(-40, 40, N // 4) * 2.0 ** RNG.integers(-3, 3, N // 4)).view(np.uint64)
    a[-8:] = np.array([0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, 4503599627370495.5, -0.0]).view(np.uint64)
    same_bits(kernel("frint", "f64", ("f64",), {"rnd": rnd}), [a], 8)


@pytest.mark.parametrize("rnd", MODES)
@pytest.mark.parametrize(("op", "n"), [("fadd", 2), ("fsub", 2), ("fmul", 2), ("fma", 3)])
def test_arithmetic_with_representable_results(op, n, rnd):
    args = [exact_operands() for _ in range(n)]
    if op == "fma":  # keep the product and the sum within 48 bits: integers times powers of two
        args[0] = np.where(np.abs(args[0].view(np.float64)) < 1e4, args[0], np.float64(3.0).view(np.uint64))
    same_bits(kernel(op, "f64", ("f64",) * n, {"rnd": rnd}), args, 8)


@pytest.mark.parametrize("rnd", MODES)
def test_division_and_sqrt_exact_cases(rnd):
    a = exact_operands()
    b = np.ldexp(1.0, RNG.integers(-40, 40, N)).view(np.uint64)  # powers of two: exact quotients
    b[::9] = a[::9]  # x/x, 0/0, inf/inf, NaN/NaN
    same_bits(kernel("fdiv", "f64", ("f64", "f64"), {"rnd": rnd}), [a, b], 8)
    squares = (RNG.integers(0, 3000, N).astype(np.float64) ** 2 * np.ldexp(1.0, 2 * RNG.integers(-500, 500, N)))
    squares[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, -4.0]
    same_bits(kernel("fsqrt", "f64", ("f64",), {"rnd": rnd}), [squares.view(np.uint64)], 8)
