"""MSL helper library emitted at the top of every generated source.

The library itself is C++ in real header files under ``backends/msl/include/`` (``cm_*.h``), loaded
here once and concatenated in a fixed order; ``tests/msl/test_msl_check.py`` syntax-checks every
assembled variant with clang (``tools/msl_check.py``). Everything is plain MSL that also compiles as
C++ against msl-sim's header, so the code that runs on a Mac is the code tested on Linux. It
implements the IR semantics that Metal's builtins do not give directly: exact rounding modes,
canonical NaNs, saturating conversions, memory windows. Hook macros (``CM_CHECK_*``,
``CM_LOOP_HOOK``, ``CM_FAULT_HOOK``) are empty on Metal; msl-sim defines them to check accesses and
stop runaway loops. The numbers shared with Python and C (fault, atomic, compare and space codes,
launch_info words, address windows) come from the generated ``backends/common/include/cumetal_codes.h``,
embedded right after the first part (Metal compiles one source: there is no include path).
"""

from __future__ import annotations

import re
from pathlib import Path

from cumetal.backends.common.codes import header_text

INCLUDE_DIR = Path(__file__).resolve().parent / "include"


def _load(name: str) -> str:
    return (INCLUDE_DIR / name).read_text()


# Module attributes (read at each prelude() call, so a test may substitute one part).
PRELUDE_HEAD = _load("cm_head.h")
PRELUDE_CTX = _load("cm_ctx.h")
PRELUDE_INT = _load("cm_int.h")
PRELUDE_FLOAT = _load("cm_float_bits.h")
FLOAT_TEMPLATE = _load("cm_float_ops.h")
PRELUDE_HALF = _load("cm_half.h")
PRELUDE_F64_NATIVE = _load("cm_f64_native.h")
PRELUDE_ATOMIC = _load("cm_atomic.h")
PRELUDE_PRINTF = _load("cm_printf.h")

# The placeholders of cm_float_ops.h per float type.
_FLOAT_PARAMS = {
    "float": {"FLT": "float", "UBITS": "uint", "CANONBITS": "0x7FFFFFFFu", "SIGNBITS": "0x80000000u",
              "EXPBITS": "0x7F800000u", "ONEBIT": "1u", "MINNORMBITS": "0x00800000u", "MAXVAL": "FLT_MAX",
              "ZEROF": "0.0f", "ONEF": "1.0f", "MANTB": "23", "EBIAS": "127"},
    "double": {"FLT": "double", "UBITS": "ulong", "CANONBITS": "0x7FFFFFFFFFFFFFFFul",
               "SIGNBITS": "0x8000000000000000ul", "EXPBITS": "0x7FF0000000000000ul", "ONEBIT": "1ul",
               "MINNORMBITS": "0x0010000000000000ul", "MAXVAL": "DBL_MAX", "ZEROF": "0.0", "ONEF": "1.0",
               "MANTB": "52", "EBIAS": "1023"},
}


def _float_block(ftype: str) -> str:
    params = _FLOAT_PARAMS[ftype]
    return re.sub(r"\b(" + "|".join(params) + r")\b", lambda m: params[m.group(1)], FLOAT_TEMPLATE)


def prelude(fp64: str = "none") -> str:
    """The helper library; ``fp64`` is 'none' (no f64 in the module), 'native' or 'emulate' (as 'none':
    the legalizer has turned every f64 operation into f32/integer code, passes/legalize/fp64)."""
    if fp64 not in ("none", "native", "emulate"):
        raise ValueError(f"prelude: fp64 mode must be 'none', 'native' or 'emulate', not {fp64!r}")
    parts = [PRELUDE_HEAD, header_text(), PRELUDE_CTX, PRELUDE_INT, PRELUDE_FLOAT, _float_block("float"), PRELUDE_HALF]
    if fp64 == "native":
        parts += [_float_block("double"), PRELUDE_F64_NATIVE]
    parts += [PRELUDE_ATOMIC, PRELUDE_PRINTF]
    return "\n".join(part.rstrip("\n") + "\n" for part in parts)
