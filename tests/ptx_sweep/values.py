"""Deterministic edge-case input values per PTX type, and helpers that pair them up.

Floats are given as bit patterns so NaN payloads, signalling NaNs and -0 survive exactly.
"""

from __future__ import annotations

import numpy as np

RNG_SEED = 20261122


def rng(salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(RNG_SEED + salt)


U32_EDGES = [0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 0xFF, 0xFFFF, 0x10000, 0x12345678, 0x7FFFFFFE,
             0x7FFFFFFF, 0x80000000, 0x80000001, 0xDEADBEEF, 0xFFFFFFFE, 0xFFFFFFFF]
U64_EDGES = [0, 1, 2, 3, 31, 32, 63, 64, 65, 0xFFFFFFFF, 0x100000000, 0x123456789ABCDEF0,
             0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0x8000000000000001, 0xFFFFFFFF00000000,
             0xFFFFFFFFFFFFFFFE, 0xFFFFFFFFFFFFFFFF]
U16_EDGES = [0, 1, 2, 7, 15, 16, 17, 0xFF, 0x100, 0x1234, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF]
U8_EDGES = [0, 1, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x55]

F32_EDGES = [
    0x00000000, 0x80000000,  # +-0
    0x00000001, 0x80000001, 0x007FFFFF, 0x00400000,  # denormals
    0x00800000, 0x80800000,  # smallest normals
    0x3F800000, 0xBF800000, 0x3F000000, 0x3FC00000, 0x40400000, 0x3EAAAAAB,  # 1 -1 .5 1.5 3 1/3
    0x40490FDB, 0x4B800001, 0x4B7FFFFF, 0x3F800001,  # pi, 2^24+2, 2^24-1, 1+ulp
    0x33800000, 0x34000000, 0x3F7FFFFF, 0x3FBFFFFF,  # 2^-24 2^-23 (rounding ties), 1-ulp/2, ~1.5
    0x7F7FFFFF, 0xFF7FFFFF,  # +-max
    0x7F800000, 0xFF800000,  # +-inf
    0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001, 0x7FA00000,  # qNaN, -qNaN, payload, sNaNs
    0xC0A00000, 0x4E800000, 0xCF000000, 0x4F800000,  # -5, 2^30, -2^31, 2^32
]
F64_EDGES = [
    0x0000000000000000, 0x8000000000000000,
    0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x8000000000000001,
    0x0010000000000000,
    0x3FF0000000000000, 0xBFF0000000000000, 0x3FE0000000000000, 0x3FF8000000000000,
    0x4008000000000000, 0x3FD5555555555555, 0x400921FB54442D18, 0x3FF0000000000001,
    0x4340000000000001, 0x433FFFFFFFFFFFFF, 0x3CA0000000000000, 0x3FEFFFFFFFFFFFFF,
    0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
    0x7FF0000000000000, 0xFFF0000000000000,
    0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000012345, 0x7FF0000000000001,
    0xC014000000000000, 0x41E0000000000000, 0xC1E0000000000000, 0x43E0000000000000,
]
F16_EDGES = [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3800, 0x3E00, 0x4200,
             0x3555, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7D55, 0x7C01, 0x5640, 0x1400]
BF16_EDGES = [0x0000, 0x8000, 0x0001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3F00, 0x3FC0, 0x4040,
              0x3EAB, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FC5, 0x7F81, 0x4049, 0x3F81]

EDGES = {
    "u8": U8_EDGES, "u16": U16_EDGES, "u32": U32_EDGES, "u64": U64_EDGES,
    "f16": F16_EDGES, "bf16": BF16_EDGES, "f32": F32_EDGES, "f64": F64_EDGES,
}
_DT = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
       "f16": np.uint16, "bf16": np.uint16, "f32": np.uint32, "f64": np.uint64}
_INT_OF = {"s8": "u8", "s16": "u16", "s32": "u32", "s64": "u64", "b8": "u8", "b16": "u16",
           "b32": "u32", "b64": "u64"}


def _base(ty: str) -> str:
    return _INT_OF.get(ty, ty)


def random_bits(ty: str, n: int, salt: int = 0) -> np.ndarray:
    dt = _DT[_base(ty)]
    info = np.iinfo(dt)
    return rng(salt).integers(0, int(info.max), size=n, dtype=dt, endpoint=True)


def random_floats(ty: str, n: int, lo: float, hi: float, salt: int = 0) -> np.ndarray:
    """Random finite floats in [lo, hi) as bit patterns of ty (f32/f64/f16)."""
    vals = rng(salt).uniform(lo, hi, size=n)
    npt = {"f32": np.float32, "f64": np.float64, "f16": np.float16}[ty]
    with np.errstate(over="ignore"):  # out-of-range values become infinities, which are wanted edges
        return vals.astype(npt).view(_DT[ty])


def edges(ty: str) -> np.ndarray:
    return np.array(EDGES[_base(ty)], dtype=_DT[_base(ty)])


def unary(ty: str, n_random: int = 32, salt: int = 0) -> np.ndarray:
    """Edge values followed by random bit patterns."""
    return np.concatenate([edges(ty), random_bits(ty, n_random, salt)])


def pairs(ty_a: str, ty_b: str | None = None, n_random: int = 64, salt: int = 0,
          b_values: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cross product of edge values (a major) plus random pairs."""
    ea = edges(ty_a)
    eb = edges(ty_b or ty_a) if b_values is None else np.asarray(b_values)
    a = np.repeat(ea, len(eb))
    b = np.tile(eb, len(ea))
    ra = random_bits(ty_a, n_random, salt)
    rb = random_bits(ty_b or ty_a, n_random, salt + 1) if b_values is None else \
        rng(salt + 1).choice(eb, n_random)
    return np.concatenate([a, ra]), np.concatenate([b, rb.astype(eb.dtype)])


def triples(ty: str, n: int = 400, salt: int = 0, mix_edges: bool = True) -> tuple[np.ndarray, ...]:
    """n triples drawn from edge values (mostly) and random bits, deterministic."""
    g = rng(salt)
    e = edges(ty)
    out = []
    for k in range(3):
        pick_edge = g.random(n) < (0.75 if mix_edges else 0.0)
        vals = np.where(pick_edge, g.choice(e, n), random_bits(ty, n, salt + 10 + k))
        out.append(vals.astype(e.dtype))
    return tuple(out)
