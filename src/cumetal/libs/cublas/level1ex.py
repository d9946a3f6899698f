"""cuBLAS's mixed-precision level-1 functions: cublasAxpyEx, DotEx/DotcEx, Nrm2Ex, AsumEx, ScalEx, RotEx,
IamaxEx/IaminEx, CopyEx, SwapEx, RotgEx, RotmEx, RotmgEx (and the _64 forms of those with integers).

Each vector and scalar has its own cudaDataType among R_16F, R_16BF, R_32F, R_64F, C_32F, C_64F
(anything else is CUBLAS_STATUS_NOT_SUPPORTED); the arithmetic is done in the executionType (R_32F,
R_64F, C_32F or C_64F; complex vectors need a complex one, except for Nrm2Ex/AsumEx whose result is
real) and each result is rounded once to its storage type (f16 by numpy, bf16 to nearest even).
Scalars follow the handle's pointer mode; vectors are checked and the work runs in stream order, as
blas.py's functions. CopyEx/SwapEx move elements of one type (xType must equal yType); RotgEx and
RotmgEx take the types of cublas{S,D,C,Z}rotg / {S,D}rotmg (one type throughout).
"""

from __future__ import annotations

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import band
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import Scalar, need, run, run_now, vec
from cumetal.libs.cublas.gemmex import STORAGE, TYPE_NAMES, bf16_to_f32, f32_to_bf16
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.devmem import LibError

FLOATS = (S.R_16F, S.R_16BF, S.R_32F, S.R_64F, S.C_32F, S.C_64F)
EXEC = {S.R_32F: np.dtype(np.float32), S.R_64F: np.dtype(np.float64), S.C_32F: np.dtype(np.complex64),
        S.C_64F: np.dtype(np.complex128)}
COMPLEX = (S.C_32F, S.C_64F)
LETTER = {S.R_32F: "S", S.R_64F: "D", S.C_32F: "C", S.C_64F: "Z"}


def _unsupported(message: str) -> LibError:
    return LibError(S.NOT_SUPPORTED, message)


def _storage(code: int, what: str) -> np.dtype:
    if code not in FLOATS:
        raise _unsupported(f"{what}={code} is not a type the level-1 Ex functions take "
                           f"({', '.join(TYPE_NAMES[c] for c in FLOATS)})")
    return STORAGE[code]


def _exec(code: int, *operands: tuple[int, str], real_result: bool = False) -> np.dtype:
    dt = EXEC.get(code)
    if dt is None:
        raise _unsupported(f"executionType={code} is not CUDA_R_32F, CUDA_R_64F, CUDA_C_32F or CUDA_C_64F")
    for c, what in operands:
        _storage(c, what)
        if c in COMPLEX and dt.kind != "c" and not real_result:
            raise _unsupported(f"{what} is complex ({TYPE_NAMES[c]}): executionType must be complex")
    return dt


def _load(a: np.ndarray, code: int, dt: np.dtype) -> np.ndarray:
    """Stored values (bf16 as bits) in the execution type ``dt``."""
    v = bf16_to_f32(np.asarray(a)) if code == S.R_16BF else np.asarray(a)
    if dt.kind != "c" and np.iscomplexobj(v):
        v = v.astype(np.complex128 if dt == np.float64 else np.complex64)
        return v
    return v.astype(dt)


def _rounded(value: np.ndarray, code: int) -> np.ndarray:
    """``value`` rounded once to storage type ``code`` (bf16: its bits)."""
    value = np.asarray(value)
    if code not in COMPLEX and np.iscomplexobj(value):
        value = value.real
    if code == S.R_16BF:
        return f32_to_bf16(np.asarray(value, np.float32))
    with np.errstate(over="ignore"):
        return value.astype(STORAGE[code])


def _scalar(sc: Scalar, code: int, dt: np.dtype) -> np.generic:
    return _load(np.array([sc.value()]), code, dt)[0]


def _write_result(h: Handle, ptr: int, code: int, name: str, compute) -> None:  # noqa: ANN001
    """*ptr (type ``code``) = compute(): now (host pointer mode, after the stream) or in stream order."""
    need(ptr != 0, "result is NULL")
    dt = STORAGE[code]
    if h.pointer_mode == S.POINTER_DEVICE:
        devmem.check_range(ptr, dt.itemsize, "result", S.INVALID_VALUE)
        run(h, lambda: devmem.write_host(ptr, _rounded(np.array([compute()]), code)), name)
    else:
        run_now(h, name)
        devmem.write_host(ptr, _rounded(np.array([compute()]), code))


