"""The PTX instruction sweep (NVIDIA hardware goldens, tests/ptx_sweep) through PTX lowering ->
MSL -> msl-sim, for the families where the IR contract and the hardware agree everywhere.

The other families differ from the goldens only where ir/ops.py defines a result that NVIDIA
hardware does not produce (NaN payloads, integer division by zero; see .work/ir-questions.md);
run ``python tests/msl/msl_sweep.py`` for the full table (docs/msl-backend.md lists it).
"""

from __future__ import annotations

import pytest
from msl_sweep import run_sweep

FAMILIES = ("warp", "atomics", "memory", "special", "bits")


@pytest.fixture(scope="module")
def results() -> dict[str, str | None]:
    from ptx_sweep.cases import all_cases

    return run_sweep([c for c in all_cases() if c.family in FAMILIES])


def test_families_match_nvidia_bit_exactly(results):
    assert len(results) >= 200
    bad = {name: r for name, r in results.items() if r is not None}
    assert not bad, "\n".join(f"{k}: {v}" for k, v in list(bad.items())[:5])
