"""mbarrier / bulk / tensor copies and named barriers beyond the sweep (whose goldens come from an
H100): tensor-map validation against the codes NVIDIA's driver returned, tensor boxes the H100
rejected checked against a numpy model, deadlocks reported instead of hung on, and the Apple
backends' lowering (their runs: test_apple_paths.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from tests.ptx_sweep.case import Buf, Case
from tests.ptx_sweep.cases import async_tensor
from tests.ptx_sweep.harness import DriverError, run_case

from .tensormap_cases import CASES

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def cu():
    os.environ.setdefault("CUMETAL_BACKEND", "cpu")
    from cumetal import driver

    driver.cuInit(0)
    return driver


# ------------------------------------------------------------------ cuTensorMapEncodeTiled
_H100 = json.loads((HERE / "tensormap_errors.json").read_text())["results"]
@pytest.mark.parametrize("case", [c for c in CASES if isinstance(_H100[c["name"]], int)], ids=lambda c: c["name"])
def test_tensor_map_encode_returns_cudas_code(cu, case: dict) -> None:
    ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])[1]
    try:
        base = cu.cuMemAlloc(1 << 20)[1]
        err, tmap = cu.cuTensorMapEncodeTiled(
            case["dtype"], case["rank"], int(base) + case.get("offset", 0), case["dims"], case["strides"], case["box"],
            case["estrides"], case.get("interleave", 0), case.get("swizzle", 0), case.get("l2", 0), case.get("oob", 0))
        assert int(err) == _H100[case["name"]], cu.last_error_message()
        assert (tmap is None) == (int(err) != 0)
        cu.cuMemFree(base)
    finally:
        cu.cuCtxDestroy(ctx)


# Measured on an H100 through libcuda's C entry point (scripts/make_graph_dot_goldens.py, probes.json):
# 8 rank-1 maps (u8/u16/f32, rows of 3 to 256 elements, 16-byte multiples or not) are each refused
# with a NULL globalStrides and accepted with any pointer; rank 2 with a 200-byte row is accepted.
_RANK1_H100 = {(0, 200, 64): (1, 0), (0, 199, 16): (1, 0), (7, 50, 8): (1, 0), (7, 3, 4): (1, 0), (1, 8, 8): (1, 0)}


@pytest.mark.parametrize("key", sorted(_RANK1_H100), ids=str)
def test_rank1_tensor_map_needs_a_strides_pointer_as_cuda_does(cu, key) -> None:
    dtype, dim, box = key
    ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])[1]
    try:
        base = int(cu.cuMemAlloc(1 << 12)[1])
        codes = tuple(int(cu.cuTensorMapEncodeTiled(dtype, 1, base, [dim], strides, [box], [1], 0, 0, 0, 0)[0])
                      for strides in ([], [4096]))
        assert codes == _RANK1_H100[key]
        err, _ = cu.cuTensorMapEncodeTiled(0, 2, base, [200, 4], [256], [16, 2], [1, 1], 0, 0, 0, 0)
        assert int(err) == 0
    finally:
        cu.cuCtxDestroy(ctx)


# ------------------------------------------------------------------ tensor boxes vs numpy
def _reference_box(case: Case) -> np.ndarray:
    """The shared-memory dump a tile-mode load must produce, computed directly from the tensor."""
    tm = next(p for p in case.params if not isinstance(p, Buf))
    tensor = next(p for p in case.params if isinstance(p, Buf) and p.name == "tensor")
    raw = tensor.init.view(np.uint8)
    esize = tensor.init.dtype.itemsize
    coords = [int(x) for x in case.note.split(" at (")[1].rstrip(")").split(",") if x.strip()]
    counts = [-(-b // e) for b, e in zip(tm.box, tm.estrides, strict=True)]
    dump = np.full(async_tensor.DUMP, 0xCD, dtype=np.uint8)
    strides = (esize, *tm.strides)
    pos = 0
    for idx in np.ndindex(*reversed(counts)):
        c = [coords[k] + idx[len(counts) - 1 - k] * tm.estrides[k] for k in range(len(counts))]
        if all(0 <= c[k] < tm.dims[k] for k in range(len(c))):
            off = sum(c[k] * strides[k] for k in range(len(c)))
            dump[pos:pos + esize] = raw[off:off + esize]
        else:
            dump[pos:pos + esize] = 0
        pos += esize
    return dump.view(np.uint32)


@pytest.mark.parametrize("args", [
    ("t3d_f16", dict(dtype=6, dims=(16, 6, 5), box=(8, 4, 3), coords=(4, 3, 3), seed=16)),
    ("t4d_f64", dict(dtype=8, dims=(4, 3, 2, 2), box=(2, 2, 2, 2), coords=(3, 2, 1, 1), seed=17)),
    ("t5d_u32", dict(dtype=2, dims=(8, 3, 3, 2, 2), box=(4, 2, 2, 2, 2), coords=(6, -1, 2, 1, 0), seed=18)),
    ("t1d_u8", dict(dtype=0, dims=(200,), box=(64,), coords=(170,), seed=15)),
    ("t2d_estride", dict(dtype=7, dims=(40, 24), box=(8, 8), coords=(3, 2), estr=(2, 3), seed=6)),
], ids=lambda a: a[0])
def test_tensor_load_matches_numpy(cu, args) -> None:
    name, kw = args
    case = async_tensor._load_case(name, **kw)
    got = run_case(cu, case)
    assert (got["flags"] == 1).all(), "the mbarrier phase of the copy did not complete"
    np.testing.assert_array_equal(got["out"], _reference_box(case))


# ------------------------------------------------------------------ deadlocks are reported
_HEAD = ".version 8.3\n.target sm_90\n.address_size 64\n"


def _launch(cu, capfd, body: str, block: int = 64) -> str:
    ptx = (f"{_HEAD}.visible .entry k(.param .u64 p_out)\n{{\n    .reg .pred %p<4>;\n    .reg .b32 %r<8>;\n"
           f"    .reg .b64 %rd<4>;\n    .shared .align 8 .b64 bar;\n    mov.u32 %r0, %tid.x;\n{body}    ret;\n}}\n")
    case = Case("deadlock", "async_ops", ptx, "k", (1, 1, 1), (block, 1, 1), (Buf("out", "uint32", 4, output=True),))
    with pytest.raises(DriverError) as e:
        run_case(cu, case)
    assert "TIMEOUT" in str(e.value)
    return capfd.readouterr().err


def test_mbarrier_wait_that_cannot_complete_is_a_timeout_not_a_hang(cu, capfd, monkeypatch) -> None:
    monkeypatch.delenv("CUMETAL_QUIET", raising=False)
    msg = _launch(cu, capfd, """    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 65;
    bar.sync 0;
    mbarrier.arrive.shared::cta.b64 %rd1, [bar];
