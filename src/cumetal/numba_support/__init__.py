"""numba-cuda on CuMetal: ``import cumetal.numba_support`` before ``from numba import cuda``.

numba-cuda (0.30) talks to CUDA only through cuda-python: ``cuda.bindings.driver`` for the driver,
``cuda.bindings.nvvm`` to compile its NVVM IR, ``cuda.bindings.nvrtc`` for the architecture list and
``cuda.core`` for devices, streams, linking, loading and launching. Importing this module makes those
names resolve to CuMetal's mirrors (:mod:`cumetal.driver`, :mod:`cumetal.nvvm`, :mod:`cumetal.nvrtc`,
:mod:`cumetal.core`) for the rest of the process, and adjusts two things numba-cuda looks for on
disk: the NVIDIA driver library (not needed: the driver is :mod:`cumetal.driver`), libdevice
(CuMetal's own) and the device runtime ``cudadevrt`` that grid groups link (CuMetal's own
``cudadevrt.ptx``, over the cpu device's grid barrier). Kernel code needs no change.

For Python processes started without this import (numba-cuda's ``python -c`` test subprocesses,
multiprocessing's spawn), ``CUMETAL_NUMBA=1`` with the opt-in start-up hook
(``python -m cumetal.numba_support_startup install-pth``) switches them too; importing this module
sets ``CUMETAL_NUMBA=1`` for the children of this process unless it is set already.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import pathlib
import sys
import types
from typing import Any

_ALIASES = {
    "cuda.bindings.driver": "cumetal.driver",
    "cuda.bindings.nvvm": "cumetal.nvvm",
    "cuda.bindings.nvrtc": "cumetal.nvrtc",
    "cuda.bindings.runtime": "cumetal.runtime",
    "cuda.core": "cumetal.core",
    "cuda.core.utils": "cumetal.core.utils",
    "cuda.core.graph": "cumetal.core.graph",
    "cuda.core.texture": "cumetal.core.texture",
    "cuda.core.typing": "cumetal.core.typing",
    "cuda.core.experimental": "cumetal.core",
    "cuda.core._utils.cuda_utils": "cumetal.core._utils",  # CUDAError's home in cuda.core (numba's tests)
}


# What numba-cuda links for grid groups, in PTX (cudaCGGetIntrinsicHandle, cudaCGSynchronize)
CUDADEVRT = pathlib.Path(__file__).with_name("cudadevrt.ptx")


class CuMetalLibDevice:
    """numba's ``LibDevice``: CuMetal's libdevice bitcode."""

    _cache: bytes | None = None

    def __init__(self) -> None:
        if CuMetalLibDevice._cache is None:
            from cumetal import libdevice

            CuMetalLibDevice._cache = libdevice.bitcode_path().read_bytes()
        self.bc = CuMetalLibDevice._cache  # numba's LibDevice exposes the bitcode as .bc too

    def get(self) -> bytes:
        assert self._cache is not None
        return self._cache


def _fix_driver(mod: types.ModuleType) -> None:
    """The driver object was made while looking for libcuda; make it again without that search.
    LTO (``lto=True``, numba-cuda's default where nvJitLink is found) is CuMetal's linker's job
    (:mod:`cumetal.core`'s Linker takes LTO IR), so it does not depend on NVIDIA's nvJitLink library
    being installed."""
    mod.find_driver = lambda: None
    mod.driver.__init__()
    mod._have_nvjitlink = lambda: True


def _fix_nvvm(mod: types.ModuleType) -> None:
    mod.LibDevice = CuMetalLibDevice


def _fix_libs(mod: types.ModuleType) -> None:
    from cumetal import libdevice

    mod.get_libdevice = lambda: str(libdevice.bitcode_path())
    mod.open_libdevice = lambda: libdevice.bitcode_path().read_bytes()
    original = mod.get_cudalib

    def get_cudalib(lib: str, static: bool = False) -> str:
        if lib == "cudadevrt":  # linked for grid-wide sync (cuda.cg.this_grid().sync()): CuMetal's own
            return str(CUDADEVRT)
        return original(lib, static)

    mod.get_cudalib = get_cudalib


def _fix_paths(mod: types.ModuleType) -> None:
    """numba-cuda's CUDA toolkit paths, answered with CuMetal's (so that nothing searches for NVIDIA's)."""
    import pathlib

    import cumetal
    from cumetal import libdevice
    from cumetal.cudacxx import include_dir

    here = str(pathlib.Path(cumetal.__file__).parent)
    entry = mod._env_path_tuple
    mod.get_cuda_paths._cached_result = {
        "nvrtc": entry("CuMetal", "cumetal.nvrtc"),
        "nvvm": entry("CuMetal", "cumetal.nvvm"),
        "libdevice": entry("CuMetal", str(libdevice.bitcode_path())),
        "cudalib_dir": entry("CuMetal", here),
        "static_cudalib_dir": entry("CuMetal", here),
        "include_dir": entry("CuMetal", str(include_dir())),
    }


_FIXES = {"numba.cuda.cuda_paths": _fix_paths, "numba.cuda.cudadrv.driver": _fix_driver, "numba.cuda.cudadrv.nvvm": _fix_nvvm,
          "numba.cuda.cudadrv.libs": _fix_libs}


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader, fix: Any) -> None:
        self._inner = inner
        self._fix = fix

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self._inner.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self._inner.exec_module(module)
        self._fix(module)


class _Finder(importlib.abc.MetaPathFinder):
    """Applies a fix right after one of numba-cuda's modules has run."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        fix = _FIXES.get(fullname)
        if fix is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                spec.loader = _Loader(spec.loader, fix)
                return spec
        return None


def _native_handle(obj: Any) -> int:
    """``cuda.bindings.utils.get_cuda_native_handle``: the integer inside a handle."""
    return int(obj)


def _package(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__path__ = []  # a package, so that submodule imports are looked up (and aliased) by name
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    sys.modules[name] = mod
    return mod


def _ensure_cuda_bindings_package() -> None:
    """Use the installed cuda-bindings package when there is one (numba-cuda reads a few pure-Python
    parts of it); where it cannot be installed (macOS: NVIDIA ships no wheels), stand in for it."""
    try:
        import cuda.bindings  # noqa: F401
        return
    except ImportError:
        pass
    try:
        import cuda
    except ImportError:
        cuda = _package("cuda")
    bindings = _package("cuda.bindings")
    bindings._internal = _package("cuda.bindings._internal")  # type: ignore[attr-defined]
    cuda.bindings = bindings  # type: ignore[attr-defined]


def install() -> None:
    """Point cuda-python's module names at CuMetal (idempotent). Must run before numba-cuda loads."""
    if any(name in sys.modules for name in _FIXES) and getattr(sys.modules.get("numba.cuda.cudadrv.nvvm"),
                                                                   "LibDevice", None) is not CuMetalLibDevice:
        raise RuntimeError("numba-cuda was imported before cumetal.numba_support: import cumetal.numba_support "
                           "first (it must decide which CUDA numba-cuda binds to)")
    import importlib
    import os

    # Python subprocesses started from here follow the switch when the start-up hook is installed
    # (python -m cumetal.numba_support_startup install-pth); CUMETAL_NUMBA=0 set by the user wins.
    os.environ.setdefault("CUMETAL_NUMBA", "1")
    _ensure_cuda_bindings_package()
    for alias, target in _ALIASES.items():
        sys.modules[alias] = importlib.import_module(target)
    parent = sys.modules["cuda.bindings"]
    for name in ("driver", "nvvm", "nvrtc", "runtime"):
        setattr(parent, name, sys.modules[f"cuda.bindings.{name}"])
    utils = types.ModuleType("cuda.bindings.utils")
    utils.get_cuda_native_handle = _native_handle  # type: ignore[attr-defined]
    sys.modules["cuda.bindings.utils"] = utils
    sys.modules["cuda.bindings._internal.nvvm"] = None  # type: ignore[assignment] # "no NVIDIA libNVVM to inspect"
    import cuda

    cuda.core = sys.modules["cuda.core"]  # type: ignore[attr-defined]
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


install()
