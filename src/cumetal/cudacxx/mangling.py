"""One kernel's mangled name as the host and the device compiles of a ``cumetalc`` build spell it.

On Linux the device side of a ``.cu`` is compiled against the bundled libc++, whose names live in
the inline namespace ``std::__1`` (mangled ``St3__1``), and the host side against the system's
libstdc++ (plain ``std::``, mangled ``St``). A kernel whose mangled name holds a standard-library type
(``apply<std::plus<int>>``, ``k(std::pair<int, int>)``, CCCL 2.8's
``DeviceScanByKeyInitKernel<..., std::iterator_traits<int*>::value_type*, ...>``) is therefore
registered by the host under a name the PTX does not have. The spellings differ by more than the
inserted ``3__1``: Itanium substitutions (``S_``, ``S0_``...) count ``std::__1`` as a component, so
the two names are compared demangled, with ``std::__1::`` read as ``std::``.

Demangling uses the C++ runtime's own ``__cxa_demangle`` (libstdc++ on Linux, libc++abi on macOS)
through ctypes; where none can be loaded, nothing matches and the caller reports the missing name
as before. ``std::tuple`` is laid out differently by the two libraries (libstdc++ stores the last
element first), so a name holding one is not matched: its by-value bytes would be misread.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Iterable

_LIBS = ("libstdc++.so.6", "libc++abi.dylib", "libc++.1.dylib", "libc++abi.so.1", "libc++.so.1")


@functools.lru_cache(maxsize=1)
def _runtime():
    """``(__cxa_demangle, free)`` from a loadable C++ runtime, or None."""
    for name in _LIBS:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        fn = getattr(lib, "__cxa_demangle", None)
        if fn is None:
            continue
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        libc.free.argtypes = [ctypes.c_void_p]
        libc.free.restype = None
        return fn, libc.free
    return None


@functools.lru_cache(maxsize=4096)
def demangle(name: str) -> str | None:
    """The C++ declaration ``name`` mangles, or None (not a C++ name, or no demangler here)."""
    rt = _runtime()
    if rt is None or not name.startswith("_Z"):
        return None
    fn, free = rt
    status = ctypes.c_int(0)
    p = fn(name.encode(), None, None, ctypes.byref(status))
    if not p:
        return None
    try:
        return ctypes.string_at(p).decode(errors="replace") if status.value == 0 else None
    finally:
        free(p)


def _canonical(name: str) -> str | None:
    d = demangle(name)
    return None if d is None else d.replace("std::__1::", "std::")


def match_kernel(wanted: str, kernels: Iterable[str]) -> str | None:
    """The one name of ``kernels`` that declares the same kernel as ``wanted`` once libc++'s
    ``std::__1::`` is read as ``std::`` (either side may be the libc++ one), or None: no such name,
    more than one, a name without a standard-library type, or one holding a ``std::tuple``."""
    if not wanted.startswith("_Z"):
        return None
    names = [k for k in kernels if k.startswith("_Z") and k != wanted and ("St3__1" in k) != ("St3__1" in wanted)]
    if not names:
        return None
    want = _canonical(wanted)
    if want is None or "std::tuple<" in want:
        return None
    hits = [k for k in names if _canonical(k) == want]
    return hits[0] if len(hits) == 1 else None
