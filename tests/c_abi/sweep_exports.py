"""Call every CUDA function libcumetal exports with bad arguments, from C's side of the ABI (ctypes).

Run as a script (``python sweep_exports.py NAME...``): prints ``<name> <code>`` per call and exits 0
if the process survived them all; a crash leaves the last ``calling <name>`` line as the culprit.
Patterns: every argument NULL/0, and every argument the address of a zeroed scratch buffer (a
garbage handle, stream, event, function, device pointer; a huge size; an unknown enum value in the
low 32 bits) whose bytes the function may read or write as it likes.
"""

from __future__ import annotations

import ctypes
import sys

from cumetal.capi.library import library_path

NARGS = 10


def main(names: list[str]) -> int:
    lib = ctypes.CDLL(str(library_path()))
    scratch = ctypes.create_string_buffer(1 << 16)
    base = ctypes.addressof(scratch)
    for name in names:
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_uint64] * NARGS
        for pattern, value in (("null", 0), ("garbage", base)):
            ctypes.memset(base, 0, len(scratch))
            print(f"calling {name} {pattern}", flush=True)
            code = fn(*([value] * NARGS))
            print(f"{name} {pattern} {code}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
