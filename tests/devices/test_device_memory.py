"""DeviceMemory: the CPU device's allocation table and its vectorized kernel accessors."""

from __future__ import annotations

import numpy as np
import pytest

from cumetal.backends.cpu.memory import ALIGNMENT, DeviceMemory, DeviceMemoryError, MemoryFault


@pytest.fixture
def mem() -> DeviceMemory:
    return DeviceMemory(capacity=1 << 30)


def test_alloc_is_aligned_zeroed_and_findable(mem):
    a = mem.alloc(1000)
    b = mem.alloc(24, host=True)
    assert a % ALIGNMENT == 0 and b % ALIGNMENT == 0
    assert mem.read(a, 1000) == bytes(1000)
    alloc, off = mem.find(a + 999)
    assert alloc.base == a and off == 999 and not alloc.host
    assert mem.find(b)[0].host
    assert mem.find(a + 1000) is None or mem.find(a + 1000)[0].base != a
    assert mem.used == 1024


def test_device_pointer_is_a_real_host_address(mem):
    import ctypes

    a = mem.alloc(16)
    ctypes.memmove(a, b"0123456789abcdef", 16)
    assert mem.read(a, 16) == b"0123456789abcdef"
    mem.write(a + 4, b"XY")
    assert ctypes.string_at(a, 6) == b"0123XY"
    v = mem.view(a, 4)
    v[:] = 7
    assert ctypes.string_at(a, 4) == b"\x07" * 4


def test_free_errors_and_capacity():
    mem = DeviceMemory(capacity=4096)
    a = mem.alloc(4096)
    with pytest.raises(MemoryError):
        mem.alloc(1)
    with pytest.raises(DeviceMemoryError):
        mem.free(a + 8)  # not the start
    mem.free(a)
    with pytest.raises(DeviceMemoryError):
        mem.free(a)  # double free
    with pytest.raises(DeviceMemoryError):
        mem.alloc(0)
    assert mem.used == 0 and mem.find(a) is None


def test_view_outside_allocation_is_an_error(mem):
    a = mem.alloc(64)
    with pytest.raises(DeviceMemoryError):
        mem.view(a + 60, 8)
    with pytest.raises(DeviceMemoryError):
        mem.read(12345, 1)


def test_gather_scatter_single_allocation(mem):
    rng = np.random.default_rng(1)
    n = 4096
    a = mem.alloc(n * 4)
    data = rng.standard_normal(n).astype(np.float32)
    mem.write(a, data.tobytes())
    lanes = rng.permutation(n)
    got = mem.gather(a + 4 * lanes.astype(np.uint64), np.float32)
    np.testing.assert_array_equal(got, data[lanes])
    mem.scatter(a + 4 * lanes.astype(np.uint64), (data[lanes] * 2).astype(np.float32))
    np.testing.assert_array_equal(np.frombuffer(mem.read(a, n * 4), np.float32), data * 2)


def test_gather_scatter_across_allocations(mem):
    bufs = [mem.alloc(64 * (i + 1)) for i in range(5)]
    for i, b in enumerate(bufs):
        mem.write(b, np.arange(16 * (i + 1), dtype=np.int32) + 1000 * i)
    addrs = np.array([bufs[3] + 8, bufs[0], bufs[4] + 4 * 79, bufs[1] + 4], dtype=np.uint64)
    np.testing.assert_array_equal(mem.gather(addrs, np.int32), [3002, 0, 4079, 1001])
    mem.scatter(addrs, np.array([-1, -2, -3, -4], dtype=np.int32))
    np.testing.assert_array_equal(mem.gather(addrs, np.int32), [-1, -2, -3, -4])


def test_scatter_highest_lane_wins(mem):
    a = mem.alloc(64)
    addrs = np.array([a, a + 4, a, a + 8, a + 4, a], dtype=np.uint64)
    mem.scatter(addrs, np.array([1, 2, 3, 4, 5, 6], dtype=np.uint32))
    np.testing.assert_array_equal(np.frombuffer(mem.read(a, 12), np.uint32), [6, 5, 4])
    # many duplicates, also across two allocations
    b = mem.alloc(64)
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 4, 1000)
    which = rng.integers(0, 2, 1000)
    base = np.where(which == 0, a, b).astype(np.uint64)
    vals = np.arange(1000, dtype=np.uint32)
    mem.scatter(base + 4 * idx.astype(np.uint64), vals)
    for w, ptr in ((0, a), (1, b)):
        for k in range(4):
            hits = np.flatnonzero((which == w) & (idx == k))
            if hits.size:
                assert int(np.frombuffer(mem.read(ptr + 4 * k, 4), np.uint32)[0]) == hits[-1]


def test_faults_name_first_bad_lane(mem):
    a = mem.alloc(256)
    good = np.full(8, a, dtype=np.uint64)
    bad = good.copy()
    bad[3] = a + 256  # one past the end
    bad[5] = a + (1 << 40)
    with pytest.raises(MemoryFault) as e:
        mem.gather(bad, np.uint8)
    assert e.value.kind == "illegal_address" and e.value.address == a + 256 and e.value.lane == 3
    mis = good.copy()
    mis[6] = a + 2
    with pytest.raises(MemoryFault) as e:
        mem.scatter(mis, np.zeros(8, np.float32))
    assert e.value.kind == "misaligned_address" and e.value.address == a + 2
    # straddling the end of an allocation is illegal even though the first byte is inside
    with pytest.raises(MemoryFault) as e:
        mem.gather(np.array([a + 252], dtype=np.uint64), np.float64)
    assert e.value.kind in ("illegal_address", "misaligned_address")
    with pytest.raises(MemoryFault) as e:
        mem.gather(np.array([a + 248, a + 256 - 4 + 8], dtype=np.uint64), np.uint32)
    assert e.value.kind == "illegal_address"
    with pytest.raises(MemoryFault):
        mem.gather(np.array([0, 2**64 - 4], dtype=np.uint64), np.uint32)


