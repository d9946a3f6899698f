"""End to end: nvcc-generated PTX from the corpus -> lowering -> CPU engine, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cumetal.passes.lower")
from ptxrun import load  # noqa: E402

RNG = np.random.default_rng(42)


def test_vector_add_grid_stride() -> None:
    d = load("nvcc/sm80/vector_add.ptx")
    k = d.kernel("vector_addPKf")
    n = 5000
    a, b = RNG.normal(size=n).astype(np.float32), RNG.normal(size=n).astype(np.float32)
    pa, pb, pc = d.array(a), d.array(b), d.array(np.zeros(n, np.float32))
    out = d.launch(k, 7, 256, pa, pb, pc, n)  # fewer threads than elements: the loop strides
    assert out.fault is None
    assert d.read(pc, a).tobytes() == (a + b).tobytes()


def test_reduce_shared_with_barriers_and_volatile_warp_tail() -> None:
    d = load("nvcc/sm80/reduce_shared.ptx")
    k = d.kernel("reduceILj256")
    n = 100_000
    x = RNG.random(n).astype(np.float32)
    grid = 32
    px, po = d.array(x), d.array(np.zeros(grid, np.float32))
    assert d.launch(k, grid, 256, px, po, n).fault is None
    got = d.read(po, np.zeros(grid, np.float32))
    np.testing.assert_allclose(got.astype(np.float64).sum(), x.astype(np.float64).sum(), rtol=1e-5)


def test_tiled_matmul_16x16_shared_tiles() -> None:
    d = load("nvcc/sm80/tiled_matmul.ptx")
    k = d.kernel("matmul_tiled")
    m, n, kk = 40, 33, 50
    a = RNG.normal(size=(m, kk)).astype(np.float32)
    b = RNG.normal(size=(kk, n)).astype(np.float32)
    c = RNG.normal(size=(m, n)).astype(np.float32)
    pa, pb, pc = d.array(a), d.array(b), d.array(c)
    out = d.launch(k, ((n + 15) // 16, (m + 15) // 16, 1), (16, 16, 1), pa, pb, pc, m, n, kk, 1.5, 0.5)
    assert out.fault is None
    want = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) + 0.5 * c
    np.testing.assert_allclose(d.read(pc, c), want, rtol=1e-4, atol=1e-4)


def test_warp_shuffles() -> None:
    d = load("nvcc/sm80/warp_shuffle.ptx")
    x = RNG.normal(size=128).astype(np.float32)
    px, po = d.array(x), d.array(np.zeros(4, np.float32))
    assert d.launch(d.kernel("warp_sum"), 2, 64, px, po).fault is None
    np.testing.assert_allclose(d.read(po, np.zeros(4, np.float32)), x.reshape(4, 32).sum(axis=1), rtol=1e-5)
    v = RNG.integers(-1000, 1000, size=64).astype(np.int32)
    pv = d.array(v)
    assert d.launch(d.kernel("warp_allreduce_max"), 1, 64, pv).fault is None
    assert d.read(pv, v).tolist() == np.repeat(v.reshape(2, 32).max(axis=1), 32).tolist()
    s = RNG.normal(size=64)
    ps = d.array(s)
    assert d.launch(d.kernel("warp_inclusive_scan"), 1, 64, ps).fault is None
    np.testing.assert_allclose(d.read(ps, s), np.cumsum(s.reshape(2, 32), axis=1).ravel(), rtol=1e-12)
    w = np.arange(32, dtype=np.int32) * 10
    pw = d.array(w)
    assert d.launch(d.kernel("broadcast_width"), 1, 32, pw, 3, 8).fault is None
    lane = np.arange(32)
    seg = lane // 8 * 8
    down = np.where(lane % 8 + 1 < 8, w[np.minimum(lane + 1, 31)], w)
    assert d.read(pw, w).tolist() == (w[seg + 3] + down).tolist()


def test_printf_kernel() -> None:
    d = load("nvcc/sm80/printf_kernel.ptx")
    x = np.array([1.0, -2.5, 3.0, -0.25], dtype=np.float32)
    px = d.array(x)
    out = d.launch(d.kernel("say_hello"), 2, 2, px, (1 << 64) - (1 << 40), 2.71828)  # long long -2**40
    assert out.fault is None
    assert out.printf[0] == "hello from block 0 thread 0\n"
    neg = [s for s in out.printf if s.startswith("negative")]
    assert neg[0] == (f"negative x[1] = -2.500000 (-2.500000e+00), big={-(1 << 40)} d=2.718 str q 0x{px:x}\n")
    assert len(neg) == 2
    tail = [s for s in out.printf if not s.startswith(("hello", "negative"))]
    assert tail == [f"{i} {i:x} {i:o} %\n" for i in range(4)]


def test_function_pointer_table_and_indirect_calls() -> None:
    d = load("nvcc/sm80/function_pointers.ptx")
    n = 100
    x = (RNG.random(n) + 0.5).astype(np.float32)
    which = RNG.integers(0, 8, size=n).astype(np.int32)
    px, po, pw = d.array(x), d.array(np.zeros(n, np.float32)), d.array(which)
    assert d.launch(d.kernel("apply_ops"), 1, 128, px, po, pw, n).fault is None
    ops = [lambda v: v * v, lambda v: np.float32(0.5) * v, lambda v: -v, lambda v: np.float32(1) / v]
    want = np.array([ops[w & 3](v) for v, w in zip(x, which, strict=True)], dtype=np.float32)
    assert d.read(po, x).tobytes() == want.tobytes()


def test_histogram_atomics() -> None:
    d = load("nvcc/sm80/histogram.ptx")
    data = RNG.integers(0, 256, size=20000).astype(np.uint8)
    pd, ph = d.array(data), d.array(np.zeros(256, np.uint32))
    assert d.launch(d.kernel("histogram256"), 8, 256, pd, ph, len(data)).fault is None
    assert d.read(ph, np.zeros(256, np.uint32)).tolist() == np.bincount(data, minlength=256).tolist()


def test_dynamic_shared_reverse() -> None:
    d = load("nvcc/sm80/shared_dynamic.ptx")
    n = 200
    v = np.arange(n, dtype=np.int32)
    pv = d.array(v)
    assert d.launch(d.kernel("reverse_dynamic"), 1, n, pv, n, shared=4 * n).fault is None
    assert d.read(pv, v).tolist() == v[::-1].tolist()


def test_bitonic_sort_with_dynamic_shared_and_barriers_in_loops() -> None:
    d = load("nvcc/sm80/bitonic_sort.ptx")
    n, blocks = 256, 3
    keys = RNG.integers(0, 1 << 32, size=n * blocks, dtype=np.uint64).astype(np.uint32)
    vals = np.arange(n * blocks, dtype=np.int32)
    pk, pv = d.array(keys), d.array(vals)
    assert d.launch(d.kernel("bitonic_sort_block"), blocks, n, pk, pv, shared=8 * n).fault is None
    got_k = d.read(pk, keys).reshape(blocks, n)
    got_v = d.read(pv, vals).reshape(blocks, n)
    assert (got_k == np.sort(keys.reshape(blocks, n), axis=1)).all()
    assert (keys[got_v] == got_k).all()  # values travelled with their keys


def test_blelloch_and_shuffle_scans() -> None:
    d = load("nvcc/sm80/scan.ptx")
    n = 512
    x = RNG.integers(-50, 50, size=n).astype(np.int32)
    px, po = d.array(x), d.array(np.zeros(n, np.int32))
    assert d.launch(d.kernel("blelloch_scan"), 1, n // 2, px, po, n, shared=4 * n).fault is None
    assert d.read(po, x).tolist() == (np.cumsum(x) - x).tolist()  # exclusive scan
    f = RNG.integers(-8, 8, size=512).astype(np.float32)  # small integers: sums are exact
    pf, pg = d.array(f), d.array(np.zeros(512, np.float32))
    assert d.launch(d.kernel("block_scan_shfl"), 2, 256, pf, pg).fault is None
    assert d.read(pg, f).tolist() == np.cumsum(f.reshape(2, 256), axis=1).ravel().tolist()


def test_constant_memory_polynomial_and_stream_compaction() -> None:
    d = load("nvcc/sm80/constant_memory.ptx")
    n = 300
    x = RNG.uniform(-1, 1, size=n).astype(np.float32)
    px, py = d.array(x), d.array(np.zeros(n, np.float32))
    assert d.launch(d.kernel("polynomial"), 2, 256, px, py, n).fault is None
    coeffs = np.array([1, 0.5, 0.25, 0.125, 1e-2, 1e-3, 1e-4, 1e-5], dtype=np.float32)
    acc = np.zeros(n, np.float32)
    for c in coeffs[::-1]:
        acc = acc * x + c  # nvcc contracts to fma: compare with a tolerance
    np.testing.assert_allclose(d.read(py, x), 2 * acc - 1, rtol=1e-5, atol=1e-6)
    v = load("nvcc/sm80/warp_vote.ptx")
    data = np.where(RNG.random(200) < 0.4, 0, RNG.normal(size=200)).astype(np.float32)
    pin, pout, pc = v.array(data), v.array(np.zeros(200, np.float32)), v.array(np.zeros(1, np.int32))
    assert v.launch(v.kernel("stream_compact"), 2, 128, pin, pout, pc, 200).fault is None
    count = int(v.read(pc, np.zeros(1, np.int32))[0])
    kept = data[data != 0]
    assert count == len(kept)
    assert sorted(v.read(pout, np.zeros(200, np.float32))[:count].tolist()) == sorted(kept.tolist())
