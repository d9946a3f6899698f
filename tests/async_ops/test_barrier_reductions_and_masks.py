"""bar.red over a thread count, cp.async.bulk .cp_mask, im2col stores and the diagnostics of the sm_100
forms CuMetal does not run (the H100 goldens of bar.red and the im2col stores are sweep cases:
async_mbarrier named_barrier_reductions, async_tensor im2col_store*/im2col_red*). The same tests run
on air-sim and msl-sim through apple_paths_cases.py (the legalizer's async rules)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from tests.ptx_sweep.case import Buf, Case
from tests.ptx_sweep.cases.async_tensor import IM2COL_STORE_REFUSED, _im2col_store_case
from tests.ptx_sweep.harness import DriverError, run_case

HEAD = ".version 8.6\n.target sm_90\n.address_size 64\n"


@pytest.fixture(scope="module")
def cu():
    os.environ.setdefault("CUMETAL_BACKEND", "cpu")
    from cumetal import driver

    driver.cuInit(0)
    return driver


def _kernel(body: str, params: str = ".param .u64 p_out") -> str:
    return (f"{HEAD}.visible .entry k({params})\n{{\n    .reg .pred %p<8>;\n    .reg .b32 %r<32>;\n"
            f"    .reg .b64 %rd<16>;\n    .reg .b16 %rs<4>;\n    .shared .align 128 .b8 sbuf[512];\n"
            f"    mov.u32 %r0, %tid.x;\n    ld.param.u64 %rd30, [p_out];\n{body}    ret;\n}}\n").replace(
        "%rd<16>", "%rd<32>")


# ------------------------------------------------------------------ bar.red with a thread count
def _reduction_case(block: int, body: str, words: int) -> Case:
    return Case("bar_red", "async_ops", _kernel(body), "k", (1, 1, 1), (block, 1, 1),
                (Buf("out", "uint32", words, output=True),))


_PRODUCER_CONSUMER = """    shr.u32 %r1, %r0, 5;
    setp.lt.u32 %p0, %r1, 2;
    @!%p0 bra SECOND;
    and.b32 %r2, %r0, 5;
    setp.eq.u32 %p1, %r2, 1;
    bar.red.popc.u32 %r3, 4, 64, %p1;
    bra STORE;
SECOND:
    setp.lt.u32 %p2, %r0, 100;
    bar.red.and.pred %p3, 9, 64, %p2;
    selp.u32 %r3, 7, 3, %p3;
STORE:
    mul.wide.u32 %rd1, %r0, 4;
    add.u64 %rd2, %rd30, %rd1;
    st.global.u32 [%rd2], %r3;
"""


def test_bar_red_reduces_over_its_own_threads(cu) -> None:
    """Warps 0-1 reduce on barrier 4, warps 2-3 on barrier 9, each over its 64 threads only."""
    out = run_case(cu, _reduction_case(128, _PRODUCER_CONSUMER, 128))["out"]
    t = np.arange(64)
    assert (out[:64] == np.count_nonzero((t & 5) == 1)).all()
    assert (out[64:] == 3).all()  # threads 100..127 vote false: .and is false for the whole group


def test_bar_red_short_of_threads_is_a_reported_deadlock(cu, capfd, monkeypatch) -> None:
    monkeypatch.delenv("CUMETAL_QUIET", raising=False)
    with pytest.raises(DriverError) as e:
        run_case(cu, _reduction_case(64, "    setp.eq.u32 %p0, %r0, 0;\n    bar.red.or.pred %p1, 3, 96, %p0;\n", 1))
    assert "TIMEOUT" in str(e.value)
    from cumetal.devices.backends import cpu_engine

    if os.environ.get("CUMETAL_BACKEND", "cpu") == "cpu" and cpu_engine() == "numpy":  # the numpy engine's words
        assert "named barrier 3 waits for 96 threads but only 64 arrived" in capfd.readouterr().err


@pytest.mark.parametrize("operands", ["16, 48", "1, 0"])
def test_bar_red_with_a_bad_count_is_an_illegal_instruction(cu, operands: str) -> None:
    body = f"    setp.eq.u32 %p0, %r0, 0;\n    bar.red.popc.u32 %r1, {operands}, %p0;\n"
    with pytest.raises(DriverError) as e:
        run_case(cu, _reduction_case(64, body, 1))
    assert "ILLEGAL_INSTRUCTION" in str(e.value)


# ------------------------------------------------------------------ cp.async.bulk .cp_mask (sm_100)
def _cp_mask_case(mask: int) -> Case:
    body = f"""    mov.u32 %r1, sbuf;
    mad.lo.u32 %r2, %r0, 4, %r1;
    mad.lo.u32 %r3, %r0, 0x04040404, 0x03020100;
    st.shared.u32 [%r2], %r3;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.ne.u32 %p0, %r0, 0;
    @%p0 bra END;
    cvta.to.global.u64 %rd1, %rd30;
    add.u64 %rd1, %rd1, 32;
    mov.b16 %rs1, {mask};
    cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [sbuf], 96, %rs1;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
