"""The legacy cublas.h functions through ctypes, family by family: each is called on one copy of random
inputs and its handle-based counterpart (checked against numpy in test_cublas_64.py / test_cublas_band.py)
on another, with the legacy characters mapped to the enums and the by-value scalars passed by address;
every output buffer and returned value must be identical. A wrong argument order or type in the legacy
layer (csrc/cublas_legacy.c) shows as a difference or an error status."""

from __future__ import annotations

import ctypes
import zlib

import numpy as np
import pytest
from tests.libs.cublas_abi import lib
from tests.libs.test_cublas_numpy import DT, Dev

from cumetal.libs.cublas import status as S


class _CF(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]


class _CD(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]


CBYVAL = {"S": ctypes.c_float, "D": ctypes.c_double, "C": _CF, "Z": _CD}
RBYVAL = {"S": ctypes.c_float, "D": ctypes.c_double, "C": ctypes.c_float, "Z": ctypes.c_double}
REAL = {"S": np.float32, "D": np.float64, "C": np.float32, "Z": np.float64}
ENUM = {"N": S.OP_N, "T": S.OP_T, "C": S.OP_C}
FILL = {"U": S.FILL_UPPER, "L": S.FILL_LOWER}
SIDE = {"L": S.SIDE_LEFT, "R": S.SIDE_RIGHT}
DIAG = {"N": S.DIAG_NON_UNIT, "U": S.DIAG_UNIT}
_KEEP: list[object] = []


def _byval(v: complex, t: str, real: bool) -> ctypes._SimpleCData | ctypes.Structure:
    if real or t in "SD":
        return (RBYVAL if real else CBYVAL)[t](float(np.real(v)))
    return CBYVAL[t](float(np.real(v)), float(np.imag(v)))


def _run(t: str, name: str, spec: list[tuple[str, object]], ret: str | None, legacy: bool, seed: int):
    """Call ``cublas<name>`` (legacy) or ``cublas<name>_v2`` (handle) with the arguments of ``spec``;
    returns (the output buffers, the returned value)."""
    rng = np.random.default_rng(seed)
    args, argtypes, outs = [], [], []
    if not legacy:
        args.append(_HANDLE[0])
        argtypes.append(ctypes.c_void_p)
    for kind, val in spec:
        if kind in "cusd":  # op / fill / side / diag character
            table = {"c": ENUM, "u": FILL, "s": SIDE, "d": DIAG}[kind]
            if legacy:
                args.append(val.encode())
                argtypes.append(ctypes.c_char)
            else:
                args.append(table[val])
                argtypes.append(ctypes.c_int)
        elif kind == "n":
            args.append(val)
            argtypes.append(ctypes.c_int)
        elif kind in "ar":  # scalar of the type / of its real type
            if legacy:
                args.append(_byval(val, t, kind == "r"))
                argtypes.append(type(args[-1]))
            else:
                real = kind == "r" or t in "SD"
                a = np.array([np.real(val) if real else val], REAL[t] if kind == "r" else DT[t])
                _KEEP.append(a)
                args.append(a.ctypes.data)
                argtypes.append(ctypes.c_void_p)
        elif kind in "mo":  # device buffer of val elements (o: an output compared afterwards)
            data = rng.standard_normal(val) + (1j * rng.standard_normal(val) if t in "CZ" else 0)
            d = Dev(np.asarray(data, DT[t]))
            _KEEP.append(d)
            args.append(d.ptr)
            argtypes.append(ctypes.c_void_p)
            if kind == "o":
                outs.append(d)
        elif kind == "h":  # host cell(s) written by rotg / rotmg (values val), compared afterwards
            a = np.array(val, DT[t] if not isinstance(val, tuple) else val[1]).reshape(-1)
            _KEEP.append(a)
            args.append(a.ctypes.data)
            argtypes.append(ctypes.c_void_p)
            outs.append(a)
        else:
            raise AssertionError(kind)
    if legacy:
        f = getattr(lib(), f"cublas{name}")
        f.restype = {None: None, "i": ctypes.c_int, "r": RBYVAL[t], "t": CBYVAL[t]}[ret]
    else:
        f = getattr(lib(), f"cublas{name}_v2")
        f.restype = ctypes.c_int
        if ret is not None:
            res = np.zeros(1, {"i": np.int32, "r": REAL[t], "t": DT[t]}[ret])
            _KEEP.append(res)
            args.append(res.ctypes.data)
            argtypes.append(ctypes.c_void_p)
    f.argtypes = argtypes
    value = f(*args)
    if legacy:
        err = lib().cublasGetError()
        assert err == 0, f"cublas{name}: status {err}"
        if isinstance(value, ctypes.Structure):
            value = complex(value.x, value.y)
    else:
        assert value == 0, f"cublas{name}_v2: status {value}"
        value = res[0] if ret is not None else None
    return [o.get() if isinstance(o, Dev) else o.copy() for o in outs], value


_HANDLE: list[int] = []