def axpy_ex(h: Handle, n: int, alpha: int, atype: int, x: int, xtype: int, incx: int, y: int, ytype: int, incy: int,
            etype: int) -> None:
    dt = _exec(etype, (atype, "alphaType"), (xtype, "xType"), (ytype, "yType"))
    if n <= 0:
        return
    a = Scalar(h, alpha, _storage(atype, "alphaType"), "alpha")
    xv, yv = vec(x, STORAGE[xtype], n, incx, "x"), vec(y, STORAGE[ytype], n, incy, "y")

    def go() -> None:
        yv[...] = _rounded(_scalar(a, atype, dt) * _load(xv, xtype, dt) + _load(yv, ytype, dt), ytype)
    run(h, go, "cublasAxpyEx")


def dot_ex(h: Handle, n: int, x: int, xtype: int, incx: int, y: int, ytype: int, incy: int, result: int, rtype: int,
           etype: int, conj: bool) -> None:
    dt = _exec(etype, (xtype, "xType"), (ytype, "yType"), (rtype, "resultType"))
    xv = vec(x, STORAGE[xtype], n, incx, "x") if n > 0 else None
    yv = vec(y, STORAGE[ytype], n, incy, "y") if n > 0 else None

    def go() -> np.generic:
        if xv is None:
            return dt.type(0)
        X, Y = _load(xv, xtype, dt), _load(yv, ytype, dt)
        return np.vdot(X, Y) if conj else np.dot(X, Y)
    _write_result(h, result, rtype, "cublasDotcEx" if conj else "cublasDotEx", go)


def norm_ex(h: Handle, n: int, x: int, xtype: int, incx: int, result: int, rtype: int, etype: int,
            asum: bool) -> None:
    """Nrm2Ex (the Euclidean norm) or AsumEx (sum of |re| + |im|); 0 for n <= 0 or incx <= 0."""
    dt = _exec(etype, (xtype, "xType"), (rtype, "resultType"), real_result=True)
    ok = n > 0 and incx > 0
    xv = vec(x, STORAGE[xtype], n, incx, "x") if ok else None

    def go() -> np.generic:
        if xv is None:
            return dt.type(0)
        X = _load(xv, xtype, dt)
        if asum:
            return np.abs(X.real).sum() + np.abs(X.imag).sum() if np.iscomplexobj(X) else np.abs(X).sum()
        return np.linalg.norm(X)
    _write_result(h, result, rtype, "cublasAsumEx" if asum else "cublasNrm2Ex", go)


def scal_ex(h: Handle, n: int, alpha: int, atype: int, x: int, xtype: int, incx: int, etype: int) -> None:
    dt = _exec(etype, (atype, "alphaType"), (xtype, "xType"))
    if n <= 0 or incx <= 0:
        return
    a = Scalar(h, alpha, _storage(atype, "alphaType"), "alpha")
    xv = vec(x, STORAGE[xtype], n, incx, "x")

    def go() -> None:
        xv[...] = _rounded(_scalar(a, atype, dt) * _load(xv, xtype, dt), xtype)
    run(h, go, "cublasScalEx")


def rot_ex(h: Handle, n: int, x: int, xtype: int, incx: int, y: int, ytype: int, incy: int, c: int, s: int,
           cstype: int, etype: int) -> None:
    """x, y := c x + s y, c y - conj(s) x; c is read in the real type of csType, s in csType."""
    dt = _exec(etype, (xtype, "xType"), (ytype, "yType"), (cstype, "csType"))
    if n <= 0:
        return
    ctype = {S.C_32F: S.R_32F, S.C_64F: S.R_64F}.get(cstype, cstype)
    cv, sv = Scalar(h, c, STORAGE[ctype], "c"), Scalar(h, s, STORAGE[cstype], "s")
    xv, yv = vec(x, STORAGE[xtype], n, incx, "x"), vec(y, STORAGE[ytype], n, incy, "y")

    def go() -> None:
        cc, ss = _scalar(cv, ctype, dt), _scalar(sv, cstype, dt)
        X, Y = _load(xv, xtype, dt), _load(yv, ytype, dt)
        xv[...] = _rounded(cc * X + ss * Y, xtype)
        yv[...] = _rounded(cc * Y - np.conj(ss) * X, ytype)
    run(h, go, "cublasRotEx")


