"""Where the user's CCCL (Thrust, CUB, libcu++) headers are: CuMetal never ships them.

NVIDIA publishes them on PyPI as ``nvidia-cuda-cccl`` (CUDA 13: headers under
``site-packages/nvidia/cu13/include/cccl``). ``CUMETAL_CCCL_INCLUDE`` names another copy (for
example a CUDA toolkit's ``include/cccl`` or a CCCL git checkout's ``thrust``, ``cub`` and
``libcudacxx/include`` merged).
"""

from __future__ import annotations

import importlib.metadata
import os
import pathlib
import re

PIN = "nvidia-cuda-cccl==13.3.5.0.6"
SKIP_REASON = (f"CCCL headers are not installed: `pip install {PIN}` (the test extra) or set "
               "CUMETAL_CCCL_INCLUDE to a directory holding thrust/, cub/ and cuda/")


def _is_cccl_root(p: pathlib.Path) -> bool:
    return (p / "thrust" / "version.h").is_file() and (p / "cub" / "cub.cuh").is_file() and \
        (p / "cuda" / "std" / "version").is_file()


def cccl_include() -> pathlib.Path | None:
    """The directory to pass to ``cumetalc -I``, or None when no CCCL is installed."""
    env = os.environ.get("CUMETAL_CCCL_INCLUDE")
    if env:
        return pathlib.Path(env) if _is_cccl_root(pathlib.Path(env)) else None
    try:
        dist = importlib.metadata.distribution("nvidia-cuda-cccl")
    except importlib.metadata.PackageNotFoundError:
        return None
    for rel in ("nvidia/cu13/include/cccl", "nvidia/cu14/include/cccl"):
        p = pathlib.Path(str(dist.locate_file(rel)))
        if _is_cccl_root(p):
            return p
    return None


def cccl_version(root: pathlib.Path) -> str:
    """``major.minor.patch`` from CCCL's version header (CCCL_VERSION = MMMmmmppp)."""
    text = (root / "cuda" / "std" / "__cccl" / "version.h").read_text()
    v = int(re.search(r"#define\s+CCCL_VERSION\s+(\d+)", text).group(1))
    return f"{v // 1000000}.{v // 1000 % 1000}.{v % 1000}"
