"""cuBLAS GEMMs as kernels on Apple devices (``metal``, ``air-sim``, ``msl-sim``).

On the CPU devices a GEMM is OpenBLAS through numpy on zero-copy views. On an Apple device that
would leave the GPU idle, so ``cublasSgemm``, ``cublasGemmEx``, ``cublasHgemm`` and their batched and
strided-batched forms launch CuMetal's own kernels instead (``libs/kernels/cublas_gemm.cu``, compiled
by CuMetal's pipeline like any program's kernels, loaded once per process as a context-independent
library), on the handle's stream, so stream order and graph capture are the runtime's own.

Covered: A and B of one storage type among f32, f16, bf16; C any of them; compute types 32F (+
PEDANTIC, FAST_TF32/16F/16BF, TF32 math mode) and 16F; alpha/beta in host or device pointer mode;
``cublasLtMatmul`` with column-major layouts, a separate D, strided batches and the epilogues
DEFAULT, BIAS, RELU(_BIAS), GELU(_BIAS). Other types (f64, complex, int8), row-major layouts and
the AUX/gradient epilogues keep the numpy path. ``CUMETAL_CUBLAS_KERNELS=1`` uses the kernels
on every device (how the CPU devices can check them), ``=0`` never.
"""

from __future__ import annotations

import ctypes
import functools
import os
import pathlib
import threading
from dataclasses import dataclass

import numpy as np

from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import Scalar
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.devmem import LibError

SOURCE = pathlib.Path(__file__).resolve().parents[1] / "kernels" / "cublas_gemm.cu"
TILE = 16
MAX_GRID_Z = 65535
_TYPES = {S.R_32F: "f32", S.R_16F: "f16", S.R_16BF: "bf16"}
_ROUND = {S.COMPUTE_32F_FAST_TF32: 1, S.COMPUTE_32F_FAST_16F: 2, S.COMPUTE_32F_FAST_16BF: 3}
_COMPUTE = {S.COMPUTE_32F, S.COMPUTE_32F_PEDANTIC, S.COMPUTE_16F, S.COMPUTE_16F_PEDANTIC, *_ROUND}
_INT, _LL, _F = ctypes.c_int, ctypes.c_longlong, ctypes.c_float
EPILOGUE_NONE, EPILOGUE_RELU, EPILOGUE_GELU = 0, 1, 2
# set (per thread) while a _64 call with a dimension beyond int32 runs: the kernels take int dimensions
NUMPY_ONLY = threading.local()


