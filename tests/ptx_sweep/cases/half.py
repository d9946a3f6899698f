"""f16 / f16x2 / bf16 / bf16x2 arithmetic, min/max, abs/neg and .approx functions."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..approx import backend_rule
from ..case import Case
from ..ptxgen import elementwise

FAM = "half"


def _n(instr: str) -> str:
    return instr.replace(".", "_")


def _scalar_pairs(ty: str, salt: int) -> tuple[np.ndarray, np.ndarray]:
    return V.pairs(ty, salt=salt, n_random=64)


def _packed(ty: str, salt: int) -> tuple[np.ndarray, np.ndarray]:
    """Packed pairs: low halves run the edge cross product, high halves a shifted copy of it."""
    a, b = V.pairs(ty, salt=salt, n_random=64)
    a32 = a.astype(np.uint32) | (np.roll(a, 7).astype(np.uint32) << 16)
    b32 = b.astype(np.uint32) | (np.roll(b, 3).astype(np.uint32) << 16)
    return a32, b32


def _inputs(ty: str, salt: int) -> tuple[np.ndarray, np.ndarray]:
    return _packed(ty[:-2], salt) if ty.endswith("x2") else _scalar_pairs(ty, salt)


def _bin(name: str, instr: str, ty: str, target: str = "sm_80", **kw) -> Case:
    a, b = _inputs(ty, len(name))
    return elementwise(name, FAM, f"    {instr} %d, %a, %b;", [("a", ty, a), ("b", ty, b)], [("d", ty)],
                       target=target, **kw)


def _fma(name: str, instr: str, ty: str, target: str = "sm_80") -> Case:
    a, b = _inputs(ty, len(name))
    c = np.roll(a, 11) ^ (np.roll(b, 5) & (0x80008000 if ty.endswith("x2") else 0x8000))
    return elementwise(name, FAM, f"    {instr} %d, %a, %b, %c;", [("a", ty, a), ("b", ty, b), ("c", ty, c)],
                       [("d", ty)], target=target)


def _un(name: str, instr: str, ty: str, vals: np.ndarray | None = None, target: str = "sm_80", **kw) -> Case:
    if vals is None:
        vals = _inputs(ty, len(name))[0]
    return elementwise(name, FAM, f"    {instr} %d, %a;", [("a", ty, vals)], [("d", ty)], target=target, **kw)


def cases() -> list[Case]:
    out: list[Case] = []
    for ty in ("f16", "f16x2"):
        for op in ("add", "sub", "mul"):
            for m in ("", ".rn", ".ftz", ".sat", ".rn.ftz.sat"):
                out.append(_bin(_n(f"{op}{m}.{ty}"), f"{op}{m}.{ty}", ty))
        for m in (".rn", ".rn.ftz", ".rn.sat", ".rn.relu"):
            out.append(_fma(_n(f"fma{m}.{ty}"), f"fma{m}.{ty}", ty))
        for op in ("neg", "abs"):
            out.append(_un(f"{op}_{ty}", f"{op}.{ty}", ty))
            out.append(_un(f"{op}_ftz_{ty}", f"{op}.ftz.{ty}", ty))
    for ty in ("bf16", "bf16x2"):
        for op in ("add", "sub", "mul"):
            out.append(_bin(_n(f"{op}.rn.{ty}"), f"{op}.rn.{ty}", ty, target="sm_90"))
        out.append(_fma(_n(f"fma.rn.{ty}"), f"fma.rn.{ty}", ty))
        out.append(_fma(_n(f"fma.rn.relu.{ty}"), f"fma.rn.relu.{ty}", ty))
        for op in ("neg", "abs"):
            out.append(_un(f"{op}_{ty}", f"{op}.{ty}", ty))
    for ty in ("f16", "f16x2", "bf16", "bf16x2"):
        for op in ("min", "max"):
            for m in ("", ".NaN"):
                out.append(_bin(_n(f"{op}{m}.{ty}"), f"{op}{m}.{ty}", ty))
    for ty in ("f16", "f16x2"):
        ex = np.concatenate([V.edges("f16"), V.random_floats("f16", 128, -20, 16, 51)])
        th = np.concatenate([V.edges("f16"), V.random_floats("f16", 128, -6, 6, 52)])
        if ty == "f16x2":
            ex = ex.astype(np.uint32) | (np.roll(ex, 5).astype(np.uint32) << 16)
            th = th.astype(np.uint32) | (np.roll(th, 5).astype(np.uint32) << 16)
        out.append(_un(f"ex2_approx_{ty}", f"ex2.approx.{ty}", ty, ex, target="sm_80", rule=backend_rule("ex2.approx.f16")))
        out.append(_un(f"tanh_approx_{ty}", f"tanh.approx.{ty}", ty, th, target="sm_80",
                       rule=backend_rule("tanh.approx.f16")))
    exb = np.concatenate([V.edges("bf16"), (V.random_floats("f32", 128, -100, 100, 53) >> 16).astype(np.uint16)])
    out.append(_un("ex2_approx_ftz_bf16", "ex2.approx.ftz.bf16", "bf16", exb, target="sm_90",
                   rule=backend_rule("ex2.approx.ftz.bf16")))
    return out