@pytest.fixture(scope="module", autouse=True)
def handles() -> None:
    lib().cublasInit.restype = ctypes.c_int
    lib().cublasGetError.restype = ctypes.c_int
    assert lib().cublasInit() == 0
    out = ctypes.c_void_p()
    lib().cublasCreate_v2.argtypes = [ctypes.c_void_p]
    assert lib().cublasCreate_v2(ctypes.addressof(out)) == 0
    _HANDLE.append(out.value)
    yield
    lib().cublasDestroy_v2.argtypes = [ctypes.c_void_p]
    lib().cublasDestroy_v2(out.value)
    _HANDLE.clear()
    assert lib().cublasShutdown() == 0


n, k, m, ld = 5, 2, 4, 6
NN, BAND, PACK = ld * n, (2 * k + 2) * n, n * (n + 1) // 2
ALPHA, BETA = 0.75 - 0.5j, -1.25 + 0.25j
VEC = [("m", n), ("n", 1)]
OUTV = [("o", 2 * n), ("n", -2)]

# name (with {t} for the type letter), types, arguments, return kind
FAMILIES = [
    ("{t}axpy", "SDCZ", [("n", n), ("a", ALPHA), *VEC, *OUTV], None),
    ("{t}copy", "SDCZ", [("n", n), *VEC, *OUTV], None),
    ("{t}swap", "SDCZ", [("n", n), ("o", n), ("n", 1), *OUTV], None),
    ("{t}scal", "SDCZ", [("n", n), ("a", ALPHA), *OUTV], None),
    ("Csscal", "C", [("n", n), ("r", 1.5), *OUTV], None),
    ("Zdscal", "Z", [("n", n), ("r", 1.5), *OUTV], None),
    ("I{l}amax", "SDCZ", [("n", n), *VEC], "i"),
    ("I{l}amin", "SDCZ", [("n", n), ("m", 2 * n), ("n", 2)], "i"),
    ("{t}dot", "SD", [("n", n), *VEC, ("m", n), ("n", -1)], "r"),
    ("{t}dotu", "CZ", [("n", n), *VEC, ("m", n), ("n", 1)], "t"),
    ("{t}dotc", "CZ", [("n", n), *VEC, ("m", n), ("n", 1)], "t"),
    ("{t}rot", "SD", [("n", n), ("o", n), ("n", 1), *OUTV, ("r", 0.6), ("a", 0.8)], None),
    ("Crot", "C", [("n", n), ("o", n), ("n", 1), *OUTV, ("r", 0.6), ("a", 0.48 + 0.64j)], None),
    ("Zdrot", "Z", [("n", n), ("o", n), ("n", 1), *OUTV, ("r", 0.6), ("r", 0.8)], None),
    ("{t}rotm", "SD", [("n", n), ("o", n), ("n", 1), *OUTV, ("h", [-1, 0.5, 0.25, -0.75, 2])], None),
    ("{t}rotg", "SD", [("h", 3.0), ("h", -4.0), ("h", 0.0), ("h", 0.0)], None),
    ("{t}rotmg", "SD", [("h", 2.0), ("h", 3.0), ("h", 4.0), ("h", 1.0), ("h", [7, 7, 7, 7, 7])], None),
    ("{t}gemv", "SDCZ", [("c", "T"), ("n", m), ("n", n), ("a", ALPHA), ("m", NN), ("n", ld), *VEC, ("a", BETA),
                         *OUTV], None),
    ("{t}gbmv", "SDCZ", [("c", "N"), ("n", n), ("n", m), ("n", 2), ("n", 1), ("a", ALPHA), ("m", BAND),
                         ("n", 2 * k + 2), ("m", m), ("n", 1), ("a", BETA), *OUTV], None),
    ("{t}trmv", "SDCZ", [("u", "L"), ("c", "C"), ("d", "N"), ("n", n), ("m", NN), ("n", ld), *OUTV], None),
    ("{t}tbmv", "SDCZ", [("u", "U"), ("c", "N"), ("d", "U"), ("n", n), ("n", k), ("m", BAND), ("n", k + 1),
                         *OUTV], None),
    ("{t}tpmv", "SDCZ", [("u", "L"), ("c", "T"), ("d", "N"), ("n", n), ("m", PACK), *OUTV], None),
    ("{t}symv", "SD", [("u", "U"), ("n", n), ("a", ALPHA), ("m", NN), ("n", ld), *VEC, ("a", BETA), *OUTV], None),
    ("{t}hemv", "CZ", [("u", "U"), ("n", n), ("a", ALPHA), ("m", NN), ("n", ld), *VEC, ("a", BETA), *OUTV], None),
    ("{t}sbmv", "SD", [("u", "L"), ("n", n), ("n", k), ("a", ALPHA), ("m", BAND), ("n", k + 1), *VEC, ("a", BETA),
                       *OUTV], None),
    ("{t}hbmv", "CZ", [("u", "L"), ("n", n), ("n", k), ("a", ALPHA), ("m", BAND), ("n", k + 1), *VEC, ("a", BETA),
                       *OUTV], None),
    ("{t}spmv", "SD", [("u", "U"), ("n", n), ("a", ALPHA), ("m", PACK), *VEC, ("a", BETA), *OUTV], None),
    ("{t}hpmv", "CZ", [("u", "U"), ("n", n), ("a", ALPHA), ("m", PACK), *VEC, ("a", BETA), *OUTV], None),
    ("{t}ger", "SD", [("n", n), ("n", m), ("a", ALPHA), *VEC, ("m", m), ("n", 1), ("o", NN), ("n", ld)], None),
    ("{t}gerc", "CZ", [("n", n), ("n", m), ("a", ALPHA), *VEC, ("m", m), ("n", 1), ("o", NN), ("n", ld)], None),
    ("{t}syr", "SD", [("u", "L"), ("n", n), ("a", ALPHA), *VEC, ("o", NN), ("n", ld)], None),
    ("{t}her", "CZ", [("u", "L"), ("n", n), ("r", 0.5), *VEC, ("o", NN), ("n", ld)], None),
    ("{t}syr2", "SD", [("u", "U"), ("n", n), ("a", ALPHA), *VEC, ("m", n), ("n", 1), ("o", NN), ("n", ld)], None),
    ("{t}her2", "CZ", [("u", "U"), ("n", n), ("a", ALPHA), *VEC, ("m", n), ("n", 1), ("o", NN), ("n", ld)], None),
    ("{t}spr", "SD", [("u", "U"), ("n", n), ("a", ALPHA), *VEC, ("o", PACK)], None),
    ("{t}hpr2", "CZ", [("u", "L"), ("n", n), ("a", ALPHA), *VEC, ("m", n), ("n", 1), ("o", PACK)], None),
    ("{t}gemm", "SDCZ", [("c", "N"), ("c", "T"), ("n", m), ("n", n), ("n", k), ("a", ALPHA), ("m", NN), ("n", ld),
                         ("m", NN), ("n", ld), ("a", BETA), ("o", NN), ("n", ld)], None),
    ("{t}symm", "SDCZ", [("s", "R"), ("u", "L"), ("n", m), ("n", n), ("a", ALPHA), ("m", NN), ("n", ld), ("m", NN),
                         ("n", ld), ("a", BETA), ("o", NN), ("n", ld)], None),
    ("{t}hemm", "CZ", [("s", "L"), ("u", "U"), ("n", m), ("n", n), ("a", ALPHA), ("m", NN), ("n", ld), ("m", NN),
                       ("n", ld), ("a", BETA), ("o", NN), ("n", ld)], None),
    ("{t}syrk", "SDCZ", [("u", "U"), ("c", "T"), ("n", n), ("n", k), ("a", ALPHA), ("m", NN), ("n", ld),
                         ("a", BETA), ("o", NN), ("n", ld)], None),
    ("{t}herk", "CZ", [("u", "L"), ("c", "N"), ("n", n), ("n", k), ("r", 0.5), ("m", NN), ("n", ld), ("r", 2.0),
                       ("o", NN), ("n", ld)], None),
    ("{t}syr2k", "SDCZ", [("u", "L"), ("c", "N"), ("n", n), ("n", k), ("a", ALPHA), ("m", NN), ("n", ld),
                          ("m", NN), ("n", ld), ("a", BETA), ("o", NN), ("n", ld)], None),
    ("{t}her2k", "CZ", [("u", "U"), ("c", "C"), ("n", n), ("n", k), ("a", ALPHA), ("m", NN), ("n", ld), ("m", NN),
                        ("n", ld), ("r", 0.5), ("o", NN), ("n", ld)], None),
    ("{t}trsm", "SDCZ", [("s", "L"), ("u", "U"), ("c", "N"), ("d", "U"), ("n", m), ("n", n), ("a", ALPHA),
                         ("m", NN), ("n", ld), ("o", NN), ("n", ld)], None),
]
CASES = [(name.format(t=t, l=t.lower()), t, spec, ret) for name, types, spec, ret in FAMILIES for t in types]


