"""MT19937 as cuRAND's host generator lays it out (CURAND_RNG_PSEUDO_MT19937).

Matsumoto and Nishimura's Mersenne Twister (init_genrand seeding, tempering), run as 8192
generators of 8 threads each, all read off H100 recordings (scripts/make_curand_mt19937_sobol.py,
docs/libraries.md):

* generator 0 is ``init_genrand(seed & 0xffffffff)``; generator s is generator 0 advanced by
  ``s · 2^2048`` outputs (a jump by the polynomial x^(s·2^2048) mod the characteristic polynomial,
  evaluated with Horner's rule and a 7-bit sliding window, as in Haramoto et al., "Efficient jump
  ahead for F2-linear random number generators", 2008);
* outputs come in chunks of 65,536 = 8192 generators × 8 threads: output ``I`` is word
  ``624·m + WORD[c][j]`` of generator ``s``, for ``I = (78·m + c)·65536 + 8·s + j``: each 624-word
  block of a generator fills 78 chunks (``WORD`` below).

``data/mt19937_jumps.npz`` holds the characteristic polynomial (found by Berlekamp-Massey on the
sequence) and x^(2^k) mod it for k = 2048 … 2060; ``python -m cumetal.libs.curand.mt19937
--regenerate`` recomputes them (a few minutes in pure Python).
"""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np

from cumetal.libs.curand import fast

DATA = pathlib.Path(__file__).with_name("data") / "mt19937_jumps.npz"
N, M, MATRIX_A, UPPER, LOWER = 624, 397, np.uint32(0x9908B0DF), np.uint32(0x80000000), np.uint32(0x7FFFFFFF)
DEGREE = 19937
GENERATORS, THREADS, CHUNK = 8192, 8, 65536
CHUNKS_PER_BLOCK = 78
JUMP_LOG2, JUMP_LEVELS = 2048, 13           # generator s starts s * 2^2048 outputs along
WINDOW = 7
JUMP_BATCH = 512

