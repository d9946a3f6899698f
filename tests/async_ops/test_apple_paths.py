"""The async operations on the Apple paths: apple_paths_cases.py under air-sim and msl-sim (each in a
fresh interpreter: the driver picks its device once per process), tensor reductions and the corpus'
async kernels as valid .metallibs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .test_async_ops import _HEAD

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("sim", ["air-sim", "msl-sim"])
def test_async_programs_on_the_simulators(sim: str) -> None:
    env = dict(os.environ, CUMETAL_BACKEND=sim)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/async_ops/apple_paths_cases.py"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout


# ------------------------------------------------------------------ tensor reductions compile
_REDUCE = _HEAD + """.visible .entry k(.param .u64 tmap)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    .shared .align 128 .b8 sbuf[128];
    ld.param.u64 %rd1, [tmap];
    mov.b32 %r1, 0;
    cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1}], [sbuf];
    ret;
}
"""


def test_tensor_reductions_become_a_valid_metallib_and_msl() -> None:
    """The element type comes from the map at run time: one loop per type (runs: apple_paths_cases)."""
    from cumetal.backends.air.lower import compile_metallib
    from cumetal.backends.msl.emit import emit_module
    from cumetal.passes import compile_ptx

    module = compile_ptx(_REDUCE, "t.ptx")
    assert compile_metallib(module)
    assert "kernel void k(" in emit_module(module).source


def test_corpus_async_kernels_become_valid_metallibs() -> None:
    """cuda::memcpy_async (nvcc/nvrtc, sm_80/sm_90) and Triton's TMA kernel: the .metallib is written
    and passes air_validate (compile_metallib validates)."""
    from cumetal.backends.air.lower import compile_metallib
    from cumetal.passes import compile_ptx

    corpus = Path(__file__).resolve().parents[1] / "corpus" / "ptx"
    for rel in ("nvcc/sm90/memcpy_async_cg.ptx", "nvrtc/compute_80/memcpy_async_cg.ptx", "triton/sm90/tma_scale.ptx"):
        path = corpus / rel
        assert compile_metallib(compile_ptx(path.read_text(), str(path)))


# ------------------------------------------------------------------ every proxy / restricted fence form
_FENCES = """.version 8.6
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    fence.proxy.alias;
    fence.proxy.async;
    fence.proxy.async.global;
    fence.proxy.async.shared::cta;
    fence.proxy.async.shared::cluster;
    fence.proxy.tensormap::generic.release.cta;
    fence.proxy.tensormap::generic.release.cluster;
    fence.proxy.tensormap::generic.release.gpu;
    fence.proxy.tensormap::generic.release.sys;
    fence.proxy.tensormap::generic.acquire.cta [%rd1], 128;
    fence.proxy.tensormap::generic.acquire.cluster [%rd1], 128;
    fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
    fence.proxy.tensormap::generic.acquire.sys [%rd1], 128;
    fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;
    fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;
    fence.acquire.sync_restrict::shared::cluster.cluster;
    fence.release.sync_restrict::shared::cta.cluster;
    fence.mbarrier_init.release.cluster;
    membar.proxy.alias;
    mov.u32 %r1, 7;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""


def test_every_fence_form_compiles_for_every_backend_and_runs() -> None:
    """(ptxas 13 accepts this kernel for sm_90a.) Copies complete when issued on every CuMetal
    backend, so the proxy fences order nothing more than a memory fence would: strict parsing,
    a valid .metallib, MSL, and a cpu run that reaches the store after them."""
    from tests.ptx_sweep.case import Buf, Case
    from tests.ptx_sweep.harness import run_case

    from cumetal import driver as cu
    from cumetal.backends.air.lower import compile_metallib
    from cumetal.backends.msl.emit import emit_module
    from cumetal.passes import compile_ptx
    from cumetal.ptx import parser

    assert not parser.parse(_FENCES).diagnostics
    module = compile_ptx(_FENCES, "fences.ptx")
    assert compile_metallib(module) and "kernel void k(" in emit_module(module).source
    cu.cuInit(0)
    case = Case("fences", "async_ops", _FENCES, "k", (1, 1, 1), (32, 1, 1), (Buf("p", "uint32", 1, output=True),))
    assert run_case(cu, case)["p"][0] == 7
