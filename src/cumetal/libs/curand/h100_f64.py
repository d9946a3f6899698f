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
* ``log``: numpy's (the H100's log is correctly rounded on 99.84 % of the recorded inputs, numpy's
  equal to it on 99.67 %); not modelled yet.
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


def log(u: np.ndarray) -> np.ndarray:
    """log u (numpy's for now: equal to the H100's on 99.67 % of the recorded inputs)."""
    return np.log(np.asarray(u, dtype=np.float64))
