"""Fit the polynomial coefficients used by the libdevice sources (developer tool, not imported
at run time).

Near-minimax fits by Lawson's iteratively reweighted least squares on Chebyshev-distributed
points, in mpmath at 60 digits; coefficients are then rounded to float or double and printed
as C initialisers. Example:

    python -m cumetal.libdevice.tools.fit "(exp(x)-1-x)/x**2" -0.3466 0.3466 6 float
"""

from __future__ import annotations

import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 60


def fit(func, lo: float, hi: float, degree: int, *, relative: bool = True, points: int = 0,
        iterations: int = 12, powers: list[int] | None = None) -> list[mp.mpf]:
    """Coefficients c[k] of sum c[k] x^powers[k] (default powers 0..degree), lowest first."""
    powers = powers if powers is not None else list(range(degree + 1))
    n = points or max(8 * len(powers), 64)
    xs = [mp.mpf(lo) + (mp.mpf(hi) - lo) * (1 - mp.cos(mp.pi * (i + 0.5) / n)) / 2 for i in range(n)]
    ys = [func(x) for x in xs]
    scale = [1 / abs(y) if relative and y != 0 else mp.mpf(1) for y in ys]
    w = [mp.mpf(1)] * n
    coef = None
    for _ in range(iterations):
        a = mp.matrix(n, len(powers))
        b = mp.matrix(n, 1)
        for i, x in enumerate(xs):
            sw = mp.sqrt(w[i]) * scale[i]
            for j, p in enumerate(powers):
                a[i, j] = sw * x ** p
            b[i] = sw * ys[i]
        coef = mp.qr_solve(a, b)[0]
        errs = [abs(sum(coef[j] * x ** p for j, p in enumerate(powers)) - y) * s
                for x, y, s in zip(xs, ys, scale, strict=True)]
        total = sum(wi * e for wi, e in zip(w, errs, strict=True))
        w = [wi * e / total for wi, e in zip(w, errs, strict=True)]
    return [coef[j] for j in range(len(powers))]


def max_error(func, coef, powers, lo, hi, relative=True, samples=2000):
    worst = mp.mpf(0)
    for i in range(samples + 1):
        x = mp.mpf(lo) + (mp.mpf(hi) - lo) * i / samples
        try:
            y = func(x)
        except ZeroDivisionError:
            continue
        if y == 0:
            continue
        e = abs(sum(c * x ** p for c, p in zip(coef, powers, strict=True)) - y)
        worst = max(worst, e / abs(y) if relative else e)
    return worst


def c_literal(value: mp.mpf, kind: str) -> str:
    if kind == "float":
        return float(np.float32(float(value))).hex() + "f"
    return float(value).hex()


def main(argv: list[str]) -> int:
    expr, lo, hi, degree, kind = argv[:5]
    powers = [int(p) for p in argv[5].split(",")] if len(argv) > 5 else None
    relative = "abs" not in argv[6:] if len(argv) > 6 else True
    func = eval("lambda x: " + expr, {k: getattr(mp, k) for k in dir(mp) if not k.startswith("_")})  # noqa: S307
    coef = fit(func, float(lo), float(hi), int(degree), powers=powers, relative=relative)
    pw = powers if powers is not None else list(range(int(degree) + 1))
    print("// max", "rel" if relative else "abs", "error", mp.nstr(max_error(func, coef, pw, float(lo), float(hi), relative), 5))
    print("{" + ", ".join(c_literal(c, kind) for c in reversed(coef)) + "}  // highest degree first")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
