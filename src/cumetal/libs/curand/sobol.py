"""Sobol sequences as cuRAND generates them (SOBOL32, SOBOL64): Joe and Kuo's direction numbers
("new-joe-kuo-6.21201", S. Joe and F. Y. Kuo, SIAM J. Sci. Comput. 30, 2008; published with a
BSD-style licence), Gray-code order, dimension 0 the van der Corput sequence. Point i of dimension d
is the XOR of the direction numbers v[d][k] over the set bits k of gray(i) = i ^ (i >> 1).

``data/joe_kuo_6.npz`` holds the first 20,000 dimensions' primitive polynomials and initial
direction numbers (``python -m cumetal.libs.curand.sobol --regenerate`` derives it from SciPy's copy
of the same published table).
"""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np

DATA = pathlib.Path(__file__).with_name("data") / "joe_kuo_6.npz"
MAX_DIMENSIONS = 20000


@functools.cache
def _table() -> tuple[np.ndarray, np.ndarray]:
    d = np.load(DATA)
    return d["poly"].astype(np.int64), d["minit"].astype(np.int64)


@functools.lru_cache(maxsize=4)
def direction_vectors(dims: int, bits: int = 32) -> np.ndarray:
    """(dims, bits) direction numbers v[d][k] as uint32 (bits=32) or uint64 (bits=64)."""
    poly, minit = _table()
    out = np.zeros((dims, bits), np.uint64 if bits == 64 else np.uint32)
    for d in range(dims):
        if d == 0:
            v = [1 << (bits - 1 - k) for k in range(bits)]
        else:
            p = int(poly[d])
            s = p.bit_length() - 1                     # degree
            a = (p >> 1) & ((1 << (s - 1)) - 1) if s > 1 else 0  # inner coefficients a_1 .. a_{s-1}
            m = [int(x) for x in minit[d][:s]]
            v = [0] * bits
            for k in range(min(s, bits)):
                v[k] = m[k] << (bits - 1 - k)
            for k in range(s, bits):
                x = v[k - s] ^ (v[k - s] >> s)
                for i in range(1, s):
                    if (a >> (s - 1 - i)) & 1:
                        x ^= v[k - i]
                v[k] = x
        out[d] = v
    return out


def points(dim_vectors: np.ndarray, start: int, n: int) -> np.ndarray:
    """Points start .. start + n - 1 of one dimension (its direction numbers given)."""
    i = np.arange(start, start + n, dtype=np.uint64)
    gray = i ^ (i >> np.uint64(1))
    x = np.zeros(n, dim_vectors.dtype)
    for k in range(dim_vectors.shape[0]):
        x ^= np.where((gray >> np.uint64(k)) & np.uint64(1) == 1, dim_vectors[k], dim_vectors.dtype.type(0))
    return x


def _regenerate() -> None:
    import os  # noqa: PLC0415

    import scipy.stats  # noqa: PLC0415

    src = np.load(os.path.join(os.path.dirname(scipy.stats.__file__), "_sobol_direction_numbers.npz"))
    DATA.parent.mkdir(exist_ok=True)
    np.savez_compressed(DATA, poly=src["poly"][:MAX_DIMENSIONS].astype(np.uint32),
                        minit=src["vinit"][:MAX_DIMENSIONS].astype(np.uint32))


if __name__ == "__main__":
    if "--regenerate" in sys.argv:
        _regenerate()
