"""mma.h (nvcuda::wmma) on the CPU backend: small-integer matrices, so every tensor-core
accumulation model gives the exact numpy product; layouts, shapes and element types."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def g(gpu):
    gpu.load("wmma.cu")
    return gpu


CASES = [  # kernel, M, N, K, input dtype, accumulator dtype, a col-major, b col-major, c/d col-major
    ("f16_f32_16x16x16", 16, 16, 16, np.float16, np.float32, False, True, False),
    ("f16_f32_16x16x16_cr", 16, 16, 16, np.float16, np.float32, True, False, True),
    ("f16_f16_32x8x16", 32, 8, 16, np.float16, np.float16, False, True, False),
    ("f16_f32_8x32x16", 8, 32, 16, np.float16, np.float32, False, True, False),
    ("bf16_f32_16x16x16", 16, 16, 16, "bf16", np.float32, False, True, False),
    ("tf32_f32_16x16x8", 16, 16, 8, np.float32, np.float32, False, True, False),
    ("s8_s32_16x16x16", 16, 16, 16, np.int8, np.int32, False, True, False),
    ("u8_s32_16x16x16", 16, 16, 16, np.uint8, np.int32, False, True, False),
    ("f64_8x8x4", 8, 8, 4, np.float64, np.float64, False, True, False),
]


def _encode(x: np.ndarray, dtype) -> np.ndarray:
    if dtype == "bf16":
        return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return x.astype(dtype)


@pytest.mark.parametrize("name, m, n, k, tin, tacc, a_col, b_col, c_col", CASES)
def test_wmma_gemm(g, name, m, n, k, tin, tacc, a_col, b_col, c_col):
    rng = np.random.default_rng(len(name))
    lo = 0 if tin == np.uint8 else -3
    a = rng.integers(lo, 4, (m, k)).astype(np.float64)
    b = rng.integers(lo, 4, (k, n)).astype(np.float64)
    c = rng.integers(-8, 8, (m, n)).astype(np.float64)
    d_a = g.to_device(_encode(a.T if a_col else a, tin).ravel())
    d_b = g.to_device(_encode(b.T if b_col else b, tin).ravel())
    d_c = g.to_device((c.T if c_col else c).astype(tacc).ravel())
    d_d = g.to_device(np.zeros(m * n, tacc))
    g.run(name, (1,), (32,), [(d_a, None), (d_b, None), (d_c, None), (d_d, None)])
    got = g.from_device(d_d, np.zeros(m * n, tacc)).astype(np.float64)
    got = got.reshape(n, m).T if c_col else got.reshape(m, n)
    assert np.array_equal(got, 2 * (a @ b + c))
