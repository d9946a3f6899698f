"""Real compilers' tensor-core kernels run through CuMetal's driver API, checked against numpy.

nvcc's wmma kernels (tests/corpus/cuda/wmma_gemm.cu -> tests/corpus/ptx/nvcc/sm80/wmma_gemm.ptx) and
Triton's sm_80 matmul (ldmatrix + mma.sync m16n8k16 / m16n8k8 tf32; tests/corpus/python_kernels/
triton_kernels.py::matmul_kernel). Small-integer inputs make every product and sum exact, so the
result must equal numpy's bit for bit whatever the summation order; one run with uniform inputs
checks the accuracy bound of the tensor-core model (2**-22 relative to sum |a||b| + |c| per element).
"""

from __future__ import annotations

import ctypes
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("CUMETAL_BACKEND", "cpu")
cu = pytest.importorskip("cumetal.driver")

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "ptx"


def _ok(result):
    err, *values = result
    assert err == cu.CUresult.CUDA_SUCCESS, f"driver call failed: {err!r}"
    return values[0] if len(values) == 1 else tuple(values)


class _Gpu:
    def __init__(self) -> None:
        _ok(cu.cuInit(0))
        self.ctx = _ok(cu.cuCtxCreate(None, 0, _ok(cu.cuDeviceGet(0))))
        self.allocs: list = []

    def put(self, arr: np.ndarray):
        d = _ok(cu.cuMemAlloc(max(arr.nbytes, 1)))
        self.allocs.append(d)
        _ok(cu.cuMemcpyHtoD(d, np.ascontiguousarray(arr), arr.nbytes))
        return d

    def get(self, d, shape, dtype) -> np.ndarray:
        out = np.empty(shape, dtype)
        _ok(cu.cuMemcpyDtoH(out, d, out.nbytes))
        return out

    def run(self, ptx: Path, kernel: str, grid, block, args, shared: int = 0) -> None:
        mod = _ok(cu.cuModuleLoadData(ptx.read_bytes()))
        fn = _ok(cu.cuModuleGetFunction(mod, kernel.encode()))
        params = (tuple(a for a, _ in args), tuple(t for _, t in args))
        _ok(cu.cuLaunchKernel(fn, *grid, *block, shared, 0, params, 0))
        _ok(cu.cuCtxSynchronize())

    def close(self) -> None:
        for d in self.allocs:
            cu.cuMemFree(d)
        cu.cuCtxDestroy(self.ctx)


@pytest.fixture
def gpu():
    g = _Gpu()
    yield g
    g.close()


def _small_ints(shape, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-3, 4, shape).astype(np.float32)


WMMA = CORPUS / "nvcc" / "sm80" / "wmma_gemm.ptx"
GEMM = "_Z9wmma_gemmPK6__halfS1_Pfiii"


