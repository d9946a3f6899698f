"""cuBLASLt's ``cublasLtMatrixTransform`` and its descriptor: C = alpha op(A) + beta op(B) between
matrix orders (COL, ROW, COL32, COL4_4R2_8C, COL32_2R_4R4), with the order pairs and types NVIDIA's
library took on the H100. The matrices are read and written through :mod:`lt`'s views."""

from __future__ import annotations

import numpy as np

from cumetal.libs import devmem, streams
from cumetal.libs.cublas import lt
from cumetal.libs.cublas import status as S
from cumetal.libs.devmem import LibError

T_SCALE, T_POINTER_MODE, T_TRANSA, T_TRANSB = 0, 1, 2, 3

_PLAIN = {(o, p) for o in (lt.ORDER_COL, lt.ORDER_ROW) for p in (lt.ORDER_COL, lt.ORDER_ROW)}
# element type -> the (source order, C's order) pairs NVIDIA's cublasLtMatrixTransform took on the H100
# (tests/libs/golden/cublaslt_algos_orders_h100.txt, transform_orders); other types: COL and ROW
TRANSFORM_ORDERS = {
    S.R_8I: _PLAIN | {(o, p) for o in (lt.ORDER_COL, lt.ORDER_ROW) for p in (2, 3, 4)} | {(2, 0), (2, 1)},
    S.R_32I: _PLAIN | {(0, 2), (1, 2), (2, 0), (2, 1)},
    S.R_32F: _PLAIN, S.R_16F: _PLAIN,
    S.R_8U: {(0, 0), (1, 1)}, S.R_64F: {(0, 0), (1, 1)},
}


def _check_transform_orders(src: int, dst: int, ctype: int, what: str) -> None:
    if (src, dst) not in TRANSFORM_ORDERS.get(ctype, _PLAIN):
        names = lt.ORDER_NAMES
        raise LibError(S.NOT_SUPPORTED, f"cublasLtMatrixTransform of {what} from order {names.get(src, src)} to "
                                        f"{names.get(dst, dst)} with data type {ctype} (NVIDIA's library on the H100 "
                                        "refused it)")


def transform_desc_create(scale_type: int) -> int:
    if scale_type not in (S.R_32F, S.R_64F, S.R_16F, S.C_32F, S.C_64F):
        raise LibError(S.NOT_SUPPORTED, f"scaleType={scale_type} (CUDA_R_32F, R_64F, R_16F, C_32F, C_64F are supported)")
    return lt.new("transform descriptor", {T_SCALE: scale_type, T_POINTER_MODE: 0, T_TRANSA: 0, T_TRANSB: 0})


def transform(handle: int, desc: int, alpha: int, A: int, adesc: int, beta: int, B: int, bdesc: int, C: int,
              cdesc: int, stream: int) -> None:
    """C = alpha op(A) + beta op(B), each matrix in its layout's order, computed in the scale type and
    rounded once to C's type (integers to nearest even, saturated)."""
    lt.get(handle, "handle")
    t = lt.get(desc, "transform descriptor").attrs
    lc = lt.get(cdesc, "matrix layout")
    sdt = lt.storage(int(t[T_SCALE]), "scaleType")
    mode, ta, tb = int(t[T_POINTER_MODE]), int(t[T_TRANSA]), int(t[T_TRANSB])
    if mode not in (lt.PM_HOST, lt.PM_DEVICE):
        raise LibError(S.NOT_SUPPORTED, f"pointer mode {mode} (host and device are supported)")
    if ta not in (S.OP_N, S.OP_T) or tb not in (S.OP_N, S.OP_T):
        raise LibError(S.INVALID_VALUE, f"transa={ta}, transb={tb} (N or T)")
    if not alpha or not beta:
        raise LibError(S.INVALID_VALUE, "alpha and beta must not be NULL")
    rows, cols = int(lc.attrs[lt.L_ROWS]), int(lc.attrs[lt.L_COLS])
    ctype = int(lc.attrs[lt.L_TYPE])
    batch = int(lc.attrs.get(lt.L_BATCH, 1))
    operands = []
    for ptr, h, op, what in ((A, adesc, ta, "A"), (B, bdesc, tb, "B")):
        if not h:
            operands.append(None)
            continue
        lay = lt.get(h, "matrix layout")
        r, c = int(lay.attrs[lt.L_ROWS]), int(lay.attrs[lt.L_COLS])
        shape = (c, r) if op == S.OP_T else (r, c)
        if shape != (rows, cols):
            raise LibError(S.INVALID_VALUE, f"op({what}) is {shape[0]}x{shape[1]}, C is {rows}x{cols}")
        if int(lay.attrs[lt.L_TYPE]) != ctype:
            raise LibError(S.NOT_SUPPORTED, f"{what} type {lay.attrs[lt.L_TYPE]} differs from C type {ctype}")
        src_order, dst_order = (int(x.attrs.get(lt.L_ORDER, lt.ORDER_COL)) for x in (lay, lc))
        _check_transform_orders(src_order, dst_order, ctype, what)
        operands.append((ptr, lay, op, what))
    device_scalars = mode == lt.PM_DEVICE
    if device_scalars:
        for ptr, what in ((alpha, "alpha"), (beta, "beta")):
            devmem.check_range(ptr, sdt.itemsize, what, S.INVALID_VALUE)
    host = None if device_scalars else (devmem.read_host(alpha, sdt)[0], devmem.read_host(beta, sdt)[0])
    plan = []
    for i in range(batch):
        mats = []
        for j, operand in enumerate(operands):
            if operand is None:
                mats.append(None)
                continue
            ptr, lay, op, what = operand
            scalar_zero = host is not None and host[j] == 0
            if not ptr:
                if scalar_zero:
                    mats.append(None)
                    continue
                raise LibError(S.INVALID_VALUE, f"{what} is NULL but its scale is not 0")
            mats.append(lt._view(ptr, lay, i if int(lay.attrs.get(lt.L_BATCH, 1)) > 1 else 0, what, True))
        plan.append((mats, lt._view(C, lc, i, "C", True)))
    if host is not None and host[0] != 0 and operands[0] is None:
        raise LibError(S.INVALID_VALUE, "Adesc is NULL but alpha is not 0")
    if host is not None and host[1] != 0 and operands[1] is None:
        raise LibError(S.INVALID_VALUE, "Bdesc is NULL but beta is not 0")
    work = np.dtype(np.float64) if sdt.kind == "f" else np.dtype(np.complex128)

    def go() -> None:
        scal = host if host is not None else (devmem.read_host(alpha, sdt)[0], devmem.read_host(beta, sdt)[0])
        for mats, Cm in plan:
            acc = np.zeros((rows, cols), work)
            for s_, mat, operand in zip(scal, mats, operands, strict=True):
                if mat is None or s_ == 0:
                    continue
                x = np.asarray(lt.load(lt._get(mat), ctype), work)
                acc += work.type(s_) * (x.T if operand[2] == S.OP_T else x)
            if sdt.itemsize <= 4 and sdt.kind == "f":
                acc = acc.astype(np.float32)
            lt._put(Cm, acc, ctype)
    streams.submit(stream, go, "cublasLtMatrixTransform", S.EXECUTION_FAILED)
