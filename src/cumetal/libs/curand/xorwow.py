"""XORWOW (Marsaglia, "Xorshift RNGs", J. Stat. Soft. 2003: xorshift of five 32-bit words plus a
Weyl sequence d += 362437), seeded and jumped the way cuRAND's curand_init does: the 64-bit seed is
salted and spread over the five words and d; subsequence s starts s * 2^67 outputs further on and
``offset`` skips single outputs.

Jumps use the characteristic polynomial of the 160-bit linear state map (degree 160, found with
Berlekamp-Massey; the period 2^160 - 1 makes it primitive): M^n = (x^n mod P)(M), applied to a
state by Horner's rule with 160 steps of the map. The Weyl word d moves by 362437 * n mod 2^32,
which a subsequence jump (a multiple of 2^67) leaves unchanged. Bit-exact with cuRAND on an H100
(tests/libs/test_curand_reference.py).
"""

from __future__ import annotations

import numpy as np

M32 = 0xFFFFFFFF
WEYL = 362437
# characteristic polynomial of the linear map on (v0..v4) (bit i of the int = coefficient of x^i)
CHARPOLY = 0x100000F0E0F3C0035000621210861003000060001
DEGREE = 160
SUBSEQUENCE_LOG2 = 67


def seed_state(seed: int) -> tuple[list[int], int]:
    """(v[5], d) after curand_init's seeding (before any jump)."""
    s0 = (seed & M32) ^ 0xAAD26B49
    s1 = ((seed >> 32) & M32) ^ 0xF7DCEFDD
    t0 = (1099087573 * s0) & M32
    t1 = (2591861531 * s1) & M32
    v = [(123456789 + t0) & M32, 362436069 ^ t0, (521288629 + t1) & M32, 88675123 ^ t1, (5783321 + t0) & M32]
    return v, (6615241 + t1 + t0) & M32


def step_words(v: list[int]) -> list[int]:
    t = v[0] ^ (v[0] >> 2)
    return [v[1], v[2], v[3], v[4], (v[4] ^ ((v[4] << 4) & M32)) ^ (t ^ ((t << 1) & M32))]


def poly_mulmod(a: int, b: int, p: int = CHARPOLY) -> int:
    """a * b mod p over GF(2) (polynomials as ints)."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a >> DEGREE & 1:
            a ^= p
    return r


def poly_pow(exponent: int, base: int = 2) -> int:
    """base^exponent mod CHARPOLY (base 2 is the polynomial x)."""
    result, b = 1, base
    while exponent:
        if exponent & 1:
            result = poly_mulmod(result, b)
        b = poly_mulmod(b, b)
        exponent >>= 1
    return result


JUMP_SUBSEQUENCE = poly_pow(1 << SUBSEQUENCE_LOG2)  # x^(2^67) mod P


def apply_poly(q: int, v: list[int]) -> list[int]:
    """q(M) v: Horner's rule from the highest coefficient."""
    r = [0, 0, 0, 0, 0]
    for i in range(DEGREE - 1, -1, -1):
        r = step_words(r)
        if q >> i & 1:
            r = [a ^ b for a, b in zip(r, v, strict=True)]
    return r


def init(seed: int, subsequence: int = 0, offset: int = 0) -> tuple[list[int], int]:
    """The state curand_init(seed, subsequence, offset) makes: (v[5], d)."""
    v, d = seed_state(seed)
    if subsequence:
        v = apply_poly(poly_pow(subsequence, JUMP_SUBSEQUENCE), v)
    if offset:
        v = apply_poly(poly_pow(offset), v)
        d = (d + WEYL * offset) & M32
    return v, d


def generate(v: list[int], d: int, n: int) -> tuple[np.ndarray, list[int], int]:
    """n outputs from one state (sequential: for reference and short runs)."""
    out = np.empty(n, np.uint32)
    for i in range(n):
        v = step_words(v)
        d = (d + WEYL) & M32
        out[i] = (v[4] + d) & M32
    return out, v, d


def generate_many(states: np.ndarray, d: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` outputs from each of many states at once: states (T, 5) uint32, d (T,) → (n, T) outputs."""
    v = states.astype(np.uint32).copy()
    d = d.astype(np.uint32).copy()
    out = np.empty((n, v.shape[0]), np.uint32)
    for i in range(n):
        t = v[:, 0] ^ (v[:, 0] >> np.uint32(2))
        new = (v[:, 4] ^ (v[:, 4] << np.uint32(4))) ^ (t ^ (t << np.uint32(1)))
        v[:, :4] = v[:, 1:]
        v[:, 4] = new
        d += np.uint32(WEYL)
        out[i] = v[:, 4] + d
    return out, v, d
