"""The device runtime for nvcc-made PTX: ``nvcc -rdc=true`` turns device code's ``cudaGetDevice``,
``cudaMalloc``, ``cudaGetErrorString``… into calls of ``.extern .func __cudaCDP2GetDevice`` etc.
(CUDA 12+'s "CDP2" names, recorded from nvcc 13 on an H100: scripts/h100_cxx_audit/h100/
devrt_calls_sm80.ptx), which NVIDIA's libcudadevrt defines at link time.

:func:`link_device_runtime` gives such PTX the bodies: ``devrt_cdp2.cu`` (the CDP2 names over
CuMetal's ``cuda_device_runtime_api.h``, the same answers clang-compiled code gets) compiled once by
CuMetal's front end (its compile cache keeps the PTX), appended to the module, each ``.extern``
declaration kept in place as a plain forward declaration so line numbers do not move. The module then
holds ``__cumetal_devrt_info``, which the driver fills at load (cudacxx/devrt.py). The library's
string constants are renamed apart from the user's. Dynamic parallelism
(``__cudaCDP2LaunchDeviceV2``…) stays unresolved and is refused as before.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

SOURCE = Path(__file__).with_name("devrt_cdp2.cu")
_DECLARED = re.compile(r"\.extern(\s+\.func\s*(?:\([^()]*\))?\s*(__cudaCDP2\w+))")
_HEADER = re.compile(r"^\s*(?:\.version|\.target|\.address_size)\b[^\n]*\n", re.M)
_STRINGS = re.compile(r"_\$_str(\d*)\b")

_lock = threading.Lock()
_library: tuple[str, frozenset[str]] | None = None


def _compiled_library() -> tuple[str, frozenset[str]]:
    """(PTX body without its module header, names it defines), compiled once per process."""
    global _library
    with _lock:
        if _library is None:
            from cumetal.cudacxx.compile import compile_to_ptx  # noqa: PLC0415 - clang only when needed
            from cumetal.cudacxx.options import CudaOptions  # noqa: PLC0415

            ptx = compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx
            body = _STRINGS.sub(lambda m: f"__cumetal_devrt_str{m.group(1)}", _HEADER.sub("", ptx))
            names = frozenset(re.findall(r"^\.visible \.func\s*(?:\([^()]*\))?\s*(__cudaCDP2\w+)", body, re.M))
            _library = (body, names)
        return _library


def needs_device_runtime(text: str) -> bool:
    return "__cudaCDP2" in text and _DECLARED.search(text) is not None


def link_device_runtime(text: str) -> str:
    """``text`` (PTX) with the device runtime functions it declares ``.extern`` defined (``text``
    itself when it declares none, or defines one of them itself)."""
    if not needs_device_runtime(text):
        return text
    try:
        body, names = _compiled_library()
    except Exception:  # noqa: BLE001 - no front end here: the calls stay unresolved, reported as before
        return text
    declared = {m.group(2) for m in _DECLARED.finditer(text)}
    if not declared & names or re.search(r"^\s*\.visible\s+\.func[^;{]*\b__cudaCDP2", text, re.M):
        return text
    # ".extern .func f(...)" -> "        .func f(...)": a forward declaration of the body appended below
    linked = _DECLARED.sub(lambda m: (" " * len(".extern") + m.group(1)) if m.group(2) in names else m.group(0), text)
    return f"{linked.rstrip()}\n\n// CuMetal's device runtime (cumetal/cudacxx/devrt_cdp2.cu)\n{body}"
