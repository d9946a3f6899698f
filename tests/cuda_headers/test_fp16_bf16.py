"""cuda_fp16.h and cuda_bf16.h on the device (CPU backend) and on the host (a shared library built
from the same .cu with --cuda-host-only), against numpy float16 and exact rational rounding; bf16
against exact integer rounding of float32 bits."""

from __future__ import annotations

import ctypes
import math
import platform
import subprocess
from fractions import Fraction

import numpy as np
import pytest
from cuda_headers_harness import I32, KERNELS
from exact_rounding import MODES, round_float, round_int

from cumetal.cudacxx import include_dir
from cumetal.cudacxx.toolchain import find_clang

NCONV16, NCONVI, NARITH = 48, 52, 64
M64 = (1 << 64) - 1


class Fmt:
    def __init__(self, name: str, p: int, bias: int) -> None:
        self.name, self.p, self.emin, self.emax = name, p, 1 - bias, bias
        self.exp_bits = 15 - (p - 1)
        self.inf = ((1 << self.exp_bits) - 1) << (p - 1)
        self.one = bias << (p - 1)

    def value(self, bits: int) -> float:
        if self.name == "half":
            return float(np.array(bits, np.uint16).view(np.float16))
        return float(np.array(bits << 16, np.uint32).view(np.float32))

    def is_nan(self, bits: int) -> bool:
        return (bits & 0x7FFF) > self.inf

    def bits_of(self, v, negative: bool) -> int:
        """Bits of an exactly representable value; negative picks -0."""
        sign = 0x8000 if (v < 0 or (v == 0 and negative)) else 0
        if isinstance(v, float) and math.isinf(v):
            return sign | self.inf
        a = abs(Fraction(v))
        if a == 0:
            return sign
        if a < Fraction(2) ** self.emin:
            return sign | int(a * Fraction(2) ** (self.p - 1 - self.emin))
        e = math.floor(math.log2(a))
        while Fraction(2) ** e > a:
            e -= 1
        while Fraction(2) ** (e + 1) <= a:
            e += 1
        return sign | ((e + self.emax) << (self.p - 1)) | int((a / Fraction(2) ** e - 1) * (1 << (self.p - 1)))

    def round(self, exact: Fraction, mode: str = "rn", negative: bool = False) -> int:
        return self.bits_of(round_float(exact, mode, self.p, self.emin, self.emax), negative)

    def from_float(self, x: float, mode: str = "rn") -> int:
        if math.isnan(x):
            return 0x7FFF
        if math.isinf(x):
            return (0x8000 if x < 0 else 0) | self.inf
        return self.round(Fraction(x), mode, math.copysign(1, x) < 0)


HALF, BF16 = Fmt("half", 11, 15), Fmt("bf16", 8, 127)


def bf16_from_f32_bits(u: int, mode: str) -> int:
    """bf16 rounding by integer arithmetic on float32 bits (the reference the brief asks for)."""
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return 0x7FFF
    hi, lo, neg = u >> 16, u & 0xFFFF, u >> 31
    if mode == "rn":
        return (u + 0x7FFF + (hi & 1)) >> 16
    if mode == "rz" or lo == 0:
        return hi
    up = (mode == "ru") != bool(neg)
    return hi + 1 if up else hi


# -------------------------------------------------------------------------------- host library
@pytest.fixture(scope="module")
def host_lib(tmp_path_factory):
    system, machine = platform.system(), platform.machine()
    targets = {("Linux", "x86_64"): "x86_64-linux-gnu", ("Linux", "aarch64"): "aarch64-linux-gnu",
               ("Darwin", "arm64"): "aarch64-macos"}
    if (system, machine) not in targets:
        pytest.skip(f"no host build recipe for {system}/{machine}")
    clang = find_clang()
    out = tmp_path_factory.mktemp("fp16host")
    obj, lib = out / "halfs.o", out / "libhalfs.so"
    target = ["-target", targets[(system, machine)]] if clang.argv_prefix[-1] == "clang" else []
    subprocess.run(clang.command(["-x", "cuda", "-nocudainc", "-nocudalib", "-Xclang", "-target-sdk-version=12.0",
                                  "--cuda-host-only", "-DHOST_LIBRARY", "-Wno-unknown-cuda-version", *target, "-O1", "-fPIC", "-c",
                                  "-I", str(include_dir()), "-include", "cuda_runtime.h",
                                  str(KERNELS / "halfs.cu"), "-o", str(obj)]), check=True, capture_output=True)
    linker = [*clang.argv_prefix[:-1], "cc"] if clang.argv_prefix[-1] == "clang" else list(clang.argv_prefix)
    subprocess.run([*linker, "-shared", *target, str(obj), "-o", str(lib)], check=True, capture_output=True)
    return ctypes.CDLL(str(lib))


