"""A large cub::DeviceHistogram::HistogramRange on the compiled CPU backend (cpu-jit compiles every
kernel): its sweep kernel is about 94k lines of LLVM IR after the work-item transform, and LLVM's SLP
vectorizer never finished on it (backends/air/sim/compile.py SLP_MAX_LINES); the counts must equal
the host's."""

from __future__ import annotations

import pytest
from tests.cccl.cccl_build import build, run
from tests.cccl.cccl_install import SKIP_REASON, cccl_include


def test_histogram_range_compiles_and_counts_on_cpu_jit(tmp_path) -> None:
    cccl = cccl_include()
    if cccl is None:
        pytest.skip(SKIP_REASON)
    exe = build(cccl, ("histogram_range",), tmp_path)["histogram_range"]
    assert run(exe, [1 << 21], backend="cpu-jit", timeout=600) == []
