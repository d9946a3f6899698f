"""wgmma.mma_async lowers to one loop over the accumulator elements (passes/semantics/wgmma.py,
"Lowering"): the kernel IR holds the tensor-core model once per instruction, not once per D
register, and a guarded wgmma branches around that loop.

IR size: an instruction's IR must not grow with N by a k-term model per extra accumulator element
(the straight-line form cost ~345 IR instructions and 16 shared loads per extra element of
m64nNk16: 44,770 instructions at N = 256, minutes of LLVM compile). Guards: the sweep's kernels
with the wgmma under a run-time predicate: true must give the NVIDIA golden of the unguarded case,
false must leave the accumulator registers as loaded (C).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest
from tests.ptx_sweep.cases.wgmma import cases
from tests.ptx_sweep.compare import compare_case
from tests.ptx_sweep.golden import GoldenStore
from tests.ptx_sweep.harness import run_case

from cumetal.passes import compile_ptx

os.environ.setdefault("CUMETAL_BACKEND", "cpu")
CASES = {c.name: c for c in cases()}


def _ir(name: str) -> tuple[int, int]:
    """(IR instructions, shared-memory loads) of a sweep case's kernel."""
    k = compile_ptx(CASES[name].ptx).kernels["k"]
    insts = [i for b in k.blocks for i in b.insts]
    return len(insts), sum(1 for i in insts if i.op == "load" and i.attrs.get("space") == "shared")


@pytest.mark.parametrize(("small", "large"), [
    ("wgmma_n8_f16_f32_noswz", "wgmma_n256_f16_f32_sw128"),  # f16 -> f32, N 8 -> 256
    ("wgmma_n16_s8_noswz", "wgmma_n32_u8s8_sw128"),  # integer, k = 32
    ("wgmma_n16_f16acc_specials", "wgmma_n32_f16_f16acc"),  # f16 accumulators (two per register)
])
def test_ir_per_accumulator_element_is_constant(small: str, large: str) -> None:
    (n_small, ld_small), (n_large, ld_large) = _ir(small), _ir(large)
    extra = int(large.split("_n")[1].split("_")[0]) // 2 - int(small.split("_n")[1].split("_")[0]) // 2
    # per extra D element: its C load, store, register moves and the loop's rotation; no k-term model
    assert (n_large - n_small) / extra < 16, (small, n_small, large, n_large)
    assert ld_large - ld_small <= 2 * 32  # A/B shared loads are per instruction (swizzle adds a few ops)


def test_ir_of_the_largest_sweep_kernels_is_bounded() -> None:
    # m64n256k16 f16: the model (16 products, alignment, NaN/inf rules) once, plus 128 C/D moves
    n, loads = _ir("wgmma_n256_f16_f32_sw128")
    assert n < 4000 and loads <= 3 * 16, (n, loads)
    n, loads = _ir("wgmma_n64_chain_k32_sw128")  # two instructions
    assert n < 4000 and loads <= 2 * 3 * 16, (n, loads)


@pytest.fixture(scope="module")
def driver():
    return pytest.importorskip("cumetal.driver")


@pytest.mark.parametrize("name", ["wgmma_n8_f16_f32_noswz", "wgmma_n16_s8_noswz", "wgmma_n16_f16acc_specials",
                                  "wgmma_n16_f16_aregs_sw128"])
@pytest.mark.parametrize("guard", ["true", "false", "not_false"])
def test_guarded_wgmma(driver, name: str, guard: str) -> None:
    case = CASES[name]
    # a run-time predicate: tid < 200 holds for every thread of the 128, tid > 200 for none
    setp = {"true": "setp.lt.u32 %p3, %r1, 200;", "false": "setp.gt.u32 %p3, %r1, 200;",
            "not_false": "setp.gt.u32 %p3, %r1, 200;"}[guard]
    pred = "@!%p3 " if guard == "not_false" else "@%p3 "
    assert case.ptx.count("    wgmma.mma_async") == 1
    ptx = case.ptx.replace("    wgmma.fence", f"    {setp}\n    wgmma.fence").replace(
        "    wgmma.mma_async", f"    {pred}wgmma.mma_async")
    got = run_case(driver, dataclasses.replace(case, ptx=ptx))
    if guard == "false":
        cin = next(b for b in case.params if b.name == "cin").init
        np.testing.assert_array_equal(got["out"].view(np.uint32), np.asarray(cin).view(np.uint32))
    else:
        reports = compare_case(case, GoldenStore().get(case), got)
        assert not reports, "\n".join(reports)
