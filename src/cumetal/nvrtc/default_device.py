"""NVRTC's ``-default-device``: functions without an execution-space attribute are device functions.

clang's nearest equivalent is ``#pragma clang force_cuda_host_device begin/end`` (unannotated
functions become ``__host__ __device__``). Wrapping the whole program in it also re-declares every
function of the headers the program includes: a libc/libc++ function CuMetal's headers had already
declared for the host (``__assert_fail``, placement ``operator new``) then clashes with its
``__host__ __device__`` re-declaration, and NVIDIA's CCCL headers, which include those, fail
(cuda-python's ``global_to_shmem_async_copy`` example). NVIDIA's NVRTC has no host library to
clash with, and library headers annotate their functions anyway, so the pragma is lifted around
``#include <...>`` of anything but the program's own in-memory headers: it covers the user's source,
its in-memory headers and what they include with quotes. ``#line`` directives keep every line where
it was, so diagnostics point at the user's lines.
"""

from __future__ import annotations

import re

BEGIN = "#pragma clang force_cuda_host_device begin"
END = "#pragma clang force_cuda_host_device end"
_ANGLE_INCLUDE = re.compile(r"^\s*#\s*(?:include|include_next|import)\s*<([^>]+)>")


def default_device_source(text: str, in_memory_headers: set[str] | frozenset[str] = frozenset(),
                          *, wrap: bool = True) -> str:
    """``text`` with unannotated functions made device functions, library includes left as they are.

    ``wrap`` False is for an in-memory header: it is included from inside the pragma region, so it
    only lifts the pragma around its own library includes."""
    out = [BEGIN, "#line 1"] if wrap else []
    for number, line in enumerate(text.splitlines(), start=1):
        m = _ANGLE_INCLUDE.match(line)
        if m is None or m.group(1).strip() in in_memory_headers or line.rstrip().endswith("\\"):
            out.append(line)
            continue
        out += [END, f"#line {number}", line, BEGIN, f"#line {number + 1}"]
    if wrap:
        out.append(END)
    return "\n".join(out) + "\n"
