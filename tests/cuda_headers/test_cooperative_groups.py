"""cooperative_groups.h (+ reduce.h, scan.h, memcpy_async.h) run on the CPU backend, against
references computed from the CUDA Programming Guide's definitions."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_headers_harness import I32, ok

from cumetal import driver as cu
from cumetal.cudacxx.compile import CudaCompileError, compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

NOUT = 40


@pytest.fixture(scope="module")
def g(gpu):
    gpu.load("cg.cu")
    return gpu


def _prefix(values: list[int], upto: int) -> int:
    return sum(values[:upto])


def test_groups_tiles_partitions_collectives(g):
    vals = np.random.default_rng(23).integers(0, 64, 128, dtype=np.int32)
    d_in, d_out = g.to_device(vals), g.to_device(np.zeros(128 * NOUT, np.int64))
    g.run("groups", (2,), (8, 4, 2), [(d_in, None), (d_out, None)])
    out = g.from_device(d_out, np.zeros(128 * NOUT, np.int64)).reshape(128, NOUT)
    for b in range(2):
        blk = [int(x) for x in vals[64 * b:64 * b + 64]]
        for r in range(64):
            o = [int(x) for x in out[64 * b + r]]
            v = blk[r]
            i, base = r % 8, r - r % 8
            tile = blk[base:base + 8]
            lane, wbase = r % 32, r - r % 32
            warp = blk[wbase:wbase + 32]
            assert o[0] == r
            assert o[1] == 64 + 64000
            assert o[2] == b + 10 * (r % 8) + 100 * ((r // 8) % 4) + 1000 * (r // 32)
            assert o[3] == 8 + 40 + 200
            assert o[4] == i + 800 + 10000 * (r // 8) + 8000000
            assert o[5] == tile[3]
            assert o[6] == (tile[i - 2] if i >= 2 else v)
            assert o[7] == (tile[i + 3] if i + 3 < 8 else v)
            assert o[8] == tile[i ^ 5]
            assert o[9] == int(any(x > 40 for x in tile)) + 2 + 4 * int(all(x > 40 for x in tile))
            assert o[10] == sum(1 << j for j in range(8) if tile[j] & 1)
            assert o[11] == sum(1 << j for j in range(8) if tile[j] % 3 == v % 3)
            assert o[12:15] == [sum(tile), min(tile), max(tile)]
            assert o[15] == np.bitwise_and.reduce(tile) + 1000 * np.bitwise_or.reduce(tile)
            assert o[16] == np.bitwise_xor.reduce(tile)
            assert o[17] == _prefix(tile, i + 1) and o[18] == _prefix(tile, i) and o[19] == max(tile[:i + 1])
            assert o[20] == r % 4 + 100 * ((r % 32) // 4) + 80000
            assert o[21] == sum(warp)
            q = warp[lane - lane % 4:lane - lane % 4 + 4]
            assert o[22] == 3 * (3 * q[0] + q[1]) + (3 * q[2] + q[3])
            assert o[23] == r % 16 + 1600
            odd = [j for j in range(32) if warp[j] & 1]
            if v & 1:
                k = odd.index(lane)
                ov = [warp[j] for j in odd]
                assert o[24] == k + 100 * len(odd)
                assert o[25] == ov[0] and o[26] == sum(ov) and o[27] == _prefix(ov, k + 1)
                assert o[28] == sum(1 << m for m, x in enumerate(ov) if x > 40)
                assert o[29] == (ov[k + 1] if k + 1 < len(ov) else v)
            else:
                assert o[24:30] == [-1] * 6
            same = [j for j in range(32) if warp[j] % 4 == v % 4]
            assert o[30] == same.index(lane) + 100 * len(same)
            assert o[31] == sum(warp[j] for j in same)
            side = [j for j in range(32) if (warp[j] > 25) == (v > 25)]
            k = side.index(lane)
            assert o[32] == k + 100 * len(side) + 10000 * int(v > 25) + 2000000
            assert o[33] == sum(warp[j] for j in side[:k])
            assert o[34] == r % 8 + 3200
            assert o[35] == 64 * b + r + 1280000
            assert o[36] == b + 200 + 20000
            assert o[37] == 5 * tile[7]
            partner = warp[lane ^ 1]
            assert o[38] == partner + 2000 * partner
            assert o[39] == 10


def test_memcpy_async_and_wait(g):
    src = np.random.default_rng(29).standard_normal(512).astype(np.float32)
    d_src, d_dst = g.to_device(src), g.to_device(np.zeros(512 + 16, np.float32))
    g.run("async_copy", (2,), (256,), [(d_src, None), (d_dst, None), (512, I32)])
    dst = g.from_device(d_dst, np.zeros(512 + 16, np.float32))
    for b in range(2):
        assert np.array_equal(dst[256 * b:256 * b + 256], src[256 * b:256 * b + 256][::-1] * 2)
    raw = src.view(np.uint8)
    assert dst[512:].tolist() == [float(raw[63 + 64 * w]) for w in range(8)] * 2


def test_grid_sync_outside_a_cooperative_launch_traps(g, capfd):
    # grid.sync() needs a cooperative launch (tests/clusters run it that way); launched plainly the
    # kernel traps at the barrier, as on CUDA, and never runs past it
    d_flag = g.to_device(np.zeros(2, np.int32))
    err, sync = g.launch("grid_sync", (2,), (32,), [(d_flag, None)])
    assert cu.CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION in (err, sync)
    assert g.from_device(d_flag, np.zeros(2, np.int32)).tolist() == [1, 0]


def test_coalesced_sync_in_divergent_code_then_full_warp_vote(g):
    vals = np.random.default_rng(23).integers(0, 64, 32, dtype=np.int32)
    d_in, d_out = g.to_device(vals), g.to_device(np.zeros(64, np.int32))
    g.run("coalesced_sync", (1,), (32,), [(d_in, None), (d_out, None)])
    out = g.from_device(d_out, np.zeros(64, np.int32))
    odd = vals & 1 == 1
    assert (out[32:][odd] == odd.sum()).all()
    assert (out[:32].view(np.uint32) == sum(1 << i for i in range(32) if vals[i] > 25)).all()


def test_barrier_and_pipeline(gpu):
    gpu.load("barrier_pipeline.cu")
    src = np.arange(4 * 128, dtype=np.float32)
    d_in, d_out, d_count = gpu.to_device(src), gpu.to_device(np.zeros(128, np.float32)), gpu.to_device(
        np.zeros(1, np.int32))
    gpu.run("bar_kernel", (2,), (128,), [(d_in, None), (d_out, None), (d_count, None)])
    assert np.array_equal(gpu.from_device(d_out, np.zeros(128, np.float32)), src[:128][::-1])
    assert gpu.from_device(d_count, np.zeros(1, np.int32))[0] == 2 * 2  # completion once per phase per block
    gpu.run("pipe_kernel", (1,), (128,), [(d_in, None), (d_out, None), (4, I32)])
    t = np.arange(128)
    expect = sum(src[s * 128 + 127 - t] for s in range(4)) + src[t] * 1000 + src[t] * np.float32(1e6)
    assert np.array_equal(gpu.from_device(d_out, np.zeros(128, np.float32)), expect.astype(np.float32))


def test_barrier_over_arrival_is_a_reported_deadlock(gpu, capfd, monkeypatch):
    """cuda::barrier is an mbarrier (tests/async_ops): 32 threads on a barrier of 16 complete two
    phases at once, so the first 16 wait on a phase two behind (undefined in the PTX ISA: it hangs
    on NVIDIA hardware); CuMetal reports the deadlock."""
    monkeypatch.delenv("CUMETAL_QUIET", raising=False)
    src = """#include <cuda/barrier>
