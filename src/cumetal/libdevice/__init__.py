"""CuMetal's device math library: clean-room ``__nv_*`` functions (libdevice's ABI names) written
as CUDA C++ in ``src/``, built into NVPTX bitcode that clang (``-mlink-builtin-bitcode``) and
llvmlite link into kernels. See ``docs/math-library.md``."""

from __future__ import annotations

from cumetal.libdevice.build import LibdeviceBuildError, bitcode_path, source_dir

__all__ = ["LibdeviceBuildError", "bitcode_path", "source_dir"]