def test_fault_leaves_memory_untouched(mem):
    a = mem.alloc(16)
    addrs = np.array([a, a + 4, a + 4096], dtype=np.uint64)
    with pytest.raises(MemoryFault):
        mem.atomic("add", addrs, np.ones(3, np.int32))
    assert mem.read(a, 16) == bytes(16)


def _sequential(op, mem_init: dict, addrs, vals, cmps, dt):
    """Lane-by-lane reference using Python/numpy scalars."""
    m = {k: dt.type(v) for k, v in mem_init.items()}
    olds = []
    for i, addr in enumerate(addrs.tolist()):
        old = m[addr]
        v = dt.type(vals[i])
        olds.append(old)
        with np.errstate(over="ignore"):
            if op == "add":
                new = dt.type(old + v)
            elif op == "min":
                new = min(old, v)
            elif op == "max":
                new = max(old, v)
            elif op == "and":
                new = old & v
            elif op == "or":
                new = old | v
            elif op == "xor":
                new = old ^ v
            elif op == "exch":
                new = v
            elif op == "inc":
                new = dt.type(0) if old >= v else dt.type(old + dt.type(1))
            elif op == "dec":
                new = v if (old == 0 or old > v) else dt.type(old - dt.type(1))
            elif op == "cas":
                new = v if old == dt.type(cmps[i]) else old
        m[addr] = new
    return np.array(olds, dtype=dt), m


@pytest.mark.parametrize(
    "op,dtype",
    [("add", "int32"), ("add", "uint32"), ("add", "float32"), ("add", "float64"), ("add", "uint64"),
     ("min", "int32"), ("min", "uint32"), ("max", "int64"), ("max", "float32"),
     ("and", "uint32"), ("or", "uint64"), ("xor", "int32"), ("exch", "float32"),
     ("inc", "uint32"), ("dec", "uint32"), ("cas", "uint32"), ("cas", "int64")],
)
@pytest.mark.parametrize("pattern", ["distinct", "contended", "one_address"])
def test_atomics_match_sequential_reference(mem, op, dtype, pattern):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(hash((op, dtype, pattern)) & 0xFFFF)
    n, slots = 600, 37
    base = mem.alloc(slots * dt.itemsize)
    other = mem.alloc(8 * dt.itemsize)
    if dt.kind == "f":
        init = rng.standard_normal(slots).astype(dt) * 100
        vals = rng.standard_normal(n).astype(dt) * 10
    elif op in ("inc", "dec"):
        init = rng.integers(0, 20, slots).astype(dt)
        vals = rng.integers(0, 25, n).astype(dt)
    elif op == "cas":
        init = rng.integers(0, 3, slots).astype(dt)
        vals = rng.integers(0, 3, n).astype(dt)
    else:
        info = np.iinfo(dt)
        init = rng.integers(max(info.min, -2**40), min(info.max, 2**40), slots).astype(dt)
        vals = rng.integers(max(info.min, -2**40), min(info.max, 2**40), n).astype(dt)
    cmps = rng.integers(0, 3, n).astype(dt) if op == "cas" else None
    mem.write(base, init.tobytes())
    if pattern == "distinct":
        n = slots
        vals = vals[:n]
        cmps = cmps[:n] if cmps is not None else None
        slot = rng.permutation(slots)
        addrs = (base + dt.itemsize * slot).astype(np.uint64)
    elif pattern == "contended":
        slot = rng.integers(0, slots, n)
        addrs = (base + dt.itemsize * slot).astype(np.uint64)
        # a few lanes in a second allocation
        addrs[::50] = other + dt.itemsize * (np.arange(addrs[::50].size) % 8)
    else:
        addrs = np.full(n, base + 5 * dt.itemsize, dtype=np.uint64)
    mem_init = {}
    for ad in set(addrs.tolist()):
        mem_init[ad] = mem.gather(np.array([ad], np.uint64), dt)[0]
    want_old, want_mem = _sequential(op, mem_init, addrs, vals, cmps, dt)
    got_old = mem.atomic(op, addrs, vals, cmps, dt)
    np.testing.assert_array_equal(got_old, want_old)
    keys = np.array(sorted(want_mem), dtype=np.uint64)
    np.testing.assert_array_equal(mem.gather(keys, dt), np.array([want_mem[k] for k in keys.tolist()], dtype=dt))


def test_float_add_contention_is_exactly_sequential(mem):
    # Many lanes add to one float: the result must round as a lane-ordered chain, not a tree sum.
    a = mem.alloc(4)
    vals = np.array([1e8, 1.0, -1e8, 1.0] * 250, dtype=np.float32)
    mem.atomic("add", np.full(vals.size, a, np.uint64), vals)
    acc = np.float32(0)
    for x in vals:
        acc = np.float32(acc + x)
    assert mem.gather(np.array([a], np.uint64), np.float32)[0] == acc


def test_atomic_rejects_bad_op(mem):
    a = mem.alloc(4)
    with pytest.raises(ValueError):
        mem.atomic("nand", np.array([a], np.uint64), np.array([1], np.uint32))
    with pytest.raises(ValueError):
        mem.atomic("and", np.array([a], np.uint64), np.array([1.0], np.float32))
