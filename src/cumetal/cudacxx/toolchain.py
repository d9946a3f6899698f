"""Locating the pinned clang: the one bundled in the ``ziglang`` wheel (clang 22).

The wheel ships a single ``zig`` executable; ``zig clang …`` is its raw clang driver. We run that
executable directly (no second Python interpreter: ``python -m ziglang`` would cost ~50 ms per
compile), and pass ``-resource-dir <ziglang>/lib`` because zig's clang does not find its own
resource directory. ``CUMETAL_CLANG`` may name another clang (e.g. Debian's ``clang-19``) for
experiments; the pinned wheel is what CuMetal is tested with.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


class ToolchainError(RuntimeError):
    """The CUDA C++ compiler (clang) cannot be found or does not run."""


@dataclass(frozen=True)
class Clang:
    """How to invoke clang: ``argv_prefix + [clang args]``; ``resource_dir`` goes to ``-resource-dir``.

    ``identity`` names the exact compiler without running it (path, size and mtime of the
    executable): it keys the compile cache, so a cache hit costs no process start."""

    argv_prefix: tuple[str, ...]
    resource_dir: Path | None
    identity: str

    @functools.cached_property
    def version(self) -> str:
        """First line of ``clang --version``, e.g. ``clang version 22.1.8`` (runs clang once)."""
        return _run_version(list(self.argv_prefix))

    def command(self, args: list[str]) -> list[str]:
        extra = ["-resource-dir", str(self.resource_dir)] if self.resource_dir else []
        return [*self.argv_prefix, *extra, *args]


def _ziglang_dir() -> Path | None:
    spec = importlib.util.find_spec("ziglang")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _run_version(prefix: list[str]) -> str:
    try:
        proc = subprocess.run([*prefix, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolchainError(f"cannot run the CUDA C++ compiler {' '.join(prefix)!r}: {e}") from None
    first = (proc.stdout or "").splitlines()[:1]
    if proc.returncode != 0 or not first:
        raise ToolchainError(f"{' '.join(prefix)!r} --version failed: {(proc.stderr or '').strip()[:300]}")
    return first[0].strip()


@functools.cache
def find_clang() -> Clang:
    """The clang used for CUDA C++ (cached for the life of the process)."""
    override = os.environ.get("CUMETAL_CLANG")
    if override:
        exe = shutil.which(override) or override
        return Clang((exe,), None, _identity(Path(exe)))
    zdir = _ziglang_dir()
    if zdir is None:
        raise ToolchainError(
            "CUDA C++ needs clang from the 'ziglang' package, which is not installed: "
            "pip install 'ziglang==0.17.1'")
    exe = zdir / ("zig.exe" if os.name == "nt" else "zig")
    if not exe.is_file():
        raise ToolchainError(f"the 'ziglang' package at {zdir} has no '{exe.name}' executable; "
                             "reinstall it: pip install --force-reinstall 'ziglang==0.17.1'")
    return Clang((str(exe), "clang"), zdir / "lib", _identity(exe))


def _identity(exe: Path) -> str:
    try:
        st = exe.stat()
    except OSError as e:
        raise ToolchainError(f"the CUDA C++ compiler '{exe}' cannot be found: {e.strerror or e}") from None
    return f"{exe.resolve()}:{st.st_size}:{st.st_mtime_ns}"


# libc++'s configuration for the bundled headers (what `zig c++` passes for a musl target; libc++
# normally gets these from a generated __config_site).
_LIBCXX_CONFIG = (
    "_LIBCPP_ABI_VERSION=1", "_LIBCPP_ABI_NAMESPACE=__1", "_LIBCPP_HAS_THREADS=1", "_LIBCPP_HAS_MONOTONIC_CLOCK",
    "_LIBCPP_HAS_TERMINAL", "_LIBCPP_HAS_MUSL_LIBC=1", "_LIBCXXABI_DISABLE_VISIBILITY_ANNOTATIONS",
    "_LIBCPP_DISABLE_VISIBILITY_ANNOTATIONS", "_LIBCPP_HAS_VENDOR_AVAILABILITY_ANNOTATIONS=0",
    "_LIBCPP_HAS_FILESYSTEM=1", "_LIBCPP_HAS_RANDOM_DEVICE", "_LIBCPP_HAS_LOCALIZATION", "_LIBCPP_HAS_UNICODE",
    "_LIBCPP_HAS_WIDE_CHARACTERS", "_LIBCPP_HAS_NO_STD_MODULES", "_LIBCPP_HAS_TIME_ZONE_DATABASE",
    "_LIBCPP_PSTL_BACKEND_SERIAL", "_LIBCPP_HARDENING_MODE=_LIBCPP_HARDENING_MODE_NONE",
    "_LIBCPP_ASSERTION_SEMANTIC_DEFAULT=_LIBCPP_ASSERTION_SEMANTIC_IGNORE",
)


def host_libc() -> str:
    """``glibc``, ``darwin`` or ``other``: whose integer types the program's host compile sees."""
    return _detect_host_libc()


@functools.cache
def _detect_host_libc() -> str:
    import platform  # noqa: PLC0415

    system = platform.system()
    if system == "Darwin":
        return "darwin"
    return "glibc" if system == "Linux" and platform.libc_ver()[0] == "glibc" else "other"


# Headers laid over the bundled musl ones so that device code sees the host C library's types and
# transitive includes: the same names for kernels templated on them on both sides of a program, the
# same struct layouts, the same names in scope (glibc's <stdlib.h> brings `uint`).
_HOST_LIBC_OVERLAYS = {"glibc": "libc_glibc", "darwin": "libc_darwin"}


def bundled_stdlib_args(clang: Clang) -> list[str]:
    """Standard C/C++ headers from the ziglang wheel (libc++ and musl) instead of the system's, so
    that ``<cstdio>``, ``<cstdint>``, ``<cmath>``… need no SDK (a Mac without Xcode or its Command
    Line Tools), and the same source gives the same PTX on every machine. The host side of the
    compile is parsed for x86_64-linux-musl on every machine: it is the host nvcc users compile on,
    and host properties leak into device code (``char`` is signed there and on macOS, unsigned on
    aarch64 Linux), with the host C library's integer types laid over musl's (glibc's fast types,
    Darwin's ``long long`` int64_t). [] where the wheel lacks the headers (another clang)."""
    lib = clang.resource_dir
    if lib is None or not (lib / "libcxx" / "include").is_dir():
        return []
    args = ["-target", "x86_64-unknown-linux-musl", "-nostdlibinc", "-nostdinc++"]
    overlay = _HOST_LIBC_OVERLAYS.get(host_libc())
    if overlay:
        args += ["-isystem", str(Path(__file__).with_name("include") / "cumetal" / overlay)]
    for d in ("libcxx/include", "libcxxabi/include", "libc/include/x86_64-linux-musl", "libc/include/generic-musl",
              "libc/include/x86-linux-any", "libc/include/any-linux-any"):
        args += ["-isystem", str(lib / d)]
    return args + ["-D" + m for m in _LIBCXX_CONFIG]


def clang_version() -> str:
    """``clang version 22.1.8`` (part of every compile-cache key)."""
    return find_clang().version
