"""Functional tests (spec §10.3): memory, arithmetic, indexing — numpy is the reference."""

from __future__ import annotations

import ctypes
import math
from fractions import Fraction

import numpy as np
from functional_harness import F32, F64, I32, ok

from cumetal import driver as cu

RNG = np.random.default_rng(1234)


def test_constant_and_device_globals(gpu):
    fn = gpu.kernel("memory", "scale_by_constant")
    mod = gpu.modules["memory"]
    coeffs = np.array([0.5, -1.0, 2.0, 4.0], np.float32)
    dptr, size = ok(cu.cuModuleGetGlobal(mod, b"coeffs"))
    assert size == 16
    ok(cu.cuMemcpyHtoD(dptr, coeffs, 16))
    n = 1000
    x = RNG.standard_normal(n).astype(np.float32)
    d_x, d_y = gpu.to_device(x), gpu.zeros(n, np.float32)
    gpu.run(fn, (4,), (256,), [(d_x, None), (d_y, None), (n, I32)])
    table = np.arange(1, 9, dtype=np.float32)
    idx = np.arange(n)
    assert np.array_equal(gpu.from_device(d_y, n, np.float32), x * coeffs[idx & 3] + table[idx & 7])


def test_device_counter_and_get_global(gpu):
    fn = gpu.kernel("memory", "count_threads")
    dptr, size = ok(cu.cuModuleGetGlobal(gpu.modules["memory"], b"device_counter"))
    assert size == 4
    gpu.run(fn, (7,), (128,), [(777, I32)])
    out = np.zeros(1, np.int32)
    ok(cu.cuMemcpyDtoH(out, dptr, 4))
    assert out[0] == 777


def test_local_memory_array(gpu):
    n = 300
    idx = RNG.integers(0, 1000, n).astype(np.int32)
    d_idx, d_out = gpu.to_device(idx), gpu.zeros(n, np.int32)
    gpu.run(gpu.kernel("memory", "local_array"), (3,), (128,), [(d_idx, None), (d_out, None), (n, I32)])
    assert np.array_equal(gpu.from_device(d_out, n, np.int32), np.arange(n) * 16 + (idx & 15))


