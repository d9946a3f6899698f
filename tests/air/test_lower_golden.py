"""Golden AIR text (llvm-dis-14 output) of four representative kernels.

vector_add (device memory and parameters), block_sum_dynamic (dynamic shared memory and
barriers), histogram (shared and global atomics) and warp_votes (SIMD-group vote/ballot with
the IR's partial-mask rules). A change of the emitted AIR shows up as a readable diff; after
checking it, regenerate with ``CUMETAL_UPDATE_GOLDEN=1 pytest tests/air/test_lower_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cumetal.backends.air.lower import kernel_bitcode
from cumetal.passes import compile_ptx

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("golden")
CASES = [("examples/vector_add.ptx", "vector_add"), ("tests/functional/kernels/shared.ptx", "block_sum_dynamic"),
         ("tests/functional/kernels/atomics.ptx", "histogram"), ("tests/functional/kernels/warp.ptx", "warp_votes")]


def normalise(text: str) -> str:
    """Drop the ModuleID line (it names the input file) and trailing blanks."""
    lines = [ln.rstrip() for ln in text.splitlines() if not ln.startswith("; ModuleID")]
    return "\n".join(lines).strip() + "\n"


@pytest.mark.parametrize(("path", "kernel"), CASES, ids=[k for _, k in CASES])
def test_air_text_matches_golden(path, kernel, air):
    module = compile_ptx((REPO / path).read_text(), path)
    text = normalise(air.llvm_dis_14(kernel_bitcode(module, kernel)))
    golden = GOLDEN / f"{kernel}.ll"
    if os.environ.get("CUMETAL_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert golden.exists(), f"{golden} missing; run with CUMETAL_UPDATE_GOLDEN=1"
    assert text == golden.read_text()
