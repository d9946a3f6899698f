"""NVIDIA's ``expf`` as an H100 (CUDA 13, default flags) returns it, bit for bit: the reference of the
library's ``expf`` (``src/cumetal/libdevice/src/expf_h100.h``, the same steps in CUDA C++) and of
cuRAND's host log-normals, which are expf of the float normals (issue #15).

The form (an accurate expf built on ``ex2.approx``; checked by ``scripts/make_expf_recordings.py``
against the GPU's expf on all 2^32 inputs: no difference):

1. t = sat(fma(x, C, 1/2)) with C = 0x3BBB989D (about log2(e)/252); sat clamps to [0, 1], NaN -> 0;
2. j = fma.rm(t, 252, 1.5 * 2^23 + 1): n = floor(252 t) + 1 in [1, 253] in the low bits of j,
   k = j - (1.5 * 2^23 + 127) = n - 127 in [-126, 126];
3. r = fma(x, L2E_LO, fma(x, L2E, -k)) with L2E = f32(log2 e), L2E_LO = f32(log2 e - L2E);
4. expf = ex2.approx.ftz(r) * 2^k (the bits n << 23), the product rounded to nearest.

The MUFU.EX2 steps are :func:`cumetal.ir.semantics.mufu.ex2_bits` (|r| < 2 here, so the ftz and the
non-ftz instruction agree).
"""

from __future__ import annotations

import numpy as np

from cumetal.ir.semantics import floats as F
from cumetal.ir.semantics.mufu import ex2_bits

SPLIT = 0x3BBB989D  # about log2(e)/252
L2E = 0x3FB8AA3B  # f32(log2 e)
L2E_LO = 0x32A57060  # f32(log2 e - L2E)
MAGIC = 0x4B400001  # 1.5 * 2^23 + 1
UNBIAS = 0xCB40007F  # -(1.5 * 2^23 + 127)
_U32 = np.uint32


def _full(shape: tuple[int, ...], bits: int) -> np.ndarray:
    return np.full(shape, bits, _U32)


def expf_bits(bits: np.ndarray) -> np.ndarray:
    """expf of float32 bit patterns (any shape), as the H100 returns it."""
    b = np.ascontiguousarray(bits, dtype=_U32)
    shape = b.shape
    b = b.reshape(-1)
    s = b.shape
    with np.errstate(all="ignore"):
        t = F.fma(b, _full(s, SPLIT), _full(s, 0x3F000000), "f32", "rn")
        tf = t.view(np.float32)
        t = np.where(tf > 0, np.where(tf < 1, tf, np.float32(1)), np.float32(0)).astype(np.float32).view(_U32)
        j = F.fma(t, _full(s, 0x437C0000), _full(s, MAGIC), "f32", "rm")  # 252
        k = F.fadd(j, _full(s, UNBIAS), "f32", "rn")
        r = F.fma(b, _full(s, L2E), k ^ _U32(0x80000000), "f32", "rn")
        r = F.fma(b, _full(s, L2E_LO), r, "f32", "rn")
        out = F.fmul(ex2_bits(r), (j << _U32(23)).astype(_U32), "f32", "rn")
    return np.asarray(out, dtype=_U32).reshape(shape)


def expf(x: np.ndarray) -> np.ndarray:
    """expf of float32 values, as the H100 returns it (float32 array)."""
    return expf_bits(np.asarray(x, dtype=np.float32).view(_U32)).view(np.float32)
