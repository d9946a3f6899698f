"""cuBLAS's floating-point emulation controls (CUDA 13) through the C ABI's Python half: the
settings keep cuBLAS's documented defaults and reject bad values; the emulated compute types
(COMPUTE_32F_EMULATED_16BFX9, COMPUTE_64F_EMULATED_FIXEDPOINT) and math modes run natively — the
results equal the plain FP32 / FP64 GEMM's and numpy's — and the mantissa-bit-count pointer reads -1,
which is what cuBLAS writes when no emulated algorithm ran."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.libs.device_array import Dev

from cumetal.libs.cublas import capi
from cumetal.libs.cublas import status as S


@pytest.fixture
def h() -> int:
    out = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(out)) == 0
    yield out.value
    capi.destroy(out.value)


def _get(h: int, which: int) -> int:
    v = ctypes.c_int(-99)
    assert capi.get_emulation(h, which, ctypes.addressof(v)) == 0
    return v.value


def test_emulation_settings_defaults_and_validation(h: int) -> None:
    assert [_get(h, i) for i in range(5)] == [0, 0xFFFF, 0, 79, 0]  # the documented defaults
    p = ctypes.c_void_p(1)
    assert capi.get_emulation(h, 5, ctypes.addressof(p)) == 0 and p.value is None
    assert capi.set_mantissa_control(h, 1) == 0 and _get(h, 3) == 55  # FIXED: 55 bits unless set
    assert capi.set_max_mantissa_bits(h, 30) == 0 and _get(h, 3) == 30
    assert capi.set_emulation_strategy(h, 2) == 0 and _get(h, 0) == 2
    assert capi.set_emulation_special_values(h, 3) == 0 and _get(h, 1) == 3
    assert capi.set_mantissa_bit_offset(h, -4) == 0 and _get(h, 4) == -4
    for bad in (capi.set_emulation_strategy(h, 3), capi.set_mantissa_control(h, 2),
                capi.set_max_mantissa_bits(h, -1), capi.set_emulation_special_values(h, 0x10000),
                capi.get_emulation(h, 0, 0)):
        assert bad == S.INVALID_VALUE
    assert capi.set_emulation_strategy(0xDEAD0, 1) == S.NOT_INITIALIZED
    for mode in (S.FP32_EMULATED_BF16X9_MATH, S.FP64_EMULATED_FIXEDPOINT_MATH):
        assert capi.set_math_mode(h, mode) == 0
    assert capi.set_math_mode(h, 5) == S.INVALID_VALUE


@pytest.mark.parametrize("code,compute,dt", [(S.R_32F, S.COMPUTE_32F_EMULATED_16BFX9, np.float32),
                                             (S.R_64F, S.COMPUTE_64F_EMULATED_FIXEDPOINT, np.float64),
                                             (S.C_32F, S.COMPUTE_32F_EMULATED_16BFX9, np.complex64)])
def test_emulated_compute_types_run_natively(h: int, code: int, compute: int, dt: type) -> None:
    m, n, k = 7, 5, 9
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((m, k)).astype(dt), rng.standard_normal((k, n)).astype(dt)
    dA, dB = Dev(a), Dev(b)
    native = {np.float32: S.COMPUTE_32F, np.float64: S.COMPUTE_64F, np.complex64: S.COMPUTE_32F}[dt]
    outs = []
    bits = Dev(np.array([123], np.int32))
    assert capi.set_mantissa_bit_count_ptr(h, bits.ptr) == 0
    for comp in (compute, native):
        dC = Dev(np.full((m, n), np.nan, dt))
        al, be = np.ones(1, dt), np.zeros(1, dt)
        assert capi.gemm_ex(h, 0, 0, m, n, k, al.ctypes.data, dA.ptr, code, m, dB.ptr, code, k, be.ctypes.data,
                            dC.ptr, code, m, comp, -1) == 0
        outs.append(dC.get())
    assert np.array_equal(outs[0], outs[1])
    ref = a.astype(np.complex128) @ b
    tol = 1e-12 if dt == np.float64 else 1e-5
    np.testing.assert_allclose(outs[0], ref, rtol=tol, atol=tol)
    assert bits.get()[0] == (-1 if compute == S.COMPUTE_64F_EMULATED_FIXEDPOINT else 123)
    # the emulated types take only their FP32 / FP64 rows of GemmEx's table
    half = Dev(np.zeros((m, n), np.float16))
    assert capi.gemm_ex(h, 0, 0, m, n, k, al.ctypes.data, half.ptr, S.R_16F, m, half.ptr, S.R_16F, k,
                        be.ctypes.data, half.ptr, S.R_16F, m, compute, -1) == S.NOT_SUPPORTED


def test_cublaslt_emulation_descriptor() -> None:
    """cublasLtEmulationDesc*: documented defaults, settings kept, attached to an FP64 matmul that runs
    natively (the result is numpy's) and reports -1 through the bit-count pointer."""
    from cumetal.libs.cublas import lt_capi  # noqa: PLC0415

    def new(fn, *args: int) -> int:  # noqa: ANN001
        out = ctypes.c_void_p()
        assert fn(ctypes.addressof(out), *args) == 0
        return out.value

    e = new(lt_capi.emulation_desc_create)
    got = []
    for attr in range(5):
        v, w = ctypes.c_int32(-9), ctypes.c_size_t()
        assert lt_capi.obj_get(4, e, attr, ctypes.addressof(v), 4, ctypes.addressof(w)) == 0 and w.value == 4
        got.append(v.value)
    assert got == [0, 0xFFFF, 0, 0, 0]
    bits = Dev(np.array([123], np.int32))
    for attr, value in ((0, ctypes.c_int32(2)), (3, ctypes.c_int32(40)), (5, ctypes.c_uint64(bits.ptr))):
        assert lt_capi.obj_set(4, e, attr, ctypes.addressof(value), ctypes.sizeof(value)) == 0
    v = ctypes.c_int32()
    assert lt_capi.obj_get(4, e, 3, ctypes.addressof(v), 4, 0) == 0 and v.value == 40
    assert lt_capi.obj_set(4, e, 0, ctypes.addressof(v), 8) == S.INVALID_VALUE  # wrong size
    m, n, k = 6, 4, 5
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    dA, dB, dD = Dev(a), Dev(b), Dev(np.full((m, n), np.nan))
    h = new(lt_capi.create)
    desc = new(lt_capi.desc_create, S.COMPUTE_64F_EMULATED_FIXEDPOINT, S.R_64F)
    ev = ctypes.c_uint64(e)
    assert lt_capi.obj_set(0, desc, 38, ctypes.addressof(ev), 8) == 0
    la, lb, ld = (new(lt_capi.layout_create, S.R_64F, r, c, r) for r, c in ((m, k), (k, n), (m, n)))
    one, zero = ctypes.c_double(1.0), ctypes.c_double(0.0)
    assert lt_capi.matmul(h, desc, ctypes.addressof(one), dA.ptr, la, dB.ptr, lb, ctypes.addressof(zero), dD.ptr, ld,
                          dD.ptr, ld, 0) == 0
    np.testing.assert_allclose(dD.get(), a @ b, rtol=1e-13, atol=1e-13)
    assert bits.get()[0] == -1
    bad = ctypes.c_uint64(0xBAD0)
    assert lt_capi.obj_set(0, desc, 38, ctypes.addressof(bad), 8) == 0
    assert lt_capi.matmul(h, desc, ctypes.addressof(one), dA.ptr, la, dB.ptr, lb, ctypes.addressof(zero), dD.ptr, ld,
                          dD.ptr, ld, 0) == S.INVALID_VALUE
