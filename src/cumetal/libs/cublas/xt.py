"""cublasXt: cuBLAS's level-3 routines on matrices in host or device memory, blocking.

CuMetal has one device, so an Xt call is one handle-based call: each matrix operand that lies in a
device allocation is used in place; one in host memory (anything outside the runtime's allocations,
which cannot be range-checked, as with NVIDIA's cublasXt) is copied into a temporary device buffer,
and the outputs copied back. The call waits for the device's earlier work first and for its own work
before it returns (cublasXt routines are blocking). alpha and beta are host scalars. The settings
(devices, block dimension, pinning mode, CPU routines and ratios) are validated and stored; with one
device they change nothing.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from dataclasses import dataclass, field

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import band, blas
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import DTYPES, fill_code, need, run_now
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.devmem import LibError

ROUTINES = 12  # cublasXtBlasOp_t: GEMM ... TRMM (CUBLASXT_ROUTINE_MAX)
OP_TYPES = 4  # cublasXtOpType_t: FLOAT, DOUBLE, COMPLEX, DOUBLECOMPLEX


@dataclass
class XtHandle:
    devices: list[int] = field(default_factory=list)
    block_dim: int = 1024
    pinning: int = 0
    cpu_routines: dict[tuple[int, int], int] = field(default_factory=dict)
    cpu_ratios: dict[tuple[int, int], float] = field(default_factory=dict)
    inner: Handle = field(default_factory=Handle)  # stream 0, pointer mode host


_handles: dict[int, XtHandle] = {}
_lock = threading.Lock()
_ids = itertools.count(0xC0B1A7000, 0x40)


def create() -> int:
    with _lock:
        h = next(_ids)
        _handles[h] = XtHandle()
    return h


def destroy(h: int) -> None:
    with _lock:
        if _handles.pop(h, None) is None:
            raise LibError(S.NOT_INITIALIZED, f"handle 0x{h:x} is not a live cublasXt handle")


def get(h: int) -> XtHandle:
    found = _handles.get(h)
    if found is None:
        raise LibError(S.NOT_INITIALIZED, f"handle 0x{h:x} is not a live cublasXt handle (cublasXtCreate first)")
    return found


def device_count() -> int:
    from cumetal import runtime as rt  # noqa: PLC0415

    res = rt.cudaGetDeviceCount()
    return int(res[1]) if int(res[0]) == 0 else 0


def device_select(x: XtHandle, count: int, ids: int) -> None:
    need(count > 0, f"nbDevices={count} must be > 0")
    need(ids != 0, "deviceId is NULL")
    chosen = [int(v) for v in (ctypes.c_int * count).from_address(ids)]
    have = device_count()
    for d in chosen:
        need(0 <= d < have, f"deviceId {d} is not a device (this machine has {have})")
    need(len(set(chosen)) == len(chosen), f"deviceId lists a device twice: {chosen}")
    x.devices = chosen


def set_block_dim(x: XtHandle, dim: int) -> None:
    need(dim > 0, f"blockDim={dim} must be > 0")
    x.block_dim = dim


def set_cpu(x: XtHandle, routine: int, op_type: int, value: float | int, ratio: bool) -> None:
    need(0 <= routine < ROUTINES, f"blasOp={routine} is not a cublasXtBlasOp_t")
    need(0 <= op_type < OP_TYPES, f"type={op_type} is not a cublasXtOpType_t")
    if ratio:
        need(0.0 <= value <= 1.0, f"ratio={value} must be in [0, 1]")
        x.cpu_ratios[(routine, op_type)] = float(value)
    else:
        x.cpu_routines[(routine, op_type)] = int(value)


# ------------------------------------------------------------------ operands


class _Staging:
    """Device copies of the host-memory operands of one call (outputs copied back by ``finish``)."""

    def __init__(self) -> None:
        self.temps: list[int] = []
        self.back: list[tuple[int, int, int]] = []  # (host, device, bytes)

    def operand(self, ptr: int, dtype: np.dtype, rows: int, cols: int, ld: int, what: str, output: bool) -> int:
        """The device address to use for the column-major rows × cols matrix at ``ptr`` (leading dimension ld)."""
        if rows <= 0 or cols <= 0:
            return ptr
        need(ptr != 0, f"{what} is NULL")
        nbytes = (ld * (cols - 1) + rows) * np.dtype(dtype).itemsize
        if devmem.allocation_of(ptr) is not None:
            devmem.check_range(ptr, nbytes, what, S.INVALID_VALUE)
            return ptr
        from cumetal import runtime as rt  # noqa: PLC0415

        res = rt.cudaMalloc(nbytes)
        if int(res[0]) != 0:
            raise LibError(S.ALLOC_FAILED, f"{what}: no device memory for a copy of {nbytes} bytes: {res[0]!r}")
        dev = int(res[1])
        self.temps.append(dev)
        ctypes.memmove(dev, ptr, nbytes)  # device memory is host-addressable (unified)
        if output:
            self.back.append((ptr, dev, nbytes))
        return dev

    def finish(self, ok: bool) -> None:
        from cumetal import runtime as rt  # noqa: PLC0415

        if ok:
            for host, dev, nbytes in self.back:
                ctypes.memmove(host, dev, nbytes)
        for dev in self.temps:
            rt.cudaFree(dev)


def _blocking(x: XtHandle, name: str, body) -> None:  # noqa: ANN001 - body(staging) issues the handle-based call
    from cumetal import runtime as rt  # noqa: PLC0415

    rt.cudaDeviceSynchronize()  # the device's earlier work (on any stream) comes first
    st = _Staging()
    ok = False
    try:
        body(st)
        run_now(x.inner, name)
        ok = True
    finally:
        st.finish(ok)


def _dims(**dims: int) -> None:
    for what, v in dims.items():
        need(v < 2 ** 63, f"{what}={v} is out of range (size_t from a negative value?)")


# ------------------------------------------------------------------ routines


def gemm(x: XtHandle, t: str, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, lda: int, B: int,
         ldb: int, beta: int, C: int, ldc: int) -> None:
    _dims(m=m, n=n, k=k, lda=lda, ldb=ldb, ldc=ldc)
    dt = DTYPES[t]

    def body(st: _Staging) -> None:
        ra, ca = (m, k) if ta == S.OP_N else (k, m)
        rb, cb = (k, n) if tb == S.OP_N else (n, k)
        a = st.operand(A, dt, ra, ca, lda, "A", False) if k else A
        b = st.operand(B, dt, rb, cb, ldb, "B", False) if k else B
        c = st.operand(C, dt, m, n, ldc, "C", True)
        blas.gemm(x.inner, t, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
    _blocking(x, f"cublasXt{t}gemm", body)


def symm(x: XtHandle, t: str, side: int, uplo: int, m: int, n: int, alpha: int, A: int, lda: int, B: int, ldb: int,
         beta: int, C: int, ldc: int, hermitian: bool) -> None:
    _dims(m=m, n=n, lda=lda, ldb=ldb, ldc=ldc)
    dt = DTYPES[t]

    def body(st: _Staging) -> None:
        ka = m if side == S.SIDE_LEFT else n
        a = st.operand(A, dt, ka, ka, lda, "A", False)
        b = st.operand(B, dt, m, n, ldb, "B", False)
        c = st.operand(C, dt, m, n, ldc, "C", True)
        (blas.hemm if hermitian else blas.symm)(x.inner, t, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
    _blocking(x, f"cublasXt{t}{'hemm' if hermitian else 'symm'}", body)


def rank_k(x: XtHandle, t: str, kind: str, uplo: int, trans: int, n: int, k: int, alpha: int, A: int, lda: int,
           B: int, ldb: int, beta: int, C: int, ldc: int) -> None:
    """syrk, herk, syr2k, her2k, syrkx, herkx (blas.syrk / blas.syr2k's kinds)."""
    _dims(n=n, k=k, lda=lda, ldb=ldb, ldc=ldc)
    dt = DTYPES[t]

    def body(st: _Staging) -> None:
        ra, ca = (n, k) if trans == S.OP_N else (k, n)
        a = st.operand(A, dt, ra, ca, lda, "A", False) if k else A
        c = st.operand(C, dt, n, n, ldc, "C", True)
        if kind == "syrk":
            blas.syrk(x.inner, t, uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
            return
        b = st.operand(B, dt, ra, ca, ldb, "B", False) if (k and kind != "herk") else B
        blas.syr2k(x.inner, t, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, kind)
    _blocking(x, f"cublasXt{t}{kind}", body)


def trsm(x: XtHandle, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: int, A: int,
         lda: int, B: int, ldb: int) -> None:
    _dims(m=m, n=n, lda=lda, ldb=ldb)
    dt = DTYPES[t]

    def body(st: _Staging) -> None:
        ka = m if side == S.SIDE_LEFT else n
        a = st.operand(A, dt, ka, ka, lda, "A", False)
        b = st.operand(B, dt, m, n, ldb, "B", True)
        blas.trsm(x.inner, t, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb)
    _blocking(x, f"cublasXt{t}trsm", body)


def trmm(x: XtHandle, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: int, A: int,
         lda: int, B: int, ldb: int, C: int, ldc: int) -> None:
    _dims(m=m, n=n, lda=lda, ldb=ldb, ldc=ldc)
    dt = DTYPES[t]

    def body(st: _Staging) -> None:
        ka = m if side == S.SIDE_LEFT else n
        a = st.operand(A, dt, ka, ka, lda, "A", False)
        b = st.operand(B, dt, m, n, ldb, "B", False)
        c = st.operand(C, dt, m, n, ldc, "C", True)
        blas.trmm(x.inner, t, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb, c, ldc)
    _blocking(x, f"cublasXt{t}trmm", body)


def spmm(x: XtHandle, t: str, side: int, uplo: int, m: int, n: int, alpha: int, AP: int, B: int, ldb: int, beta: int,
         C: int, ldc: int) -> None:
    """C = alpha A B + beta C (side LEFT) or alpha B A + beta C (RIGHT), A symmetric in packed storage:
    the packed triangle is expanded into a dense device matrix (only that triangle filled) and symm runs."""
    _dims(m=m, n=n, ldb=ldb, ldc=ldc)
    fill_code(uplo)
    dt = DTYPES[t]
    ka = m if side == S.SIDE_LEFT else n

    def body(st: _Staging) -> None:
        ap = st.operand(AP, dt, ka * (ka + 1) // 2, 1, ka * (ka + 1) // 2, "AP", False)
        b = st.operand(B, dt, m, n, ldb, "B", False)
        c = st.operand(C, dt, m, n, ldc, "C", True)
        dense = _scratch(st, dt, ka) if ka else 0
        if ka:
            I, J, K = band.packed_positions(ka, uplo)  # noqa: E741
            full = np.zeros((ka, ka), dt)
            full[I, J] = devmem.read_host(ap, dt, ka * (ka + 1) // 2)[K]
            devmem.write_host(dense, np.asfortranarray(full).ravel(order="F"))
        blas.symm(x.inner, t, side, uplo, m, n, alpha, dense, max(1, ka), b, ldb, beta, c, ldc)
    _blocking(x, f"cublasXt{t}spmm", body)


def _scratch(st: _Staging, dt: np.dtype, ka: int) -> int:
    from cumetal import runtime as rt  # noqa: PLC0415

    res = rt.cudaMalloc(ka * ka * np.dtype(dt).itemsize)
    if int(res[0]) != 0:
        raise LibError(S.ALLOC_FAILED, f"no device memory for the {ka} x {ka} expansion of AP: {res[0]!r}")
    st.temps.append(int(res[1]))
    return int(res[1])

