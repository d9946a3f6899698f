"""Every sweep case's PTX must assemble with ptxas for its target (checked without a GPU)."""

from __future__ import annotations

import pytest

from .cases import all_cases
from .ptxas_check import check_all, find_ptxas


def test_every_case_assembles_with_ptxas() -> None:
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas not installed (set PTXAS=/path/to/ptxas)")
    failures = check_all(ptxas, all_cases())
    assert not failures, "\n".join(failures)
