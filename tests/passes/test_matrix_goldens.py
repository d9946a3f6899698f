"""The H100 goldens of the sweep family 'matrix' against independent numpy references.

This pins down, as checked facts, what docs/intrinsic-map.md ("Warp matrix instructions") states:
the mma fragment layouts of the PTX ISA manual (written out again here from the manual's formulas),
ldmatrix/stmatrix/movmatrix data movement, integer mma (wrapping, .satfinite clamps), f64 mma as an
IEEE fma chain in k order, and the tensor-core float accumulation model (exact products, alignment
to the largest exponent with 25 bits kept, truncation toward zero). No GPU and no CuMetal needed.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from tests.ptx_sweep.cases import matrix as M
from tests.ptx_sweep.golden import GoldenStore

STORE = GoldenStore()
CASES = {c.name: c for c in M.cases()}
LANES = np.arange(32)
G, T = LANES >> 2, LANES & 3


# ---- PTX ISA "Matrix Fragments for mma.m…": (row, col) of element i held by each lane
def _layout(frag: str, shape: str, etype: str, i: int) -> tuple[np.ndarray, np.ndarray]:
    hi = lambda cond: np.where(cond, 8, 0)  # noqa: E731
    if etype in ("f16", "bf16"):
        if shape == "m16n8k16":
            return {"a": (G + 8 * ((i >> 1) & 1), 2 * T + (i & 1) + 8 * (i >> 2)),
                    "b": (2 * T + (i & 1) + 8 * (i >> 1), G)}[frag]
        return {"a": (G + 8 * (i >> 1), 2 * T + (i & 1)), "b": (2 * T + i, G)}[frag]  # m16n8k8
    if etype == "tf32":
        if shape == "m16n8k8":
            return {"a": (G + hi(i in (1, 3)), T + 4 * (i >> 1)), "b": (T + 4 * i, G)}[frag]
        return {"a": (G + 8 * i, T), "b": (T, G)}[frag]  # m16n8k4
    if etype == "f64":
        return {"a": (G, T), "b": (T, G)}[frag]
    # s8/u8
    if shape == "m16n8k16":
        return {"a": (G + 8 * (i >> 2), 4 * T + (i & 3)), "b": (4 * T + i, G)}[frag]
    if shape == "m16n8k32":
        return {"a": (G + 8 * ((i >> 2) & 1), 4 * T + (i & 3) + 16 * (i >> 3)),
                "b": (4 * T + (i & 3) + 16 * (i >> 2), G)}[frag]
    return {"a": (G, 4 * T + i), "b": (4 * T + i, G)}[frag]  # m8n8k16


def _c_layout(shape: str, i: int) -> tuple[np.ndarray, np.ndarray]:
    if shape.startswith("m8n8"):
        return G, 2 * T + i
    return G + 8 * (i >> 1), 2 * T + (i & 1)


def _dims(shape: str) -> tuple[int, int, int]:
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


WIDTH = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s32": 32}


def _values(bits: np.ndarray, etype: str) -> np.ndarray:
    """Element bit patterns -> float64 (floats) or int64 values."""
    if etype == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if etype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if etype == "tf32":  # the tensor cores read the top 19 bits
        return (bits.astype(np.uint32) & 0xFFFFE000).view(np.float32).astype(np.float64)
    if etype == "f32":
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    if etype == "f64":
        return bits.astype(np.uint64).view(np.float64)
    if etype == "s8":
        return bits.astype(np.uint8).view(np.int8).astype(np.int64)
    if etype == "u8":
        return bits.astype(np.int64)
    return bits.astype(np.uint32).view(np.int32).astype(np.int64)  # s32


def _matrix(regs: np.ndarray, etype: str, rows: int, cols: int, coord) -> np.ndarray:
    """Per-thread registers (threads, nregs) -> per-warp matrices (warps, rows, cols)."""
    w = WIDTH[etype]
    per = max(1, 32 // w)
    warps = regs.shape[0] // 32
    out = np.zeros((warps, rows, cols), np.int64 if etype in ("s8", "u8", "s32") else np.float64)
    for i in range(regs.shape[1] * per):
        bits = (regs[:, i // per].astype(np.uint64) >> np.uint64((i % per) * w)) & np.uint64((1 << w) - 1)
        r, c = coord(i)
        out[:, r, c] = _values(bits, etype).reshape(warps, 32)
    return out


def _fragment(mat: np.ndarray, shape: str, nregs: int, per: int) -> np.ndarray:
    """Per-warp D matrices -> per-thread result registers in the C/D layout (element order)."""
    warps = mat.shape[0]
    out = np.zeros((warps * 32, nregs * per), mat.dtype)
    for i in range(nregs * per):
        r, c = _c_layout(shape, i)
        out[:, i] = mat[:, r, c].reshape(-1)
    return out


# ---- the tensor-core float model (independent numpy version of the lowering's)
def _floor_log2(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.where(x != 0, np.floor(np.log2(np.abs(np.where(x != 0, x, 1.0)))), -1000.0)


def _f32_rz(x: np.ndarray) -> np.ndarray:
    f = x.astype(np.float32)
    over = np.isfinite(x) & (np.abs(f.astype(np.float64)) > np.abs(x))
    return np.where(over, np.nextafter(f, np.float32(0)), f)


def tensor_core_dot(a: np.ndarray, b: np.ndarray, c: np.ndarray, etype: str, block: int) -> np.ndarray:
    """D = A B + C (warps, m, n) as float32: per block of k, products exact; every term truncated
    toward zero to a multiple of 2**(emax - 25), emax the largest exponent, a product's being the
    sum of its factors' (subnormal factors count as their format's minimum exponent); the exact sum
    truncated toward zero to f32. Non-finite terms: the IEEE sum; NaN: 0x7fffffff."""
    emin = -14 if etype == "f16" else -126
    acc = c.astype(np.float32)
    k = a.shape[2]
    for k0 in range(0, k, block):
        ks = range(k0, min(k, k0 + block))
        with np.errstate(invalid="ignore", over="ignore"):
            prods = np.stack([a[:, :, j, None] * b[:, None, j, :] for j in ks])
            pe = np.stack([np.maximum(_floor_log2(a[:, :, j]), emin)[:, :, None]
                           + np.maximum(_floor_log2(b[:, j, :]), emin)[:, None, :] for j in ks])
            pe = np.where(prods != 0, pe, -1000)
            a64 = acc.astype(np.float64)
            emax = np.maximum(pe.max(axis=0), _floor_log2(a64))
            q = np.exp2(emax - 25)
            exact = (np.trunc(prods / q) * q).sum(axis=0) + np.trunc(a64 / q) * q
            plain = prods.sum(axis=0) + a64
        acc = np.where(np.isfinite(plain), _f32_rz(exact), plain.astype(np.float32))
    return acc


def _f32_bits(x: np.ndarray) -> np.ndarray:
    bits = x.astype(np.float32).view(np.uint32)
    return np.where(np.isnan(x), np.uint32(0x7FFFFFFF), bits)


# ---- mma
def _mma_spec(case):
    mods = case.note.split(":")[0].split(".")  # mma.sync.aligned.<shape>.row.col{.satfinite}.d.a.b.c
    return mods[3], mods[-4], mods[-3], mods[-2], mods[-1], "satfinite" in mods


MMA = [n for n in CASES if n.startswith("mma_")]


@pytest.mark.parametrize("name", MMA)
def test_mma_golden_matches_numpy(name: str) -> None:
    case = CASES[name]
    shape, dt, at, bt, ct, sat = _mma_spec(case)
    m, n, k = _dims(shape)
    ins = {b.name: b.init for b in case.inputs}
    threads = M.THREADS
    a = _matrix(ins["a"].reshape(threads, -1), at, m, k, lambda i: _layout("a", shape, at, i))
    b = _matrix(ins["b"].reshape(threads, -1), bt, k, n, lambda i: _layout("b", shape, bt, i))
    c = _matrix(ins["c"].reshape(threads, -1), ct, m, n, lambda i: _c_layout(shape, i))
    gold = STORE.get(case)["d"].reshape(threads, -1)
    if dt == "s32":
        d = np.einsum("wmk,wkn->wmn", a, b) + c
        d = np.clip(d, -2**31, 2**31 - 1) if sat else d
        want = _fragment(d, shape, gold.shape[1], 1).astype(np.int64).astype(np.uint32)
    elif dt == "f64":
        d = np.empty_like(c)
        for idx in np.ndindex(*c.shape):  # IEEE fma chain in k order
            w, i, j = idx
            acc = c[idx]
            for kk in range(k):
                acc = float(Fraction(a[w, i, kk]) * Fraction(b[w, kk, j]) + Fraction(acc))
            d[idx] = acc
        want = _fragment(d, shape, gold.shape[1], 1).view(np.uint64)
    else:
        d = tensor_core_dot(a, b, c, at, block=k)
        if dt == "f16":
            h = d.astype(np.float16).view(np.uint16).astype(np.uint32)
            f = _fragment(h, shape, gold.shape[1], 2)
            want = f[:, 0::2] | (f[:, 1::2] << 16)
        else:
            want = _fragment(_f32_bits(d), shape, gold.shape[1], 1)
    assert np.array_equal(gold, want), f"{np.sum(gold != want)} of {gold.size} registers differ"


# ---- ldmatrix / stmatrix / movmatrix
def _shared_rows(case) -> np.ndarray:
    return case.inputs[0].init.view(np.uint16).reshape(64, 8)  # 64 rows of 8 b16 elements


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("ldmatrix")])
def test_ldmatrix_golden_matches_numpy(name: str) -> None:
    case = CASES[name]
    rows, perm = _shared_rows(case), case.inputs[1].init
    num = int(name.split("_")[1][1:])
    gold = STORE.get(case)["dst"].reshape(32, num)
    for j in range(num):
        mat = rows[perm[8 * j:8 * j + 8]]  # rows addressed by lanes 8j..8j+7
        if "trans" in name:
            mat = mat.T
        lo, hi = mat[G, 2 * T].astype(np.uint32), mat[G, 2 * T + 1].astype(np.uint32)
        assert np.array_equal(gold[:, j], lo | (hi << 16)), f"matrix {j}"


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("stmatrix")])
def test_stmatrix_golden_matches_numpy(name: str) -> None:
    case = CASES[name]
    rows, perm, regs = _shared_rows(case).copy(), case.inputs[1].init, case.inputs[2].init
    num = int(name.split("_")[1][1:])
    regs = regs.reshape(32, num)
    for j in range(num):
        mat = np.zeros((8, 8), np.uint16)
        mat[G, 2 * T], mat[G, 2 * T + 1] = regs[:, j] & 0xFFFF, regs[:, j] >> 16
        rows[perm[8 * j:8 * j + 8]] = mat.T if "trans" in name else mat
    assert np.array_equal(STORE.get(case)["dst"], rows.reshape(-1).view(np.uint32))


def test_movmatrix_golden_matches_numpy() -> None:
    case = CASES["movmatrix_trans"]
    vals = case.inputs[0].init.reshape(4, 32)
    gold = STORE.get(case)["d"].reshape(4, 32)
    for w in range(4):
        mat = np.zeros((8, 8), np.uint32)
        mat[G, 2 * T], mat[G, 2 * T + 1] = vals[w] & 0xFFFF, vals[w] >> 16
        mat = mat.T
        assert np.array_equal(gold[w], mat[G, 2 * T] | (mat[G, 2 * T + 1] << 16))


# ---- wmma (memory in, memory out)
@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("wmma_")])
def test_wmma_golden_matches_numpy(name: str) -> None:
    case = CASES[name]
    note = case.note  # "wmma <shape> <at>-><dt>, A <lay> B <lay> C <lay> D <lay>, leading dims +<pad>; ..."
    words = note.replace(",", "").replace(";", "").split()
    shape, (at, dt) = words[1], words[2].split("->")
    lay = {"A": words[4], "B": words[6], "C": words[8], "D": words[10]}
    pad = int(words[13].lstrip("+"))
    m, n, k = _dims(shape)
    ct = {"f16": "f16", "f32": "f32", "f64": "f64", "s32": "s32"}[case.inputs[2].fmt or _etype_of(case.inputs[2], at)]
    warps = M.WMMA_WARPS

    def load(buf, et, rows, cols, layout):
        ld = (cols if layout == "row" else rows) + pad
        flat = _values(buf.reshape(warps, -1), et)
        idx = (np.arange(rows)[:, None] * ld + np.arange(cols)[None, :]) if layout == "row" else \
            (np.arange(cols)[None, :] * ld + np.arange(rows)[:, None])
        return flat[:, idx], idx

    a, _ = load(case.inputs[0].init, at, m, k, lay["A"])
    b, _ = load(case.inputs[1].init, at, k, n, lay["B"])
    c, _ = load(case.inputs[2].init, ct, m, n, lay["C"])
    gold = STORE.get(case)["d"].reshape(warps, -1)
    ld = (n if lay["D"] == "row" else m) + pad
    didx = (np.arange(m)[:, None] * ld + np.arange(n)[None, :]) if lay["D"] == "row" else \
        (np.arange(n)[None, :] * ld + np.arange(m)[:, None])
    if at in ("s8", "u8"):
        d = np.einsum("wmk,wkn->wmn", a, b) + c
        if "satfinite" in name:
            d = np.clip(d, -2**31, 2**31 - 1)
        want = d.astype(np.int64).astype(np.uint32)
    elif at == "f64":
        d = np.empty_like(c)
        for w, i, j in np.ndindex(*c.shape):
            acc = c[w, i, j]
            for kk in range(k):
                acc = float(Fraction(a[w, i, kk]) * Fraction(b[w, kk, j]) + Fraction(acc))
            d[w, i, j] = acc
        want = d.view(np.uint64)
    else:
        block = 4 if at == "tf32" else k  # wmma m16n16k8 runs as two k=4 steps (measured)
        d = tensor_core_dot(a, b, c, at, block)
        want = d.astype(np.float16).view(np.uint16) if dt == "f16" else _f32_bits(d)
    assert np.array_equal(gold[:, didx], want), f"{np.sum(gold[:, didx] != want)} elements differ"
    untouched = np.ones(gold.shape[1], bool)
    untouched[didx.reshape(-1)] = False  # padding between rows keeps the sentinel
    assert np.all(gold[:, untouched] == {2: 0xCDCD, 4: 0xCDCDCDCD, 8: 0xCDCDCDCDCDCDCDCD}[gold.itemsize])


def _etype_of(buf, at: str) -> str:
    return {"uint32": "s32" if at in ("s8", "u8") else "f32", "uint16": "f16", "uint64": "f64"}[str(buf.dtype)]
