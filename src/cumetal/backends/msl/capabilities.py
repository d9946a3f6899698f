"""What the MSL backend implements itself (read by ``cumetal.passes.legalize``).

Every NVIDIA-specific rule is expanded by the legalizer (``native`` is empty); the MSL emitter and
its prelude implement the primitives the rules expand into, with C++/MSL operators defined on the
operands the rules guarantee.
"""

from __future__ import annotations

from cumetal.passes.legalize import FP64_KEYS, Capabilities

CAPABILITIES = Capabilities(
    "msl",
    native=FP64_KEYS,  # native double unless --fp64=emulate (with_fp64): docs/fp64-policy.md
    primitives=frozenset({"div_nz", "rem_nz", "shl_lt", "lshr_lt", "ashr_lt", "f2i_inrange", "fcvt_ieee", "fapprox_ieee",
                          "atomic_cas", "isspacep", "fadd_ieee", "fsub_ieee", "fmul_ieee", "fdiv_ieee", "fma_ieee",
                          "fsqrt_ieee", "frint_ieee"}),
)