@pytest.mark.parametrize("name,t,spec,ret", CASES, ids=[c[0] for c in CASES])
def test_legacy_equals_handle_api(name: str, t: str, spec: list, ret: str | None) -> None:
    seed = zlib.crc32(name.encode())
    got, v1 = _run(t, name, spec, ret, True, seed)
    want, v2 = _run(t, name, spec, ret, False, seed)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    if ret is not None:
        assert v1 == v2 and (ret != "i" or v1 > 0)


def test_trmm_in_place() -> None:
    """Legacy trmm: B := alpha op(A) B in place (the handle form writes a separate C)."""
    t = "D"
    got, _ = _run(t, "Dtrmm", [("s", "L"), ("u", "L"), ("c", "T"), ("d", "N"), ("n", m), ("n", n), ("a", 1.5),
                               ("m", NN), ("n", ld), ("o", NN), ("n", ld)], None, True, 5)
    rng = np.random.default_rng(5)
    A = rng.standard_normal(NN).reshape(n, ld).T
    B = rng.standard_normal(NN).reshape(n, ld).T
    ref = 1.5 * np.tril(A[:m, :m]).T @ B[:m, :n]
    out = got[0].reshape(n, ld).T
    np.testing.assert_allclose(out[:m], ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(out[m:], B[m:])
