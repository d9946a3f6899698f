"""Bit manipulation: shifts, bfe/bfi, prmt, shf, lop3, popc/clz/brev/bfind, logic ops, dp4a/dp2a."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Case
from ..ptxgen import elementwise

FAM = "bits"
# Shift amounts around every width boundary, plus huge ones (PTX clamps shift amounts).
SHIFTS = np.array([0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 0x80000000, 0xFFFFFFFF],
                  dtype=np.uint32)
POSITIONS = np.array([0, 1, 4, 15, 16, 31, 32, 33, 63, 64, 200, 255, 259], dtype=np.uint32)
LENGTHS = np.array([0, 1, 4, 8, 16, 31, 32, 33, 64, 255, 257], dtype=np.uint32)
LUTS = (0x00, 0xFF, 0x96, 0xE8, 0xCA, 0x80, 0xFE, 0x1E, 0x6A, 0xB4, 0xF0, 0xCC, 0xAA)


def _bin(name: str, instr: str, ty: str, *, target: str = "sm_80") -> Case:
    a, b = V.pairs(ty, salt=len(name))
    return elementwise(name, FAM, f"    {instr} %d, %a, %b;", [("a", ty, a), ("b", ty, b)], [("d", ty)],
                       target=target)


def _unary(name: str, instr: str, ty: str, out_ty: str | None = None) -> Case:
    return elementwise(name, FAM, f"    {instr} %d, %a;", [("a", ty, V.unary(ty, 64, salt=len(name)))],
                       [("d", out_ty or ty)])


def _grid(*cols: np.ndarray) -> list[np.ndarray]:
    """Cartesian product of the given value columns (first column varies slowest)."""
    mesh = np.meshgrid(*cols, indexing="ij")
    return [m.reshape(-1) for m in mesh]


def cases() -> list[Case]:
    out: list[Case] = []
    for ty, sty in (("16", "u16"), ("32", "u32"), ("64", "u64")):
        a, s = _grid(V.edges(sty), SHIFTS)
        ins = [("a", f"b{ty}", a), ("b", "u32", s)]
        out.append(elementwise(f"shl_b{ty}", FAM, f"    shl.b{ty} %d, %a, %b;", ins, [("d", f"b{ty}")]))
        out.append(elementwise(f"shr_u{ty}", FAM, f"    shr.u{ty} %d, %a, %b;", ins, [("d", f"u{ty}")]))
        out.append(elementwise(f"shr_s{ty}", FAM, f"    shr.s{ty} %d, %a, %b;", ins, [("d", f"s{ty}")]))
        for op in ("and", "or", "xor"):
            out.append(_bin(f"{op}_b{ty}", f"{op}.b{ty}", f"b{ty}"))
        out.append(_unary(f"not_b{ty}", f"not.b{ty}", f"b{ty}"))
        out.append(_unary(f"cnot_b{ty}", f"cnot.b{ty}", f"b{ty}"))
    for ty in ("u32", "s32", "u64", "s64"):
        base = V.edges(ty)[[1, 13, 15, 16, 18, -1]] if ty.endswith("32") else V.edges(ty)[[1, 7, 11, 13, 14, -1]]
        a, p, ln = _grid(base, POSITIONS, LENGTHS)
        out.append(elementwise(f"bfe_{ty}", FAM, f"    bfe.{ty} %d, %a, %b, %c;",
                               [("a", ty, a), ("b", "u32", p), ("c", "u32", ln)], [("d", ty)],
                               note="pos/len use their low 8 bits; len 0 or pos past width give sign/zero fill"))
    for w in ("32", "64"):
        ins_vals = V.random_bits(f"u{w}", 2, salt=5)
        base_vals = V.random_bits(f"u{w}", 2, salt=6)
        f, b, p, ln = _grid(np.concatenate([ins_vals, V.edges(f"u{w}")[[-1]]]), base_vals, POSITIONS, LENGTHS)
        out.append(elementwise(f"bfi_b{w}", FAM, f"    bfi.b{w} %d, %a, %b, %c, %f;",
                               [("a", f"b{w}", f), ("b", f"b{w}", b), ("c", "u32", p), ("f", "u32", ln)],
                               [("d", f"b{w}")]))
    sel = np.concatenate([np.array([0x3210, 0x0123, 0x7654, 0x8888, 0xFFFF, 0x4444, 0x1111, 0x0000, 0x9AB8,
                                    0x76543210, 0xFFFFFFFF, 0x00000003, 0x1, 0x2, 0x3], dtype=np.uint32),
                          V.random_bits("u32", 49, salt=11)])
    av = V.random_bits("u32", 4, salt=12)
    av[0] = 0x80FF7F01
    a, b, c = _grid(av, np.array([0x8A9BACBD, 0x01020304], dtype=np.uint32), sel)
    ins = [("a", "b32", a), ("b", "b32", b), ("c", "b32", c)]
    out.append(elementwise("prmt_b32", FAM, "    prmt.b32 %d, %a, %b, %c;", ins, [("d", "b32")]))
    for mode in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
        out.append(elementwise(f"prmt_b32_{mode}", FAM, f"    prmt.b32.{mode} %d, %a, %b, %c;", ins, [("d", "b32")]))
    shifts = np.concatenate([np.arange(0, 40, dtype=np.uint32), np.array([63, 64, 0xFFFFFFFF], dtype=np.uint32)])
    a, b, c = _grid(V.random_bits("u32", 3, salt=13), V.random_bits("u32", 2, salt=14), shifts)
    for d in ("l", "r"):
        for m in ("wrap", "clamp"):
            out.append(elementwise(f"shf_{d}_{m}_b32", FAM, f"    shf.{d}.{m}.b32 %d, %a, %b, %c;",
                                   [("a", "b32", a), ("b", "b32", b), ("c", "u32", c)], [("d", "b32")]))
    x, y, z = V.triples("u32", n=64, salt=15)
    for lut in LUTS:
        out.append(elementwise(f"lop3_b32_{lut:02x}", FAM, f"    lop3.b32 %d, %a, %b, %c, 0x{lut:02x};",
                               [("a", "b32", x), ("b", "b32", y), ("c", "b32", z)], [("d", "b32")]))
    for w in ("32", "64"):
        out.append(_unary(f"popc_b{w}", f"popc.b{w}", f"b{w}", "u32"))
        out.append(_unary(f"clz_b{w}", f"clz.b{w}", f"b{w}", "u32"))
        out.append(_unary(f"brev_b{w}", f"brev.b{w}", f"b{w}"))
        for sgn in ("u", "s"):
            out.append(_unary(f"bfind_{sgn}{w}", f"bfind.{sgn}{w}", f"{sgn}{w}", "u32"))
            out.append(_unary(f"bfind_shiftamt_{sgn}{w}", f"bfind.shiftamt.{sgn}{w}", f"{sgn}{w}", "u32"))
    pa, pb = _grid(np.array([0, 1, 2, 0x80000000], dtype=np.uint32), np.array([0, 1, 0xFFFFFFFF], dtype=np.uint32))
    pred_pre = "    setp.ne.u32 %q0, %a, 0;\n    setp.ne.u32 %q1, %b, 0;\n"
    for op in ("and", "or", "xor"):
        body = pred_pre + f"    {op}.pred %q2, %q0, %q1;\n    selp.u32 %d, 1, 0, %q2;"
        out.append(elementwise(f"{op}_pred", FAM, body, [("a", "u32", pa), ("b", "u32", pb)], [("d", "u32")]))
    body = pred_pre + "    not.pred %q2, %q0;\n    @%q1 not.pred %q2, %q2;\n    selp.u32 %d, 1, 0, %q2;"
    out.append(elementwise("not_pred", FAM, body, [("a", "u32", pa), ("b", "u32", pb)], [("d", "u32")]))
    x, y, z = V.triples("u32", n=256, salt=16)
    for ta in ("u32", "s32"):
        for tb in ("u32", "s32"):
            ins3 = [("a", "b32", x), ("b", "b32", y), ("c", "b32", z)]
            out.append(elementwise(f"dp4a_{ta}_{tb}", FAM, f"    dp4a.{ta}.{tb} %d, %a, %b, %c;", ins3, [("d", "b32")]))
            for half in ("lo", "hi"):
                out.append(elementwise(f"dp2a_{half}_{ta}_{tb}", FAM, f"    dp2a.{half}.{ta}.{tb} %d, %a, %b, %c;",
                                       ins3, [("d", "b32")]))
    return out
