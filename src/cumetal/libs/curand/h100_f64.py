"""The H100's double-precision ``sincospi``, ``exp`` and ``log`` as cuRAND's double normals and
log-normals use them (issue #15), for the host API in numpy; ``src/cumetal/libdevice/src/trig.cu``
and ``exp_log.cu`` carry the same algorithms for kernels.

Modelled black-box from the recordings of ``scripts/make_curand_double_probe.py`` (CUDA 13.0,
default flags) by ``scripts/make_curand_double_fit.py``; no NVIDIA code. The GPU itself checked the
forms (all 65,536 recorded draws): ``curand_normal2_double`` is (s·sin(πv), s·cos(πv)) with
s = sqrt(−2·log u), ``curand_log_normal_double`` is exp(fma(σ, z, μ)).

* ``sincospi(v)``: v = j/2 + t exactly (j = rint(2v), |t| ≤ 1/4), x = RN(π·t), r = RN(x²);
  sin(πt) = fma(RN(p(r)·r), x, x), cos(πt) = fma(q(r), r, 1), p and q Horner polynomials in fma;
  quadrant j mod 4 picks ±sin/±cos.
* ``exp(x)``: j = rint(x·log2 e), r = fma(−j, ln2_lo, fma(−j, ln2_hi, x)), 2^j·fma(p(r), r, 1).
* ``log(u)``: u = 2^e·m, m in [√½, √2), f = m − 1, g = RN(1/(m+1)), w = RN(2f·g) (≈ 2 atanh's
  argument), w_lo = RN(g·fma(−w, f, 2(f − w))) (the quotient's rounding error), v = RN(w²),
  lo = fma(w, RN(v·P(v)), w_lo) with P of degree 7 (atanh's series: 1/12, 1/80, …, fitted),
  then e·ln2_hi (42 bits, exact) + w as an exact pair, result hi + (lo_pair + fma(e, ln2_lo, lo)).
  Equal to the H100's on 1,572,820 of the 1,572,864 recorded inputs (a correctly rounded log: 99.84 %,
  numpy's: 99.67 %).
"""

from __future__ import annotations

import numpy as np

from cumetal.ir.semantics import floats

U64 = np.uint64
PI_HI = float.fromhex("0x1.921fb54442d18p+1")
PI_LO = float.fromhex("0x1.1a62633145c07p-53")
# sin: p = c3 + c5 r + ... (in r = x^2); cos: q = c2 + c4 r + ...
SIN_P = tuple(float.fromhex(h) for h in (
    "-0x1.5555555555554p-3", "0x1.11111111107cep-7", "-0x1.a01a019dacf10p-13", "0x1.71de3693e50cep-19",
    "-0x1.ae5f0e3efdb8cp-26", "0x1.5db548205ea91p-33"))
COS_Q = tuple(float.fromhex(h) for h in (
    "-0x1.0000000000000p-1", "0x1.5555555555556p-5", "-0x1.6c16c16c16c27p-10", "0x1.a01a01a018616p-16",
    "-0x1.27e4fb7596444p-22", "0x1.1eed8c4558acfp-29", "-0x1.9392ddda27a4ap-37", "0x1.aaa245d8d174ep-45"))
LOG_P = tuple(float.fromhex(h) for h in (
    "0x1.5555555555554p-4", "0x1.999999999a1e3p-7", "0x1.24924923ef7bep-9", "0x1.c71c72929cf0ap-12",
    "0x1.745cceec6e361p-14", "0x1.3b22f0cedcc5dp-16", "0x1.0f2f700ec06c6p-18", "0x1.10d58a8e5735ep-20"))
