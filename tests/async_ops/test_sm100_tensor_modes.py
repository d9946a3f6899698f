"""The sm_100 tensor-copy modes (tile::gather4/scatter4, im2col::w, im2col::w::128) on the numpy engine,
the compiled CPU backend and air-sim (the legalizer's loops, which the Metal paths share), each in its
own interpreter (sm100_modes_cases.py); every kernel's PTX is accepted by NVIDIA's ptxas for sm_100a.
No GPU of ours runs sm_100 instructions: the references are the PTX ISA's rules (see the cases file)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = "tests/async_ops/sm100_modes_cases.py"


def _run(env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CASES], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("engine", [{"CUMETAL_CPU_ENGINE": "numpy"}, {"CUMETAL_BACKEND": "cpu-jit"},
                                    {"CUMETAL_BACKEND": "air-sim"}], ids=lambda e: "-".join(e.values()))
def test_sm100_tensor_modes_match_the_isa(engine: dict[str, str], tmp_path) -> None:
    proc = _run({**engine, "SM100_PTX_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout and "failed" not in proc.stdout
    ptxas = shutil.which("ptxas")
    if ptxas is None or engine.get("CUMETAL_CPU_ENGINE") != "numpy":
        return
    files = sorted(tmp_path.glob("*.ptx"))
    assert len(files) >= 10
    for f in files:  # the forms are real: NVIDIA's assembler takes every kernel for sm_100a
        asm = subprocess.run([ptxas, "-arch=sm_100a", str(f), "-o", os.devnull], capture_output=True, text=True,
                             timeout=120)
        assert asm.returncode == 0, f"{f.name}: {asm.stderr}"


# ------------------------------------------------------------------ .cta_group::2 (CTA pairs)
_PAIR = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p_out, .param .u64 p_tmap, .param .u64 p_flags) .reqnctapercluster 2, 1, 1
{
    .reg .pred %p<10>;
    .reg .b16 %rs<2>;
    .reg .b32 %r<48>;
    .reg .b64 %rd<40>;
    .shared .align 128 .b8 sbuf[64];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd30, [p_out];
    ld.param.u64 %rd31, [p_tmap];
    ld.param.u64 %rd32, [p_flags];
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %cluster_ctarank;
    setp.eq.u32 %p0, %r0, 0;
    setp.eq.u32 %p1, %r1, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
    fence.mbarrier_init.release.cluster;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    selp.u32 %r9, 128, 64, %p1;
    @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], %r9;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    and.pred %p2, %p0, %p1;
    @!%p2 bra ISSUED;
    mov.b32 %r20, 8;
    mov.b16 %rs1, 3;
    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2 [sbuf], [%rd31, {%r20}], [bar], %rs1;
    mov.u32 %r40, 0;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p9, [bar], 0;
    @%p9 bra ISSUED;
    add.u32 %r40, %r40, 1;
    setp.lt.u32 %p8, %r40, 2097152;
    @%p8 bra WAIT;
ISSUED:
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    mbarrier.test_wait.parity.shared::cta.b64 %p3, [bar], 0;
    selp.u32 %r2, 1, 0, %p3;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd32, %rd2;
    @%p0 st.global.u32 [%rd3], %r2;
    setp.lt.u32 %p4, %r0, 16;
    @!%p4 bra DONE;
    mov.u32 %r3, sbuf;
    mad.lo.u32 %r4, %r0, 4, %r3;
    ld.shared.u32 %r5, [%r4];
    mad.lo.u32 %r6, %r1, 16, %r0;
    mul.wide.u32 %rd4, %r6, 4;
    add.u64 %rd5, %rd30, %rd4;
    st.global.u32 [%rd5], %r5;
DONE:
    ret;
}
"""


def test_cta_group_2_multicast_signals_the_pair_member_of_the_barriers_parity(tmp_path, cpu_backend) -> None:
    """PTX ISA (cp.async.bulk.tensor, .cta_group::2 with .multicast::cluster): for each destination CTA the
    mbarrier signal goes to the CTA of its pair whose %cluster_ctarank parity is that of the CTA holding
    mbar. CTA 0 multicasts 64 bytes to CTAs 0 and 1 with its own barrier: both copies signal CTA 0 (its
    barrier, expecting 128 bytes, completes) and none signals CTA 1 (its barrier, expecting 64, does not);
    with .cta_group::1 each CTA would get its own 64."""
    import ctypes

    import numpy as np

    from cumetal import driver as cu

    ptxas = shutil.which("ptxas")
    if ptxas is not None:
        (tmp_path / "pair.ptx").write_text(_PAIR)
        asm = subprocess.run([ptxas, "-arch=sm_100a", str(tmp_path / "pair.ptx"), "-o", os.devnull],
                             capture_output=True, text=True, timeout=120)
        assert asm.returncode == 0, asm.stderr
    ok = lambda r: r[1] if len(r) == 2 else None  # noqa: E731
    assert int(cu.cuInit(0)[0]) == 0
    ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    try:
        data = np.arange(1, 65, dtype=np.uint32)
        t, out, flags, dmap = (ok(cu.cuMemAlloc(n)) for n in (256, 128, 8, 128))
        cu.cuMemcpyHtoD(t, data, 256)
        tmap = ok(cu.cuTensorMapEncodeTiled(2, 1, int(t), [64], [256], [16], [1], 0, 0, 0, 0))
        cu.cuMemcpyHtoD(dmap, bytes(tmap), 128)
        mod = ok(cu.cuModuleLoadData(_PAIR.encode()))
        fn = ok(cu.cuModuleGetFunction(mod, b"k"))
        args = ((out, dmap, flags), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p))
        assert int(cu.cuLaunchKernel(fn, 2, 1, 1, 32, 1, 1, 0, None, args, None)[0]) == 0, cu.last_error_message()
        assert int(cu.cuCtxSynchronize()[0]) == 0, cu.last_error_message()
        got, got_flags = np.zeros(32, dtype=np.uint32), np.zeros(2, dtype=np.uint32)
        cu.cuMemcpyDtoH(got, out, 128)
        cu.cuMemcpyDtoH(got_flags, flags, 8)
        np.testing.assert_array_equal(got, np.concatenate([data[8:24], data[8:24]]))
        assert got_flags.tolist() == [1, 0]
    finally:
        cu.cuCtxDestroy(ctx)
