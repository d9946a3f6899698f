"""Functional tests (spec §10.3): shared memory, synchronisation, warp primitives (incl. partial
masks), atomics under contention — numpy / sequential Python are the reference."""

from __future__ import annotations

import numpy as np
from functional_harness import I32

RNG = np.random.default_rng(99)


def test_tiled_matmul(gpu):
    n = 64
    a, b = RNG.standard_normal((n, n)).astype(np.float32), RNG.standard_normal((n, n)).astype(np.float32)
    d_a, d_b, d_c = gpu.to_device(a), gpu.to_device(b), gpu.zeros(n * n, np.float32)
    gpu.run(gpu.kernel("shared", "matmul_tiled"), (n // 16, n // 16), (16, 16),
            [(d_a, None), (d_b, None), (d_c, None), (n, I32)])
    got = gpu.from_device(d_c, (n, n), np.float32)
    assert np.allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_block_sum_dynamic_shared(gpu):
    n, block = 10_000, 128
    x = RNG.standard_normal(n).astype(np.float32)
    blocks = (n + block - 1) // block
    d_x, d_out = gpu.to_device(x), gpu.zeros(blocks, np.float32)
    gpu.run(gpu.kernel("shared", "block_sum_dynamic"), (blocks,), (block,), [(d_x, None), (d_out, None), (n, I32)],
            shared=block * 4)
    padded = np.zeros(blocks * block, np.float32)
    padded[:n] = x
    # the same tree order as the kernel, in float32
    buf = padded.reshape(blocks, block).copy()
    s = block // 2
    while s:
        buf[:, :s] += buf[:, s:2 * s]
        s //= 2
    assert np.array_equal(gpu.from_device(d_out, blocks, np.float32), buf[:, 0])


def test_reverse_block_needs_the_barrier(gpu):
    data = np.arange(4 * 1024, dtype=np.int32)
    d = gpu.to_device(data)
    gpu.run(gpu.kernel("shared", "reverse_block"), (4,), (1024,), [(d, None)])
    assert np.array_equal(gpu.from_device(d, 4 * 1024, np.int32), data.reshape(4, 1024)[:, ::-1].ravel())


def test_syncthreads_count_and_or(gpu):
    v = RNG.integers(-50, 150, 3 * 256).astype(np.int32)
    v[256:512] = np.abs(v[256:512]) + 1  # block 1: all positive
    d_in, d_out = gpu.to_device(v), gpu.zeros(9, np.int32)
    gpu.run(gpu.kernel("shared", "count_if_syncthreads"), (3,), (256,), [(d_in, None), (d_out, None)])
    got = gpu.from_device(d_out, (3, 3), np.int32)
    blocks = v.reshape(3, 256)
    assert got[:, 0].tolist() == (blocks > 0).sum(1).tolist()
    assert [bool(x) for x in got[:, 1]] == (blocks > 0).all(1).tolist()
    assert [bool(x) for x in got[:, 2]] == (blocks > 100).any(1).tolist()


def test_warp_shuffle_reduce(gpu):
    x = RNG.integers(-100, 100, 256).astype(np.float32)  # integers: exact in any order
    d_x, d_out = gpu.to_device(x), gpu.zeros(8, np.float32)
    gpu.run(gpu.kernel("warp", "warp_reduce"), (2,), (128,), [(d_x, None), (d_out, None)])
    assert np.array_equal(gpu.from_device(d_out, 8, np.float32), x.reshape(8, 32).sum(1))


def test_warp_votes(gpu):
    v = RNG.integers(-20, 100, 96).astype(np.int32)
    v[32:64] = np.abs(v[32:64])
    d_v, d_out = gpu.to_device(v), gpu.zeros(4 * 96, np.uint32)
    gpu.run(gpu.kernel("warp", "warp_votes"), (1,), (96,), [(d_v, None), (d_out, None)])
    got = gpu.from_device(d_out, (96, 4), np.uint32)
    for w in range(3):
        lanes = v[32 * w:32 * w + 32]
        ballot = sum(1 << i for i in range(32) if lanes[i] > 0)
        for lane in range(32):
            assert got[32 * w + lane].tolist() == [ballot, int((lanes > 50).any()), int((lanes >= 0).all()),
                                                   0xFFFFFFFF]


def test_warp_partial_masks(gpu):
    """Only even lanes take part: CUDA defines ballot/shfl/reduce over exactly those lanes."""
    v = RNG.integers(-5, 10, 64).astype(np.int32)
    d_v, d_out = gpu.to_device(v), gpu.zeros(3 * 64, np.uint32)
    gpu.run(gpu.kernel("warp", "warp_partial"), (1,), (64,), [(d_v, None), (d_out, None)])
    got = gpu.from_device(d_out, (64, 3), np.uint32)
    for w in range(2):
        lanes = v[32 * w:32 * w + 32]
        ballot = sum(1 << i for i in range(0, 32, 2) if lanes[i] > 0)
        total = int(sum(int(lanes[i]) for i in range(0, 32, 2))) & 0xFFFFFFFF
        for lane in range(32):
            row = got[32 * w + lane].tolist()
            if lane & 1:
                assert row == [0xDEADBEEF] * 3
            else:
                assert row == [ballot, int(lanes[(lane + 2) & 31]) & 0xFFFFFFFF, total]


def test_warp_shuffle_modes(gpu):
    v = RNG.integers(0, 1000, 64).astype(np.int32)
    d_v, d_out = gpu.to_device(v), gpu.zeros(5 * 64, np.int32)
    gpu.run(gpu.kernel("warp", "warp_shuffles"), (1,), (64,), [(d_v, None), (d_out, None)])
    got = gpu.from_device(d_out, (64, 5), np.int32)
    for w in range(2):
        lanes = v[32 * w:32 * w + 32]
        for lane in range(32):
            seg = lane & ~7
            down = lanes[lane + 3] if (lane & 7) + 3 < 8 else lanes[lane]
            match = sum(1 << j for j in range(32) if (lanes[j] & 3) == (lanes[lane] & 3))
            expect = [lanes[3], lanes[lane - 2] if lane >= 2 else lanes[lane], lanes[lane ^ 5], down, match]
            assert got[32 * w + lane].tolist() == [int(e) if i < 4 else ((int(e) + 2**31) % 2**32) - 2**31
                                                   for i, e in enumerate(expect)], (w, lane, seg)


def test_histogram_shared_and_global_atomics(gpu):
    n, nbins = 20_000, 37
    x = RNG.integers(0, 1_000_000, n).astype(np.int32)
    d_x, d_bins = gpu.to_device(x), gpu.zeros(nbins, np.uint32)
    gpu.run(gpu.kernel("atomics", "histogram"), ((n + 255) // 256,), (256,),
            [(d_x, None), (d_bins, None), (n, I32), (nbins, I32)])
    assert np.array_equal(gpu.from_device(d_bins, nbins, np.uint32), np.bincount(x % nbins, minlength=nbins))


def test_atomic_mix_under_contention(gpu):
    n = 3000
    v = RNG.integers(-10_000, 10_000, n).astype(np.int32)
    acc = np.array([np.iinfo(np.int32).min, np.iinfo(np.int32).max, -1, 0, 0, 0], np.int32)
    d_v, d_acc = gpu.to_device(v), gpu.to_device(acc)
    d_acc64, d_f, d_t = gpu.zeros(1, np.uint64), gpu.zeros(1, np.float32), gpu.zeros(n, np.uint32)
    gpu.run(gpu.kernel("atomics", "atomic_mix"), ((n + 127) // 128,), (128,),
            [(d_v, None), (d_acc, None), (d_acc64, None), (d_f, None), (d_t, None), (n, I32)])
    got = gpu.from_device(d_acc, 6, np.int32)
    and_all = -1
    or_all = xor_all = 0
    for x in v.tolist():
        and_all &= x | -65536
        or_all |= 1 << (x & 31)
        xor_all ^= x
    assert got[0] == v.max() and got[1] == v.min()
    assert got[2] == and_all and got[3] == np.int32(np.uint32(or_all & 0xFFFFFFFF)) and got[4] == xor_all
    assert got[5] == n % 100  # atomicInc wraps at 100
    tickets = gpu.from_device(d_t, n, np.uint32)
    assert sorted(tickets.tolist()) == sorted(i % 100 for i in range(n))  # each old value exactly once
    assert gpu.from_device(d_acc64, 1, np.uint64)[0] == sum((x & 0xFF) << 33 for x in v.tolist()) % 2**64
    assert gpu.from_device(d_f, 1, np.float32)[0] == 0.5 * n


def test_atomic_cas_loop_gives_a_permutation(gpu):
    n = 512
    d_c, d_order = gpu.zeros(1, np.int32), gpu.zeros(n, np.int32)
    gpu.run(gpu.kernel("atomics", "cas_counter"), ((n + 255) // 256,), (256,), [(d_c, None), (d_order, None), (n, I32)])
    assert gpu.from_device(d_c, 1, np.int32)[0] == n
    assert sorted(gpu.from_device(d_order, n, np.int32).tolist()) == list(range(n))
