"""Tensor reductions (cp.reduce.async.bulk.tensor) beyond the sweep's H100 goldens (sweep cases
async_tensor tred_*): every reduction and map type against a numpy model, and the starts an H100
refused (tensor_reduce_h100.json) refused the same way. The same tests run on air-sim and msl-sim
through apple_paths_cases.py (the legalizer's async.copy rule)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from tests.ptx_sweep.case import Buf, Case, TensorMapBuf
from tests.ptx_sweep.cases import async_tensor
from tests.ptx_sweep.harness import DriverError, run_case

HERE = Path(__file__).parent
_H100 = json.loads((HERE / "tensor_reduce_h100.json").read_text())["results"]


@pytest.fixture(scope="module")
def cu():
    os.environ.setdefault("CUMETAL_BACKEND", "cpu")
    from cumetal import driver

    driver.cuInit(0)
    return driver


# ------------------------------------------------------------------ the numpy model
def _bf16_to_f64(u: np.ndarray) -> np.ndarray:
    return (u.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _f64_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round to nearest even with 8 significant bits (normal values only: the operands are moderate)."""
    m, e = np.frexp(x)
    y = np.ldexp(np.rint(m * 256.0), e - 8).astype(np.float32)
    return (y.view(np.uint32) >> 16).astype(np.uint16)


def _combine(redop: str, dtype: int, old, new):
    """One element: redop(old, new) as the PTX ISA defines it, on Python scalars of the map's type."""
    if dtype in (6, 7, 8, 9):
        if redop == "add":
            return old + new  # exact (Fractions); rounded once by the caller
        return min(old, new) if redop == "min" else max(old, new)
    bits = 32 if dtype in (2, 3) else 64
    mask = (1 << bits) - 1
    signed = dtype in (3, 5)

    def sval(v: int) -> int:
        return v - (1 << bits) if signed and v >> (bits - 1) else v
    if redop == "add":
        return (old + new) & mask
    if redop in ("min", "max"):
        pick = min if redop == "min" else max
        return pick(sval(old), sval(new)) & mask
    if redop == "inc":
        return 0 if old >= new else old + 1
    if redop == "dec":
        return new if old == 0 or old > new else old - 1
    return {"and": old & new, "or": old | new, "xor": old ^ new}[redop]


def reference_reduce(case: Case) -> np.ndarray:
    """The tensor after the reduction: every box element inside the tensor combined with its source."""
    tm = next(p for p in case.params if isinstance(p, TensorMapBuf))
    tensor = next(p for p in case.params if isinstance(p, Buf) and p.name == "tensor").init.copy()
    src = next(p for p in case.params if isinstance(p, Buf) and p.name == "src").init
    redop = case.note.split(" .")[1].split()[0]
    coords = [int(x) for x in case.note.split(" at (")[1].rstrip(")").split(",")]
    dtype = tm.dtype
    stored, unsigned = tensor.dtype, f"u{tensor.dtype.itemsize}"
    tensor, src = tensor.view(unsigned), src.view(unsigned)  # signedness is _combine's business
    if dtype == 6:
        decode, encode = (lambda u: float(np.uint16(u).view(np.float16))), (
            lambda x: np.float64(x).astype(np.float16).view(np.uint16))
    elif dtype == 7:
        decode, encode = (lambda u: float(np.uint32(u).view(np.float32))), (
            lambda x: np.float64(x).astype(np.float32).view(np.uint32))
    elif dtype == 8:
        decode, encode = (lambda u: Fraction(float(np.uint64(u).view(np.float64)))), (
            lambda x: np.float64(float(x)).view(np.uint64))
    elif dtype == 9:
        decode, encode = (lambda u: float(_bf16_to_f64(np.array([u]))[0])), (
            lambda x: _f64_to_bf16(np.array([x]))[0])
    else:
        decode, encode = int, (lambda x: x)
    for i1 in range(tm.box[1]):
        for i0 in range(tm.box[0]):
            g0, g1 = coords[0] + i0, coords[1] + i1
            if 0 <= g0 < tm.dims[0] and 0 <= g1 < tm.dims[1]:
                at = g1 * tm.dims[0] + g0
                new = _combine(redop, dtype, decode(tensor[at]), decode(src[i1 * tm.box[0] + i0]))
                tensor[at] = encode(new)
    return tensor.view(stored)