LOG_LN2_HI = float.fromhex("0x1.62e42fefa3800p-1")  # 42 bits: e·LOG_LN2_HI is exact
LOG_LN2_LO = float.fromhex("0x1.ef35793c76730p-45")
SQRT_HALF = float.fromhex("0x1.6a09e667f3bcdp-1")
LOG2E = float.fromhex("0x1.71547652b82fep+0")
LN2_HI = float.fromhex("0x1.62e42fefa39efp-1")
LN2_LO = float.fromhex("0x1.abc9e3b39803fp-56")
EXP_P = tuple(float.fromhex(h) for h in (
    "0x1.0000000000000p+0", "0x1.000000000000bp-1", "0x1.555555555550ap-3", "0x1.5555555550286p-5",
    "0x1.11111111235fep-7", "0x1.6c16c1853245ep-10", "0x1.a01a014239fccp-13", "0x1.a01997b7a7900p-16",
    "0x1.71def18056cd7p-19", "0x1.28af4f73dc55cp-22", "0x1.adcdddbc01a36p-26"))


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a·b + c rounded once (float64 arrays)."""
    a, b, c = (np.ascontiguousarray(v, dtype=np.float64) for v in np.broadcast_arrays(a, b, c))
    return floats.fma(a.view(U64), b.view(U64), c.view(U64), "f64", "rn").view(np.float64)


def horner(c: tuple[float, ...] | list[float], z: np.ndarray) -> np.ndarray:
    p = np.full_like(z, c[-1])
    for ck in c[-2::-1]:
        p = fma(p, z, np.full_like(z, ck))
    return p


def sincospi(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sin(πv), cos(πv) as the H100 returns them (finite v; |v| < 2^52)."""
    v = np.asarray(v, dtype=np.float64)
    j = np.rint(2.0 * v)
    t = v - 0.5 * j
    x = fma(t, np.full_like(t, PI_HI), t * PI_LO)
    r = x * x
    s = fma(horner(SIN_P, r) * r, x, x)
    c = fma(horner(COS_Q, r), r, np.ones_like(r))
    q = j.astype(np.int64) & 3
    conds = [q == 0, q == 1, q == 2, q == 3]
    sn, cs = np.select(conds, [s, c, -s, -c]), np.select(conds, [c, -s, -c, s])
    zero = t == 0  # multiples of 1/2 (not recorded): zeros as CuMetal's libdevice gives them
    sn = np.where(zero & (q % 2 == 0), np.copysign(0.0, v), sn)
    cs = np.where(zero & (q % 2 == 1), 0.0, cs)
    return sn, cs


def exp_reduce(x: np.ndarray, j: np.ndarray) -> np.ndarray:
    """r = x − j·ln2 in two fma steps (the first is exact)."""
    r = fma(-j, np.full_like(j, LN2_HI), x)
    return fma(-j, np.full_like(j, LN2_LO), r)


def exp(x: np.ndarray) -> np.ndarray:
    """e^x as the H100 returns it, for |x| <= 708 (numpy's beyond: overflow, underflow, subnormals)."""
    x = np.asarray(x, dtype=np.float64)
    inside = np.abs(x) <= 708.0
    xi = np.where(inside, x, 0.0)
    j = np.rint(xi * LOG2E)
    r = exp_reduce(xi, j)
    y = np.ldexp(fma(horner(EXP_P, r), r, np.ones_like(r)), j.astype(np.int64))
    with np.errstate(over="ignore", under="ignore"):
        return np.where(inside, y, np.exp(x))


def log(u: np.ndarray, p: tuple[float, ...] | list[float] = LOG_P) -> np.ndarray:
    """log u as the H100 returns it (numpy's for u <= 0, inf and NaN); p: the polynomial (fits)."""
    u = np.asarray(u, dtype=np.float64)
    ok = np.isfinite(u) & (u > 0)
    uu = np.where(ok, u, 1.0)
    mant, ex = np.frexp(uu)
    small = mant < SQRT_HALF
    m = np.where(small, 2.0 * mant, mant)
    e = np.where(small, ex - 1, ex).astype(np.float64)
    f = m - 1.0
    g = 1.0 / (m + 1.0)
    w = (2.0 * f) * g
    w_lo = g * fma(-w, f, 2.0 * (f - w))
    v = w * w
    lo = fma(w, v * horner(p, v), w_lo)
    hi = e * LOG_LN2_HI
    s = hi + w
    bb = s - hi
    s_lo = (hi - (s - bb)) + (w - bb)
    y = s + (s_lo + fma(e, np.full_like(e, LOG_LN2_LO), lo))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, y, np.log(u))


