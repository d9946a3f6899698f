"""Building ``libcumetal_libs`` (cuBLAS, cuBLASLt and cuRAND's C ABI) from ``csrc/``.

Built on first use, like libcumetal (:mod:`cumetal.capi.library`), into
``$CUMETAL_CACHE_DIR/capi/libs-<key>/``; linked against libcumetal (whose interpreter it shares)
and this Python's libpython, with rpaths to both. ``cumetalc … -lcublas -lcublasLt -lcurand``
links it (see :data:`LINK_NAMES`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

from cumetal.capi import library as capi_library
from cumetal.cudacxx import include_dir

CSRC = Path(__file__).resolve().parent / "csrc"
LIB_STEM = "cumetal_libs"
LIB_NAME = f"lib{LIB_STEM}.dylib" if sys.platform == "darwin" else f"lib{LIB_STEM}.so"
# the -l names of NVIDIA's libraries this library stands for
LINK_NAMES = frozenset({"cublas", "cublasLt", "cublas_static", "cublasLt_static", "curand", "curand_static"})
PUBLIC_HEADERS = ("cublas_api.h", "cublas_v2.h", "cublas.h", "cublasXt.h", "cublasLt.h", "curand.h", "cuComplex.h", "library_types.h",
                  "driver_types.h", "cuda_runtime_api.h", "vector_types.h")


def _key(compiler: list[str], cumetal_lib: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(CSRC.glob("*.[ch]")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for name in PUBLIC_HEADERS:
        p = include_dir() / name
        h.update(name.encode() + b"\0" + (p.read_bytes() if p.is_file() else b"") + b"\0")
    h.update(str(cumetal_lib).encode() + b"\0" + " ".join(compiler).encode())
    return h.hexdigest()[:20]


def _build_once(final_dir: Path, lib_name: str, compiler: list[str], command: Callable[[Path], list[str]]) -> Path:
    """``final_dir/lib_name``, compiled first if absent: ``command(out)`` runs in a temporary directory
    that is then renamed into place (atomic; another process that won the race is fine)."""
    lib = final_dir / lib_name
    if lib.is_file():
        return lib
    final_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="build-", dir=final_dir.parent))
    try:
        try:
            proc = subprocess.run(command(tmp / lib_name), capture_output=True, text=True, errors="replace",
                                  check=False)
        except OSError as e:
            raise capi_library.LibraryBuildError(f"cannot run the C compiler {compiler[0]!r}: {e}") from None
        if proc.returncode != 0 or not (tmp / lib_name).is_file():
            raise capi_library.LibraryBuildError(
                f"building {lib_name} failed ({' '.join(compiler)}):\n{proc.stderr.strip()}")
        try:
            os.rename(tmp, final_dir)
        except OSError:
            if not lib.is_file():
                raise capi_library.LibraryBuildError(f"cannot publish {final_dir}") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return lib


@functools.cache
def library_path() -> Path:
    """The path of libcumetal_libs, built first if needed (raises LibraryBuildError on failure)."""
    cumetal_lib = capi_library.library_path()
    compiler = capi_library.c_compiler()
    libdir = str(cumetal_lib.parent)

    def command(out: Path) -> list[str]:
        cmd = [*compiler, "-shared", "-fPIC", "-O2", "-std=gnu11", "-fvisibility=hidden", "-Wall",
               "-Wno-unused-parameter", "-I", str(CSRC), "-I", str(include_dir()),
               "-I", sysconfig.get_paths()["include"], "-o", str(out),
               *[str(s) for s in sorted(CSRC.glob("*.c"))], "-L" + libdir, "-lcumetal", f"-Wl,-rpath,{libdir}"]
        if sys.platform == "darwin":
            cmd += ["-install_name", f"@rpath/{LIB_NAME}"]
        return cmd + capi_library._python_link_args() + ["-lpthread", "-lm"]  # noqa: SLF001 - same interpreter

    return _build_once(capi_library.cache_root() / f"libs-{_key(compiler, cumetal_lib)}", LIB_NAME, compiler, command)


HOST_CSRC = CSRC / "curand_host"  # not globbed into libcumetal_libs: a dependency-free library of its own
HOST_LIB_NAME = "libcumetal_curand_host.dylib" if sys.platform == "darwin" else "libcumetal_curand_host.so"


@functools.cache
def curand_host_path() -> Path:
    """libcumetal_curand_host (cuRAND's host-side models and inner loops, csrc/curand_host/), built
    first if needed; no link to libcumetal or libpython (raises LibraryBuildError on failure)."""
    compiler = capi_library.c_compiler()
    h = hashlib.sha256()
    for path in sorted(HOST_CSRC.glob("*.[ch]")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(" ".join(compiler).encode())

    def command(out: Path) -> list[str]:
        # no contraction, no fast-math: the models' roundings are the numpy twins' (fma() is one rounding)
        return [*compiler, "-shared", "-fPIC", "-O3", "-std=gnu11", "-ffp-contract=off", "-fvisibility=hidden",
                "-Wall", "-o", str(out), *[str(s) for s in sorted(HOST_CSRC.glob("*.c"))], "-lm"]

    return _build_once(capi_library.cache_root() / f"curand-host-{h.hexdigest()[:20]}", HOST_LIB_NAME, compiler,
                       command)


def link_args(libraries: list[str] | tuple[str, ...]) -> list[str]:
    """Linker arguments for the CuMetal libraries named among ``-l`` names (empty when none is)."""
    if not any(name in LINK_NAMES for name in libraries):
        return []
    lib = library_path()
    return [str(lib), f"-Wl,-rpath,{lib.parent}"]
