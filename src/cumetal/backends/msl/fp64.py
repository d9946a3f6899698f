"""FP64 policy of the MSL back end (spec §8.1; docs/fp64-policy.md).

``--fp64=emulate`` (the default for Metal targets) gives the emitter a module with no f64 left:
the legalizer (``passes/legalize/fp64``, shared with the AIR path) has turned every f64 operation
into f32 float-float arithmetic and exact integer code on the binary64 bits. ``native`` and ``warn``
keep ``double`` in the MSL (current Apple GPUs reject it when the pipeline is built; ``warn`` says so).
"""

from __future__ import annotations

FP64_MODES = ("native", "emulate", "warn")
