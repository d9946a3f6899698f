"""Sobol sequences as cuRAND generates them (SOBOL32, SOBOL64): Joe and Kuo's direction numbers
("new-joe-kuo-6.21201", S. Joe and F. Y. Kuo, SIAM J. Sci. Comput. 30, 2008; published with a
BSD-style licence), Gray-code order, dimension 0 the van der Corput sequence. Point i of dimension d
is the XOR of the direction numbers v[d][k] over the set bits k of gray(i) = i ^ (i >> 1).

``data/joe_kuo_6.npz`` holds the first 20,000 dimensions' primitive polynomials and initial
direction numbers (``python -m cumetal.libs.curand.sobol --regenerate`` derives it from SciPy's copy
of the same published table).

Scrambled Sobol (SCRAMBLED_SOBOL32/64) is Matoušek's linear matrix scrambling plus a digital
shift, as cuRAND applies it: dimension d's direction numbers are L_d · v[d][k] over GF(2), with L_d
a random unit lower-triangular 64×64 bit matrix, and every point is XORed with the dimension's
scramble constant. The matrices and constants are NVIDIA's random draws (no formula gives them):
``data/sobol_scrambled.npz`` holds the 20,000 matrices' strictly-lower bits (2016 per dimension)
and the 64-bit constants, derived by ``python -m cumetal.libs.curand.sobol --regenerate-scrambled
FILE`` from the tables cuRAND returns (``curandGetDirectionVectors64(...SCRAMBLED_64_JOEKUO6)``,
``curandGetScrambleConstants64``) as recorded by ``scripts/make_curand_mt19937_sobol.py`` on an
H100. The 32-bit vectors and constants are the top halves of the 64-bit ones (checked there for
all 20,000 dimensions).
"""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np

DATA = pathlib.Path(__file__).with_name("data") / "joe_kuo_6.npz"
SCRAMBLED_DATA = DATA.with_name("sobol_scrambled.npz")
MAX_DIMENSIONS = 20000


@functools.cache
def _table() -> tuple[np.ndarray, np.ndarray]:
    d = np.load(DATA)
    return d["poly"].astype(np.int64), d["minit"].astype(np.int64)


@functools.lru_cache(maxsize=4)
def direction_vectors(dims: int, bits: int = 32) -> np.ndarray:
    """(dims, bits) direction numbers v[d][k] as uint32 (bits=32) or uint64 (bits=64). Joe and Kuo's
    recurrence v[k] = v[k-s] ^ (v[k-s] >> s) ^ XOR of a_i v[k-i], run for all dimensions of one
    degree s at once (a dimension at a time took 3 s for the 20,000 that curandGetDirectionVectors
    returns)."""
    poly, minit = _table()
    dt = np.uint64 if bits == 64 else np.uint32
    out = np.zeros((dims, bits), np.uint64)
    out[0] = [1 << (bits - 1 - k) for k in range(bits)]
    degree = np.array([int(p).bit_length() - 1 for p in poly[:dims]], np.int64)
    for s in np.unique(degree[1:]):
        s = int(s)
        rows = np.flatnonzero(degree == s)
        rows = rows[rows > 0]
        a = (poly[rows] >> 1) & ((1 << (s - 1)) - 1) if s > 1 else np.zeros(len(rows), np.int64)
        v = np.zeros((len(rows), bits), np.uint64)
        for k in range(min(s, bits)):
            v[:, k] = minit[rows, k].astype(np.uint64) << np.uint64(bits - 1 - k)
        for k in range(s, bits):
            x = v[:, k - s] ^ (v[:, k - s] >> np.uint64(s))
            for i in range(1, s):
                x ^= np.where((a >> (s - 1 - i)) & 1 == 1, v[:, k - i], np.uint64(0))
            v[:, k] = x
        out[rows] = v
    return out.astype(dt)


_BELOW_DIAGONAL = np.arange(64)[None, :] > np.arange(64)[:, None]  # [column j, bit b from the top]


@functools.cache
def _scrambled_table() -> tuple[np.ndarray, np.ndarray]:
    d = np.load(SCRAMBLED_DATA)
    return d["lbits"], d["scramble64"]


