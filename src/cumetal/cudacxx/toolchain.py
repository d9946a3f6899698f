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


def clang_version() -> str:
    """``clang version 22.1.8`` (part of every compile-cache key)."""
    return find_clang().version
