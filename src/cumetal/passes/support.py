"""Whether CuMetal can run a PTX instruction: the answer behind ``cumetalc --coverage``.

Derived from the lowering itself (``cumetal.passes.semantics``), so it can never disagree with
what compiling actually does: an opcode is 'supported' when it has semantics, 'unsupported' when
the Apple target cannot express it (with the reason), and 'not yet' otherwise.
"""

from __future__ import annotations

from cumetal.passes.semantics import SEMANTICS, unsupported_reason
from cumetal.ptx import ast


def opcode_support(instr_or_opcode: ast.Instruction | str) -> tuple[str, str]:
    """(status, reason) with status in 'supported', 'unsupported', 'not yet'."""
    if isinstance(instr_or_opcode, ast.Instruction):
        opcode, fields = instr_or_opcode.opcode, instr_or_opcode.fields
    else:
        opcode, fields = instr_or_opcode, None
    reason = unsupported_reason(opcode, fields)
    if reason is not None:
        return "unsupported", reason
    if opcode in SEMANTICS:
        return "supported", ""
    return "not yet", "no lowering to the kernel IR yet"