_HEADS = (0, 113, 170, 283, 340, 397, 510, 567)
_RUNS = (1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568)
# WORD[c][j]: the word of a 624-word block that chunk c (of 78) holds in thread column j
WORD = np.array([list(_HEADS)] + [[_RUNS[(c - 1) // 7] + 7 * j + (c - 1) % 7 for j in range(THREADS)]
                                  for c in range(1, CHUNKS_PER_BLOCK)], dtype=np.int64)


def init_genrand(seed: int) -> np.ndarray:
    mt = np.zeros(N, np.uint32)
    x = seed & 0xFFFFFFFF
    for i in range(N):
        mt[i] = x
        x = (1812433253 * (x ^ (x >> 30)) + i + 1) & 0xFFFFFFFF
    return mt


def temper(y: np.ndarray) -> np.ndarray:
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


def _steps(mt: np.ndarray, ptr: int, k: int) -> int:
    """k words of the recurrence at once for a batch of states (rows) sharing ``ptr``; returns the
    new ptr. Every word read is one not yet rewritten in the block as long as k <= N - M (the
    farthest operand, ptr + j + M, stays ahead of the writes), so one gather/scatter is exact."""
    i = (ptr + np.arange(k)) % N
    y = (mt[:, i] & UPPER) | (mt[:, (i + 1) % N] & LOWER)
    mt[:, i] = mt[:, (i + M) % N] ^ (y >> np.uint32(1)) ^ np.where(y & np.uint32(1), MATRIX_A, np.uint32(0))
    return (ptr + k) % N


def _run(mt: np.ndarray, ptr: int, k: int) -> int:
    while k > 0:
        b = min(k, N - M)
        ptr = _steps(mt, ptr, b)
        k -= b
    return ptr


def _add(dst: np.ndarray, dptr: int, src: np.ndarray, sptr: int) -> None:
    """dst += src as states (logical word i of each is at (ptr + i) % N)."""
    shift = (dptr - sptr) % N
    if shift == 0:
        dst ^= src
    else:
        dst[:, shift:] ^= src[:, : N - shift]
        dst[:, :shift] ^= src[:, N - shift:]


@functools.lru_cache(maxsize=16)
def jump_schedule(poly: int) -> tuple[tuple[tuple[int, int], ...], int]:
    """Horner's rule for poly(F) with a WINDOW-bit sliding window, as runs of steps between additions:
    ((steps, table digit or -1 for the states), ...) and the steps after the last addition."""
    schedule: list[tuple[int, int]] = []
    steps = 0
    i = poly.bit_length() - 1
    while i >= WINDOW:
        if (poly >> i) & 1:
            schedule.append((steps + WINDOW + 1, (poly >> (i - WINDOW)) & ((1 << WINDOW) - 1)))
            steps = 0
            i -= WINDOW + 1
        else:
            steps += 1
            i -= 1
    while i >= 0:
        steps += 1
        if (poly >> i) & 1:
            schedule.append((steps, -1))
            steps = 0
        i -= 1
    return tuple(schedule), steps


def jump(states: np.ndarray, poly: int) -> np.ndarray:
    """poly(F) applied to every row of ``states`` (ptr 0), F the one-word transition; result ptr 0:
    in C (:mod:`cumetal.libs.curand.fast`, one state at a time) or :func:`jump_numpy`."""
    if fast.on():
        schedule, tail = jump_schedule(poly)
        return fast.mt_jump(states, list(schedule), tail)
    return np.concatenate([jump_numpy(states[i:i + JUMP_BATCH], poly) for i in range(0, len(states), JUMP_BATCH)]
                          or [states.copy()])


def jump_numpy(states: np.ndarray, poly: int) -> np.ndarray:
    """:func:`jump` in numpy for a batch of states (the window table holds 2^WINDOW states per row)."""
    batch = states.shape[0]
    # table[d] = (x^WINDOW + d(x))(F) states for the WINDOW-bit digits d (all with ptr WINDOW)
    powers = [states.copy()]
    for k in range(WINDOW):
        nxt = powers[-1].copy()
        _steps(nxt, k, 1)
        powers.append(nxt)          # powers[k] = F^k(states), ptr k
    table = np.empty((1 << WINDOW, batch, N), np.uint32)
    for d in range(1 << WINDOW):
        acc = powers[WINDOW].copy()
        for b in range(WINDOW):     # bit b of the digit is the coefficient of x^b
            if (d >> b) & 1:
                _add(acc, WINDOW, powers[b], b)
        table[d] = acc
    schedule, steps = jump_schedule(poly)
    acc = np.zeros_like(states)
    ptr = 0
    for k, digit in schedule:
        ptr = _run(acc, ptr, k)
        if digit < 0:
            _add(acc, ptr, states, 0)
        else:
            _add(acc, ptr, table[digit], WINDOW)
    ptr = _run(acc, ptr, steps)
    return np.roll(acc, -ptr, axis=1)


@functools.cache
def _jumps() -> list[int]:
    d = np.load(DATA)
    return [int.from_bytes(np.asarray(row).tobytes(), "little") for row in d["jumps"]]


_STATES: dict[int, np.ndarray] = {}  # seed -> the generators' states computed so far (2 seeds kept)


def generator_states(seed: int, count: int = GENERATORS) -> np.ndarray:
    """(count, 624) initial states: generator s = generator 0 jumped s·2^2048 outputs (doubling:
    generators [2^k, 2^(k+1)) are generators [0, 2^k) jumped 2^(2048+k)). Kept per seed and
    extended on demand (count generators cost count - 1 jumps, in batches)."""
    states = _STATES.pop(seed, None)
    if states is None:
        states = init_genrand(seed)[None, :].copy()
    while states.shape[0] < count:
        have = states.shape[0]
        level = have.bit_length() - 1          # generator s in [2^level, 2^(level+1)) is s - 2^level
        top = min(count, 2 << level)           # jumped 2^(2048+level)
        src = states[have - (1 << level): top - (1 << level)]
        states = np.concatenate([states, jump(src, _jumps()[level])])
    while len(_STATES) >= 2:
        _STATES.pop(next(iter(_STATES)))
    _STATES[seed] = states
    return states[:count]


def host_u32(seed: int, offset: int, n: int) -> np.ndarray:
    """Outputs offset … offset + n - 1 of the host generator."""
    return outputs_at(seed, np.arange(offset, offset + n, dtype=np.int64))


def outputs_at(seed: int, idx: np.ndarray) -> np.ndarray:
    """The host generator's outputs at the given indices."""
    idx = np.asarray(idx, np.int64)
    if idx.size == 0:
        return np.zeros(0, np.uint32)
    chunk, within = idx // CHUNK, idx % CHUNK
    gen, col = within // THREADS, within % THREADS
    block, c = chunk // CHUNKS_PER_BLOCK, chunk % CHUNKS_PER_BLOCK
    word = N * block + WORD[c, col]
    states = generator_states(seed & 0xFFFFFFFF, int(gen.max()) + 1)
    length = int(word.max()) + 1
    if fast.on() and states.shape[0] * length <= 4 * idx.size + (1 << 22):  # every stream at once, in C
        return fast.mt_outputs(states, length)[gen, word]
    out = np.empty(idx.size, np.uint32)
    bitgen = np.random.MT19937()
    order = np.argsort(gen, kind="stable")  # group the outputs by generator
    gens, starts = np.unique(gen[order], return_index=True)
    for s, sel in zip(gens, np.split(order, starts[1:]), strict=True):
        bitgen.state = {"bit_generator": "MT19937", "state": {"key": states[s], "pos": N}}
        stream = bitgen.random_raw(int(word[sel].max()) + 1).astype(np.uint32)
        out[sel] = stream[word[sel]]
    return out


# -- table generation -------------------------------------------------------------------------

def _berlekamp_massey(bits: np.ndarray) -> int:
    """The characteristic polynomial (bit i = coefficient of x^i) of a binary sequence."""
    c, b, length, m, window = 1, 1, 0, 1, 0
    for n, bit in enumerate(bits.tolist()):
        window = (window << 1) | bit
        if (c & window).bit_count() & 1:
            t = c
            c ^= b << m
            if 2 * length <= n:
                length, b, m = n + 1 - length, t, 1
                continue
        m += 1
    return sum(1 << (length - i) for i in range(length + 1) if (c >> i) & 1)


def _regenerate() -> None:
    bg = np.random.MT19937()
    bg.state = {"bit_generator": "MT19937", "state": {"key": init_genrand(5489), "pos": N}}
    seq = bg.random_raw(2 * DEGREE + 64).astype(np.uint32)
    p = _berlekamp_massey((seq & 1).astype(np.uint8))
    if p.bit_length() - 1 != DEGREE:
        raise SystemExit(f"characteristic polynomial of degree {p.bit_length() - 1}, expected {DEGREE}")

    def reduce(a: int) -> int:
        while a.bit_length() > DEGREE:
            a ^= p << (a.bit_length() - 1 - DEGREE)
        return a

    r, jumps = 2, []
    for k in range(1, JUMP_LOG2 + JUMP_LEVELS):
        sq = int(bin(r)[2:].replace("", "0")[:-1] or "0", 2)  # squaring over GF(2) spreads the bits
        r = reduce(sq)
        if k >= JUMP_LOG2:
            jumps.append(r)
    nbytes = (DEGREE + 7) // 8
    rows = np.array([list(j.to_bytes(nbytes, "little")) for j in jumps], np.uint8)
    np.savez_compressed(DATA, jumps=rows, charpoly=np.frombuffer(p.to_bytes(nbytes + 1, "little"), np.uint8))


if __name__ == "__main__":
    if "--regenerate" in sys.argv:
        _regenerate()
