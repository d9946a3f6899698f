"""``cuda.pathfinder``'s header lookup, answered with CuMetal's clean-room headers.

cuda-python's example helpers ask ``cuda.pathfinder.find_nvidia_header_directory("cudart")`` (and
``"cccl"``) for the include directories they hand to NVRTC. Where no NVIDIA toolkit or wheel exists
(a Mac), that answers None and the examples stop; with ``from cumetal import pathfinder`` the
answer is CuMetal's header root for the libraries CuMetal ships headers for. For ``"cccl"`` that is
CuMetal's libcu++ subset (``cuda/barrier``, ``cuda/pipeline``, ``cuda/atomic``, ``cuda/std`` basics);
Thrust and CUB come from the user's own CCCL (``nvidia-cuda-cccl``), passed with ``-I``.
"""

from __future__ import annotations

import os

from cumetal.cudacxx import include_dir

# libname -> a header that CuMetal ships for it (cuda.pathfinder's libnames)
_SHIPPED = {
    "cudart": "cuda_runtime.h",
    "cccl": "cuda/barrier",
    "cublas": "cublas_v2.h",
    "curand": "curand.h",
    "profiler": "cuda_profiler_api.h",
    "nvrtc": "nvrtc.h",
    "nvvm": "nvvm.h",
}
# cuda.pathfinder's other header libnames: known, but CuMetal has no headers for them
_NOT_SHIPPED = {"cufft", "cusolver", "cusparse", "npp", "nvcc", "nvfatbin", "nvjitlink", "nvjpeg",
                "cufile", "cudla"}
SUPPORTED_HEADERS_CTK = {**_SHIPPED, **{name: "" for name in _NOT_SHIPPED}}


def find_nvidia_header_directory(libname: str) -> str | None:
    """The directory holding CuMetal's headers for ``libname``, or None where CuMetal has none.
    An unknown ``libname`` raises ``RuntimeError``, as cuda.pathfinder does."""
    if libname in _SHIPPED:
        root = include_dir()
        return str(root) if (root / _SHIPPED[libname]).is_file() else None
    if libname in _NOT_SHIPPED:
        return None
    raise RuntimeError(f"UNKNOWN libname={libname!r} (known: {sorted(SUPPORTED_HEADERS_CTK)})")


def get_cuda_path_or_home() -> str | None:
    """``CUDA_PATH`` or ``CUDA_HOME`` as the environment has them (cuda.pathfinder's rule: CUDA_PATH
    first). ``python -m cumetal.capi.library --cuda-home`` prints a directory to set them to."""
    return os.environ.get("CUDA_PATH") or os.environ.get("CUDA_HOME") or None
