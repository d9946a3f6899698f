"""Kernel names across two C++ standard libraries.

On Linux the host half of a ``.cu`` file is compiled against the system's libstdc++ (``std::``) and
the device half against the bundled libc++ (``std::__1::``), so a kernel whose signature names a
standard type (``std::plus<int>``, ``std::pair<int, int>``) is registered under a mangled name the
PTX does not have. When the exact name is missing, the registered name and the module's kernel names
are demangled and compared with the library's inline namespaces removed; a unique match is the
kernel. The two libraries lay out what kernels take by value alike, except ``std::tuple`` (libstdc++
stores its elements in reverse order): a by-value ``std::tuple`` parameter is refused, not guessed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Iterable

_INLINE_NAMESPACES = ("std::__1::", "std::__cxx11::", "std::__2::")


@functools.cache
def _demangler():  # noqa: ANN202 - a ctypes function or None
    names = ["libc++abi.dylib", "libc++.1.dylib"] if sys.platform == "darwin" else []
    found = ctypes.util.find_library("stdc++")
    names += [n for n in (found, "libstdc++.so.6") if n]
    for name in names:
        try:
            fn = ctypes.CDLL(name).__cxa_demangle
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        return fn
    return None


@functools.lru_cache(maxsize=4096)
def demangle(name: str) -> str | None:
    """The demangled form of an Itanium-mangled name, or None (not mangled, no demangler)."""
    fn = _demangler()
    if fn is None or not name.startswith("_Z"):
        return None
    status = ctypes.c_int(0)
    ptr = fn(name.encode(), None, None, ctypes.byref(status))
    if not ptr or status.value != 0:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        ctypes.CDLL(None).free(ctypes.c_void_p(ptr))


def _neutral(demangled: str) -> str:
    for ns in _INLINE_NAMESPACES:
        demangled = demangled.replace(ns, "std::")
    return demangled


def _parameters(demangled: str) -> str:
    """The text of the outermost parameter list (what follows the function's name)."""
    depth = 0
    for i in range(len(demangled) - 1, -1, -1):
        c = demangled[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                return demangled[i:]
    return ""


class TupleByValue(ValueError):
    """The kernel takes a std::tuple by value: its layout differs between the two libraries."""


def same_kernel(wanted: str, names: Iterable[str]) -> str | None:
    """The one kernel among ``names`` that is ``wanted`` up to the standard library's inline
    namespace, or None. Raises TupleByValue when that kernel takes a std::tuple by value."""
    target = demangle(wanted)
    if target is None:
        return None
    target = _neutral(target)
    matches = [n for n in names if n.startswith("_Z") and (d := demangle(n)) is not None and _neutral(d) == target]
    if len(matches) != 1:
        return None
    params = _parameters(target)
    if "std::tuple<" in params.replace("std::tuple<>", ""):
        raise TupleByValue(f"kernel '{target}' takes a std::tuple by value, which the host's C++ library "
                           "(libstdc++) and the device's (libc++) lay out differently; pass its elements "
                           "or a struct instead")
    return matches[0]
