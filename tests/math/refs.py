"""Correctly rounded references (mpmath) and ulp distances for the math accuracy checks."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np

PREC = {"f4": (24, -126, 40), "f8": (53, -1022, 80)}  # significand bits, emin, working precision


def _lgamma(x):
    g = mp.gamma(x)
    return mp.log(abs(g))


def _erfcinv(y):
    if y <= 0 or y >= 2:
        return None
    if y > 1e-3:
        return mp.erfinv(1 - y)
    # small y: solve log(erfc(t)) = log(y) (erfinv(1 - y) would lose the digits of y)
    target = mp.log(y)
    t0 = mp.sqrt(-target)
    return mp.findroot(lambda t: mp.log(mp.erfc(t)) - target, t0, tol=mp.mpf(2) ** (-mp.mp.prec + 8))


def _normcdfinv(p):
    if p <= 0 or p >= 1:
        return None
    return -mp.sqrt(2) * _erfcinv(2 * p)


def _erfcx(x):
    if x < 50:
        return mp.exp(x * x) * mp.erfc(x)
    # asymptotic series (exp(x^2) overflows mpmath's working range); 30 terms: far below 1e-40 for x >= 50
    s, t = mp.mpf(1), mp.mpf(1)
    for k in range(1, 30):
        t *= -(2 * k - 1) / (2 * x * x)
        s += t
    return s / (x * mp.sqrt(mp.pi))


def _pow(x, y):
    if x < 0:
        if y != mp.floor(y):
            return None
        r = mp.power(-x, y)
        return -r if int(y) % 2 else r
    if x == 0:
        return None
    return mp.power(x, y)


def _exact(v) -> Fraction:
    return Fraction(float(v))


def _fmod(x, y):
    fx, fy = _exact(x), _exact(y)
    r = abs(fx) % abs(fy)
    return mp.mpf(r.numerator) / r.denominator * (1 if fx >= 0 else -1)


def _remainder(x, y):
    fx, fy = _exact(x), _exact(y)
    q = fx / fy
    n = math.floor(q)
    frac = q - n
    if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = fx - n * fy
    return mp.mpf(r.numerator) / r.denominator


REFS = {
    "acos": lambda x: mp.acos(x) if abs(x) <= 1 else None, "acosh": lambda x: mp.acosh(x) if x >= 1 else None,
    "asin": lambda x: mp.asin(x) if abs(x) <= 1 else None, "asinh": mp.asinh, "atan": mp.atan,
    "atanh": lambda x: mp.atanh(x) if abs(x) < 1 else None, "cbrt": lambda x: mp.sign(x) * mp.cbrt(abs(x)), "ceil": mp.ceil, "cos": mp.cos,
    "cosh": mp.cosh, "cospi": mp.cospi, "erf": mp.erf, "erfc": mp.erfc, "erfcinv": _erfcinv,
    "erfcx": lambda x: _erfcx(x), "erfinv": lambda x: mp.erfinv(x) if abs(x) < 1 else None,
    "exp": mp.exp, "exp10": lambda x: mp.power(10, x), "exp2": lambda x: mp.power(2, x), "expm1": mp.expm1,
    "fabs": abs, "floor": mp.floor, "j0": lambda x: mp.besselj(0, x), "j1": lambda x: mp.besselj(1, x),
    "lgamma": lambda x: None if (x <= 0 and x == mp.floor(x)) else _lgamma(x),
    "log": lambda x: mp.log(x) if x > 0 else None, "log10": lambda x: mp.log10(x) if x > 0 else None,
    "log1p": lambda x: mp.log1p(x) if x > -1 else None, "log2": lambda x: mp.log(x, 2) if x > 0 else None,
    "normcdf": lambda x: mp.ncdf(x), "normcdfinv": _normcdfinv, "rcbrt": lambda x: mp.sign(x) / mp.cbrt(abs(x)) if x else None,
    "rsqrt": lambda x: 1 / mp.sqrt(x) if x > 0 else None, "sin": mp.sin, "sinh": mp.sinh, "sinpi": mp.sinpi,
    "sqrt": lambda x: mp.sqrt(x) if x >= 0 else None, "tan": mp.tan, "tanh": mp.tanh,
    "tgamma": lambda x: None if (x <= 0 and x == mp.floor(x)) else mp.gamma(x),
    "y0": lambda x: mp.bessely(0, x) if x > 0 else None, "y1": lambda x: mp.bessely(1, x) if x > 0 else None,
    "i0": lambda x: mp.besseli(0, x), "i1": lambda x: mp.besseli(1, x),
    "atan2": lambda y, x: mp.atan2(y, x) if y else None,
    "hypot": lambda x, y: mp.hypot(x, y), "rhypot": lambda x, y: 1 / mp.hypot(x, y) if (x or y) else None,
    "pow": _pow, "fmod": lambda x, y: _fmod(x, y) if y else None, "remainder": lambda x, y: _remainder(x, y) if y else None,
    "norm3d": lambda a, b, c: mp.sqrt(a * a + b * b + c * c),
    "rnorm3d": lambda a, b, c: 1 / mp.sqrt(a * a + b * b + c * c) if (a or b or c) else None,
    "norm4d": lambda a, b, c, d: mp.sqrt(a * a + b * b + c * c + d * d),
    "rnorm4d": lambda a, b, c, d: 1 / mp.sqrt(a * a + b * b + c * c + d * d) if (a or b or c or d) else None,
    "div": lambda x, y: x / y if y else None,
    "jn": lambda n, x: mp.besselj(int(n), x), "yn": lambda n, x: mp.bessely(int(n), x) if x > 0 else None,
}


def reference(name: str, args: list, dtype: str):
    """mpmath value of ``name`` at the (finite) float arguments, or None where undefined."""
    fn = REFS.get(name)
    if fn is None:
        return None
    with mp.workprec(PREC[dtype][2]):
        try:
            return fn(*[mp.mpf(float(a)) if not isinstance(a, (int, np.integer)) else int(a) for a in args])
        except (ValueError, ZeroDivisionError, OverflowError, mp.libmp.libhyper.NoConvergence):
            return None


def ulp_error(got: float, exact, dtype: str) -> float:
    """|got - exact| in units of the last place of the exact value (at its binade, with the
    subnormal spacing below the normal range); inf where got is not finite but exact is."""
    bits, emin, _ = PREC[dtype]
    ft = np.float32 if dtype == "f4" else np.float64
    fmax = float(np.finfo(ft).max)
    if exact is None or not mp.isfinite(exact):
        return 0.0
    if math.isnan(got):
        return math.inf
    with mp.workprec(PREC[dtype][2]):
        ex = mp.mpf(exact)
        if abs(ex) > fmax:
            # the correctly rounded result may be inf (above max + half an ulp) or max
            half = mp.mpf(2) ** (int(np.log2(fmax)) - bits)
            if abs(ex) >= mp.mpf(fmax) + half:
                return 0.0 if (math.isinf(got) and (got > 0) == (ex > 0)) else \
                    float(abs(mp.mpf(got) - ex) / (2 * half)) if math.isfinite(got) else math.inf
        if math.isinf(got):
            return math.inf
        e = int(mp.floor(mp.log(abs(ex), 2))) if ex != 0 else emin
        e = max(e, emin)
        ulp = mp.mpf(2) ** (e - (bits - 1))
        return float(abs(mp.mpf(got) - ex) / ulp)
