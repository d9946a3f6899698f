"""Where CuMetal's clean-room CUDA headers go among the user's ``-I`` directories.

A directory of NVIDIA's CUDA toolkit headers on the include path (``-I$CUDA_HOME/include`` in a
Makefile, or what cuda-python's examples find with ``cuda.pathfinder`` and pass to NVRTC) holds
NVIDIA's ``cuda_runtime.h``, ``cooperative_groups.h``…, which need the toolkit's compiler internals
(``crt/``): CuMetal's headers must answer for those names, so they go before the first such
directory; anything CuMetal lacks is still found there. Other directories keep their precedence
(a user's CCCL before CuMetal's basic ``cuda/std`` headers).
"""

from __future__ import annotations

from pathlib import Path

from cumetal.cudacxx import include_dir


def is_toolkit_header_dir(path: str) -> bool:
    """Whether ``path`` holds NVIDIA's CUDA toolkit headers (and is not CuMetal's own)."""
    p = Path(path)
    try:
        return (p / "cuda_runtime_api.h").is_file() and p.resolve() != include_dir().resolve()
    except OSError:
        return False


def ours_before_toolkit_dirs(args: list[str]) -> list[str]:
    """``args`` (a compiler command line) with ``-I <CuMetal's headers>`` inserted before the first
    ``-I`` of a toolkit header directory; unchanged when there is none."""
    out: list[str] = []
    placed = False
    for i, a in enumerate(args):
        if not placed and i > 0 and args[i - 1] == "-I" and is_toolkit_header_dir(a):
            out[-1:] = ["-I", str(include_dir()), "-I"]
            placed = True
        out.append(a)
    return out
