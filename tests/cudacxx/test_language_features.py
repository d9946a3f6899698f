"""CUDA C++ language features (kernels/features.cu) compiled by CuMetal's front end and run through
``cumetal.driver`` on the CPU backend; every result is checked against numpy / exact arithmetic."""

from __future__ import annotations

import ctypes
import math
import pathlib

import numpy as np
import pytest
from functional_harness import F32, I32, ok

from cumetal import driver as cu

FEATURES = pathlib.Path(__file__).with_name("kernels") / "features.cu"
RNG = np.random.default_rng(8)


@pytest.fixture
def mod(gpu):
    return gpu.load(FEATURES.read_text(), str(FEATURES))


def test_vector_add_grid_stride(gpu, mod):
    n = 3000
    a, b = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    d_a, d_b, d_c = gpu.to_device(a), gpu.to_device(b), gpu.zeros(n, np.float32)
    gpu.run(gpu.function(mod, "vector_add"), (4,), (128,), [(d_a, None), (d_b, None), (d_c, None), (n, I32)])
    assert np.array_equal(gpu.from_device(d_c, n, np.float32), a + b)


def test_template_kernels_by_mangled_name(gpu, mod):
    n = 300
    x = RNG.standard_normal(n).astype(np.float32)
    d_x, d_y = gpu.to_device(x), gpu.zeros(n, np.float32)
    fn = gpu.function(mod, "_Z11scale_clampIfLi3EEvPKT_PS0_iS0_S0_")  # scale_clamp<float, 3>
    gpu.run(fn, (3,), (128,), [(d_x, None), (d_y, None), (n, I32), (-2.0, F32), (2.5, F32)])
    assert np.array_equal(gpu.from_device(d_y, n, np.float32), np.clip(x * np.float32(3), -2, 2.5))
    xi = RNG.integers(-1000, 1000, n).astype(np.int32)
    d_xi, d_yi = gpu.to_device(xi), gpu.zeros(n, np.int32)
    fn = gpu.function(mod, "_Z11scale_clampIiLin2EEvPKT_PS0_iS0_S0_")  # scale_clamp<int, -2>
    gpu.run(fn, (3,), (128,), [(d_xi, None), (d_yi, None), (n, I32), (-500, I32), (700, I32)])
    assert np.array_equal(gpu.from_device(d_yi, n, np.int32), np.clip(xi * -2, -500, 700))


def test_lambdas(gpu, mod):
    n = 1000
    x = RNG.integers(-10**6, 10**6, n).astype(np.int32)
    d_x, d_y = gpu.to_device(x), gpu.zeros(n, np.int32)
    gpu.run(gpu.function(mod, "lambdas"), (2,), (64,), [(d_x, None), (d_y, None), (n, I32), (7, I32)])
    assert np.array_equal(gpu.from_device(d_y, n, np.int32), x * 7 + 1)


def test_cxx17_structured_bindings_if_constexpr(gpu, mod):
    n = 100
    pairs = np.zeros(n, dtype=[("a", np.int32), ("b", np.float32)])
    pairs["a"] = RNG.integers(-50, 50, n)
    pairs["b"] = RNG.standard_normal(n).astype(np.float32)
    d_p, d_y = gpu.to_device(pairs), gpu.zeros(n, np.float32)
    gpu.run(gpu.function(mod, "cxx17"), (1,), (128,), [(d_p, None), (d_y, None), (n, I32)])
    # a * b + 8 is contracted to one fma (nvcc's and clang's default -fmad=true): a single rounding
    expect = (pairs["a"].astype(np.float64) * pairs["b"].astype(np.float64) + 8).astype(np.float32)
    assert np.array_equal(gpu.from_device(d_y, n, np.float32), expect)


def test_static_and_dynamic_shared_memory(gpu, mod):
    x = np.arange(512, dtype=np.int32) * 3
    d_x, d_y = gpu.to_device(x), gpu.zeros(512, np.int32)
    gpu.run(gpu.function(mod, "reverse_static"), (4,), (128,), [(d_x, None), (d_y, None)])
    assert np.array_equal(gpu.from_device(d_y, 512, np.int32), x.reshape(4, 128)[:, ::-1].ravel())
    v = RNG.integers(-100, 100, 4 * 64).astype(np.float32)  # small integers: the sum is exact
    d_v, d_s = gpu.to_device(v), gpu.zeros(4, np.float32)
    gpu.run(gpu.function(mod, "block_sum_dynamic"), (4,), (64,), [(d_v, None), (d_s, None)], shared=64 * 4)
    assert np.array_equal(gpu.from_device(d_s, 4, np.float32), v.reshape(4, 64).sum(axis=1))


