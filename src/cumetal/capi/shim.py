"""The opt-in binary-compatibility shim: ``python -m cumetal.capi.shim DIR``.

Creates ``DIR/libcudart.so.13`` and ``DIR/libcuda.so.1`` (``.dylib`` names on macOS) as links to
libcumetal, so that a program linked against NVIDIA's shared CUDA libraries loads CuMetal instead
when ``DIR`` is on ``LD_LIBRARY_PATH`` (``DYLD_FALLBACK_LIBRARY_PATH`` on macOS). Only programs whose
fatbinaries carry PTX can run; SASS-only ones get a clear error. It is refused unless
``CUMETAL_ENABLE_BINARY_SHIM=1`` is set, because of the legal note below (spec §1, §12.1).

Legal note: NVIDIA's CUDA EULA (since about 2024) prohibits using translation layers to run CUDA
binaries on non-NVIDIA hardware. This does not concern recompiling source code with ``cumetalc``,
which is CuMetal's primary path. Using this shim with binaries you did not build yourself is at your
own risk; it is not the recommended way to use CuMetal.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cumetal.capi.library import library_path

NAMES = (("libcudart.13.dylib", "libcuda.dylib") if sys.platform == "darwin"
         else ("libcudart.so.13", "libcuda.so.1"))


def install(directory: Path) -> list[Path]:
    """Create the links in ``directory``; returns them."""
    directory.mkdir(parents=True, exist_ok=True)
    target = library_path()
    made = []
    for name in NAMES:
        link = directory / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)
        made.append(link)
    return made


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: CUMETAL_ENABLE_BINARY_SHIM=1 python -m cumetal.capi.shim DIR", file=sys.stderr)
        return 2
    if os.environ.get("CUMETAL_ENABLE_BINARY_SHIM") != "1":
        print(__doc__.split("Legal note:")[1].strip(), file=sys.stderr)
        print("\nrefused: set CUMETAL_ENABLE_BINARY_SHIM=1 to create the shim anyway", file=sys.stderr)
        return 1
    for link in install(Path(args[0])):
        print(f"{link} -> {os.readlink(link)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
