"""Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3", SC'11),
vectorised in numpy, with cuRAND's use of it: key = the 64-bit seed, counter = (n, subsequence) as a
128-bit integer whose low 64 bits count blocks of four outputs and whose high 64 bits are the
subsequence; ``offset`` skips single outputs. Bit-exact with curand_init/curand on an H100
(tests/libs/test_curand_reference.py)."""

from __future__ import annotations

import numpy as np

M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
MASK = np.uint64(0xFFFFFFFF)


def blocks(seed: int, counters_lo: np.ndarray, subsequence: np.ndarray | int) -> np.ndarray:
    """Philox4x32-10 of the counters ``(lo64, hi64 = subsequence)``: an (n, 4) uint32 array."""
    lo = np.asarray(counters_lo, np.uint64)
    hi = np.broadcast_to(np.asarray(subsequence, np.uint64), lo.shape)
    c0, c1 = (lo & MASK), (lo >> np.uint64(32))
    c2, c3 = (hi & MASK), (hi >> np.uint64(32))
    k0, k1 = np.uint32(seed & 0xFFFFFFFF), np.uint32((seed >> 32) & 0xFFFFFFFF)
    for _ in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0)) & MASK, p1 & MASK, \
            ((p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1)) & MASK, p0 & MASK
        k0, k1 = np.uint32((int(k0) + int(W0)) & 0xFFFFFFFF), np.uint32((int(k1) + int(W1)) & 0xFFFFFFFF)
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def device_sequence(seed: int, subsequence: int, offset: int, n: int) -> np.ndarray:
    """What ``curand_init(seed, subsequence, offset, &s)`` followed by ``n`` calls of ``curand(&s)``
    returns for curandStatePhilox4_32_10_t."""
    first, skip = offset // 4, offset % 4
    count = (skip + n + 3) // 4
    out = blocks(seed, np.arange(first, first + count, dtype=np.uint64), subsequence).reshape(-1)
    return out[skip:skip + n]
