"""Per-instruction semantics: for each PTX opcode root of the instruction table
(``cumetal.ptx.table``), one function that expresses it in kernel-IR operations.

Adding support for a PTX instruction = its table entry (parsing) + one ``@semantics`` function
here. ``UNSUPPORTED`` lists the families the Apple target cannot run, with the reason reported.
"""

from __future__ import annotations

from collections.abc import Callable

from cumetal.passes.context import Ctx
from cumetal.ptx import ast

SemanticsFn = Callable[[Ctx, ast.Instruction], None]
SEMANTICS: dict[str, SemanticsFn] = {}

# Opcode-root prefixes the target cannot support, with the reason given to the user.
UNSUPPORTED: dict[str, str] = {
    "tcgen05": "tensor-core generation-5 instructions have no Metal equivalent",
    "multimem": "multimem (NVLink multicast) has no Metal equivalent",
    "istypep": "texture/surface instructions are deferred to v2 (spec §8)",
    "pmevent": "performance-monitor events have no Metal equivalent",
    "clusterlaunchcontrol": "cluster launch control has no Metal equivalent",
}


def semantics(*opcodes: str) -> Callable[[SemanticsFn], SemanticsFn]:
    def register(fn: SemanticsFn) -> SemanticsFn:
        for op in opcodes:
            if op in SEMANTICS:
                raise ValueError(f"semantics for {op!r} defined twice")
            SEMANTICS[op] = fn
        return fn

    return register


def unsupported_reason(opcode: str, fields: dict[str, str] | None = None) -> str | None:
    for prefix, reason in UNSUPPORTED.items():
        if opcode == prefix or opcode.startswith(prefix + "."):
            return reason
    if fields and opcode != "cvt":  # cvt's fp8/fp6/fp4/ue8m0 forms are defined in convert.py
        for v in fields.values():
            if v in ("e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "ue8m0x2"):
                return f"{opcode} with fp8/fp6/fp4 operands is not supported"
    return None


def _load_all() -> None:
    # Import the family modules so their @semantics decorators register.
    from cumetal.passes.semantics import (  # noqa: F401
        bulk_copy,
        cache_policy,
        cluster,
        compare,
        control,
        convert,
        floating,
        integer,
        matrix,
        mbarrier,
        memory,
        sync,
        texture,
        video,
        warp,
        wgmma,
    )


_load_all()
