"""Raw 32-bit output streams of cuRAND's host generators, in the order NVIDIA's host API writes
them (default/legacy/best ordering, recorded on an H100):

* XORWOW: 4096 subsequences (curand_init(seed, s, 0) for s < 4096); 32-bit output g is position
  g // 4096 of subsequence g % 4096; a two-word item (double, normal pair) i takes positions
  2 (i // 4096) and 2 (i // 4096) + 1 of subsequence i % 4096.
* Philox4_32_10: 32-bit output g is word g % 4 of the Philox block with counter (0, g // 4) — the
  block index sits where curand_init puts the subsequence; two-word item i takes outputs 2i, 2i+1.
"""

from __future__ import annotations

import functools

import numpy as np

from cumetal.libs.curand import fast, philox, xorwow

XORWOW_SUBSEQUENCES = 4096


def _bits_of(v: list[int]) -> np.ndarray:
    return np.array([(v[i // 32] >> (i % 32)) & 1 for i in range(160)], np.uint8)


def _matrix_of_poly(q: int) -> np.ndarray:
    """The 160x160 GF(2) matrix of q(M) (column i = q(M) e_i)."""
    cols = []
    for i in range(160):
        e = [0] * 5
        e[i // 32] = 1 << (i % 32)
        cols.append(_bits_of(xorwow.apply_poly(q, e)))
    return np.stack(cols, axis=1)


def _gf2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.astype(np.int32) @ b.astype(np.int32) & 1).astype(np.uint8)


@functools.cache
def _subsequence_powers() -> tuple[np.ndarray, ...]:
    """M^(2^67 * 2^j) for j = 0..11 as GF(2) matrices."""
    mats = [_matrix_of_poly(xorwow.JUMP_SUBSEQUENCE)]
    for _ in range(11):
        mats.append(_gf2(mats[-1], mats[-1]))
    return tuple(mats)


def _words(bits: np.ndarray) -> np.ndarray:
    """(160, T) bits -> (T, 5) uint32 words."""
    w = bits.reshape(5, 32, -1).astype(np.uint64)
    shifts = (np.uint64(1) << np.arange(32, dtype=np.uint64))[None, :, None]
    return (w * shifts).sum(axis=1).T.astype(np.uint32)


@functools.lru_cache(maxsize=8)
def xorwow_base_states(seed: int) -> np.ndarray:
    """(4096, 5) states of curand_init(seed, s, 0), s < 4096, by doubling with GF(2) matrices."""
    v, _d = xorwow.seed_state(seed)
    block = _bits_of(v)[:, None]
    for mat in _subsequence_powers():
        block = np.concatenate([block, _gf2(mat, block)], axis=1)
    return _words(block)


def xorwow_positions(seed: int, first: int, count: int) -> np.ndarray:
    """(count, 4096) outputs at positions first .. first + count - 1 of every subsequence."""
    states = xorwow_base_states(seed)
    _v, d0 = xorwow.seed_state(seed)
    if first:
        mat = _matrix_of_poly(xorwow.poly_pow(first))
        bits = np.unpackbits(np.ascontiguousarray(states).view(np.uint8).reshape(-1, 20), axis=1, bitorder="little").T
        states = _words(_gf2(mat, bits))
    d = np.full(XORWOW_SUBSEQUENCES, (d0 + xorwow.WEYL * first) & xorwow.M32, np.uint32)
    out, _, _ = xorwow.generate_many(states, d, count)
    return out


def xorwow_u32(seed: int, start: int, n: int) -> np.ndarray:
    if n <= 0:
        return np.zeros(0, np.uint32)
    first, last = start // XORWOW_SUBSEQUENCES, (start + n - 1) // XORWOW_SUBSEQUENCES
    flat = xorwow_positions(seed, first, last - first + 1).reshape(-1)
    lo = start - first * XORWOW_SUBSEQUENCES
    return flat[lo:lo + n]


def xorwow_items(seed: int, start: int, n: int, width: int) -> np.ndarray:
    """Items of ``width`` words (2: a double or a float normal pair, 4: a double normal pair):
    item i takes positions width * (i // 4096) .. + width - 1 of subsequence i % 4096."""
    if n <= 0:
        return np.zeros((0, width), np.uint32)
    first, last = start // XORWOW_SUBSEQUENCES, (start + n - 1) // XORWOW_SUBSEQUENCES
    raw = xorwow_positions(seed, width * first, width * (last - first + 1))       # (positions, 4096)
    items = raw.reshape(last - first + 1, width, XORWOW_SUBSEQUENCES).transpose(0, 2, 1).reshape(-1, width)
    lo = start - first * XORWOW_SUBSEQUENCES
    return items[lo:lo + n]


def philox_u32(seed: int, start: int, n: int) -> np.ndarray:
    if n <= 0:
        return np.zeros(0, np.uint32)
    b0, b1 = start // 4, (start + n - 1) // 4
    blocks = philox.blocks(seed, np.zeros(b1 - b0 + 1, np.uint64), np.arange(b0, b1 + 1, dtype=np.uint64))
    flat = blocks.reshape(-1)
    return flat[start - 4 * b0: start - 4 * b0 + n]


def philox_words_pairs(seed: int, start: int, n: int) -> np.ndarray:
    """Float normal pairs: pair p is 32-bit outputs 2p, 2p + 1 of the stream above."""
    return philox_u32(seed, 2 * start, 2 * n).reshape(-1, 2)


def philox_double_items(seed: int, start: int, n: int, width: int) -> np.ndarray:
    """Double items: each subsequence s gives two blocks (counters 0 and 1). width 2 (uniform
    doubles): item i is words 2 (i % 2), +1 of block (i // 2) % 2 of subsequence i // 4; width 4
    (double normal pairs): pair p is block p % 2 of subsequence p // 2."""
    per_block = 4 // width
    b0, b1 = start // per_block, (start + n - 1) // per_block if n > 0 else start // per_block - 1
    block = np.arange(b0, b1 + 1, dtype=np.uint64)  # each block once: item i is words width*i.. of the run
    words = philox.blocks(seed, block % np.uint64(2), block // np.uint64(2)).reshape(-1, width)
    return words[start - per_block * b0: start - per_block * b0 + n]


# MRG32k3a: LEGACY ordering uses 4096 subsequences like XORWOW; the default (= BEST = DYNAMIC on the
# H100) uses more: the 70,000 recorded outputs are the first values of subsequences 0 .. 69,999, so
# output g is position g // T of subsequence g % T with T >= 70,000; CuMetal takes T = 2^17.
MRG_LEGACY_SUBSEQUENCES = 4096
MRG_DEFAULT_SUBSEQUENCES = 1 << 17


@functools.lru_cache(maxsize=8)
def _mrg_base_states(seed: int, count: int) -> np.ndarray:
    """(count, 6) states of curand_init(seed, s, 0) for s < count (int64: s1[3], s2[3])."""
    from cumetal.libs.curand import mrg32k3a as R  # noqa: PLC0415

    s1, s2 = R.init(seed)
    j1 = R.mat_pow(R.A1, 1 << R.SUBSEQUENCE_LOG2, R.M1)
    j2 = R.mat_pow(R.A2, 1 << R.SUBSEQUENCE_LOG2, R.M2)
    if fast.on():  # the same chain in C (cumetal.libs.curand.fast)
        return fast.mrg_chain(s1 + s2, j1, j2, count)
    out = np.empty((count, 6), np.int64)
    for s in range(count):
        out[s, :3], out[s, 3:] = s1, s2
        s1, s2 = R.mat_vec(j1, s1, R.M1), R.mat_vec(j2, s2, R.M2)
    return out


def mrg_positions(seed: int, first: int, count: int, subsequences: int) -> np.ndarray:
    """(count, subsequences) values in (0, m1] (float64) at positions first .. first + count - 1."""
    from cumetal.libs.curand import mrg32k3a as R  # noqa: PLC0415

    st = _mrg_base_states(seed, subsequences)
    if fast.on():  # the same loops in C (cumetal.libs.curand.fast)
        if first:
            return fast.mrg_positions(st, R.mat_pow(R.A1, first, R.M1), R.mat_pow(R.A2, first, R.M2), count)
        return fast.mrg_positions(st, None, None, count)
    return mrg_positions_numpy(st, first, count, subsequences)


def mrg_positions_numpy(st: np.ndarray, first: int, count: int, subsequences: int) -> np.ndarray:
    """:func:`mrg_positions` from the subsequences' base states in numpy (no C compiler)."""
    from cumetal.libs.curand import mrg32k3a as R  # noqa: PLC0415

    st = st.copy()
    if first:
        a1, a2 = R.mat_pow(R.A1, first, R.M1), R.mat_pow(R.A2, first, R.M2)
        for s in range(subsequences):
            st[s, :3] = R.mat_vec(a1, [int(v) for v in st[s, :3]], R.M1)
            st[s, 3:] = R.mat_vec(a2, [int(v) for v in st[s, 3:]], R.M2)
    s10, s11, s12, s20, s21, s22 = (st[:, i].copy() for i in range(6))
    out = np.empty((count, subsequences), np.float64)
    for i in range(count):
        p1 = (1403580 * s11 - 810728 * s10) % R.M1
        s10, s11, s12 = s11, s12, p1
        p2 = (527612 * s22 - 1370589 * s20) % R.M2
        s20, s21, s22 = s21, s22, p2
        p = p1 - p2
        out[i] = np.where(p <= 0, p + R.M1, p)
    return out


def mrg_values(seed: int, start: int, n: int, subsequences: int) -> np.ndarray:
    """32-bit-stream values start .. start + n - 1 (float64 in (0, m1])."""
    if n <= 0:
        return np.zeros(0, np.float64)
    first, last = start // subsequences, (start + n - 1) // subsequences
    flat = mrg_positions(seed, first, last - first + 1, subsequences).reshape(-1)
    lo = start - first * subsequences
    return flat[lo:lo + n]


def mrg_items(seed: int, start: int, n: int, width: int, subsequences: int) -> np.ndarray:
    """Two-word items (normal pairs): item i takes positions width * (i // T), +1 of subsequence i % T."""
    if n <= 0:
        return np.zeros((0, width), np.float64)
    first, last = start // subsequences, (start + n - 1) // subsequences
    raw = mrg_positions(seed, width * first, width * (last - first + 1), subsequences)
    items = raw.reshape(last - first + 1, width, subsequences).transpose(0, 2, 1).reshape(-1, width)
    lo = start - first * subsequences
    return items[lo:lo + n]