WAIT:
    mbarrier.try_wait.shared::cta.b64 %p1, [bar], %rd1;
    @!%p1 bra WAIT;
""")
    assert "deadlock" in msg and "mbarrier" in msg


def test_named_barrier_short_of_threads_is_a_timeout(cu, capfd, monkeypatch) -> None:
    monkeypatch.delenv("CUMETAL_QUIET", raising=False)
    msg = _launch(cu, capfd, "    bar.sync 1, 96;\n")
    assert "named barrier 1 waits for 96 threads but only 64 arrived" in msg


def test_test_wait_spin_with_a_late_producer_completes(cu) -> None:
    """A consumer warp spins on test_wait (lower program counter) while the producer warp is still
    to arrive: the waiter must let the producer run."""
    ptx = f"""{_HEAD}.visible .entry k(.param .u64 p_out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .b32 val;
    mov.u32 %r0, %tid.x;
    ld.param.u64 %rd2, [p_out];
    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 32;
    bar.sync 0;
    setp.lt.u32 %p2, %r0, 32;
    @%p2 bra CONSUMER;
    st.shared.u32 [val], 1234;
    mbarrier.arrive.release.cta.shared::cta.b64 _, [bar];
    bra END;
CONSUMER:
    mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra CONSUMER;
    ld.shared.u32 %r1, [val];
    mul.wide.u32 %rd3, %r0, 4;
    add.u64 %rd3, %rd2, %rd3;
    st.global.u32 [%rd3], %r1;
END:
    ret;
}}
"""
    case = Case("spin", "async_ops", ptx, "k", (1, 1, 1), (64, 1, 1), (Buf("out", "uint32", 32, output=True),))
    assert (run_case(cu, case)["out"] == 1234).all()


# ------------------------------------------------------------------ Apple backends lower them (legalizer rules)
@pytest.mark.parametrize("backend", ["air", "msl"])
@pytest.mark.parametrize("snippet", [
    "    mbarrier.init.shared::cta.b64 [bar], 1;\n",
    "    bar.arrive 1, 64;\n",
])
def test_apple_backends_lower_mbarriers_and_named_barriers(backend: str, snippet: str) -> None:
    """Once refused per kernel; the legalizer's async rules now expand them (tests/async_ops/
    test_apple_paths.py runs them on air-sim and msl-sim)."""
    from cumetal.passes.lower import lower_module
    from cumetal.ptx import parser

    ptx = (f"{_HEAD}.visible .entry k()\n{{\n    .shared .align 8 .b64 bar;\n{snippet}    ret;\n}}\n")
    module = lower_module(parser.parse(ptx).module, "t.ptx")
    if backend == "air":
        from cumetal.backends.air.lower import lower_to_air

        assert lower_to_air(module, "k") is not None
    else:
        from cumetal.backends.msl.emit import emit_module

        assert "kernel void k(" in emit_module(module).source


# ------------------------------------------------------------------ clusters: multicast, remote arrive
_MULTICAST = _HEAD + """.visible .entry k(.param .u64 p_out, .param .u64 p_src, .param .u64 p_tmap)
{
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .shared .align 1024 .b8 sbuf[1024];
    .shared .align 8 .b64 bar;
    .shared .align 8 .b64 bar2;
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %cluster_ctarank;
    ld.param.u64 %rd1, [p_out];
    ld.param.u64 %rd2, [p_src];
    ld.param.u64 %rd3, [p_tmap];
    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p0 mbarrier.init.shared::cta.b64 [bar2], 2;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    @!%p0 bra WAIT;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [bar], MCBYTES;
    // every CTA arrives once on its own bar2 and once on rank 0's
    mbarrier.arrive.shared::cta.b64 %rd5, [bar2];
    mov.u32 %r2, bar2;
    mapa.shared::cluster.u32 %r3, %r2, 0;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 mbarrier.arrive.shared::cluster.b64 _, [%r3];
    setp.eq.u32 %p2, %r1, 0;
    @!%p2 bra WAIT;
    COPY
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
    @!%p3 bra WAIT;
    mov.u32 %r10, sbuf;
    shl.b32 %r11, %r0, 2;
    add.u32 %r12, %r10, %r11;
    ld.shared.u32 %r13, [%r12];
    mad.lo.u32 %r14, %r1, 256, %r0;
    mul.wide.u32 %rd6, %r14, 4;
    add.u64 %rd7, %rd1, %rd6;
    st.global.u32 [%rd7], %r13;
    @!%p2 bra END;
    @!%p0 bra END;
W2:
    mbarrier.try_wait.parity.shared::cta.b64 %p4, [bar2], 0;
    @!%p4 bra W2;
    st.global.u32 [%rd1+8192], 77;
END:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"""


def _cluster_run(cu, ptx: str, params: list, nbufs: int):
    ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])[1]
    try:
        mod = cu.cuModuleLoadData(ptx.encode())[1]
        fn = cu.cuModuleGetFunction(mod, b"k")[1]
        cfg = cu.CUlaunchConfig()
        cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = 4, 1, 1
        cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = 256, 1, 1
        attr = cu.CUlaunchAttribute()
        attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = 2, 1, 1
        cfg.attrs, cfg.numAttrs = [attr], 1
        out = cu.cuMemAlloc(8196)[1]
        cu.cuMemsetD8(out, 0, 8196)
        bufs = [out] + params(cu)
        assert cu.cuLaunchKernelEx(cfg, fn, (tuple(bufs), (None,) * len(bufs)), 0)[0] == 0
        assert cu.cuCtxSynchronize()[0] == 0, cu.last_error_message()
        host = np.zeros(2049, np.uint32)
        cu.cuMemcpyDtoH(host, out, 8196)
        return host
    finally:
        cu.cuCtxDestroy(ctx)


def test_multicast_bulk_copy_and_remote_arrive(cu, cpu_backend) -> None:  # clusters of 2: cpu only
    src = (np.arange(256, dtype=np.uint32) * 2654435761 & 0xFFFFFFFF).astype(np.uint32)
    ptx = _MULTICAST.replace("MCBYTES", "1024").replace(
        "COPY", "mov.u16 %rs1, 3;\n    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [sbuf], [%rd2], 1024, [bar], %rs1;").replace(
        ".reg .b64 %rd<20>;", ".reg .b64 %rd<20>;\n    .reg .b16 %rs<4>;")

    def params(cu):
        d = cu.cuMemAlloc(1024)[1]
        cu.cuMemcpyHtoD(d, src, 1024)
        return [d, d]
    host = _cluster_run(cu, ptx, params, 2)
    # both CTAs of the first cluster (and of the second: the same program) got the bytes
    np.testing.assert_array_equal(host[:256], src)
    np.testing.assert_array_equal(host[256:512], src)
    assert host[2048] == 77  # rank 0's bar2 completed from its own arrival and rank 1's remote one


def test_multicast_tensor_copy(cu, cpu_backend) -> None:  # clusters of 2: cpu only
    tensor = np.arange(40 * 24, dtype=np.uint32) * 7 + 1
    ptx = _MULTICAST.replace("MCBYTES", "1024").replace(
        "COPY", "mov.u16 %rs1, 3;\n    mov.u32 %r20, 4;\n    mov.u32 %r21, 10;\n"
        "    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [sbuf], [%rd3, {%r20, %r21}], [bar], %rs1;").replace(
        ".reg .b64 %rd<20>;", ".reg .b64 %rd<20>;\n    .reg .b16 %rs<4>;")

    def params(cu):
        d = cu.cuMemAlloc(tensor.nbytes)[1]
        cu.cuMemcpyHtoD(d, tensor, tensor.nbytes)
        err, tm = cu.cuTensorMapEncodeTiled(2, 2, int(d), [40, 24], [160], [32, 8], [1, 1], 0, 3, 0, 0)
        assert err == 0
        m = cu.cuMemAlloc(128)[1]
        cu.cuMemcpyHtoD(m, np.frombuffer(bytes(tm), np.uint8).copy(), 128)
        return [d, m]
    host = _cluster_run(cu, ptx, params, 2)
    box = tensor.reshape(24, 40)[10:18, 4:36].reshape(-1)  # 8 rows of 32 u32 = 128-byte rows
    off = np.arange(1024, dtype=np.uint64)
    phys = off ^ (((off >> np.uint64(7)) & np.uint64(7)) << np.uint64(4))  # 128B swizzle, sbuf at 0
    want = np.zeros(1024, np.uint8)
    want[phys.astype(np.intp)] = box.view(np.uint8)
    for rank in (0, 1):
        np.testing.assert_array_equal(host[256 * rank:256 * (rank + 1)], want.view(np.uint32))


def test_tensormap_replace_global_address(cu) -> None:
    """tensormap.replace.tile.global_address in global memory moves the box 4 elements on."""
    from dataclasses import replace

    case = async_tensor._load_case("replace", dtype=7, dims=(40, 24), box=(8, 8), coords=(8, 4), seed=1)
    ptx = case.ptx.replace(
        "    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;",
        "    ld.param.u64 %rd40, [p_tensor];\n    add.u64 %rd40, %rd40, 16;\n"
        "    tensormap.replace.tile.global_address.global.b1024.b64 [%rd31], %rd40;\n"
        "    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;")
    out = run_case(cu, replace(case, ptx=ptx))["out"]
    tensor = next(p for p in case.params if isinstance(p, Buf) and p.name == "tensor").init
    want = np.stack([tensor[(4 + r) * 40 + 12:(4 + r) * 40 + 20] for r in range(8)]).reshape(-1)
    np.testing.assert_array_equal(out[:64], want)


def test_im2col_map_is_validated_and_a_malformed_copy_is_diagnosed(cu) -> None:
    """(im2col copies themselves: sweep cases async_tensor im2col*, H100 goldens.)"""
    ok = cu.cuTensorMapEncodeIm2col(7, 4, 0x1000, [16, 8, 8, 2], [64, 512, 4096], [-1, -1], [1, 1], 16, 32,
                                    [1, 1, 1, 1], 0, 0, 0, 0)
    assert ok[0] == 0 and ok[1] is not None
    for bad in ([-200, -1], [-1, 128]):  # rank 4: corners are 8-bit signed
        err, _ = cu.cuTensorMapEncodeIm2col(7, 4, 0x1000, [16, 8, 8, 2], [64, 512, 4096], bad, [1, 1], 16, 32,
                                            [1, 1, 1, 1], 0, 0, 0, 0)
        assert int(err) == 1
    from cumetal.passes.lower import lower_module
    from cumetal.ptx import parser

    ptx = (f"{_HEAD}.visible .entry k(.param .u64 t)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<2>;\n"
           "    .reg .b16 %h<2>;\n    .shared .align 128 .b8 s[1024];\n    .shared .align 8 .b64 bar;\n"
           "    ld.param.u64 %rd1, [t];\n    cp.async.bulk.tensor.3d.shared::cluster.global.im2col"
           ".mbarrier::complete_tx::bytes [s], [%rd1, {%r1, %r2, %r3}], [bar], {%h1};\n    ret;\n}\n")
    module = lower_module(parser.parse(ptx).module, "im2col.ptx")
    assert not getattr(module, "failed", {}).get("k")
    two = ptx.replace("[bar], {%h1}", "[bar], {%h0, %h1}")  # a 3D im2col copy takes one offset
    module = lower_module(parser.parse(two).module, "im2col.ptx")
    assert any("im2col offsets" in d.message for d in getattr(module, "failed", {}).get("k", []))


# ------------------------------------------------------------------ Triton sm_90 TMA kernel (corpus)
@pytest.mark.backend_limit("air-sim", "msl-sim", reason="the launch asks for 32768 B of dynamic shared memory "
                            "(+80 static) with bulk copies, more than an Apple GPU's 32 KiB of threadgroup memory: "
                            "refused with that message (docs/libraries.md, shared memory beyond 32 KiB)")
@pytest.mark.parametrize("m,n", [(192, 64), (128, 48)])
def test_triton_tma_kernel_with_device_side_descriptors(cu, m: int, n: int) -> None:
    """Triton's tl.make_tensor_descriptor kernel (tests/corpus/ptx/triton/sm90/tma_scale.ptx): tensor
    maps built in shared memory with tensormap.replace, published with tensormap.cp_fenceproxy, a
    TMA load completing an mbarrier and a TMA store; n = 48 leaves half of the second box outside."""
    import ctypes

    ptx = (Path(__file__).resolve().parents[1] / "corpus/ptx/triton/sm90/tma_scale.ptx").read_bytes()
    ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])[1]
    try:
        mod = cu.cuModuleLoadData(ptx + b"\0")[1]
        fn = cu.cuModuleGetFunction(mod, b"tma_scale_kernel")[1]
        a = np.random.default_rng(3).standard_normal((m, n)).astype(np.float32)
        da, do = cu.cuMemAlloc(a.nbytes)[1], cu.cuMemAlloc(a.nbytes)[1]
        cu.cuMemcpyHtoD(da, a, a.nbytes)
        cu.cuMemsetD8(do, 0, a.nbytes)
        grid = m // 64
        scratch = cu.cuMemAlloc(grid * 256)[1]  # Triton's global scratch: 256 bytes (two maps) per program
        args = ((da, do, m, n, scratch, 0), (None, None, ctypes.c_int32, ctypes.c_int32, None, ctypes.c_void_p))
        assert cu.cuLaunchKernel(fn, grid, 1, 1, 128, 1, 1, 32768, 0, args, 0)[0] == 0
        assert cu.cuCtxSynchronize()[0] == 0
        out = np.empty_like(a)
        cu.cuMemcpyDtoH(out, do, a.nbytes)
        np.testing.assert_array_equal(out, a * 2)
    finally:
        cu.cuCtxDestroy(ctx)
