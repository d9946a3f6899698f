"""cuBLAS's mixed-precision level-1 functions (cublasAxpyEx, DotEx, DotcEx, Nrm2Ex, AsumEx, ScalEx, RotEx,
RotmEx, IamaxEx, IaminEx, CopyEx, SwapEx, RotgEx, RotmgEx; the _64 forms) through ctypes, against
references computed here in float64/complex128 and rounded once to the output type (bfloat16 by a
nearest-even rounding written here from the format's definition)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.libs.cublas_abi import Host, fn
from tests.libs.test_cublas_numpy import Dev

from cumetal.libs.cublas import status as S

W = [False, True]
NP = {S.R_16F: np.float16, S.R_32F: np.float32, S.R_64F: np.float64, S.C_32F: np.complex64,
      S.C_64F: np.complex128, S.R_16BF: np.uint16}
ULP = {S.R_16F: 2.0 ** -10, S.R_16BF: 2.0 ** -7, S.R_32F: 2.0 ** -23, S.R_64F: 2.0 ** -52, S.C_32F: 2.0 ** -23,
       S.C_64F: 2.0 ** -52}
RNG = np.random.default_rng(17)


@pytest.fixture(scope="module")
def h() -> int:
    out = ctypes.c_void_p()
    assert fn("cublasCreate", "p")(ctypes.addressof(out)) == 0
    yield out.value
    assert fn("cublasDestroy", "p")(out.value) == 0


def to_bf16(values: np.ndarray) -> np.ndarray:
    """bfloat16 bits of float64 values: the nearer of the two bfloat16 neighbours, ties to the even one."""
    out = []
    for v in np.asarray(values, np.float64).ravel():
        hi = int(np.array([v], np.float32).view(np.uint32)[0]) >> 16  # truncation toward zero (magnitude)
        cands = [hi, hi + 1]
        vals = [float(np.array([c << 16], np.uint32).view(np.float32)[0]) for c in cands]
        d = [abs(x - v) for x in vals]
        out.append(cands[0] if d[0] < d[1] or (d[0] == d[1] and cands[0] % 2 == 0) else cands[1])
    return np.array(out, np.uint16)


def from_bf16(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, np.uint32) << 16).view(np.float32).astype(np.float64)


def stored(values: np.ndarray, code: int) -> np.ndarray:
    """values (float64/complex128) in storage type ``code``."""
    if code == S.R_16BF:
        return to_bf16(values)
    if code in (S.C_32F, S.C_64F):
        return np.asarray(values, NP[code])
    return np.asarray(np.real(values), NP[code])


def value(mem: np.ndarray, code: int) -> np.ndarray:
    return from_bf16(mem) if code == S.R_16BF else np.asarray(mem).astype(np.complex128 if code in (S.C_32F, S.C_64F)
                                                                            else np.float64)


def data(n: int, code: int) -> np.ndarray:
    v = RNG.standard_normal(n) + (1j * RNG.standard_normal(n) if code in (S.C_32F, S.C_64F) else 0)
    return value(stored(v, code), code)  # representable in the type


def check(got: np.ndarray, ref: np.ndarray, code: int, ulps: float = 4) -> None:
    tol = ulps * ULP[code] * max(1.0, float(np.max(np.abs(ref))) if np.size(ref) else 1.0)
    np.testing.assert_allclose(value(got, code), ref, rtol=0, atol=tol)


@pytest.mark.parametrize("at,xt,yt,et", [(S.R_32F, S.R_16F, S.R_16F, S.R_32F), (S.R_32F, S.R_16BF, S.R_16BF, S.R_32F),
                                         (S.R_64F, S.R_64F, S.R_64F, S.R_64F), (S.C_32F, S.C_32F, S.C_32F, S.C_32F)])
@pytest.mark.parametrize("wide", W)
def test_axpy_scal_ex(h: int, at: int, xt: int, yt: int, et: int, wide: bool) -> None:
    n, hs = 9, Host()
    x, y = data(n, xt), data(n, yt)
    alpha = 1.5 - (0.5j if at in (S.C_32F, S.C_64F) else 0)
    dx, dy = Dev(stored(x, xt)), Dev(stored(y, yt))
    assert fn("cublasAxpyEx", "pnpepenpene", wide, v2=False)(
        h, n, hs.ptr(alpha, NP[at]), at, dx.ptr, xt, 1, dy.ptr, yt, 1, et) == 0
    check(dy.get(), alpha * x + y, yt)
    dz = Dev(stored(x, xt))
    assert fn("cublasScalEx", "pnpepene", wide, v2=False)(h, n, hs.ptr(-2.0, NP[S.R_32F if at != S.R_64F else at]),
                                                          S.R_32F if at != S.R_64F else at, dz.ptr, xt, 1, et) == 0
    check(dz.get(), -2.0 * x, xt)


@pytest.mark.parametrize("xt,rt,et", [(S.R_16F, S.R_16F, S.R_32F), (S.R_16BF, S.R_32F, S.R_32F),
                                      (S.C_32F, S.C_32F, S.C_32F), (S.C_64F, S.C_64F, S.C_64F)])
@pytest.mark.parametrize("wide", W)
def test_dot_nrm2_asum_ex(h: int, xt: int, rt: int, et: int, wide: bool) -> None:
    n, hs = 12, Host()
    x, y = data(n, xt), data(n, xt)
    dx, dy = Dev(stored(x, xt)), Dev(stored(y, xt))
    for name, ref in (("cublasDotEx", x @ y), ("cublasDotcEx", np.vdot(x, y))):
        r = hs.ptr(0, NP[rt])
        assert fn(name, "pnpenpenpee", wide, v2=False)(h, n, dx.ptr, xt, 1, dy.ptr, xt, 1, r, rt, et) == 0
        check(hs.get(r), [ref], rt, 4 * n)
    real_r = {S.C_32F: S.R_32F, S.C_64F: S.R_64F}.get(rt, rt)
    real_e = {S.C_32F: S.R_32F, S.C_64F: S.R_64F}.get(et, et)  # complex x, real execution and result
    for name, ref in (("cublasNrm2Ex", np.linalg.norm(x)), ("cublasAsumEx", np.abs(x.real).sum() +
                                                             np.abs(x.imag).sum())):
        r = hs.ptr(0, NP[real_r])
        assert fn(name, "pnpenpee", wide, v2=False)(h, n, dx.ptr, xt, 1, r, real_r, real_e) == 0
        check(hs.get(r), [ref], real_r, 4 * n)


@pytest.mark.parametrize("wide", W)
def test_rot_rotm_ex(h: int, wide: bool) -> None:
    n, hs = 7, Host()
    for xt, cst, et in ((S.R_16F, S.R_32F, S.R_32F), (S.C_64F, S.C_64F, S.C_64F), (S.C_32F, S.R_32F, S.C_32F)):
        x, y = data(n, xt), data(n, xt)
        dx, dy = Dev(stored(x, xt)), Dev(stored(y, xt))
        c, s = 0.6, (0.48 + 0.64j if cst == S.C_64F else 0.8)
        creal = S.R_64F if cst == S.C_64F else cst
        assert fn("cublasRotEx", "pnpenpenppee", wide, v2=False)(h, n, dx.ptr, xt, 1, dy.ptr, xt, 1,
                                                                 hs.ptr(c, NP[creal]), hs.ptr(s, NP[cst]), cst,
                                                                 et) == 0
        check(dx.get(), c * x + s * y, xt)
        check(dy.get(), c * y - np.conj(s) * x, xt)
    x, y = data(n, S.R_16BF), data(n, S.R_16BF)
    dx, dy = Dev(stored(x, S.R_16BF)), Dev(stored(y, S.R_16BF))
    p = [-1.0, 0.5, -0.25, 0.75, 1.5]  # flag -1: H = [[h11, h12], [h21, h22]]
    assert fn("cublasRotmEx", "pnpenpenpee", wide, v2=False)(h, n, dx.ptr, S.R_16BF, 1, dy.ptr, S.R_16BF, -1,
                                                             hs.ptr(p, np.float32), S.R_32F, S.R_32F) == 0
    yr = y[::-1]  # incy = -1
    check(dx.get(), 0.5 * x + 0.75 * yr, S.R_16BF)
    check(dy.get()[::-1], -0.25 * x + 1.5 * yr, S.R_16BF)


@pytest.mark.parametrize("wide", W)
def test_iamax_copy_swap_ex(h: int, wide: bool) -> None:
    n, hs = 10, Host()
    x = data(n, S.R_16F)
    dx = Dev(stored(x, S.R_16F))
    for name, want in (("cublasIamaxEx", np.argmax(np.abs(x)) + 1), ("cublasIaminEx", np.argmin(np.abs(x)) + 1)):
        r = hs.ptr(0x5555555555555555, np.int64)
        assert fn(name, "pnpenp", wide, v2=False)(h, n, dx.ptr, S.R_16F, 1, r) == 0
        got = int(hs.get(r)[0])
        assert (got if wide else got & 0xFFFFFFFF) == want
    b = stored(data(n, S.R_16BF), S.R_16BF)
    d1, d2 = Dev(b), Dev(np.zeros(n, np.uint16))
    assert fn("cublasCopyEx", "pnpenpen", wide, v2=False)(h, n, d1.ptr, S.R_16BF, 1, d2.ptr, S.R_16BF, 1) == 0
    np.testing.assert_array_equal(d2.get(), b)
    d3 = Dev(np.arange(n, dtype=np.uint16))
    assert fn("cublasSwapEx", "pnpenpen", wide, v2=False)(h, n, d2.ptr, S.R_16BF, 1, d3.ptr, S.R_16BF, 1) == 0
    np.testing.assert_array_equal(d3.get(), b)
    np.testing.assert_array_equal(d2.get(), np.arange(n, dtype=np.uint16))
    assert fn("cublasCopyEx", "pnpenpen", wide, v2=False)(h, n, d1.ptr, S.R_16BF, 1, d2.ptr, S.R_16F, 1) == \
        S.NOT_SUPPORTED  # different types


def test_rotg_rotmg_ex_match_the_typed_functions(h: int) -> None:
    hs = Host()
    for code, letter in ((S.R_32F, "S"), (S.C_64F, "Z")):
        cells = []
        for name in ("ex", "typed"):
            a, b = hs.ptr(3 - (1j if code == S.C_64F else 0), NP[code]), hs.ptr(4 + 0.5j if code == S.C_64F else 4,
                                                                              NP[code])
            c, s = hs.ptr(0, np.float64 if code == S.C_64F else np.float32), hs.ptr(0, NP[code])
            if name == "ex":
                assert fn("cublasRotgEx", "pppeppee", v2=False)(h, a, b, code, c, s, code, code) == 0
            else:
                assert fn(f"cublas{letter}rotg", "ppppp")(h, a, b, c, s) == 0
            cells.append([hs.get(p).copy() for p in (a, b, c, s)])
        for u, v in zip(*cells, strict=True):
            np.testing.assert_array_equal(u, v)
    cells = []
    for name in ("ex", "typed"):
        ptrs = [hs.ptr(v, np.float64) for v in (2.0, 3.0, 4.0, 1.0)] + [hs.ptr([0] * 5, np.float64)]
        if name == "ex":
            d = S.R_64F
            assert fn("cublasRotmgEx", "ppepepepepee", v2=False)(h, ptrs[0], d, ptrs[1], d, ptrs[2], d, ptrs[3], d,
                                                                 ptrs[4], d, d) == 0
        else:
            assert fn("cublasDrotmg", "pppppp")(h, *ptrs) == 0
        cells.append([hs.get(p).copy() for p in ptrs])
    for u, v in zip(*cells, strict=True):
        np.testing.assert_array_equal(u, v)
    assert fn("cublasRotmgEx", "ppepepepepee", v2=False)(h, *[hs.ptr(1.0, np.float64), S.R_64F] * 4,
                                                         hs.ptr([0] * 5, np.float64), S.R_32F, S.R_64F) == \
        S.NOT_SUPPORTED  # mixed types


def test_unsupported_types(h: int) -> None:
    hs = Host()
    dx, dy = Dev(np.zeros(4, np.complex64)), Dev(np.zeros(4, np.complex64))
    axpy = fn("cublasAxpyEx", "pnpepenpene", v2=False)
    one = hs.ptr(1, np.float32)
    # complex vectors with a real execution type; an integer type; an unknown execution type
    assert axpy(h, 4, one, S.R_32F, dx.ptr, S.C_32F, 1, dy.ptr, S.C_32F, 1, S.R_32F) == S.NOT_SUPPORTED
    assert axpy(h, 4, one, S.R_32F, dx.ptr, S.R_8I, 1, dy.ptr, S.R_32F, 1, S.R_32F) == S.NOT_SUPPORTED
    assert axpy(h, 4, one, S.R_32F, dx.ptr, S.R_32F, 1, dy.ptr, S.R_32F, 1, 99) == S.NOT_SUPPORTED
