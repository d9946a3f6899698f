"""Video instructions: scalar vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vset with .sat, secondary
.add/.min/.max and byte/half selectors, and the SIMD forms vadd2…vset2 / vadd4…vset4 with
merge masks, .sat, .add accumulate and lane selectors (PTX ISA §9.7.18)."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Case
from ..ptxgen import elementwise

FAM = "video"
N = 96
_T = {"u": "u32", "s": "s32"}
# dtype/atype/btype mixes: all unsigned, all signed, and the two mixed orders.
TYPE_MIXES = ("uuu", "sss", "sus", "usu")
SIMD_OPS = ("add", "sub", "avrg", "absdiff", "min", "max")
SCALAR_OPS = ("add", "sub", "absdiff", "min", "max")
CMPS = ("eq", "ne", "lt", "le", "gt", "ge")


def _words(salt: int) -> np.ndarray:
    """N 32-bit words: half built from edge bytes (0, 1, 0x7F, 0x80, 0xFF, ...), half random,
    the first few the 32-bit edges."""
    r = V.rng(7000 + salt)
    pool = np.array(V.U8_EDGES, dtype=np.uint32)
    edge_bytes = pool[r.integers(0, len(pool), size=(N // 2, 4))]
    from_edges = (edge_bytes[:, 0] | (edge_bytes[:, 1] << 8) | (edge_bytes[:, 2] << 16) | (edge_bytes[:, 3] << 24))
    rand = r.integers(0, 1 << 32, size=N - N // 2, dtype=np.uint64).astype(np.uint32)
    w = np.concatenate([from_edges.astype(np.uint32), rand])
    w[:8] = np.roll(np.array([0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x00FF7F80, 0x80007FFF, 0x7F80FF01],
                             dtype=np.uint32), salt % 8)
    return w


def _shift_amounts(salt: int) -> np.ndarray:
    r = V.rng(7100 + salt)
    small = np.array([0, 1, 7, 8, 15, 16, 31, 32, 33, 40, 63, 64, 255, 0x10000, 0x80000000, 0xFFFFFFFF],
                     dtype=np.uint32)
    return np.concatenate([small, r.integers(0, 48, size=N - len(small)).astype(np.uint32)])


def _case(name: str, instr: str, salt: int, *, b_vals: np.ndarray | None = None) -> Case:
    ins = [("a", "u32", _words(3 * salt)), ("b", "u32", _words(3 * salt + 1) if b_vals is None else b_vals),
           ("c", "u32", _words(3 * salt + 2))]
    return elementwise(name, FAM, f"    {instr};", ins, [("d", "u32")], target="sm_80")


def _scalar_cases(out: list[Case]) -> None:
    k = 0
    for op in SCALAR_OPS:
        for mix in TYPE_MIXES:
            d, a, b = (_T[ch] for ch in mix)
            t = f"{d}.{a}.{b}"
            variants = [("", "%d, %a, %b"), (".sat", "%d, %a, %b"), (".add", "%d, %a, %b, %c"),
                        (".sat.min", "%d, %a, %b, %c"), (".max", "%d, %a, %b, %c"), (".sat.add", "%d, %a, %b, %c")]
            if mix in ("uuu", "sss"):
                variants += [("", "%d.b1, %a.b3, %b.h0, %c"), (".sat", "%d.h1, %a.h1, %b.b2, %c"),
                             (".sat", "%d.b0, %a.b0, %b.b1, %c"), (".sat.add", "%d, %a.h0, %b.b3, %c")]
            for i, (mods, ops) in enumerate(variants):
                k += 1
                tag = f"{mods.replace('.', '_')}_{i}" if mods or i else "plain"
                out.append(_case(f"v{op}_{mix}{'_' + tag if tag != 'plain' else ''}",
                                 f"v{op}.{t}{mods} {ops}", k))
    for op in ("shl", "shr"):
        for mix in ("uu", "ss", "su", "us"):
            d, a = (_T[ch] for ch in mix)
            for mode in ("clamp", "wrap"):
                for i, (mods, ops) in enumerate([("", "%d, %a, %b"), (".sat", "%d, %a, %b"),
                                                 (".add", "%d, %a, %b, %c"), (".sat", "%d.h0, %a.b2, %b, %c")]):
                    k += 1
                    out.append(_case(f"v{op}_{mix}_{mode}_{i}", f"v{op}.{d}.{a}.u32{mods}.{mode} {ops}", k,
                                     b_vals=_shift_amounts(k)))
    for cmp in CMPS:
        for mix in ("uu", "ss", "su"):
            a, b = (_T[ch] for ch in mix)
            for i, (mods, ops) in enumerate([("", "%d, %a, %b"), (".add", "%d, %a, %b, %c"),
                                             ("", "%d.b2, %a.b1, %b.h1, %c")]):
                k += 1
                out.append(_case(f"vset_{cmp}_{mix}_{i}", f"vset.{a}.{b}.{cmp}{mods} {ops}", k))


def _simd_cases(out: list[Case]) -> None:
    k = 500
    for lanes, sels in ((2, ("%d.h1, %a.h21, %b.h03, %c", "%d.h0, %a.h33, %b.h10, %c")),
                        (4, ("%d.b20, %a.b0527, %b.b7361, %c", "%d.b31, %a.b4444, %b.b0123, %c"))):
        for op in SIMD_OPS:
            for mix in TYPE_MIXES:
                d, a, b = (_T[ch] for ch in mix)
                t = f"{d}.{a}.{b}"
                for mods in ("", ".sat", ".add"):
                    k += 1
                    out.append(_case(f"v{op}{lanes}_{mix}{mods.replace('.', '_')}",
                                     f"v{op}{lanes}.{t}{mods} %d, %a, %b, %c", k))
            for i, ops in enumerate(sels):
                for mods in (".sat", ".add"):
                    k += 1
                    out.append(_case(f"v{op}{lanes}_sel{i}{mods.replace('.', '_')}",
                                     f"v{op}{lanes}.s32.u32.s32{mods} {ops}", k))
        for cmp in CMPS:
            for mix in ("uu", "ss", "su"):
                a, b = (_T[ch] for ch in mix)
                for mods in ("", ".add"):
                    k += 1
                    out.append(_case(f"vset{lanes}_{cmp}_{mix}{mods.replace('.', '_')}",
                                     f"vset{lanes}.{a}.{b}.{cmp}{mods} %d, %a, %b, %c", k))
        for i, ops in enumerate(sels):
            k += 1
            out.append(_case(f"vset{lanes}_sel{i}", f"vset{lanes}.s32.u32.lt.add {ops}", k))


def cases() -> list[Case]:
    out: list[Case] = []
    _scalar_cases(out)
    _simd_cases(out)
    return out
