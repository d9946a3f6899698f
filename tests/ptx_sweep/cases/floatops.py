"""Shared builders for floating-point cases (f32/f64 families)."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Case
from ..ptxgen import elementwise


def rounding_inputs(ty: str, salt: int) -> tuple[np.ndarray, np.ndarray]:
    """Edge cross product plus random finite pairs of varied magnitudes (rounding is exercised)."""
    a, b = V.pairs(ty, salt=salt, n_random=0)
    g = V.rng(salt)
    n = 256
    npt = np.float32 if ty == "f32" else np.float64
    mant = g.uniform(1.0, 2.0, size=(2, n))
    exps = g.integers(-30, 30, size=(2, n))
    sign = np.where(g.random((2, n)) < 0.5, -1.0, 1.0)
    rnd = (sign * np.ldexp(mant, exps)).astype(npt).view(a.dtype)
    return np.concatenate([a, rnd[0]]), np.concatenate([b, rnd[1]])


def unary_inputs(ty: str, salt: int, lo: float = -1e3, hi: float = 1e3, positive: bool = False) -> np.ndarray:
    e = V.edges(ty)
    r = V.random_floats(ty, 128, 0.0 if positive else lo, hi, salt)
    g = V.rng(salt + 1)
    npt = np.float32 if ty == "f32" else np.float64
    wide = np.ldexp(g.uniform(1, 2, 64), g.integers(-140 if ty == "f32" else -1070, 120, 64)).astype(npt)
    return np.concatenate([e, r, wide.view(e.dtype)])


def binop(fam: str, name: str, instr: str, ty: str, salt: int, **kw) -> Case:
    a, b = rounding_inputs(ty, salt)
    return elementwise(name, fam, f"    {instr} %d, %a, %b;", [("a", ty, a), ("b", ty, b)], [("d", ty)], **kw)


def fmaop(fam: str, name: str, instr: str, ty: str, salt: int, **kw) -> Case:
    a, b, c = V.triples(ty, n=512, salt=salt)
    ra, rb = rounding_inputs(ty, salt + 3)
    rc = rounding_inputs(ty, salt + 5)[1]
    k = 512
    a = np.concatenate([a, ra[-256:], ra[:k]])
    b = np.concatenate([b, rb[-256:], rb[:k]])
    c = np.concatenate([c, rc[-256:], rc[:k]])
    return elementwise(name, fam, f"    {instr} %d, %a, %b, %c;", [("a", ty, a), ("b", ty, b), ("c", ty, c)],
                       [("d", ty)], **kw)


def unop(fam: str, name: str, instr: str, ty: str, vals: np.ndarray, out_ty: str | None = None, **kw) -> Case:
    return elementwise(name, fam, f"    {instr} %d, %a;", [("a", ty, vals)], [("d", out_ty or ty)], **kw)


def testp_cases(fam: str, ty: str) -> list[Case]:
    vals = unary_inputs(ty, 99)
    return [elementwise(f"testp_{op}_{ty}", fam, f"    testp.{op}.{ty} %q0, %a;\n    selp.u32 %d, 1, 0, %q0;",
                        [("a", ty, vals)], [("d", "u32")])
            for op in ("finite", "infinite", "number", "notanumber", "normal", "subnormal")]