def test_bytes_and_memset_and_dtod(gpu):
    n = 1001
    data = RNG.integers(0, 256, n).astype(np.uint8)
    d_in, d_out = gpu.to_device(data), gpu.zeros(n, np.uint8)
    gpu.run(gpu.kernel("memory", "copy_bytes"), (8,), (128,), [(d_in, None), (d_out, None), (n, I32)])
    assert np.array_equal(gpu.from_device(d_out, n, np.uint8), data ^ 0x5A)
    ok(cu.cuMemsetD8(d_out, 0x7F, n))
    assert (gpu.from_device(d_out, n, np.uint8) == 0x7F).all()
    ok(cu.cuMemsetD32(d_in, 0xDEADBEEF, n // 4))
    ok(cu.cuMemcpyDtoD(d_out, d_in, n))
    assert (gpu.from_device(d_out, n // 4, np.uint32) == 0xDEADBEEF).all()


def test_host_allocation_is_kernel_accessible(gpu):
    n = 256
    hp = ok(cu.cuMemAllocHost(n * 4))
    try:
        host = np.ctypeslib.as_array((ctypes.c_float * n).from_address(int(hp)))
        host[:] = np.arange(n, dtype=np.float32)
        d_y = gpu.to_device(np.ones(n, np.float32))
        gpu.run(gpu.kernel("arithmetic", "saxpy"), (1,), (256,), [(2.0, F32), (int(hp), None), (d_y, None), (n, I32)])
        assert np.array_equal(gpu.from_device(d_y, n, np.float32), 2.0 * np.arange(n, dtype=np.float32) + 1)
    finally:
        ok(cu.cuMemFreeHost(hp))


def test_saxpy_fp32(gpu):
    n = 5000
    x, y = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    d_x, d_y = gpu.to_device(x), gpu.to_device(y)
    gpu.run(gpu.kernel("arithmetic", "saxpy"), (20,), (256,), [(1.5, F32), (d_x, None), (d_y, None), (n, I32)])
    got = gpu.from_device(d_y, n, np.float32)
    # nvcc contracts a*x+y into fma.rn.f32: one rounding of the exact value (1.5*x is exact in f64)
    exact_fma = (np.float64(1.5) * x.astype(np.float64) + y).astype(np.float32)
    assert np.array_equal(got, exact_fma)


def test_fp64_math(gpu):
    n = 777
    x, y = RNG.standard_normal(n), RNG.standard_normal(n)
    d_x, d_y = gpu.to_device(x), gpu.to_device(y)
    gpu.run(gpu.kernel("arithmetic", "daxpy_sqrt"), (4,), (256,), [(-0.75, F64), (d_x, None), (d_y, None), (n, I32)])
    got = gpu.from_device(d_y, n, np.float64)
    # nvcc emits fma.rn, sqrt.rn, fma.rn and div.rn: each correctly rounded, so the reference is
    # exact rational arithmetic rounded once per operation (float(Fraction) rounds correctly).
    for i in range(n):
        t = abs(float(Fraction(x[i]) * Fraction(-0.75) + Fraction(y[i])))
        d = float(Fraction(x[i]) * Fraction(x[i]) + 1)
        assert got[i] == math.sqrt(t) / d, i


def test_half2_fma(gpu):
    n = 512
    a, b, c = (RNG.standard_normal(2 * n).astype(np.float16) for _ in range(3))
    d_a, d_b, d_c = gpu.to_device(a), gpu.to_device(b), gpu.to_device(c)
    gpu.run(gpu.kernel("arithmetic", "half2_fma"), (2,), (256,), [(d_a, None), (d_b, None), (d_c, None), (n, I32)])
    # fma rounded once to half: exact in f64 (11-bit significands), then round to f16
    expect = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float16)
    assert np.array_equal(gpu.from_device(d_c, 2 * n, np.float16).view(np.uint16), expect.view(np.uint16))


def test_integer_mix(gpu):
    n = 1024
    a = RNG.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = RNG.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b[::7] = 0
    b[1::11] = -1
    a[1::11] = np.iinfo(np.int32).min
    d_a, d_b, d_out = gpu.to_device(a), gpu.to_device(b), gpu.zeros(4 * n, np.int32)
    gpu.run(gpu.kernel("arithmetic", "int_mix"), (4,), (256,), [(d_a, None), (d_b, None), (d_out, None), (n, I32)])
    got = gpu.from_device(d_out, (n, 4), np.int32)
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        if y != 0:
            q = int(x / y) if not (x == -2**31 and y == -1) else x
            r = x - q * y if not (x == -2**31 and y == -1) else 0
        else:
            q = r = 0
        popc = bin(x & 0xFFFFFFFF).count("1")
        clz = 32 - (y & 0xFFFFFFFF).bit_length()
        shr = x >> (y & 31)
        mulhi = (x * y) >> 32
        brev = int(f"{x & 0xFFFFFFFF:032b}"[::-1], 2)
        expect = [q, r, popc + clz + shr, (mulhi ^ brev)]
        expect = [((e + 2**31) % 2**32) - 2**31 for e in expect]
        assert got[i].tolist() == expect, (i, x, y)


def test_float_to_int_saturates(gpu):
    vals = np.array([0.0, -0.0, 1.5, 2.5, -2.5, 3e9, -3e9, 4.5e9, np.inf, -np.inf, np.nan, 2147483520.0,
                     -2147483648.0, 0.49999997, 1e-40], np.float32)
    n = len(vals)
    d_in, d_i, d_u = gpu.to_device(vals), gpu.zeros(n, np.int32), gpu.zeros(n, np.uint32)
    gpu.run(gpu.kernel("arithmetic", "float_to_int"), (1,), (32,), [(d_in, None), (d_i, None), (d_u, None), (n, I32)])
    got_i, got_u = gpu.from_device(d_i, n, np.int32), gpu.from_device(d_u, n, np.uint32)
    with np.errstate(invalid="ignore"):
        exp_i = np.where(np.isnan(vals), 0, np.clip(np.trunc(vals.astype(np.float64)), -2**31, 2**31 - 1))
        exp_u = np.where(np.isnan(vals), 0, np.clip(np.rint(vals.astype(np.float64)), 0, 2**32 - 1))
    assert got_i.tolist() == exp_i.astype(np.int64).tolist()
    assert got_u.tolist() == exp_u.astype(np.int64).tolist()


def test_index_3d(gpu):
    grid, block = (3, 2, 2), (4, 3, 2)
    nthreads = np.prod(grid) * np.prod(block)
    d_out = gpu.zeros(4 * nthreads, np.uint32)
    gpu.run(gpu.kernel("indexing", "index3d"), grid, block, [(d_out, None)])
    got = gpu.from_device(d_out, (nthreads, 4), np.uint32)
    g = 0
    for bz in range(grid[2]):
        for by in range(grid[1]):
            for bx in range(grid[0]):
                for tz in range(block[2]):
                    for ty in range(block[1]):
                        for tx in range(block[0]):
                            assert got[g].tolist() == [tx | ty << 10 | tz << 20, bx | by << 10 | bz << 20,
                                                       4 | 3 << 10 | 2 << 20, 3 | 2 << 10 | 2 << 20]
                            g += 1


def test_transpose_2d(gpu):
    w, h = 37, 50
    a = RNG.standard_normal((h, w)).astype(np.float32)
    d_in, d_out = gpu.to_device(a), gpu.zeros(w * h, np.float32)
    gpu.run(gpu.kernel("indexing", "transpose2d"), ((w + 15) // 16, (h + 15) // 16), (16, 16),
            [(d_in, None), (d_out, None), (w, I32), (h, I32)])
    assert np.array_equal(gpu.from_device(d_out, (w, h), np.float32), a.T)