def wanted() -> bool:
    """Whether GEMMs run as kernels on the current device (an Apple device, or forced by the env)."""
    if getattr(NUMPY_ONLY, "active", False):
        return False
    forced = os.environ.get("CUMETAL_CUBLAS_KERNELS", "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    from cumetal.devices.cpu_device import CpuDevice  # noqa: PLC0415
    from cumetal.runtime.state import RUNTIME  # noqa: PLC0415

    device = RUNTIME.ensure().device  # the context the runtime's calls of this thread use (as cuBLAS's launches)
    return not isinstance(device, CpuDevice) or getattr(device, "engine_name", "") in ("air-sim", "msl-sim")


def supported(atype: int, btype: int, ctype: int, compute: int, scale: np.dtype) -> bool:
    return (atype == btype and atype in _TYPES and ctype in _TYPES and compute in _COMPUTE
            and scale in (np.dtype(np.float32), np.dtype(np.float16)))


@functools.cache
def _library() -> int:
    from cumetal import runtime as rt  # noqa: PLC0415
    from cumetal.cudacxx.compile import compile_to_ptx  # noqa: PLC0415
    from cumetal.cudacxx.options import CudaOptions  # noqa: PLC0415

    ptx = compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx
    err, lib = rt.cudaLibraryLoadData(ptx.encode(), None, None, 0, None, None, 0)
    if int(err) != 0:
        raise LibError(S.EXECUTION_FAILED, f"cannot load CuMetal's GEMM kernels ({SOURCE.name}): {err!r}")
    return lib


@functools.cache
def _kernel(name: str) -> int:
    from cumetal import runtime as rt  # noqa: PLC0415

    err, k = rt.cudaLibraryGetKernel(_library(), name.encode())
    if int(err) != 0:
        raise LibError(S.EXECUTION_FAILED, f"CuMetal's GEMM kernel {name} is missing: {err!r}")
    return k


def _scale(s: Scalar | tuple[float, int, np.dtype]) -> tuple[float, int, int]:
    """(value, device pointer, SCALE_* kind) of alpha or beta (a cuBLAS Scalar, or cuBLASLt's
    (host value, device pointer, dtype))."""
    if isinstance(s, tuple):
        value, ptr, dt = s
        return (0.0, ptr, 1 if dt == np.float32 else 2) if ptr else (float(value), 0, 0)
    if s.device:
        return 0.0, s.ptr, 1 if s.dtype == np.float32 else 2
    return float(s.value()), 0, 0


@dataclass
class Output:
    """cuBLASLt's side of a launch: D (when not C), a bias per row (storage type code) and an epilogue."""

    D: int
    ldd: int
    stride_d: int = 0
    bias: int = 0
    bias_type: int = 0
    stride_bias: int = 0
    epilogue: int = EPILOGUE_NONE


def launch(h: Handle | int, ta: int, tb: int, m: int, n: int, k: int, alpha: Scalar, beta: Scalar, A: int, lda: int,
           B: int, ldb: int, C: int, ldc: int, atype: int, ctype: int, compute: int, batch: int = 1,
           stride_a: int = 0, stride_b: int = 0, stride_c: int = 0, arrays: bool = False,
           output: Output | None = None) -> None:
    """Enqueue D = epilogue(alpha op(A) op(B) + beta C + bias) on the stream (a handle's, or a stream
    handle); D = C unless ``output`` says otherwise. Pointers are already checked."""
    from cumetal import runtime as rt  # noqa: PLC0415

    stream = h.stream if isinstance(h, Handle) else h
    kernel = _kernel(f"cm_gemm_{_TYPES[atype]}_{_TYPES[ctype]}")
    (av, ap, kind), (bv, bp, _) = _scale(alpha), _scale(beta)
    out = 1 if compute in (S.COMPUTE_16F, S.COMPUTE_16F_PEDANTIC) else 0
    o = output or Output(C, ldc, stride_c)
    bias_kind = {S.R_32F: 1, S.R_16F: 2, S.R_16BF: 3}[o.bias_type] if o.bias else 0
    isz = {S.R_32F: 4, S.R_16F: 2, S.R_16BF: 2}
    for first in range(0, batch, MAX_GRID_Z):
        count = min(MAX_GRID_Z, batch - first)
        if arrays:
            a, b, c = A + 8 * first, B + 8 * first, C + 8 * first
            d, bias = c, 0
        else:
            a = A + first * stride_a * isz[atype]
            b = B + first * stride_b * isz[atype]
            c = C + first * stride_c * isz[ctype]
            d = o.D + first * o.stride_d * isz[ctype]
            bias = o.bias + first * o.stride_bias * isz[o.bias_type] if o.bias else 0
        values = (ta, tb, m, n, k, av, ap, bv, bp, kind, a, lda, stride_a, b, ldb, stride_b, c, ldc, stride_c,
                  int(arrays), _ROUND.get(compute, 0), out, d, o.ldd, o.stride_d, bias, o.stride_bias, bias_kind,
                  o.epilogue)
        types = (_INT, _INT, _INT, _INT, _INT, _F, None, _F, None, _INT, None, _LL, _LL, None, _LL, _LL, None, _LL,
                 _LL, _INT, _INT, _INT, None, _LL, _LL, None, _LL, _INT, _INT)
        grid = ((m + TILE - 1) // TILE, (n + TILE - 1) // TILE, count)
        err = rt.cudaLaunchKernel(kernel, grid, (TILE, TILE, 1), (values, types), 0, stream)[0]
        if int(err) != 0:
            raise LibError(S.EXECUTION_FAILED, f"GEMM kernel launch failed: {err!r}")
