"""A note for a compile that failed on a header NVIDIA's toolkit has and CuMetal does not ship:
nvcc finds Thrust/CUB/libcu++ in the toolkit, CuMetal needs the user's own CCCL on the include
path, and some CUDA libraries have no CuMetal counterpart. Said once per log, after clang's error."""

from __future__ import annotations

import re

_NOT_FOUND = re.compile(r"fatal error: '([^']+)' file not found")

_CCCL = ("thrust/", "cub/", "cuda/std/", "cuda/")
_NO_LIBRARY = {"cufft": "cuFFT", "cusparse": "cuSPARSE", "cusolver": "cuSOLVER", "npp": "NPP", "nvjpeg": "nvJPEG",
               "cudnn": "cuDNN", "nccl": "NCCL", "cutensor": "cuTENSOR", "nvJitLink": "nvJitLink"}


def note_for(log: str) -> str:
    """'' or one ``cumetalc: note: …`` line naming what to install or what CuMetal lacks."""
    m = _NOT_FOUND.search(log)
    if m is None:
        return ""
    header = m.group(1)
    if header.startswith(_CCCL):
        found = installed_cccl()
        where = (f"pass -I {found}" if found else
                 "install NVIDIA's CCCL (pip install nvidia-cuda-cccl) and pass its include/cccl folder with -I")
        return ("cumetalc: note: CuMetal ships no Thrust, CUB or libcu++ headers (nvcc finds them in the CUDA "
                f"toolkit): {where}\n")
    stem = re.split(r"[/_.]", header)[0]
    for key, name in _NO_LIBRARY.items():
        if stem.lower().startswith(key.lower()):
            return f"cumetalc: note: '{header}' is part of {name}, which CuMetal does not provide\n"
    return ""


def installed_cccl() -> str | None:
    """The include folder of an installed ``nvidia-cuda-cccl`` wheel (``…/nvidia/cu13/include/cccl``)."""
    import importlib.util  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for candidate in sorted(Path(root).glob("cu*/include/cccl"), reverse=True):
            if (candidate / "thrust").is_dir():
                return str(candidate)
    return None