# ------------------------------------------------------------------ every reduction and type vs numpy
_MODEL = [  # (redop, map dtype, dims, box, coords): starts an H100 accepts, some boxes past the upper bounds
    ("add", 5, (12, 10), (4, 4), (2, 7)), ("min", 5, (12, 10), (4, 4), (6, 6)), ("max", 4, (12, 10), (4, 4), (0, 0)),
    ("and", 4, (12, 10), (4, 4), (4, 2)), ("or", 3, (24, 10), (8, 4), (8, 8)), ("xor", 3, (24, 10), (8, 4), (4, 1)),
    ("min", 7, (24, 10), (8, 4), (20, 6)), ("max", 7, (24, 10), (8, 4), (4, 0)), ("add", 9, (32, 10), (16, 4), (8, 7)),
    ("min", 9, (32, 10), (16, 4), (16, 2)), ("max", 6, (32, 10), (16, 4), (24, 6)), ("dec", 2, (24, 10), (8, 4), (12, 3)),
    ("inc", 4, (12, 10), (4, 4), (8, 6)), ("min", 3, (24, 10), (8, 4), (16, 0)), ("add", 3, (24, 10), (8, 4), (20, 8)),
    ("add", 8, (12, 10), (4, 4), (2, 3)), ("max", 8, (12, 10), (4, 4), (6, 5)),
]


def model_case(redop: str, dtype: int, dims, box, coords) -> Case:
    return async_tensor.reduce_case(f"model_{redop}_{dtype}", dtype, redop, dims, box, coords,
                                    seed=100 + 16 * dtype + len(redop))


@pytest.mark.parametrize("spec", _MODEL, ids=lambda s: f"{s[0]}_dtype{s[1]}")
def test_tensor_reduction_matches_numpy(cu, spec) -> None:
    case = model_case(*spec)
    want = reference_reduce(case)
    before = next(p for p in case.params if isinstance(p, Buf) and p.name == "tensor").init
    assert (want != before).sum() >= 4, "the case must change the tensor"
    np.testing.assert_array_equal(run_case(cu, case)["tensor"], want)


def test_the_model_reproduces_the_h100_goldens() -> None:
    """The numpy model itself, checked against the H100's own results (sweep goldens tred_*)."""
    from tests.ptx_sweep.golden import GoldenStore

    store = GoldenStore()
    for kw in async_tensor.REDUCE:
        case = async_tensor.reduce_case(**kw)
        np.testing.assert_array_equal(store.get(case)["tensor"], reference_reduce(case), err_msg=kw["name"])


# ------------------------------------------------------------------ what the hardware refuses
def _refusal() -> str:
    """The launch error of a refused reduction, as the H100 gives it: the cpu engine faults; the
    Apple paths (air-sim, msl-sim, cpu-jit, Metal) end the thread with the legalizer's trap of kind
    illegal_instruction, which records that fault code."""
    return "ILLEGAL_INSTRUCTION"


_REFUSED = sorted(n for n, r in _H100.items() if n.startswith("tred_") and r != "ok")


@pytest.mark.parametrize("name", _REFUSED)
def test_starts_the_h100_refused_are_illegal_instructions(cu, name: str) -> None:
    kw = next(kw for kw in async_tensor.REDUCE_CANDIDATES if kw["name"] == name)
    with pytest.raises(DriverError) as e:
        run_case(cu, async_tensor.reduce_case(**kw))
    assert _refusal() in str(e.value)


@pytest.mark.parametrize("redop", ["inc", "and"])
def test_a_reduction_the_map_type_lacks_is_an_illegal_instruction(cu, redop: str) -> None:
    """.inc and the bitwise reductions have no meaning on a float map."""
    case = async_tensor.reduce_case(f"f32_{redop}", 7, "add", coords=(4, 2), seed=3)
    case = replace(case, ptx=case.ptx.replace(".add.tile.", f".{redop}.tile."))
    with pytest.raises(DriverError) as e:
        run_case(cu, case)
    assert _refusal() in str(e.value)
