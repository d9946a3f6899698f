"""MRG32k3a (P. L'Ecuyer, "Good parameters and implementations for combined multiple recursive
random number generators", Operations Research 47, 1999), seeded and jumped as cuRAND's curand_init:
both components start at 12345, a non-zero seed multiplies them (mod m) by the salted seed halves;
subsequence s starts s * 2^76 steps on; jumps are 3x3 matrix powers mod m. curand() scales the
double in (0, m1] by 2^32/m1 (rounded as cuRAND's constant) and truncates.
Bit-exact with cuRAND on an H100 (tests/libs/test_curand_reference.py)."""

from __future__ import annotations

import numpy as np

M1, M2 = 4294967087, 4294944443
A1 = ((0, 1, 0), (0, 0, 1), (-810728 % M1, 1403580, 0))
A2 = ((0, 1, 0), (0, 0, 1), (-1370589 % M2, 0, 527612))
NORM = 2.328306549295728e-10          # 1 / (m1 + 1), cuRAND's float scaling
BITS_NORM = 1.000000048662            # 2^32 / m1, cuRAND's integer scaling
SUBSEQUENCE_LOG2 = 76


def mat_mul(a: tuple, b: tuple, m: int) -> tuple:
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) % m for j in range(3)) for i in range(3))


def mat_pow(a: tuple, n: int, m: int) -> tuple:
    r = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    while n:
        if n & 1:
            r = mat_mul(r, a, m)
        a = mat_mul(a, a, m)
        n >>= 1
    return r


def mat_vec(a: tuple, v: list[int], m: int) -> list[int]:
    return [sum(a[i][k] * v[k] for k in range(3)) % m for i in range(3)]


def init(seed: int, subsequence: int = 0, offset: int = 0) -> tuple[list[int], list[int]]:
    s1, s2 = [12345] * 3, [12345] * 3
    if seed:
        x1 = (seed & 0xFFFFFFFF) ^ 0x55555555
        x2 = ((seed >> 32) ^ 0xAAAAAAAA) & 0xFFFFFFFF
        s1 = [x1 * s1[0] % M1, x2 * s1[1] % M1, x1 * s1[2] % M1]
        s2 = [x2 * s2[0] % M2, x1 * s2[1] % M2, x2 * s2[2] % M2]
    n = (subsequence << SUBSEQUENCE_LOG2) + offset
    if n:
        s1, s2 = mat_vec(mat_pow(A1, n, M1), s1, M1), mat_vec(mat_pow(A2, n, M2), s2, M2)
    return s1, s2


def raw(s1: list[int], s2: list[int], n: int) -> tuple[np.ndarray, list[int], list[int]]:
    """n values of the combined recurrence in (0, m1] (as float64, exact)."""
    out = np.empty(n, np.float64)
    for i in range(n):
        p1 = (1403580 * s1[1] - 810728 * s1[0]) % M1
        s1 = [s1[1], s1[2], p1]
        p2 = (527612 * s2[2] - 1370589 * s2[0]) % M2
        s2 = [s2[1], s2[2], p2]
        p = p1 - p2
        out[i] = p + M1 if p <= 0 else p
    return out, s1, s2


def to_u32(x: np.ndarray) -> np.ndarray:
    return (x * BITS_NORM).astype(np.uint32)
