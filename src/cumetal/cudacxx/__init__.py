"""The CUDA C++ front end: CUDA C++ source -> clang 22 (the pinned ``ziglang`` wheel) -> PTX, which
then goes through the same pipeline as any PTX (``cumetal.ptx`` -> ``cumetal.ir`` -> backends)."""

from __future__ import annotations

from pathlib import Path


def include_dir() -> Path:
    """The root of CuMetal's clean-room CUDA headers (``cuda_runtime.h`` and friends)."""
    return Path(__file__).resolve().parent / "include"


def fallback_include_dir() -> Path:
    """Headers used only when nothing else provides them (searched last, ``-idirafter``): a serial
    ``omp.h`` for host code, since CuMetal's host compiler has no OpenMP runtime."""
    return Path(__file__).resolve().parent / "include_fallback"
