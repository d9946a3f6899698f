"""``CU_FUNC_ATTRIBUTE_NUM_REGS`` caps: a kernel's ``.maxnreg N`` (or the ``CU_JIT_MAX_REGISTERS``
option of ``cuModuleLoadDataEx``/``cuLinkCreate``, numba-cuda's ``max_registers``) caps the device's
register estimate (``ModuleImage.register_estimates``, from ``ir/registers.py``), as ptxas meets
such a limit by spilling. These read and write PTX text only."""

from __future__ import annotations

import re

# `.entry name (params) .maxntid 256 .maxnreg 40 {`: performance directives sit between the
# parameter list (which holds no brace) and the body
_ENTRY = re.compile(r"(\.entry\s+([\w$%]+)[^{;]*?)\{")
_MAXNREG = re.compile(r"\.maxnreg\s+(\d+)")


def maxnreg_by_entry(ptx: str) -> dict[str, int]:
    """Each kernel's ``.maxnreg`` limit, by name."""
    out = {}
    for m in _ENTRY.finditer(ptx):
        limit = _MAXNREG.search(m.group(1))
        if limit:
            out[m.group(2)] = int(limit.group(1))
    return out


def with_maxnreg(ptx: str, limit: int) -> str:
    """``ptx`` with ``.maxnreg limit`` on every kernel that declares no limit of its own (how a
    linker's ``CU_JIT_MAX_REGISTERS`` reaches the module the link produces)."""
    def add(m: re.Match) -> str:
        head = m.group(1)
        return m.group(0) if _MAXNREG.search(head) else f"{head.rstrip()}\n.maxnreg {limit}\n{{"

    return _ENTRY.sub(add, ptx)
