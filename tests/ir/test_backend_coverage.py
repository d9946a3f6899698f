"""Every backend implements every IR op it may receive (issue #10: a forgotten primitive is reported).

The op sets come from the backends' real dispatch code (``cumetal.backends.coverage``), the ops a
backend receives from the op table and the legalizer's expansions for it."""

from __future__ import annotations

import pytest

from cumetal.backends import coverage
from cumetal.ir.ops import OPS

# Ops a backend refuses with a clear error today (tracked in docs/known-gaps.md), with the reason.
_CPU_ONLY = {
    # the allocator is linked in as device code before lowering/emission (backends/apple/heap.py)
    "malloc": "device heap: turned into calls of backends/apple/heap.ptx by link_module",
    "free": "device heap: turned into calls of backends/apple/heap.ptx by link_module",
}
KNOWN_GAPS: dict[str, dict[str, str]] = {"cpu": {}, "air": _CPU_ONLY, "msl": _CPU_ONLY}


@pytest.mark.parametrize("backend", coverage.BACKENDS)
def test_backend_implements_every_op_it_may_receive(backend: str) -> None:
    missing = coverage.missing_ops(backend) - set(KNOWN_GAPS[backend])
    assert not missing, (f"the {backend} backend has no implementation of IR ops {sorted(missing)}: add one "
                         f"(see 'How to add an op' in cumetal/ir/ops.py) or have the legalizer expand them")


@pytest.mark.parametrize("backend", coverage.BACKENDS)
def test_known_gaps_are_still_gaps(backend: str) -> None:
    closed = set(KNOWN_GAPS[backend]) - coverage.missing_ops(backend)
    assert not closed, f"{backend} now implements {sorted(closed)}: remove them from KNOWN_GAPS"


@pytest.mark.parametrize("backend", coverage.BACKENDS)
def test_backends_dispatch_only_on_declared_ops(backend: str) -> None:
    assert not coverage.unknown_ops(backend), f"{backend} handles ops the table does not declare"


def test_the_scan_reads_dispatch_code_and_skips_refusals() -> None:
    src = '''
def _lower(self, inst):
    op = inst.op
    if op == "br":
        pass
    elif op in ("ret", "exit"):
        pass
    elif inst.op == "x" or op in {"y"}:
        pass
    else:
        if handler is None and op in ("malloc", "free"):
            raise Error("cpu only")
def other(op):
    if op == "never":
        pass
'''
    assert coverage.dispatched_ops(src, ["_lower"]) == {"br", "ret", "exit", "x", "y"}


def test_cpu_runs_every_elementwise_op_by_its_reference() -> None:
    from cumetal.backends.cpu.elementwise import ELEMENTWISE

    assert ELEMENTWISE == {name for name, info in OPS.items() if info.ref is not None}
    assert ELEMENTWISE <= coverage.implemented_ops("cpu")