END:
"""
    ptx = _kernel(body).replace(".target sm_90", ".target sm_100a")
    return Case("cp_mask", "async_ops", ptx, "k", (1, 1, 1), (32, 1, 1),
                (Buf("out", "uint8", 160, init=np.full(160, 0xEE, dtype=np.uint8), output=True),))


@pytest.mark.parametrize("mask", [0xFFFF, 0x00FF, 0xA5C3, 0x0001, 0])
def test_cp_mask_copies_the_bytes_of_its_mask(cu, mask: int) -> None:
    """PTX ISA: bit i of byteMask says whether byte i of each 16-byte chunk is copied."""
    out = run_case(cu, _cp_mask_case(mask))["out"]
    want = np.full(160, 0xEE, dtype=np.uint8)
    src = np.arange(96, dtype=np.uint8)
    keep = (mask >> (np.arange(96) % 16)) & 1 == 1
    want[32:128][keep] = src[keep]
    np.testing.assert_array_equal(out, want)


# ------------------------------------------------------------------ forms refused with a diagnostic
@pytest.mark.parametrize("line,words", [
    # (.im2col::w, .tile::gather4/scatter4 and .cta_group::2 run since 2026-11-24: test_sm100_tensor_modes.py)
    ("cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [sbuf], "
     "[%rd30, {%r0, %r0, %r0}], [sbuf+256], {%rs1};", ("im2col::w", "{wHalo, wOffset}")),
    ("cp.async.bulk.tensor.3d.global.shared::cta.tile::scatter4.bulk_group [%rd30, {%r0, %r0, %r0, %r0, %r0}], "
     "[sbuf];", ("tile::scatter4", "2D tensors only")),
    ("cp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group [%rd30, {%r0, %r0, %r0}], [sbuf];",
     ("no .im2col mode", "im2col_no_offs")),
])
def test_sm100_and_undefined_forms_are_refused_naming_the_instruction(line: str, words: tuple[str, ...]) -> None:
    from cumetal.passes.lower import lower_module
    from cumetal.ptx import parser

    ptx = _kernel(f"    mov.b16 %rs1, 0;\n    {line}\n").replace(".target sm_90", ".target sm_100a")
    module = lower_module(parser.parse(ptx).module, "t.ptx")
    assert "k" not in module.kernels
    text = " ".join(d.message for d in module.diagnostics if d.severity == "error")
    assert "kernel 'k' cannot be compiled: 'cp.async.bulk.tensor'" in text and all(w in text for w in words), text


def test_cta_group_1_is_the_default_form(cu) -> None:
    """.cta_group::1: the mbarrier is in the destination's CTA, as without the qualifier (PTX ISA)."""
    from cumetal.passes.lower import lower_module
    from cumetal.ptx import parser

    line = ("cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes.cta_group::1 [sbuf], "
            "[%rd30, {%r0}], [sbuf+256];")
    module = lower_module(parser.parse(_kernel(f"    {line}\n").replace(".target sm_90", ".target sm_100a")).module,
                          "t.ptx")
    assert any(i.op == "tensor_copy" for b in module.kernels["k"].blocks for i in b.insts)


# ------------------------------------------------------------------ im2col stores the H100 refused
@pytest.mark.parametrize("kw", IM2COL_STORE_REFUSED, ids=lambda kw: kw["name"])
def test_im2col_stores_the_h100_refused_are_illegal_instructions(cu, kw: dict) -> None:
    """Both im2col_no_offs stores an H100 ran from a negative start ended in ILLEGAL_INSTRUCTION."""
    with pytest.raises(DriverError) as e:
        run_case(cu, _im2col_store_case(**kw))
    assert "ILLEGAL_INSTRUCTION" in str(e.value)