def _columns(lbits: np.ndarray) -> np.ndarray:
    """(dims, 64) uint64 columns c_j of the unit lower-triangular matrices (c_j's top bit is 63 - j).
    ``lbits`` holds, column after column, the 63 - j bits below the diagonal of column j."""
    flat = np.unpackbits(lbits, axis=1)
    out = np.zeros((lbits.shape[0], 64), np.uint64)
    col = np.zeros((lbits.shape[0], 64), np.uint8)
    start = 0
    for j in range(64):
        col[:] = 0
        col[:, j] = 1
        col[:, j + 1:] = flat[:, start:start + 63 - j]
        start += 63 - j
        out[:, j] = np.packbits(col, axis=1).view(">u8")[:, 0]
    return out


def _pack_columns(cols: np.ndarray) -> np.ndarray:
    bits = np.unpackbits(cols.astype(">u8").view(np.uint8).reshape(cols.shape[0], 64, 8), axis=2)
    return np.packbits(bits[:, _BELOW_DIAGONAL], axis=1)


@functools.lru_cache(maxsize=4)
def scrambled_direction_vectors(dims: int, bits: int = 32) -> np.ndarray:
    """cuRAND's scrambled direction numbers: column k of dimension d is L_d · v[d][k]."""
    lbits, _ = _scrambled_table()
    cols = _columns(lbits[:dims])
    v = direction_vectors(dims, 64)
    out = np.zeros((dims, 64), np.uint64)
    for j in range(64):  # bit 63 - j of v selects column j of L
        sel = (v >> np.uint64(63 - j)) & np.uint64(1)
        out ^= np.where(sel == 1, cols[:, j : j + 1], np.uint64(0))
    return out if bits == 64 else (out[:, :32] >> np.uint64(32)).astype(np.uint32)


def scramble_constants(dims: int, bits: int = 32) -> np.ndarray:
    """The digital shift XORed into every point of each dimension."""
    k = _scrambled_table()[1][:dims]
    return k if bits == 64 else (k >> np.uint64(32)).astype(np.uint32)


def points(dim_vectors: np.ndarray, start: int, n: int) -> np.ndarray:
    """Points start .. start + n - 1 of one dimension (its direction numbers given), or of several
    dimensions at once (``dim_vectors`` of shape (dims, bits) gives (dims, n))."""
    i = np.arange(start, start + n, dtype=np.uint64)
    gray = i ^ (i >> np.uint64(1))
    vectors = np.atleast_2d(dim_vectors)
    x = np.zeros((vectors.shape[0], n), vectors.dtype)
    for k in range(vectors.shape[1]):
        bit = ((gray >> np.uint64(k)) & np.uint64(1)) == 1
        if bit.any():
            x ^= np.where(bit[None, :], vectors[:, k:k + 1], vectors.dtype.type(0))
    return x if dim_vectors.ndim == 2 else x[0]


def _regenerate() -> None:
    import os  # noqa: PLC0415

    import scipy.stats  # noqa: PLC0415

    src = np.load(os.path.join(os.path.dirname(scipy.stats.__file__), "_sobol_direction_numbers.npz"))
    DATA.parent.mkdir(exist_ok=True)
    np.savez_compressed(DATA, poly=src["poly"][:MAX_DIMENSIONS].astype(np.uint32),
                        minit=src["vinit"][:MAX_DIMENSIONS].astype(np.uint32))


def _regenerate_scrambled(recorded: str) -> None:
    """Solve S_d = L_d V_d for L_d, column by column (V_d is unit upper-triangular), and store it."""
    d = np.load(recorded)
    s, consts = d["dirvec64s"], d["scramble64"]
    v = direction_vectors(s.shape[0], 64)
    cols = np.zeros_like(s)
    for k in range(64):
        c = s[:, k].copy()
        for i in range(k):
            c ^= np.where((v[:, k] >> np.uint64(63 - i)) & np.uint64(1) == 1, cols[:, i], np.uint64(0))
        cols[:, k] = c
    unit = cols >> (np.uint64(63) - np.arange(64, dtype=np.uint64)) == 1
    if not unit.all():
        raise SystemExit("the recorded vectors are not a unit lower-triangular scrambling of Joe-Kuo's")
    np.savez_compressed(SCRAMBLED_DATA, lbits=_pack_columns(cols), scramble64=consts.astype(np.uint64))
    _scrambled_table.cache_clear()
    scrambled_direction_vectors.cache_clear()
    if not np.array_equal(scrambled_direction_vectors(s.shape[0], 64), s):
        raise SystemExit("round trip of the scrambled direction vectors failed")


if __name__ == "__main__":
    if "--regenerate" in sys.argv:
        _regenerate()
    if "--regenerate-scrambled" in sys.argv:
        _regenerate_scrambled(sys.argv[sys.argv.index("--regenerate-scrambled") + 1])
