"""Sweep cases where the CPU backend is allowed to differ from NVIDIA hardware, with the reason.

Each entry turns the case into xfail(strict=True): when the gap is fixed the test fails until the
entry is removed here. Keep reasons specific (what differs and why it is acceptable or pending).
"""

from __future__ import annotations

_FP8 = ("wgmma with fp8 inputs (.e4m3/.e5m2): the H100 accumulates them with a ~13-bit alignment window "
        "(results within ~1e-4 relative of exact); the model is not fitted yet (best tried: one block of 32, "
        "window 13, 75-80% bit-identical), so CuMetal refuses the instruction")
KNOWN_GAPS: dict[str, str] = {
    "wgmma_n16_e4m3_f32": _FP8, "wgmma_n16_e5m2_f32_sw128": _FP8, "wgmma_n16_e4m3e5m2_f16acc": _FP8,
    "wgmma_n16_e5m2_specials": _FP8,
    "randprog_023": "program 2: the H100 computed div.u64 0xfffffffffffffffe / 0x7fffffffffffffff = 1 here "
                    "(the exact quotient is 2, which the same instruction gives in the int_arith sweep case "
                    "div_u64): NVIDIA's 64-bit division sequence, not reproduced",
}
