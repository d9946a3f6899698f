"""FP64 policy of the MSL back end (spec §8.1) and the float-float ("double-single") library.

``--fp64=native`` and ``warn`` keep ``double`` in the MSL (current Apple GPUs reject it when the
pipeline is built; documented in docs/fp64-policy.md). ``emulate`` holds each f64 register as a
``float2`` (hi, lo) with value hi + lo, |lo| <= ulp(hi)/2: Dekker/Knuth error-free transformations
built on fma. Memory keeps IEEE binary64 bits, so loads, stores and bitcasts convert exactly
between the two (up to the pair's ~48-bit precision and float's exponent range).
"""

from __future__ import annotations

from pathlib import Path

FP64_MODES = ("native", "emulate", "warn")

PRELUDE_DD = (Path(__file__).resolve().parent / "include" / "cm_f64_emulate.h").read_text()  # the prelude part