@pytest.mark.parametrize("inputs", ["ints", "uniform"])
def test_nvcc_wmma_gemm(gpu, inputs: str) -> None:
    m, n, k = 32, 48, 64  # 2 x 3 warps' tiles, 4 wmma.mma steps each
    if inputs == "ints":
        a, b = _small_ints((m, k), 1), _small_ints((n, k), 2)
    else:
        rng = np.random.default_rng(3)
        a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (n, k))
    a16, b16 = a.astype(np.float16), b.astype(np.float16)  # b is stored column-major: b16[col, k]
    d_a, d_b, d_c = gpu.put(a16), gpu.put(b16), gpu.put(np.zeros((m, n), np.float32))
    # warpM = global x thread / 32 covers m/16 tiles; warpN = blockIdx.y * blockDim.y + threadIdx.y
    gpu.run(WMMA, GEMM, (1, n // 16, 1), (32 * (m // 16), 1, 1),
            [(d_a, None), (d_b, None), (d_c, None), (m, ctypes.c_int), (n, ctypes.c_int), (k, ctypes.c_int)])
    got = gpu.get(d_c, (m, n), np.float32)
    exact = a16.astype(np.float64) @ b16.astype(np.float64).T * 0.5
    if inputs == "ints":
        assert np.array_equal(got, exact.astype(np.float32))
    else:
        bound = 2.0**-22 * (np.abs(a16.astype(np.float64)) @ np.abs(b16.astype(np.float64)).T)
        assert np.all(np.abs(got - exact) <= bound), float(np.max(np.abs(got - exact) - bound))


SHAPES = Path(__file__).with_name("data") / "wmma_shapes.ptx"  # nvcc -ptx -arch=sm_80 wmma_shapes.cu


def test_nvcc_wmma_m32n8k16_half_accumulator(gpu) -> None:
    a = _small_ints((32, 16), 4).astype(np.float16)
    b = _small_ints((16, 8), 5).astype(np.float16)
    d_a, d_b, d_d = gpu.put(a.T.copy()), gpu.put(b), gpu.put(np.zeros(32 * 8, np.float16))  # A column-major
    gpu.run(SHAPES, "_Z13m32n8k16_halfPK6__halfS1_PS_", (1, 1, 1), (32, 1, 1), [(d_a, None), (d_b, None), (d_d, None)])
    got = gpu.get(d_d, (8, 32), np.float16).T  # stored column-major
    assert np.array_equal(got, (a.astype(np.float32) @ b.astype(np.float32) + 1).astype(np.float16))


def test_nvcc_wmma_m8n32k16_float(gpu) -> None:
    a = _small_ints((8, 16), 9).astype(np.float16)
    b = _small_ints((16, 32), 10).astype(np.float16)
    c = _small_ints((8, 32), 11)
    d_a, d_b, d_c = gpu.put(a), gpu.put(b.T.copy()), gpu.put(c)  # B column-major
    d_d = gpu.put(np.zeros((8, 32), np.float32))
    gpu.run(SHAPES, "_Z14m8n32k16_floatPK6__halfS1_PKfPf", (1, 1, 1), (32, 1, 1),
            [(d_a, None), (d_b, None), (d_c, None), (d_d, None)])
    assert np.array_equal(gpu.get(d_d, (8, 32), np.float32), a.astype(np.float32) @ b.astype(np.float32) + c)


def test_nvcc_wmma_bf16_and_tf32(gpu) -> None:
    a, b = _small_ints((16, 16), 12), _small_ints((16, 16), 13)
    d_d = gpu.put(np.zeros((16, 16), np.float32))
    gpu.run(SHAPES, "_Z14m16n16k16_bf16PK13__nv_bfloat16S1_Pf", (1, 1, 1), (32, 1, 1),
            [(gpu.put(_bf16(a)), None), (gpu.put(_bf16(b)), None), (d_d, None)])
    assert np.array_equal(gpu.get(d_d, (16, 16), np.float32), a @ b)
    # tf32: inputs with low mantissa bits, which __float_to_tf32 (cvt.rna.tf32.f32) rounds away
    rng = np.random.default_rng(14)
    a8 = (_small_ints((16, 8), 15) * (1 + rng.integers(0, 2**10, (16, 8)) * 2.0**-23)).astype(np.float32)
    b8 = _small_ints((8, 16), 16)
    d_d = gpu.put(np.zeros((16, 16), np.float32))
    gpu.run(SHAPES, "_Z13m16n16k8_tf32PKfS0_Pf", (1, 1, 1), (32, 1, 1),
            [(gpu.put(a8), None), (gpu.put(b8.T.copy()), None), (d_d, None)])
    a_tf32 = ((a8.view(np.uint32) + 0x1000) & 0xFFFFE000).view(np.float32)  # round half away from zero
    assert np.array_equal(gpu.get(d_d, (16, 16), np.float32), a_tf32 @ b8)


def test_nvcc_wmma_f64(gpu) -> None:
    rng = np.random.default_rng(17)
    a, b, c = rng.uniform(-1, 1, (8, 4)), rng.uniform(-1, 1, (4, 8)), rng.uniform(-1, 1, (8, 8))
    d_d = gpu.put(np.zeros((8, 8)))
    gpu.run(SHAPES, "_Z13m8n8k4_doublePKdS0_S0_Pd", (1, 1, 1), (32, 1, 1),
            [(gpu.put(a), None), (gpu.put(b), None), (gpu.put(c), None), (d_d, None)])
    ref = c.copy()  # DMMA: IEEE fma in k order (the sweep's m8n8k4 goldens are bit-exact with this)
    for kk in range(4):
        ref = np.array([[_fma(a[i, kk], b[kk, j], ref[i, j]) for j in range(8)] for i in range(8)])
    assert np.array_equal(gpu.get(d_d, (8, 8), np.float64), ref)


def _fma(x: float, y: float, z: float) -> float:
    """Correctly rounded x*y+z (exact rationals; float() of a Fraction rounds to nearest even)."""
    return float(Fraction(x) * Fraction(y) + Fraction(z))


def test_nvcc_wmma_int8(gpu) -> None:
    rng = np.random.default_rng(6)
    a = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    b = rng.integers(-128, 128, (16, 16)).astype(np.int8)  # column-major: b[col, k]
    d_a, d_b, d_c = gpu.put(a), gpu.put(b), gpu.put(np.zeros((16, 16), np.int32))
    gpu.run(WMMA, "_Z9wmma_int8PKaS0_Pi", (1, 1, 1), (32, 1, 1), [(d_a, None), (d_b, None), (d_c, None)])
    assert np.array_equal(gpu.get(d_c, (16, 16), np.int32), a.astype(np.int32) @ b.astype(np.int32).T)


def _bf16(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)  # exact for small ints


@pytest.mark.parametrize("variant", ["matmul_bf16_small", "matmul_tf32"])
def test_triton_sm80_matmul(gpu, variant: str) -> None:
    """Triton's matmul_kernel (BM = BN = 64): ldmatrix from swizzled shared memory, then mma.sync."""
    m = n = 64
    k = 64  # two or four trips of Triton's k loop (BK = 32 / 16)
    a, b = _small_ints((m, k), 7), _small_ints((k, n), 8)
    if variant == "matmul_bf16_small":
        d_a, d_b = gpu.put(_bf16(a)), gpu.put(_bf16(b))
    else:
        d_a, d_b = gpu.put(a), gpu.put(b)
    d_c = gpu.put(np.zeros((m, n), np.float32))
    scratch = gpu.put(np.zeros(1024, np.uint8))
    gpu.run(CORPUS / "triton" / "sm80" / f"{variant}.ptx", "matmul_kernel", (1, 1, 1), (128, 1, 1),
            [(d_a, None), (d_b, None), (d_c, None), (m, ctypes.c_int), (n, ctypes.c_int), (k, ctypes.c_int),
             (scratch, None), (scratch, None)], shared=32768)
    assert np.array_equal(gpu.get(d_c, (m, n), np.float32), a @ b)