def test_constant_and_device_globals(gpu, mod):
    dptr, size = ok(cu.cuModuleGetGlobal(mod, b"poly"))
    assert size == 16
    assert np.array_equal(gpu.from_device(dptr, 4, np.float32), np.array([1, -2, 0.5, 0.25], np.float32))
    n = 200
    x = RNG.standard_normal(n).astype(np.float32)
    d_x, d_y = gpu.to_device(x), gpu.zeros(n, np.float32)
    gpu.run(gpu.function(mod, "horner"), (2,), (128,), [(d_x, None), (d_y, None), (n, I32)])
    expect = np.zeros(n, np.float32)
    for c in (0.25, 0.5, -2.0, 1.0):  # Horner in float32, in the kernel's order (with fma contraction
        expect = np.float32(expect) * x + np.float32(c)  # the kernel may fuse; allow 1 ulp)
    got = gpu.from_device(d_y, n, np.float32)
    assert np.allclose(got, expect, rtol=4e-7, atol=1e-6)
    counter, _ = ok(cu.cuModuleGetGlobal(mod, b"calls_made"))
    assert gpu.from_device(counter, 1, np.int32)[0] == n


def test_forceinline_noinline_and_recursion(gpu, mod):
    n = 256
    a = RNG.integers(1, 10**9, n).astype(np.uint32)
    b = RNG.integers(0, 10**6, n).astype(np.uint32)
    d_a, d_b, d_y = gpu.to_device(a), gpu.to_device(b), gpu.zeros(n, np.uint32)
    gpu.run(gpu.function(mod, "device_functions"), (2,), (128,), [(d_a, None), (d_b, None), (d_y, None), (n, I32)])
    mix = [((int(v) ^ (int(v) >> 7)) * 0x9E3779B1) & 0xFFFFFFFF for v in a]
    expect = [(math.gcd(int(x), int(y)) + m) & 0xFFFFFFFF for x, y, m in zip(a, b, mix, strict=True)]
    assert gpu.from_device(d_y, n, np.uint32).tolist() == expect


def test_inline_ptx_asm(gpu, mod):
    n = 40
    a = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    d_a, d_y = gpu.to_device(a), gpu.zeros(3 * n, np.uint32)
    gpu.run(gpu.function(mod, "inline_asm"), (1,), (64,), [(d_a, None), (d_y, None), (n, I32)])
    got = gpu.from_device(d_y, 3 * n, np.uint32).reshape(n, 3)
    assert got[:, 0].tolist() == [int(f"{int(v):032b}"[::-1], 2) for v in a]
    assert got[:, 1].tolist() == [i % 32 for i in range(n)]
    assert got[:, 2].tolist() == [(int(v) * int(v)) >> 32 for v in a]


def test_function_pointers_and_virtual_functions(gpu, mod):
    n = 64
    x = RNG.standard_normal(n).astype(np.float32)
    d_x, d_y = gpu.to_device(x), gpu.zeros(2 * n, np.float32)
    gpu.run(gpu.function(mod, "dispatch"), (1,), (64,), [(d_x, None), (d_y, None), (n, I32)])
    got = gpu.from_device(d_y, 2 * n, np.float32).reshape(n, 2)
    odd = np.arange(n) & 1
    assert np.array_equal(got[:, 0], np.where(odd, -x, np.float32(2) * x))
    assert np.array_equal(got[:, 1], np.where(odd, x * np.float32(3), x * x))


def test_int64_and_cstdint(gpu, mod):
    n = 100
    a = RNG.integers(-2**62, 2**62, n, dtype=np.int64)
    d_a, d_y = gpu.to_device(a), gpu.zeros(n, np.uint64)
    gpu.run(gpu.function(mod, "int64_mix"), (1,), (128,), [(d_a, None), (d_y, None), (n, I32)])
    m = 2**64
    expect = [((int(v) * 6364136223846793005) % m + ((int(v) >> 3) % m)) % m for v in a]
    assert gpu.from_device(d_y, n, np.uint64).tolist() == expect


def test_launch_bounds_is_recorded_in_ptx():
    from cudacxx_harness import ptx_of

    ptx = ptx_of(FEATURES.read_text(), str(FEATURES))
    entry = ptx.split(".entry reverse_static(")[1].split("{")[0]
    assert ".maxntid 128" in entry


del ctypes


def test_dense_switch(gpu, mod):
    table = [17, -4, 99, 5, 123, -77, 8, 1000]
    x = np.arange(-3, 12, dtype=np.int32)
    d_x, d_y = gpu.to_device(x), gpu.zeros(x.size, np.int32)
    gpu.run(gpu.function(mod, "dense_switch"), (1,), (32,), [(d_x, None), (d_y, None), (x.size, I32)])
    assert gpu.from_device(d_y, x.size, np.int32).tolist() == [table[v] if 0 <= v < 8 else 2 * v for v in x]


def test_type_punning_through_word_stores(gpu, mod):
    words = np.array([1, 2, 3, 0, 0x89ABCDEF, 0x01234567], np.uint32)
    d_w, d_out = gpu.to_device(words), gpu.zeros(2, np.int64)
    gpu.run(gpu.function(mod, "type_punning"), (1,), (1,), [(d_w, None), (d_out, None)])
    assert gpu.from_device(d_out, 2, np.int64).tolist() == [0x0123456789ABCDEF, 3]
