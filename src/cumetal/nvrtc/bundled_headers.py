"""NVRTC 13's bundled-header calls. CuMetal's "bundled headers" are its own clean-room CUDA headers
(``cumetal.cudacxx.include_dir()``): every compile already sees them, and these calls let a program
query them or extract a copy, as NVRTC lets it extract the toolkit headers it carries."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from cumetal.cudacxx import include_dir
from cumetal.nvrtc.enums import nvrtcResult

R = nvrtcResult
_MARKER = ".nvrtc_headers_version"
_HEADERS_VERSION = (13, 0)  # the CUDA release whose API the headers declare


class nvrtcBundledHeadersInfo:  # noqa: N801 - cuda-python's name
    """What ``nvrtcGetBundledHeadersInfo`` fills in (cuda-python's attribute names)."""

    def __init__(self, _ptr: int = 0) -> None:
        self.available = 0
        self.compressedSize = 0
        self.uncompressedSize = 0
        self.cudaVersionMajor = 0
        self.cudaVersionMinor = 0
        self.numFiles = 0

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's name
        return id(self)


def _header_files() -> list[Path]:
    root = include_dir()
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _path(value: Any) -> Path | None:
    if isinstance(value, bytes | bytearray):
        value = bytes(value).split(b"\0", 1)[0].decode("utf-8", "replace")
    if not isinstance(value, str | os.PathLike) or not str(value):
        return None
    return Path(value)


def nvrtcGetBundledHeadersInfo() -> tuple:  # noqa: N802
    """``(NVRTC_SUCCESS, info, None)``: the headers are always there (uncompressed)."""
    files = _header_files()
    info = nvrtcBundledHeadersInfo()
    info.available = 1
    info.numFiles = len(files)
    info.uncompressedSize = info.compressedSize = sum(p.stat().st_size for p in files)
    info.cudaVersionMajor, info.cudaVersionMinor = _HEADERS_VERSION
    return (R.NVRTC_SUCCESS, info, None)


def nvrtcInstallBundledHeaders(installPath: Any, flags: int = 0) -> tuple:  # noqa: N802, N803
    """Copy the headers to ``installPath`` (then ``-I<installPath>`` finds them), with NVRTC's
    version marker file. Returns ``(result, errorLog)``."""
    target = _path(installPath)
    if target is None:
        return (R.NVRTC_ERROR_INVALID_INPUT, b"installPath must be a non-empty path")
    root = include_dir()
    try:
        for src in _header_files():
            dst = target / src.relative_to(root)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        (target / _MARKER).write_text("{}.{}\n".format(*_HEADERS_VERSION))
    except OSError as e:
        return (R.NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, f"cannot install headers in {target}: {e}".encode())
    return (R.NVRTC_SUCCESS, None)


def nvrtcRemoveBundledHeaders(installPath: Any) -> tuple:  # noqa: N802, N803
    """Remove a directory made by ``nvrtcInstallBundledHeaders`` (refused without its marker file,
    so a wrong path never deletes unrelated files). Returns ``(result, errorLog)``."""
    target = _path(installPath)
    if target is None or not (target / _MARKER).is_file():
        return (R.NVRTC_ERROR_INVALID_INPUT, b"installPath holds no headers installed by nvrtcInstallBundledHeaders")
    try:
        shutil.rmtree(target)
    except OSError as e:
        return (R.NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, f"cannot remove {target}: {e}".encode())
    return (R.NVRTC_SUCCESS, None)
