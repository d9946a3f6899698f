"""The legalization rules, one per file, in the order the driver tries them."""

from __future__ import annotations

from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules import (
    atomic_float,
    atomic_incdec,
    f2i_saturate,
    fminmax,
    int_divide,
    mul_ftz,
    nan_canonical,
    nan_convert,
    nan_f64_priority,
    shift_clamp,
    sign_ops,
)

RULES: tuple[Rule, ...] = (
    int_divide.RULE,
    shift_clamp.RULE,
    atomic_incdec.RULE,
    atomic_float.RULE,
    f2i_saturate.RULE,
    fminmax.RULE,
    sign_ops.RULE,
    mul_ftz.RULE,
    nan_canonical.RULE,
    nan_f64_priority.RULE,
    nan_convert.RULE,
)