def rotm_ex(h: Handle, n: int, x: int, xtype: int, incx: int, y: int, ytype: int, incy: int, param: int,
            ptype: int, etype: int) -> None:
    dt = _exec(etype, (xtype, "xType"), (ytype, "yType"), (ptype, "paramType"))
    need(param != 0, "param is NULL")
    if dt.kind == "c" or xtype in COMPLEX or ytype in COMPLEX:
        raise _unsupported("rotmEx takes real types only")
    if n <= 0:
        return
    pdt = STORAGE[ptype]
    device = h.pointer_mode == S.POINTER_DEVICE
    if device:
        devmem.check_range(param, 5 * pdt.itemsize, "param", S.INVALID_VALUE)
    host_param = None if device else devmem.read_host(param, pdt, 5)
    xv, yv = vec(x, STORAGE[xtype], n, incx, "x"), vec(y, STORAGE[ytype], n, incy, "y")

    def go() -> None:
        p = _load(host_param if host_param is not None else devmem.read_host(param, pdt, 5), ptype, dt)
        H = band._rotm_matrix(p)  # noqa: SLF001 - the same flag rules as rotm
        if H is None:
            return
        X, Y = _load(xv, xtype, dt), _load(yv, ytype, dt)
        xv[...] = _rounded(H[0, 0] * X + H[0, 1] * Y, xtype)
        yv[...] = _rounded(H[1, 0] * X + H[1, 1] * Y, ytype)
    run(h, go, "cublasRotmEx")


def iamax_ex(h: Handle, n: int, x: int, xtype: int, incx: int, result: int, smallest: bool, width: int) -> None:
    _storage(xtype, "xType")
    ok = n > 0 and incx > 0
    xv = vec(x, STORAGE[xtype], n, incx, "x") if ok else None

    def go() -> int:
        if xv is None:
            return 0
        X = _load(xv, xtype, np.dtype(np.complex128 if xtype in COMPLEX else np.float64))
        mag = np.abs(X.real) + np.abs(X.imag) if np.iscomplexobj(X) else np.abs(X)
        return int(np.argmin(mag) if smallest else np.argmax(mag)) + 1
    need(result != 0, "result is NULL")
    rdt = np.dtype(np.int64 if width == 8 else np.int32)
    name = "cublasIaminEx" if smallest else "cublasIamaxEx"
    if h.pointer_mode == S.POINTER_DEVICE:
        devmem.check_range(result, rdt.itemsize, "result", S.INVALID_VALUE)
        run(h, lambda: devmem.write_host(result, np.array([go()], rdt)), name)
    else:
        run_now(h, name)
        devmem.write_host(result, np.array([go()], rdt))


def copy_ex(h: Handle, n: int, x: int, xtype: int, incx: int, y: int, ytype: int, incy: int, swap: bool) -> None:
    _storage(xtype, "xType")
    _storage(ytype, "yType")
    if xtype != ytype:
        raise _unsupported(f"xType {TYPE_NAMES[xtype]} and yType {TYPE_NAMES[ytype]} differ")
    if n <= 0:
        return
    xv, yv = vec(x, STORAGE[xtype], n, incx, "x"), vec(y, STORAGE[ytype], n, incy, "y")

    def go() -> None:
        old = xv.copy()
        if swap:
            xv[...] = yv
        yv[...] = old
    run(h, go, "cublasSwapEx" if swap else "cublasCopyEx")


def rotg_ex(h: Handle, a: int, b: int, abtype: int, c: int, s: int, cstype: int, etype: int) -> None:
    letter = LETTER.get(abtype)
    if letter is None or cstype != abtype or etype != abtype:
        raise _unsupported("rotgEx takes abType = csType = executionType among CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, "
                           "CUDA_C_64F (c is then the real type)")
    band.rotg(h, letter, a, b, c, s)


def rotmg_ex(h: Handle, d1: int, d1t: int, d2: int, d2t: int, x1: int, x1t: int, y1: int, y1t: int, param: int,
             pt: int, etype: int) -> None:
    if len({d1t, d2t, x1t, y1t, pt, etype}) != 1 or etype not in (S.R_32F, S.R_64F):
        raise _unsupported("rotmgEx takes one type throughout, CUDA_R_32F or CUDA_R_64F")
    band.rotmg(h, LETTER[etype], d1, d2, x1, y1, param)