def c_header() -> str:
    """src/cumetal/libdevice/src/f64_h100.h: the same constants and algorithms for kernels
    (``python -m cumetal.libs.curand.h100_f64 --header``; a test checks the file is current)."""

    def arr(name: str, vals: tuple[float, ...]) -> str:  # highest order first, as libdevice's horner
        body = ", ".join(float.hex(v) for v in reversed(vals))
        return f"__attribute__((device)) static const double {name}[{len(vals)}] = {{{body}}};\n"

    return (
        "// Generated by `python -m cumetal.libs.curand.h100_f64 --header` (cumetal/libs/curand/h100_f64.py):\n"
        "// the H100's double sincospi and exp, modelled black-box from recordings (issue #15,\n"
        "// scripts/make_curand_double_probe.py and make_curand_double_fit.py). Do not edit.\n"
        "#pragma once\n#include \"common.h\"\n\n"
        + arr("H100_SIN_P", SIN_P) + arr("H100_COS_Q", COS_Q) + arr("H100_EXP_P", EXP_P)
        + arr("H100_LOG_P", LOG_P)
        + f"#define H100_PI_HI {float.hex(PI_HI)}\n#define H100_PI_LO {float.hex(PI_LO)}\n"
        + f"#define H100_LOG2E {float.hex(LOG2E)}\n#define H100_LN2_HI {float.hex(LN2_HI)}\n"
        + f"#define H100_LN2_LO {float.hex(LN2_LO)}\n"
        + f"#define H100_LOG_LN2_HI {float.hex(LOG_LN2_HI)}\n#define H100_LOG_LN2_LO {float.hex(LOG_LN2_LO)}\n"
        + f"#define H100_SQRT2 {float.hex(2 * SQRT_HALF)}\n\n"
        "// sin(pi t), cos(pi t) for |t| <= 1/4: x = RN(pi t), r = RN(x x), sin = fma(RN(p(r) r), x, x),\n"
        "// cos = fma(q(r), r, 1)\n"
        "NV_INL void sincospi_h100_kernel(double t, double *s, double *c) {\n"
        "  double x = fmaT(t, H100_PI_HI, mul_rn(t, H100_PI_LO));\n"
        "  double r = mul_rn(x, x);\n"
        "  *s = fmaT(mul_rn(horner(r, H100_SIN_P), r), x, x);\n"
        "  *c = fmaT(horner(r, H100_COS_Q), r, 1.0);\n"
        "}\n\n"
        "// e^x for |x| <= 708: j = rint(x log2 e), r = x - j ln2 (two fma), 2^j fma(p(r), r, 1)\n"
        "NV_INL double exp_h100(double x) {\n"
        "  double j = rintT(mul_rn(x, H100_LOG2E));\n"
        "  double r = fmaT(-j, H100_LN2_LO, fmaT(-j, H100_LN2_HI, x));\n"
        "  return ldexpT(fmaT(horner(r, H100_EXP_P), r, 1.0), (int)j);\n"
        "}\n\n"
        "// log x for finite x > 0: x = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1, g = RN(1/(m+1)),\n"
        "// w = RN(2f g), w_lo = RN(g fma(-w, f, 2(f - w))), v = RN(w w), lo = fma(w, RN(v P(v)), w_lo),\n"
        "// e ln2_hi + w as an exact pair, result hi + (pair_lo + fma(e, ln2_lo, lo))\n"
        "NV_INL double log_h100(double x) {\n"
        "  int ei;\n"
        "  double m = frexp1(x, &ei);  // [1, 2)\n"
        "  if (m >= H100_SQRT2) { m = mul_rn(m, 0.5); ei += 1; }\n"
        "  double e = (double)ei;\n"
        "  double f = m - 1.0;\n"
        "  double g = 1.0 / (m + 1.0);\n"
        "  double w = mul_rn(2.0 * f, g);\n"
        "  double w_lo = mul_rn(g, fmaT(-w, f, 2.0 * (f - w)));\n"
        "  double v = mul_rn(w, w);\n"
        "  double lo = fmaT(w, mul_rn(v, horner(v, H100_LOG_P)), w_lo);\n"
        "  Pair<double> s = two_sum(mul_rn(e, H100_LOG_LN2_HI), w);\n"
        "  return s.hi + (s.lo + fmaT(e, H100_LOG_LN2_LO, lo));\n"
        "}\n"
    )


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--header"]:
        sys.stdout.write(c_header())
    else:
        sys.exit("usage: python -m cumetal.libs.curand.h100_f64 --header")