@pytest.fixture(scope="module")
def g(gpu):
    gpu.load("halfs.cu")
    return gpu


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.c_void_p)


# --------------------------------------------------------------------------------- conversions
def _conversion_inputs():
    rng = np.random.default_rng(11)
    special = np.array([0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99, 65520.0, -65520.0, 1e5, 6.1035156e-05, 5.9604645e-08,
                        2.9802322e-08, 2.9802326e-08, -2.98e-08, 1e-9, np.inf, -np.inf, np.nan, 3.0e38, 3.4028235e38,
                        1.0009765625, 1.00048828125, 1.0014648437, 9.1835e-41, -1.2e-39, 0.333333, 2049.0, 2051.0],
                       np.float32)
    n = 600
    f = np.concatenate([special, (rng.standard_normal(n // 2) * 10.0 ** rng.integers(-9, 6, n // 2)).astype(np.float32),
                        rng.integers(0, 2**32, n - n // 2 - special.size, dtype=np.uint64).astype(np.uint32)
                        .view(np.float32)])
    d = f.astype(np.float64) * (1 + rng.standard_normal(n) * 1e-9)
    v = np.concatenate([np.array([0, 1, -1, 2049, 2051, -2051, 65519, 65520, 65535, 4097, 2**24 + 1, -(2**40) - 3,
                                  2**63 - 1, -(2**63), 0x7C01, 0xFC00, 0x7F81, 0xFF80, 0x8000, 0x3555], np.int64),
                        rng.integers(-(2**63), 2**63 - 1, n - 20, dtype=np.int64) >> rng.integers(0, 63, n - 20)])
    return f, d, v


def _check_conversions(f, d, v, o16, oi, where: str) -> None:
    n = f.size
    for i in range(n):
        x, y, s = float(f[i]), float(d[i]), int(v[i])
        o = [int(t) for t in o16[i]]
        u = int(f[i:i + 1].view(np.uint32)[0])
        for m, mode in enumerate(MODES):
            assert o[m] == HALF.from_float(x, mode), (where, "f2h", mode, x, hex(o[m]))
            assert o[5 + m] == bf16_from_f32_bits(u, mode), (where, "f2bf", mode, x, hex(o[5 + m]))
        if math.isnan(y):  # f64 -> f16 keeps the sign and the payload's top bits, quieted (NVIDIA cvt)
            u64 = int(d[i:i + 1].view(np.uint64)[0])
            assert o[4] == ((u64 >> 48) & 0x8000) | 0x7E00 | ((u64 >> 42) & 0x3FF), (where, "d2h NaN")
        else:
            assert o[4] == HALF.from_float(y), (where, "d2h", y)
        if math.isnan(y):  # f64 -> bf16 keeps the sign and the payload's top bits, quieted (NVIDIA goldens)
            u64 = int(d[i:i + 1].view(np.uint64)[0])
            assert o[9] == ((u64 >> 48) & 0x8000) | 0x7FC0 | ((u64 >> 45) & 0x7F), (where, "d2bf NaN")
        else:
            assert o[9] == BF16.from_float(y), (where, "d2bf", y)
        if not math.isnan(x):
            with np.errstate(over="ignore"):
                assert o[0] == int(np.array(x, np.float32).astype(np.float16).view(np.uint16)), "numpy float16"
        s32, u32, s16, u16 = (s + 2**31) % 2**32 - 2**31, s % 2**32, (s + 2**15) % 2**16 - 2**15, s % 2**16
        for m, mode in enumerate(MODES):
            for base, src, fmt in ((10, s, HALF), (14, s32, HALF), (18, u32, HALF), (22, s16, HALF),
                                   (26, s, BF16), (30, s32, BF16), (34, s % 2**64, HALF), (38, u16, HALF)):
                assert o[base + m] == fmt.round(Fraction(src), mode), (where, base, mode, src)
        assert o[42] == o[0] and o[43] == o[5] and o[44] == o[14]
        assert o[45] == HALF.from_float(-x) and o[46] == bf16_from_f32_bits(u ^ 0x80000000, "rn")
        assert o[47] == (0x7FFF if math.isnan(x) else BF16.from_float(HALF.value(o[0])))

        p = [int(t) for t in oi[i]]
        bits = s & 0xFFFF
        for fmt, base in ((HALF, 0), (BF16, 24)):
            val = fmt.value(bits)
            kinds = [(-(2**31), 2**31 - 1, 32), (0, 2**32 - 1, 32), (-(2**15), 2**15 - 1, 16), (0, 2**16 - 1, 16),
                     (-(2**63), 2**63 - 1, 64), (0, 2**64 - 1, 64)]
            if fmt is BF16:
                kinds = [kinds[0], kinds[1], kinds[2], kinds[4]]
            for k, (lo, hi, width) in enumerate(kinds):
                for m, mode in enumerate(MODES):
                    if math.isnan(val):
                        want = (1 << 63) if width == 64 else 0
                    elif math.isinf(val):
                        want = hi if val > 0 else lo
                    else:
                        want = min(max(round_int(Fraction(val), mode), lo), hi)
                    assert p[base + 4 * k + m] & M64 == want & M64, (where, fmt.name, k, mode, hex(bits))
        hv, bv = HALF.value(bits), BF16.value(bits)
        if not math.isnan(hv):
            assert p[40] == int(np.array(hv, np.float32).view(np.uint32))
        else:
            assert (p[40] & 0x7FFFFFFF) > 0x7F800000
        assert p[41] == bits << 16

        def rz(val: float, lo: int, hi: int, width: int = 32) -> int:
            if math.isnan(val):
                return (1 << 63) if width == 64 else 0
            return hi if val >= hi else lo if val <= lo else math.trunc(val)

        assert p[42:48] == [rz(hv, -128, 127), rz(hv, 0, 255), rz(bv, -128, 127), rz(bv, 0, 255),
                            rz(hv, -(2**31), 2**31 - 1), rz(bv, -(2**63), 2**63 - 1, 64) - (2**64 if math.isnan(bv) else 0)]
        assert p[48] == int((bits & 0x7FFF) != 0) * 3
        assert p[49] == p[40]
        assert p[51] == bits | (bits << 16)


def test_conversions_device(g):
    f, d, v = _conversion_inputs()
    n = f.size
    dev = [g.to_device(x) for x in (f, d, v)]
    d16, di = g.to_device(np.zeros(n * NCONV16, np.uint16)), g.to_device(np.zeros(n * NCONVI, np.int64))
    g.run("convert_kernel", (5,), (128,), [*((x, None) for x in dev), (d16, None), (di, None), (n, I32)])
    o16 = g.from_device(d16, np.zeros(n * NCONV16, np.uint16)).reshape(n, NCONV16)
    oi = g.from_device(di, np.zeros(n * NCONVI, np.int64)).reshape(n, NCONVI)
    _check_conversions(f, d, v, o16, oi, "device")


def test_conversions_host(host_lib):
    f, d, v = _conversion_inputs()
    n = f.size
    o16, oi = np.zeros((n, NCONV16), np.uint16), np.zeros((n, NCONVI), np.int64)
    host_lib.host_convert(_ptr(f), _ptr(d), _ptr(v), _ptr(o16), _ptr(oi), ctypes.c_int(n))
    _check_conversions(f, d, v, o16, oi, "host")


# ---------------------------------------------------------------------------------- arithmetic
def _arith_inputs():
    rng = np.random.default_rng(13)
    n = 700
    specials = [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8001, 0x03FF, 0x7BFF, 0xFBFF,
                0x3800, 0x3555, 0x7F80, 0xFF80, 0x7FC0, 0x3F80, 0x0080, 0x4000]
    a = rng.integers(0, 65536, n, dtype=np.uint16)
    b = rng.integers(0, 65536, n, dtype=np.uint16)
    c = rng.integers(0, 65536, n, dtype=np.uint16)
    # many values near each other and near 1, so that sums and differences exercise rounding
    near = (0x3C00 + rng.integers(-600, 600, n // 2)).astype(np.uint16)
    a[: n // 2], b[n // 4: 3 * n // 4] = near, (0x3E00 + rng.integers(-900, 900, n // 2)).astype(np.uint16)
    for i, sv in enumerate(specials):
        a[i::len(specials) * 3] = sv
        b[(i * 7) % len(specials)::len(specials) * 5] = sv
    return a, b, c


def _exact_binop(fmt: Fmt, op: str, xb: int, yb: int, zb: int = 0) -> int:
    x, y, z = fmt.value(xb), fmt.value(yb), fmt.value(zb)
    with np.errstate(all="ignore"):
        approx = {"add": np.float64(x) + y, "sub": np.float64(x) - y, "mul": np.float64(x) * y,
                  "div": np.float64(x) / np.float64(y), "fma": np.float64(x) * y + z}[op]
    used = (x, y, z) if op == "fma" else (x, y)
    if not all(math.isfinite(t) for t in used) or not math.isfinite(approx) or (op == "div" and y == 0):
        return fmt.from_float(float(approx))
    fx, fy, fz = Fraction(x), Fraction(y), Fraction(z)
    exact = {"add": fx + fy, "sub": fx - fy, "mul": fx * fy, "div": fx / fy if y else None, "fma": fx * fy + fz}[op]
    if exact == 0:
        return fmt.bits_of(0, math.copysign(1, approx) < 0)
    return fmt.round(exact, "rn", exact < 0)


def _sat(fmt: Fmt, r: int) -> int:
    if fmt.is_nan(r):
        return 0
    v = fmt.value(r)
    return 0 if v <= 0 else fmt.one if v > 1 else r  # .sat: NaN and -0 give +0


def _minmax(fmt: Fmt, xb: int, yb: int, want_max: bool, nan_wins: bool) -> int:
    na, nb = fmt.is_nan(xb), fmt.is_nan(yb)
    if na or nb:
        return 0x7FFF if nan_wins or (na and nb) else (yb if na else xb)
    x, y = fmt.value(xb), fmt.value(yb)
    if x == y:
        return (xb if not (xb & 0x8000) else yb) if want_max else (xb if xb & 0x8000 else yb)
    return xb if (x > y) == want_max else yb


def _cmp_bits(fmt: Fmt, xb: int, yb: int) -> int:
    x, y = fmt.value(xb), fmt.value(yb)
    un = math.isnan(x) or math.isnan(y)
    ordered = [x == y, x != y and not un, x <= y, x >= y, x < y, x > y]
    unord = [un or r for r in (x == y, x != y, x <= y, x >= y, x < y, x > y)]
    flags = ordered + unord + [math.isnan(x), math.isinf(x)]
    return sum(int(bool(f)) << k for k, f in enumerate(flags))


def _check_arith(fmt: Fmt, a, b, c, out, where: str) -> None:
    for i in range(a.size):
        x, y, z = int(a[i]), int(b[i]), int(c[i])
        o = [int(t) for t in out[i]]
        add, sub, mul = (_exact_binop(fmt, k, x, y) for k in ("add", "sub", "mul"))
        div, fma = _exact_binop(fmt, "div", x, y), _exact_binop(fmt, "fma", x, y, z)
        ctx = (where, fmt.name, hex(x), hex(y), hex(z))
        assert o[0:5] == [add, sub, mul, div, fma], (*ctx, [hex(t) for t in o[0:5]], hex(add), hex(sub), hex(mul),
                                                      hex(div), hex(fma))
        assert o[5:9] == [_sat(fmt, add), _sat(fmt, sub), _sat(fmt, mul), _sat(fmt, fma)], ctx
        relu = 0x7FFF if fmt.is_nan(fma) else (0 if fma & 0x8000 else fma)
        assert o[9] == relu, ctx
        def neg(t: int) -> int:  # neg/abs of a NaN give the canonical NaN (NVIDIA goldens)
            return 0x7FFF if fmt.is_nan(t) else t ^ 0x8000

        def absv(t: int) -> int:
            return 0x7FFF if fmt.is_nan(t) else t & 0x7FFF

        assert o[10] == neg(x) and o[11] == absv(x)
        assert o[12:16] == [_minmax(fmt, x, y, True, False), _minmax(fmt, x, y, False, False),
                            _minmax(fmt, x, y, True, True), _minmax(fmt, x, y, False, True)], ctx
        assert o[16:24] == [add, sub, mul, add, sub, mul, div, neg(x)], ctx
        assert o[24] == _exact_binop(fmt, "mul", add, z), ctx
        assert o[25] == _exact_binop(fmt, "add", x, fmt.one), ctx
        assert o[26] == _cmp_bits(fmt, x, y), ctx
        cb = _cmp_bits(fmt, x, y)
        assert o[27] == (cb & 1) | ((cb >> 7) & 1) << 1 | ((cb >> 4) & 1) << 2 | ((cb >> 5) & 1) << 3 | \
            ((cb >> 2) & 1) << 4 | ((cb >> 3) & 1) << 5, ctx
        # pair operations equal the scalar ones lane by lane: lanes (x, y) op (y, z), third operand (z, x)
        assert o[28:30] == [add, _exact_binop(fmt, "add", y, z)], ctx
        assert o[30:32] == [sub, _exact_binop(fmt, "sub", y, z)], ctx
        assert o[32:34] == [mul, _exact_binop(fmt, "mul", y, z)], ctx
        assert o[34:36] == [div, _exact_binop(fmt, "div", y, z)], ctx
        assert o[36:38] == [fma, _exact_binop(fmt, "fma", y, z, x)], ctx
        assert o[38:40] == [_sat(fmt, add), _sat(fmt, _exact_binop(fmt, "add", y, z))], ctx
        assert o[40:42] == [_minmax(fmt, x, y, True, False), _minmax(fmt, y, z, True, False)], ctx
        assert o[42:44] == [_minmax(fmt, x, y, False, True), _minmax(fmt, y, z, False, True)], ctx
        fma2 = _exact_binop(fmt, "fma", y, z, x)
        assert o[44:46] == [relu, 0x7FFF if fmt.is_nan(fma2) else (0 if fma2 & 0x8000 else fma2)], ctx
        assert o[46:50] == [neg(x), neg(y), absv(y), absv(z)], ctx
        assert o[50:52] == [_exact_binop(fmt, "add", x, _exact_binop(fmt, "mul", y, z)),
                            _exact_binop(fmt, "add", y, _exact_binop(fmt, "mul", z, x))], ctx
        cyz = _cmp_bits(fmt, y, z)
        assert o[52:54] == [fmt.one * (cb & 1), fmt.one * (cyz & 1)], ctx
        assert o[54:56] == [fmt.one * ((cb >> 10) & 1), fmt.one * ((cyz >> 10) & 1)], ctx
        assert o[56:58] == [0xFFFF * ((cb >> 2) & 1), 0xFFFF * ((cyz >> 2) & 1)], ctx
        assert o[58] == ((cb & cyz & 1) | ((cb >> 2) & (cyz >> 2) & 1) << 1 | ((cb >> 11) & (cyz >> 11) & 1) << 2 |
                         ((cb >> 1) & (cyz >> 1) & 1) << 3), ctx
        assert o[59:61] == [y, x]
        assert o[61:63] == [_sat(fmt, sub), _sat(fmt, _exact_binop(fmt, "sub", y, z))], ctx
        assert o[63] == _sat(fmt, _exact_binop(fmt, "mul", z, z)), ctx


def test_arithmetic_device(g):
    a, b, c = _arith_inputs()
    n = a.size
    dev = [g.to_device(x) for x in (a, b, c)]
    dh, db = g.to_device(np.zeros(n * NARITH, np.uint16)), g.to_device(np.zeros(n * NARITH, np.uint16))
    g.run("arith_kernel", (6,), (128,), [*((x, None) for x in dev), (dh, None), (db, None), (n, I32)])
    oh = g.from_device(dh, np.zeros(n * NARITH, np.uint16)).reshape(n, NARITH)
    ob = g.from_device(db, np.zeros(n * NARITH, np.uint16)).reshape(n, NARITH)
    _check_arith(HALF, a, b, c, oh, "device")
    _check_arith(BF16, a, b, c, ob, "device")


def test_arithmetic_host(host_lib):
    a, b, c = _arith_inputs()
    n = a.size
    oh, ob = np.zeros((n, NARITH), np.uint16), np.zeros((n, NARITH), np.uint16)
    host_lib.host_arith(_ptr(a), _ptr(b), _ptr(c), _ptr(oh), _ptr(ob), ctypes.c_int(n))
    _check_arith(HALF, a, b, c, oh, "host")
    _check_arith(BF16, a, b, c, ob, "host")


# --------------------------------------------------------------------------------- math (device)
MATH = [("sqrt", np.sqrt, 0), ("rsqrt", lambda x: 1 / np.sqrt(x), 1), ("rcp", lambda x: 1 / x, 0),
        ("exp", np.exp, 1), ("exp2", np.exp2, 1), ("exp10", lambda x: 10.0 ** x, 1), ("log", np.log, 1),
        ("log2", np.log2, 1), ("log10", np.log10, 1), ("sin", np.sin, 1), ("cos", np.cos, 1),
        ("trunc", np.trunc, 0), ("ceil", np.ceil, 0), ("floor", np.floor, 0), ("rint", np.rint, 0)]


def _ulp_distance(fmt: Fmt, got: int, want: int) -> int:
    def key(bits: int) -> int:
        return -(bits & 0x7FFF) if bits & 0x8000 else bits

    return abs(key(got) - key(want))


def test_math_device(g):
    rng = np.random.default_rng(17)
    bits = np.concatenate([np.arange(0, 65536, 37, dtype=np.uint16), rng.integers(0, 65536, 300, dtype=np.uint16)])
    n = bits.size
    d_in = g.to_device(bits)
    dh, db = g.to_device(np.zeros(n * 16, np.uint16)), g.to_device(np.zeros(n * 16, np.uint16))
    g.run("math_kernel", (n // 128 + 1,), (128,), [(d_in, None), (dh, None), (db, None), (n, I32)])
    out = {HALF: g.from_device(dh, np.zeros(n * 16, np.uint16)).reshape(n, 16),
           BF16: g.from_device(db, np.zeros(n * 16, np.uint16)).reshape(n, 16)}
    for fmt, o in out.items():
        for i in range(n):
            x = fmt.value(int(bits[i]))
            if fmt is BF16 and abs(x) < 2.0 ** -126 and x != 0:
                continue  # f32 approximations flush bf16 subnormal inputs (as CUDA's do)
            for k, (name, fn, tol) in enumerate(MATH):
                with np.errstate(all="ignore"):
                    want_v = float(fn(np.float64(x)))
                got = int(o[i, k])
                if math.isnan(want_v):
                    assert fmt.is_nan(got), (fmt.name, name, x, hex(got))
                    continue
                want = fmt.from_float(want_v)
                if name in ("sin", "cos") and abs(x) > 100:
                    continue  # the f32 approximations are only accurate for moderate arguments
                limit = tol if abs(want_v) > 2.0 ** fmt.emin else tol + 1
                assert _ulp_distance(fmt, got, want) <= limit, (fmt.name, name, x, hex(got), hex(want))
        assert (o[:, 15] == (o[:, 0] ^ o[:, 3] ^ o[:, 0] ^ o[:, 3] if fmt is HALF else 0)).all()


def test_shuffles_loads_atomics(g):
    vals = np.random.default_rng(19).integers(0, 65536, 64, dtype=np.uint16)
    d_in, d_out = g.to_device(vals), g.to_device(np.zeros(64 * 8, np.uint16))
    acc_h, acc_b, acc_1 = (g.to_device(np.zeros(2, np.uint16)) for _ in range(3))
    g.run("shuffle_atomic_kernel", (1,), (64,), [(d_in, None), (d_out, None), (acc_h, None), (acc_b, None),
                                                  (acc_1, None)])
    out = g.from_device(d_out, np.zeros(64 * 8, np.uint16)).reshape(64, 8)
    for t in range(64):
        w, l = t - t % 32, t % 32  # noqa: E741 - lane
        assert out[t, 0] == vals[w + (l + 5) % 32]
        assert out[t, 1] == vals[w + (l ^ 3)]
        src = w + l + 2 if l + 2 < 32 else t
        assert out[t, 2] == vals[src] and out[t, 3] == vals[(src + 1) % 64]
        assert out[t, 4] == vals[t - 1 if l else t]
        assert out[t, 5] == vals[w + 31 - l] and out[t, 6] == vals[w + 31 - l]
        assert out[t, 7] == 0
    assert g.from_device(acc_h, np.zeros(2, np.uint16)).view(np.float16).tolist() == [32.0, 16.0]
    assert g.from_device(acc_b, np.zeros(2, np.uint16)).tolist() == [BF16.from_float(128.0), BF16.from_float(128.0)]
    assert g.from_device(acc_1, np.zeros(2, np.uint16)).view(np.float16).tolist() == [64.0, 128.0]
