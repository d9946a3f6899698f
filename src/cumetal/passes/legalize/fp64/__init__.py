"""fp64 emulation as legalization: f64 arithmetic on float-float pairs, everything else exact on
the binary64 bits, so a backend receives no f64 at all (docs/fp64-policy.md).

The rules (``rules/f64_*.py``) run after the NaN rules, on the IEEE primitives and the compares,
conversions and clamps of f64; ``storage.retype_module`` then makes every f64 register i64.
Backends declare the rule keys ``FP64_KEYS`` native (``double`` in their output) unless the
module is compiled with ``--fp64=emulate``: ``with_fp64(caps, mode)`` gives the capabilities for
a mode.
"""

from __future__ import annotations

import dataclasses

from cumetal.passes.legalize.capabilities import Capabilities

FP64_KEYS = frozenset({"fp64.arith", "fp64.compare", "fp64.convert", "fp64.int", "fp64.rint", "fp64.clamp"})
FP64_MODES = ("native", "emulate", "warn")
# rules written for native f64 that the emulation does itself: directed rounding of f64 arithmetic
# (exact residuals need native f64; the emulation rounds the pair's exact sum per rnd instead)
NATIVE_F64_ONLY = frozenset({"rounding.directed_f64"})


def with_fp64(caps: Capabilities, mode: str) -> Capabilities:
    """``caps`` for fp64 mode ``mode``: 'emulate' applies the f64 rules, 'native'/'warn' do not."""
    if mode not in FP64_MODES:
        raise ValueError(f"fp64 mode must be one of {', '.join(FP64_MODES)}, not {mode!r}")
    if caps.reference:
        return caps
    native = (caps.native - FP64_KEYS) | NATIVE_F64_ONLY if mode == "emulate" else caps.native | FP64_KEYS
    return dataclasses.replace(caps, native=frozenset(native))


def emulates_f64(caps: Capabilities) -> bool:
    return not caps.reference and not FP64_KEYS <= caps.native
