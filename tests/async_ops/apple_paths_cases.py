"""mbarrier, bulk and tensor copies and named barriers on the Apple paths (air-sim: the AIR inside
the .metallib; msl-sim: the emitted MSL), through the legalizer's async rules
(passes/legalize/rules/async_*.py), beyond the sweep families (which run there with the H100
goldens): tensor boxes the H100 rejected against the numpy model, tensor reductions of every type
against theirs (test_tensor_reduce.py) and the starts an H100 refuses, bar.red over thread counts, .cp_mask bulk stores, a consumer spinning on test_wait
before its producer ran, Triton's sm_90 TMA kernel (beyond Apple's threadgroup memory: refused clearly), a multicast copy in
a cluster of one, and a deadlocked wait ending at the watchdog.

Not collected by itself (no ``test_`` prefix): the driver picks its device once per process, so
test_apple_paths.py runs this file under ``CUMETAL_BACKEND=air-sim`` and ``msl-sim`` in fresh
interpreters.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from tests.ptx_sweep.case import Buf, Case
from tests.ptx_sweep.cases import async_tensor
from tests.ptx_sweep.harness import DriverError, run_case

from .test_async_ops import _HEAD, _reference_box
from .test_barrier_reductions_and_masks import (  # noqa: F401  (collected here too: the same tests on the simulators)
    test_bar_red_reduces_over_its_own_threads,
    test_bar_red_with_a_bad_count_is_an_illegal_instruction,
    test_cp_mask_copies_the_bytes_of_its_mask,
    test_im2col_stores_the_h100_refused_are_illegal_instructions,
)
from .test_tensor_reduce import (  # noqa: F401  (collected here too: the same tests on the simulators)
    test_a_reduction_the_map_type_lacks_is_an_illegal_instruction,
    test_tensor_reduction_matches_numpy,
)
from .test_tensor_reduce import test_starts_the_h100_refused_are_illegal_instructions as _refused


@pytest.mark.parametrize("name", ["tred_add_f32", "tred_min_s32_al", "tred_add_u64_al", "tred_dec_u32_al"])
def test_starts_the_h100_refused_are_refused(cu, sim, name: str) -> None:
    """A negative start (in either dimension) and a dimension-0 start off a 16-byte boundary (the
    other refused starts: on cpu, test_tensor_reduce.py; each one is a kernel to build here)."""
    _refused(cu, name)


@pytest.fixture(scope="module")
def cu():
    assert os.environ.get("CUMETAL_BACKEND") in ("air-sim", "msl-sim"), "run through test_apple_paths.py"
    from cumetal import driver

    driver.cuInit(0)
    return driver


@pytest.fixture
def sim(cu):
    return os.environ["CUMETAL_BACKEND"]


_BOXES = {
    "t5d_u32": dict(dtype=2, dims=(8, 3, 3, 2, 2), box=(4, 2, 2, 2, 2), coords=(6, -1, 2, 1, 0), seed=18),
    "t2d_estride": dict(dtype=7, dims=(40, 24), box=(8, 8), coords=(3, 2), estr=(2, 3), seed=6),
    "t1d_u8": dict(dtype=0, dims=(200,), box=(64,), coords=(170,), seed=15),
}


@pytest.mark.parametrize("name", sorted(_BOXES))
def test_tensor_boxes_match_numpy(cu, sim, name: str) -> None:
    case = async_tensor._load_case(name, **_BOXES[name])
    got = run_case(cu, case)
    assert (got["flags"] == 1).all(), "the mbarrier phase of the copy did not complete"
    np.testing.assert_array_equal(got["out"], _reference_box(case))


def test_test_wait_spin_with_a_late_producer_completes(cu, sim) -> None:
    """Warp 0 spins on test_wait before warp 1 (the producer) has run: the wait's scheduling point
    must let the producer run (threads are fibers on both simulators)."""
    from .test_async_ops import test_test_wait_spin_with_a_late_producer_completes as spin

    spin(cu)


def test_triton_tma_kernel_beyond_apple_threadgroup_memory_is_refused_clearly(cu, sim, capfd) -> None:
    """Triton's TMA kernel asks for 32,768 bytes of dynamic shared memory on top of its 80 static
    bytes: more than an Apple GPU's 32 KiB of threadgroup memory. Shared memory beyond it lives in
    device memory (backends/apple/shared_spill.py), which bulk/tensor copies and mbarriers cannot
    use, so the launch fails with a message naming the instruction and the sizes — no hang, no crash (on cpu the same
    kernel runs: test_async_ops.py)."""
    import ctypes
    from pathlib import Path

    ptx = (Path(__file__).resolve().parents[1] / "corpus/ptx/triton/sm90/tma_scale.ptx").read_bytes()
    ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])[1]
    try:
        mod = cu.cuModuleLoadData(ptx + b"\0")[1]
        fn = cu.cuModuleGetFunction(mod, b"tma_scale_kernel")[1]
        m, n = 128, 48
        da, do, scratch = (cu.cuMemAlloc(m * n * 4)[1] for _ in range(3))
        args = ((da, do, m, n, scratch, 0), (None, None, ctypes.c_int32, ctypes.c_int32, None, ctypes.c_void_p))
        err = cu.cuLaunchKernel(fn, m // 64, 1, 1, 128, 1, 1, 32768, 0, args, 0)[0]
        if err == 0:
            err = cu.cuCtxSynchronize()[0]
        assert err != 0
        said = capfd.readouterr().err
        assert "bulk asynchronous copies" in said and "32848" in said, said
    finally:
        cu.cuCtxDestroy(ctx)


_MULTICAST = _HEAD + """.visible .entry k(.param .u64 p_out, .param .u64 p_src)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .b16 %h<2>;
    .shared .align 128 .b8 sbuf[256];
    .shared .align 8 .b64 bar;
    mov.u32 %r0, %tid.x;
    ld.param.u64 %rd1, [p_out];
    ld.param.u64 %rd2, [p_src];
    mov.u32 %r1, sbuf;
    mad.lo.u32 %r2, %r0, 4, %r1;
    st.shared.u32 [%r2], 0xCDCDCDCD;
    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
    bar.sync 0;
    @!%p0 bra WAIT;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 128;
    mov.b16 %h0, 1;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [sbuf], [%rd2], 128, [bar], %h0;
    mov.b16 %h1, 2;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [sbuf+128], [%rd2], 128, [bar], %h1;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    ld.shared.u32 %r3, [%r2];
    mul.wide.u32 %rd4, %r0, 4;
    add.u64 %rd4, %rd1, %rd4;
    st.global.u32 [%rd4], %r3;
    ret;
}
"""


def test_multicast_in_a_cluster_of_one(cu, sim) -> None:
    """Metal launches clusters of one threadgroup (rank 0): ctaMask bit 0 copies here, a mask
    without it copies nowhere (and completes no transaction here)."""
    src = np.arange(32, dtype=np.uint32) * 7 + 1
    case = Case("multicast1", "async_ops", _MULTICAST, "k", (1, 1, 1), (64, 1, 1),
                (Buf("out", "uint32", 64, output=True), Buf("src", "uint32", 32, init=src)))
    got = run_case(cu, case)["out"]
    np.testing.assert_array_equal(got[:32], src)
    assert (got[32:] == 0xCDCDCDCD).all()


def test_mbarrier_wait_that_cannot_complete_ends_at_the_watchdog(cu, sim, monkeypatch) -> None:
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "2")
    ptx = (f"{_HEAD}.visible .entry k(.param .u64 p_out)\n{{\n    .reg .pred %p<4>;\n    .reg .b32 %r<8>;\n"
           "    .reg .b64 %rd<4>;\n    .shared .align 8 .b64 bar;\n    mov.u32 %r0, %tid.x;\n"
           "    setp.eq.u32 %p0, %r0, 0;\n    @%p0 mbarrier.init.shared::cta.b64 [bar], 65;\n    bar.sync 0;\n"
           "    mbarrier.arrive.shared::cta.b64 %rd1, [bar];\nWAIT:\n"
           "    mbarrier.try_wait.shared::cta.b64 %p1, [bar], %rd1;\n    @!%p1 bra WAIT;\n    ret;\n}\n")
    case = Case("deadlock", "async_ops", ptx, "k", (1, 1, 1), (64, 1, 1), (Buf("out", "uint32", 4, output=True),))
    with pytest.raises(DriverError) as e:
        run_case(cu, case)
    assert "TIMEOUT" in str(e.value)


def test_multi_block_clusters_are_refused_at_launch_not_hung(cu, sim) -> None:
    """Metal has no thread-block clusters or distributed shared memory: a kernel whose PTX asks for
    clusters of several blocks gets CUDA's CUDA_ERROR_NOT_SUPPORTED at once (a cluster of one runs:
    test_multicast_in_a_cluster_of_one)."""
    import time

    from tests.ptx_sweep.cases import by_name

    for name in ("cluster_dsmem_ring", "cluster_barrier_rounds"):
        start = time.monotonic()
        with pytest.raises(DriverError) as e:
            run_case(cu, by_name()[name])
        assert "CUDA_ERROR_NOT_SUPPORTED" in str(e.value) and time.monotonic() - start < 30
