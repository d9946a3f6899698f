"""numba-cuda kernels of our own, run on CuMetal (``python numba_kernels.py`` prints one JSON line
per case). Run in a subprocess by test_numba.py: ``cumetal.numba_support`` redirects cuda-python's
module names for the whole process."""

# ruff: noqa: I001 - cumetal.numba_support must be imported before numba.cuda
from __future__ import annotations

import json
import math
import sys
import traceback

import cumetal.numba_support  # noqa: F401 - must come before numba.cuda
import numpy as np
from numba import cuda, float32, int32
from numba.cuda.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_normal_float32,
    xoroshiro128p_uniform_float32,
)

CASES = {}
rng = np.random.default_rng(7)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@cuda.jit
def _saxpy_sin(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + math.sin(y[i])


@case
def elementwise_libdevice():
    n = 3000
    x, y = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32) * 6
    out = np.zeros(n, np.float32)
    _saxpy_sin[(n + 255) // 256, 256](np.float32(2), x, y, out)
    want = np.float32(2) * x + np.sin(y.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=1e-6)


@cuda.jit
def _add2d(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        c[i, j] = a[i, j] + 2 * b[i, j]


@case
def grid_2d_and_device_arrays():
    a = rng.integers(0, 100, (37, 53)).astype(np.int64)
    b = rng.integers(0, 100, (37, 53)).astype(np.int64)
    da, db = cuda.to_device(a), cuda.to_device(b)
    dc = cuda.device_array_like(a)
    _add2d[(5, 7), (8, 8)](da, db, dc)
    np.testing.assert_array_equal(dc.copy_to_host(), a + 2 * b)


@cuda.jit
def _block_sum(x, out):
    tile = cuda.shared.array(128, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = tile[0]


@case
def shared_memory_reduction():
    x = rng.integers(0, 16, 1000).astype(np.float32)  # small integers: every partial sum is exact
    blocks = (x.size + 127) // 128
    out = np.zeros(blocks, np.float32)
    _block_sum[blocks, 128](x, out)
    want = np.add.reduceat(np.pad(x, (0, blocks * 128 - x.size)), np.arange(0, blocks * 128, 128))
    np.testing.assert_array_equal(out, want)


@cuda.jit
def _histogram(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i] % bins.size, 1)


@cuda.jit
def _minmax(values, result):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.max(result, 0, values[i])
        cuda.atomic.min(result, 1, values[i])
        cuda.atomic.cas(result, 2, 0, values[i])  # the first thread to get there wins


@case
def atomics():
    values = rng.integers(0, 1000, 5000).astype(np.int32)
    bins = np.zeros(17, np.int32)
    _histogram[(values.size + 255) // 256, 256](values, bins)
    np.testing.assert_array_equal(bins, np.bincount(values % 17, minlength=17))
    result = np.array([-1, 10**6, 0], np.int32)
    _minmax[(values.size + 255) // 256, 256](values, result)
    assert result[0] == values.max() and result[1] == values.min() and result[2] in set(values.tolist())


@cuda.jit(device=True)
def _poly(x):
    return 3 * x * x - 2 * x + 1


@cuda.jit(device=True)
def _clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit
def _apply(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = _clamp(_poly(x[i]), -50, 5000)


@case
def device_functions():
    x = np.arange(-100, 100, dtype=np.int64)
    out = np.zeros_like(x)
    _apply[1, 256](x, out)
    np.testing.assert_array_equal(out, np.clip(3 * x * x - 2 * x + 1, -50, 5000))


@cuda.jit
def _reverse_chunks(x, out):
    scratch = cuda.local.array(8, dtype=int32)
    i = cuda.grid(1)
    base = i * 8
    if base + 8 <= x.size:
        for k in range(8):
            scratch[k] = x[base + k]
        for k in range(8):
            out[base + k] = scratch[7 - k]


@case
def local_arrays():
    x = np.arange(8 * 64, dtype=np.int32)
    out = np.zeros_like(x)
    _reverse_chunks[2, 32](x, out)
    np.testing.assert_array_equal(out, x.reshape(-1, 8)[:, ::-1].ravel())


@cuda.jit
def _dyn_shared_rotate(x, out):
    buf = cuda.shared.array(0, dtype=float32)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    buf[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = buf[(t + 1) % n]


@case
def dynamic_shared_memory():
    x = np.arange(4 * 64, dtype=np.float32)
    out = np.zeros_like(x)
    _dyn_shared_rotate[4, 64, 0, 64 * 4](x, out)
    np.testing.assert_array_equal(out, np.roll(x.reshape(4, 64), -1, axis=1).ravel())


@cuda.jit
def _warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@case
def warp_shuffles():
    x = rng.integers(0, 100, 256).astype(np.int32)
    out = np.zeros(8, np.int32)
    _warp_sum[2, 128](x, out)
    np.testing.assert_array_equal(out, x.reshape(8, 32).sum(axis=1))


@cuda.jit
def _votes(a, wide, out):
    i = cuda.grid(1)
    lane = cuda.laneid
    flags = cuda.all_sync(0xFFFFFFFF, a[i] > 0) * 1 + cuda.any_sync(0xFFFFFFFF, a[i] > 30) * 2
    flags += cuda.eq_sync(0xFFFFFFFF, a[i] > 30) * 4
    _mask, same = cuda.match_all_sync(0xFFFFFFFF, a[i] // 1000)
    flags += same * 8
    out[i, 0] = flags
    out[i, 1] = cuda.ballot_sync(0xFFFFFFFF, a[i] > 10)
    out[i, 2] = cuda.match_any_sync(0xFFFFFFFF, a[i] % 3)
    out[i, 3] = cuda.match_any_sync(0xFFFFFFFF, wide[i] % 2)
    out[i, 4] = lane


@case
def warp_votes_and_matches():
    # libNVVM's vote.sync / match.all.sync intrinsics (CuMetal rewrites them to LLVM's forms)
    a = np.arange(1, 65, dtype=np.int32)
    wide = np.arange(64, dtype=np.int64) << 33
    out = np.zeros((64, 5), np.int64)
    _votes[1, 64](a, wide, out)
    for w in range(2):
        vals = a[32 * w:32 * w + 32]
        ballot = sum(1 << j for j in range(32) if vals[j] > 10)
        anyhi = vals.max() > 30
        flags = 1 + 2 * anyhi + 4 * (bool((vals > 30).all()) or not bool((vals > 30).any())) + 8
        for j in range(32):
            row = out[32 * w + j]
            assert row[0] == flags, (w, j, row)
            assert row[1] & 0xFFFFFFFF == ballot
            assert row[2] & 0xFFFFFFFF == sum(1 << k for k in range(32) if vals[k] % 3 == vals[j] % 3)
            assert row[3] & 0xFFFFFFFF == 0xFFFFFFFF  # every wide value is even


@cuda.jit
def _branch_masks(x):
    i = cuda.grid(1)
    if i % 2 == 0:
        x[i] = cuda.activemask()
    else:
        x[i] = cuda.activemask()  # the same call in both arms: must not be merged above the branch


@case
def activemask_in_divergent_branches():
    out = np.zeros(32, np.uint32)
    _branch_masks[1, 32](out)
    np.testing.assert_array_equal(out, np.tile(np.array([0x55555555, 0xAAAAAAAA], np.uint32), 16))


@cuda.jit
def _draw(states, out_u, out_n):
    i = cuda.grid(1)
    if i < out_u.shape[0]:
        for k in range(out_u.shape[1]):
            out_u[i, k] = xoroshiro128p_uniform_float32(states, i)
            out_n[i, k] = xoroshiro128p_normal_float32(states, i)


@case
def random_numbers():
    from numba import njit

    threads, per = 64, 16
    states = create_xoroshiro128p_states(threads, seed=2024)
    initial = states.copy_to_host()
    u = np.zeros((threads, per), np.float32)
    g = np.zeros((threads, per), np.float32)
    _draw[1, threads](states, u, g)

    @njit
    def host_draw(st, out_u, out_n):  # numba's own generator, run on the CPU: the independent truth
        for i in range(out_u.shape[0]):
            for k in range(out_u.shape[1]):
                out_u[i, k] = xoroshiro128p_uniform_float32(st, i)
                out_n[i, k] = xoroshiro128p_normal_float32(st, i)

    hu, hg = np.zeros_like(u), np.zeros_like(g)
    host_draw(initial, hu, hg)
    np.testing.assert_array_equal(u, hu)
    np.testing.assert_allclose(g, hg, rtol=1e-5, atol=1e-6)  # log/cos/sqrt: libdevice vs the CPU's libm
    np.testing.assert_array_equal(states.copy_to_host(), initial)  # both generators advanced alike
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(float(u.mean()) - 0.5) < 0.05


@cuda.jit
def _exp_log(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.exp(x[i]) - math.log1p(x[i] * x[i])


@case
def float64_math_and_streams():
    x = np.linspace(-5, 5, 1000)
    stream = cuda.stream()
    dx = cuda.to_device(x, stream=stream)
    dout = cuda.device_array_like(dx, stream=stream)
    start, end = cuda.event(timing=True), cuda.event(timing=True)
    start.record(stream)
    _exp_log[4, 256, stream](dx, dout)
    end.record(stream)
    out = dout.copy_to_host(stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(out, np.exp(x) - np.log1p(x * x), rtol=1e-14, atol=1e-14)
    assert cuda.event_elapsed_time(start, end) >= 0.0


@cuda.jit
def _const_and_float_atomics(x, out, total):
    tab = cuda.const.array_like(x)
    i = cuda.grid(1)
    out[i] = tab[i] * 2
    cuda.atomic.add(total, 0, 0.5)


@case
def const_arrays_and_float_atomics():
    x = np.arange(64, dtype=np.float32)
    out, total = np.zeros_like(x), np.zeros(1, np.float32)
    _const_and_float_atomics[2, 32](x, out, total)
    np.testing.assert_array_equal(out, x * 2)
    assert total[0] == 32.0  # 64 exact additions of 0.5


@cuda.jit
def _grid_sync(x, out, rounds):
    """Each round every thread reads what a thread of the *next block* wrote in the round before:
    wrong unless grid.sync() really orders all blocks (two syncs per round: read, then write)."""
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = x.size
    for _ in range(rounds):
        v = x[(i + cuda.blockDim.x) % n]
        g.sync()
        x[i] = v + 1
        g.sync()
    out[i] = x[i]


@case
def grid_sync_across_blocks():
    blocks, threads, rounds = 4, 32, 3
    n = blocks * threads
    x0 = np.arange(n, dtype=np.int32) * 10
    x, out = cuda.to_device(x0), cuda.device_array(n, np.int32)
    _grid_sync[blocks, threads](x, out, rounds)
    expect = x0.copy()
    for _ in range(rounds):
        expect = np.roll(expect, -threads) + 1
    np.testing.assert_array_equal(out.copy_to_host(), expect)
    # numba asks the driver how many blocks a cooperative launch may have; more is refused at launch
    limit = _grid_sync.overloads[_grid_sync.signatures[0]].max_cooperative_grid_blocks(threads)
    assert limit >= blocks
    big = (limit + 1) * threads
    try:
        _grid_sync[limit + 1, threads](cuda.device_array(big, np.int32), cuda.device_array(big, np.int32), 1)
    except Exception as e:  # numba-cuda launches through cuda.core: its CUDAError names the CUresult
        assert "COOPERATIVE_LAUNCH_TOO_LARGE" in str(e), str(e)
    else:
        raise AssertionError("a cooperative grid larger than the device holds must be refused")


@cuda.jit(lto=True)
def _lto_axpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


@case
def lto_link():
    """lto=True: numba hands LTO IR to the linker, which compiles it at link time."""
    x, y = rng.random(100), rng.random(100)
    expect = 2.5 * x + y
    _lto_axpy[4, 32](2.5, x, y)
    np.testing.assert_allclose(y, expect, rtol=1e-15)


@case
def half_and_bfloat16_tanh():
    """math.tanh on float16 (numba links cuda_fp16.h's htanh) and cuda_bf16.h's htanh/htanh_approx."""
    from numba.cuda._internal.cuda_bf16 import htanh, htanh_approx, nv_bfloat16

    @cuda.jit
    def tanhs(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = float32(math.tanh(x[i]))
            b = nv_bfloat16(float32(x[i]))
            out[i, 1] = float32(htanh(b))
            out[i, 2] = float32(htanh_approx(b))

    x = np.linspace(-4, 4, 200).astype(np.float16)
    out = np.zeros((x.size, 3), np.float32)
    tanhs[1, 256](x, out)
    want = np.tanh(x.astype(np.float64))
    np.testing.assert_allclose(out[:, 0], want, rtol=2e-3, atol=1e-3)  # a half's precision
    np.testing.assert_allclose(out[:, 1], want, rtol=1.6e-2, atol=4e-3)  # a bfloat16's
    np.testing.assert_array_equal(out[:, 2], out[:, 1])  # htanh_approx is htanh below sm_90


_triple = cuda.declare_device("triple", int32(int32))
_CU_FILE = __file__.rsplit("/", 1)[0] + "/data/triple.cu"


@case
def linked_cuda_cxx_device_function():
    @cuda.jit(link=[_CU_FILE])
    def use_triple(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = _triple(x[i])

    a = np.arange(100, dtype=np.int32)
    use_triple[1, 128](a)
    np.testing.assert_array_equal(a, np.arange(100) * 3)


def main() -> int:
    names = sys.argv[1:] or list(CASES)
    for name in names:
        try:
            CASES[name]()
            print(json.dumps({"case": name, "ok": True}), flush=True)
        except Exception:
            print(json.dumps({"case": name, "ok": False, "error": traceback.format_exc(limit=6)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