extern "C" __global__ void k(int *out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, 16);
    __syncthreads();
    bar.arrive_and_wait();
    out[threadIdx.x] = 1;
}
"""
    mod = ok(cu.cuModuleLoadData(compile_to_ptx(src, "partial.cu", CudaOptions()).ptx.encode()))
    d_out = gpu.to_device(np.zeros(32, np.int32))
    fn = ok(cu.cuModuleGetFunction(mod, b"k"))
    err, = cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, ((d_out,), (None,)), 0)
    sync, = cu.cuCtxSynchronize()
    assert cu.CUresult.CUDA_ERROR_LAUNCH_TIMEOUT in (err, sync)
    assert "deadlock" in capfd.readouterr().err
    cu.cuModuleUnload(mod)


def test_split_barrier_with_a_completion_function_is_a_compile_time_error():
    src = ("#include <cuda/barrier>\nstruct F { __device__ void operator()() const {} };\n"
           "__global__ void k() {\n  __shared__ cuda::barrier<cuda::thread_scope_block, F> bar;\n"
           "  bar.wait(bar.arrive());\n}\n")
    with pytest.raises(CudaCompileError) as e:
        compile_to_ptx(src, "split.cu", CudaOptions())
    assert "split arrive/wait on a cuda::barrier with a completion function is not supported" in e.value.log


def test_full_warp_vote_after_divergent_branch(g):
    g.load("cg.cu")  # (another test of this module loads a different .cu)
    vals = np.random.default_rng(23).integers(0, 64, 32, dtype=np.int32)
    d_in, d_out = g.to_device(vals), g.to_device(np.zeros(64, np.int32))
    g.run("vote_after_branch", (1,), (32,), [(d_in, None), (d_out, None)])
    out = g.from_device(d_out, np.zeros(64, np.int32))
    assert (out[:32].view(np.uint32) == sum(1 << i for i in range(32) if vals[i] > 25)).all()


def test_invoke_one(g):
    g.load("cg.cu")
    d_counter, d_out = g.to_device(np.zeros(2, np.int32)), g.to_device(np.zeros(64, np.int32))
    g.run("invoke", (1,), (64,), [(d_counter, None), (d_out, None)])
    assert g.from_device(d_counter, np.zeros(2, np.int32)).tolist() == [5 * 8, 8]
    out = g.from_device(d_out, np.zeros(64, np.int32)).reshape(8, 8)
    assert (out == out[:, :1]).all()  # every thread of a tile gets its tile's result
    assert sorted(out[:, 0].tolist()) == [10 * i + 7 for i in range(8)]
