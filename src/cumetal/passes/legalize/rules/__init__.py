"""The legalization rules, one per file, in the order the driver tries them."""

from __future__ import annotations

from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules import (
    approx_mufu,
    async_copy,
    async_mbarrier,
    async_named_barrier,
    atomic_float,
    atomic_incdec,
    f2i_saturate,
    f64_arith,
    f64_clamp,
    f64_compare,
    f64_convert,
    f64_int,
    f64_rint,
    fminmax,
    grid_barrier,
    int_divide,
    mul_ftz,
    nan_canonical,
    nan_convert,
    nan_f64_priority,
    rounding_arith,
    rounding_arith_f64,
    rounding_convert,
    shift_clamp,
    sign_ops,
)

RULES: tuple[Rule, ...] = (
    async_copy.RULE,
    async_mbarrier.RULE,
    async_named_barrier.RULE,
    grid_barrier.RULE,
    int_divide.RULE,
    shift_clamp.RULE,
    atomic_incdec.RULE,
    atomic_float.RULE,
    f2i_saturate.RULE,
    fminmax.RULE,
    sign_ops.RULE,
    mul_ftz.RULE,
    approx_mufu.RULE,  # before nan_canonical: NVIDIA's sine/cosine bits, NaN included
    nan_canonical.RULE,
    nan_f64_priority.RULE,
    nan_convert.RULE,
    # fp64 emulation (applied only under --fp64=emulate: backends declare these keys native otherwise)
    f64_arith.RULE,
    f64_compare.RULE,
    f64_convert.RULE,
    f64_int.RULE,
    f64_rint.RULE,
    f64_clamp.RULE,
    # directed rounding from round-to-nearest + exact residuals; after the fp64 rules, which round
    # emulated f64 themselves (with_fp64 also declares rounding.directed_f64 native under emulate)
    rounding_arith.RULE,
    rounding_arith_f64.RULE,
    rounding_convert.RULE,
)
