"""All sweep cases, gathered from one module per instruction family."""

from __future__ import annotations

import importlib
from functools import cache

from ..case import Case

FAMILIES = ("int_arith", "bits", "float32", "float64", "half", "cvt", "compare", "special",
            "memory", "atomics", "warp", "matrix", "regress", "approx", "randprog", "cluster",
            "wgmma", "async_mbarrier", "async_tensor", "fp8", "video", "video_mad",
            "randprog_cf", "randprog_warp", "randprog_atom", "randprog_mem", "randprog_approx")


@cache
def all_cases() -> tuple[Case, ...]:
    """Every case, in family order; names are unique across families."""
    cases: list[Case] = []
    for fam in FAMILIES:
        mod = importlib.import_module(f"{__name__}.{fam}")
        for c in mod.cases():
            if c.family != fam:
                raise ValueError(f"case {c.name} from module {fam} claims family {c.family}")
            cases.append(c)
    seen: set[str] = set()
    for c in cases:
        if c.name in seen:
            raise ValueError(f"duplicate sweep case name {c.name}")
        seen.add(c.name)
    return tuple(cases)


def by_name() -> dict[str, Case]:
    return {c.name: c for c in all_cases()}
