"""cuRAND's host models and inner loops in C (cumetal.libs.curand.fast, libs/csrc/curand_host/) give
the same bits as their numpy twins (the fallback without a C compiler): 2^20 random inputs per
model plus the edge cases (0, subnormals, +-inf, NaN, the branch points), the MRG32k3a loops and the
MT19937 jump. The numpy twins are the models the goldens check (test_curand_host.py & co.)."""

from __future__ import annotations

import numpy as np
import pytest

from cumetal.ir.semantics import expf, logf, mufu
from cumetal.libs.curand import (
    fast,
    h100_erfcinv,
    h100_erfcinvf,
    h100_f64,
    mrg32k3a,
    mt19937,
    mtgp32,
    streams,
)

pytestmark = pytest.mark.skipif(not fast.available(), reason="no C compiler for libcumetal_curand_host")
N = 1 << 20


def numpy_twin(fn, *args):
    fast.disable()
    try:
        return fn(*args)
    finally:
        fast.enable()


def same_bits(a: np.ndarray, b: np.ndarray) -> None:
    """Equal bit for bit, NaN matching any NaN (numpy's and C's NaN payloads may differ)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape
    diff = (a.view(np.uint64) != b.view(np.uint64)) & ~(np.isnan(a) & np.isnan(b))
    assert not diff.any(), f"{int(diff.sum())} differ, first at input {int(np.flatnonzero(diff)[0])}: {a[diff][:3]} vs {b[diff][:3]}"


def edge_cases() -> np.ndarray:
    tiny = np.float64(5e-324)
    return np.array([0.0, -0.0, tiny, -tiny, 2.0 ** -1022, np.nextafter(2.0 ** -1022, 0), 1e-300, np.inf, -np.inf,
                     np.nan, 0.5, 1.0, -1.0, 2.0, 0.25, -0.25, 0.75, 1.5, 708.0, -708.0, np.nextafter(708.0, 800),
                     709.7, -745.0, -750.0, 1e10, 2.0 ** 51 + 0.5, h100_f64.SQRT_HALF,
                     np.nextafter(h100_f64.SQRT_HALF, 0), 1.0 - 2.0 ** -53, 1.0 + 2.0 ** -52])


def inputs(lo: float, hi: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = lo + (hi - lo) * rng.random(N)
    # a slice of random bit patterns too (every exponent, subnormals, specials)
    x[: N // 8] = rng.integers(0, 2 ** 64, N // 8, dtype=np.uint64).view(np.float64)
    return np.concatenate([edge_cases(), x])


def test_fma_f64():
    rng = np.random.default_rng(1)
    a, b, c = (inputs(-4.0, 4.0, s) for s in (2, 3, 4))
    c[: N // 4] = -a[: N // 4] * b[: N // 4]  # cancellation: the product's rounding error is the result
    rng.shuffle(c)
    same_bits(fast.fma_f64(a, b, c), numpy_twin(h100_f64.fma_numpy, a, b, c))


def test_sincospi():
    v = inputs(-2.0, 2.0, 5)
    v = v[np.isfinite(v) & (np.abs(v) < 2.0 ** 52)]  # the model's domain
    v = np.concatenate([v, np.arange(-16, 17) * 0.25, np.arange(-8, 9) * 0.5 + 2.0 ** -40])
    cs, cc = fast.sincospi(v)
    ns, nc = numpy_twin(h100_f64.sincospi_numpy, v)
    same_bits(cs, ns)
    same_bits(cc, nc)


def test_exp():
    x = inputs(-720.0, 720.0, 6)
    same_bits(fast.exp(x), numpy_twin(h100_f64.exp_numpy, x))


def test_log():
    u = inputs(0.0, 1.0, 7)
    same_bits(fast.log(u), numpy_twin(h100_f64.log_numpy, u))


def test_erfcinv():
    c = inputs(0.0, 2.0, 8)
    rng = np.random.default_rng(9)
    # cuRAND's inputs 2u, u = (j + 1/2) 2^-32, incl. the branch points (w = 6.25, c = 1, 2 - c exact)
    grid = (rng.integers(0, 2 ** 32, N // 4).astype(np.float64) + 0.5) * 2.0 ** -31
    split = np.exp(-6.25)  # c (2 - c) = e^-6.25: c near 9.7e-4
    near = np.concatenate([np.nextafter(split / 2, 0) + np.arange(-64, 64) * 2.0 ** -62, [1.0, 2.0, 0.0, 2.0 - 2.0 ** -52]])
    c = np.concatenate([c, grid, near, 2.0 - near])
    cy, ccen = fast.erfcinv(c)
    ny, ncen = numpy_twin(h100_erfcinv.erfcinv_numpy, c)
    assert np.array_equal(ccen, ncen)
    same_bits(cy, ny)


def f32_inputs(seed: int) -> np.ndarray:
    """2^20 f32 bit patterns: half random patterns (every exponent, subnormals, NaNs), half in [-20, 20]
    and [0, 2], plus the edge cases (0, subnormals, +-inf, NaN, 1, 2, erfcinvf's split 0.0034 and its
    neighbours, expf's arguments whose ex2 argument falls below -126)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2 ** 32, N, dtype=np.uint64).astype(np.uint32)
    x[N // 2: 3 * N // 4] = (rng.random(N // 4, np.float32) * 40 - 20).view(np.uint32)
    x[3 * N // 4:] = (rng.random(N // 4, np.float32) * 2).view(np.uint32)
    split = h100_erfcinvf.SPLIT
    edges = np.array([0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F800000, 0xFF800000, 0x7FC00000,
                      0xFFC00000, 0x7F800001, 0x3F800000, 0xBF800000, 0x40000000, 0x3F000000, 0x7F7FFFFF,
                      split - 1, split, split + 1, *(np.array([2 - 0.0034, -87.5, -100.0, -103.9, 88.7, 89.0],
                                                               np.float32).view(np.uint32))], np.uint32)
    return np.concatenate([edges, x])


def same_f32_bits(a: np.ndarray, b: np.ndarray) -> None:
    a, b = np.asarray(a, np.uint32), np.asarray(b, np.uint32)
    nan = np.isnan(a.view(np.float32)) & np.isnan(b.view(np.float32))
    diff = (a != b) & ~nan
    assert not diff.any(), f"{int(diff.sum())} differ: {a[diff][:3]} vs {b[diff][:3]}"


def test_mufu_sincos():
    x = f32_inputs(11)
    s, c = fast.sincos_bits(x)
    same_f32_bits(s, mufu.sincos_bits("sin", x))
    same_f32_bits(c, mufu.sincos_bits("cos", x))


@pytest.mark.parametrize("name", ["logf", "expf", "lg2"])
def test_f32_unary(name):
    x = f32_inputs(12)
    twin = {"logf": logf.logf_bits, "expf": expf.expf_bits, "lg2": mufu.lg2_bits}[name]
    same_f32_bits(getattr(fast, f"{name}_bits")(x), twin(x))


def test_erfcinvf():
    x = f32_inputs(13)
    got, gcen = fast.erfcinvf_bits(x)
    ref, rcen = h100_erfcinvf.erfcinvf_bits_numpy(x)
    assert np.array_equal(gcen, rcen)
    same_f32_bits(got, ref)


def test_mrg_loops():
    j1 = mrg32k3a.mat_pow(mrg32k3a.A1, 1 << mrg32k3a.SUBSEQUENCE_LOG2, mrg32k3a.M1)
    j2 = mrg32k3a.mat_pow(mrg32k3a.A2, 1 << mrg32k3a.SUBSEQUENCE_LOG2, mrg32k3a.M2)
    s1, s2 = mrg32k3a.init(0x1234_5678_9ABC)
    chain = fast.mrg_chain(s1 + s2, j1, j2, 300)
    for s in (0, 1, 2, 299):  # against the reference init (matrix powers in Python integers)
        r1, r2 = mrg32k3a.init(0x1234_5678_9ABC, s)
        assert chain[s].tolist() == r1 + r2
    for first in (0, 1, 7, 1000):
        a1 = mrg32k3a.mat_pow(mrg32k3a.A1, first, mrg32k3a.M1) if first else None
        a2 = mrg32k3a.mat_pow(mrg32k3a.A2, first, mrg32k3a.M2) if first else None
        got = fast.mrg_positions(chain, a1, a2, 40)
        same_bits(got, streams.mrg_positions_numpy(chain, first, 40, 300))
    # one subsequence against the sequential reference (mrg32k3a.raw)
    ref, _, _ = mrg32k3a.raw(*mrg32k3a.init(0x1234_5678_9ABC, 299, 1000), 40)
    same_bits(got[:, 299], ref)


def test_mt19937_jump():
    rng = np.random.default_rng(10)
    states = np.concatenate([mt19937.init_genrand(5489)[None], rng.integers(0, 2 ** 32, (2, mt19937.N), dtype=np.uint32)])
    for level in (0, 5):
        poly = mt19937._jumps()[level]  # noqa: SLF001
        got = mt19937.jump(states, poly)
        assert np.array_equal(got, numpy_twin(mt19937.jump_numpy, states, poly))
    # a short polynomial against plain stepping: x^1000 (F^1000) is 1000 outputs along
    assert fast.on()
    got = mt19937.jump(states[:1], 1 << 1000)
    bg = np.random.MT19937()
    bg.state = {"bit_generator": "MT19937", "state": {"key": states[0], "pos": mt19937.N}}
    stream = bg.random_raw(1000 + mt19937.N).astype(np.uint32)
    bg.state = {"bit_generator": "MT19937", "state": {"key": got[0], "pos": mt19937.N}}
    assert np.array_equal(stream[1000:1010], bg.random_raw(10).astype(np.uint32))


def test_mt19937_outputs():
    states = mt19937.generator_states(4242, 64)
    got = fast.mt_outputs(states, 1500)
    bg = np.random.MT19937()
    for g in (0, 1, 63):  # numpy's own MT19937 from the same state
        bg.state = {"bit_generator": "MT19937", "state": {"key": states[g], "pos": mt19937.N}}
        assert np.array_equal(bg.random_raw(1500).astype(np.uint32), got[g])
    rng = np.random.default_rng(14)  # host outputs of generators 0..63 at random places: C == numpy loop
    idx = rng.integers(0, 200, 4000) * mt19937.CHUNK + rng.integers(0, 64 * mt19937.THREADS, 4000)
    c = mt19937.outputs_at(4242, idx)
    assert np.array_equal(c, numpy_twin(mt19937.outputs_at, 4242, idx))


def test_no_compiler_falls_back(monkeypatch):
    """Without a C compiler the library is not built and the host API takes the numpy twins (same values)."""
    from cumetal.capi.library import LibraryBuildError
    from cumetal.libs import build
    from cumetal.libs.curand import host

    def fail():
        raise LibraryBuildError("no C compiler (test)")

    h = host.create(host.MRG32K3A, True)
    want = host.values(host.get(h), "normal_double", 64)
    monkeypatch.setattr(build, "curand_host_path", fail)
    fast._load.cache_clear()
    try:
        assert not fast.available() and not fast.on()
        host.get(h).offset = 0
        assert np.array_equal(host.values(host.get(h), "normal_double", 64), want)
    finally:
        monkeypatch.undo()
        fast._load.cache_clear()
        host.destroy(h)
    assert fast.on()


def test_mtgp32_sequences_and_layout():
    sets = np.arange(mtgp32.SETS)
    states = mtgp32.init_states((np.arange(mtgp32.SETS, dtype=np.uint64) + 77) & mtgp32.M32, sets)
    assert np.array_equal(mtgp32.sequences(states, sets, 5), numpy_twin(mtgp32.sequences_numpy, states, sets, 5))
    for seed, start, n in ((0, 0, 51200), (1234, 3, 3 * 51200 + 17), (2 ** 40 + 9, 100000, 200000)):
        # whole rounds side by side == output by output (the recorded layout, test_curand_host.py)
        assert np.array_equal(mtgp32.host_u32(seed, start, n), mtgp32.host_u32_at(seed, start, n))
