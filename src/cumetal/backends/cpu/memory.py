"""Device memory of the CPU device: an allocation table over numpy buffers.

A device pointer is the real host address of a numpy buffer, as on Apple's unified memory where a
device pointer is an ``MTLBuffer``'s ``contents`` pointer. Copies between host and device are
therefore plain memmoves, and host allocations (``cuMemAllocHost``) are kernel-accessible too.

The kernel accessors (:meth:`DeviceMemory.gather`, :meth:`~DeviceMemory.scatter`,
:meth:`~DeviceMemory.atomic`) take one address per active lane and are vectorized with numpy. Every
access is checked: an address outside every live allocation, or not aligned to the element size,
raises :class:`MemoryFault` naming the first offending lane's address.
"""

from __future__ import annotations

import bisect
import ctypes
import mmap
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

ALIGNMENT = 256
"""Base alignment of every allocation (CUDA guarantees 256 bytes for cuMemAlloc)."""

PAGE = mmap.PAGESIZE


def _nearest_allocation(addr: int, itemsize: int, allocs: list[Allocation]) -> str:
    """Where a faulting address lies relative to the nearest live allocation: kernels that index a
    row or a halo past an array's end (or before its start) are the usual cause, and NVIDIA GPUs
    often let such a read through silently when other memory is mapped there."""
    best: tuple[int, str] | None = None
    for a in allocs:
        if addr < a.base:
            dist, where = a.base - addr, f"{a.base - addr} bytes before the start"
        elif addr + itemsize > a.end:
            dist, where = addr + itemsize - a.end, f"{addr - a.end} bytes past the end" if addr >= a.end else \
                f"{itemsize}-byte access overlapping the end"
        else:
            continue
        if best is None or dist < best[0]:
            best = (dist, f"{where} of the {a.size}-byte allocation at 0x{a.base:x}")
    return best[1] if best is not None else "no live allocations"


class MemoryFault(Exception):
    """A kernel access that the hardware would reject."""

    def __init__(self, kind: str, address: int, lane: int | None = None, detail: str = "") -> None:
        self.kind = kind  # 'illegal_address' | 'misaligned_address'
        self.address = int(address)
        self.lane = lane
        self.detail = detail
        what = "misaligned" if kind == "misaligned_address" else "illegal"
        msg = f"{what} address 0x{self.address:x}"
        if lane is not None:
            msg += f" (lane {lane})"
        if detail:
            msg += f": {detail}"
        super().__init__(msg)


class DeviceMemoryError(ValueError):
    """A host-side misuse of the allocation table (bad free, range outside an allocation, ...)."""


@dataclass(eq=False)
class Allocation:
    """One live allocation. ``data`` is a writable uint8 view of exactly ``size`` bytes at ``base``."""

    base: int
    size: int
    host: bool
    data: np.ndarray = field(repr=False)
    _owner: np.ndarray = field(repr=False)  # the over-allocated buffer that keeps ``data`` alive
    _typed: dict = field(default_factory=dict, repr=False)
    own_pages: bool = False  # no other data shares a page with it (see DeviceMemory.alloc)

    @property
    def end(self) -> int:
        return self.base + self.size

    def typed(self, dtype: np.dtype) -> np.ndarray:
        """The allocation as an array of ``dtype`` elements (trailing partial element dropped)."""
        view = self._typed.get(dtype)
        if view is None:
            n = self.size // dtype.itemsize
            view = self.data[: n * dtype.itemsize].view(dtype)
            self._typed[dtype] = view
        return view


_ATOMIC_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas")


class DeviceMemory:
    """The allocation table of one CPU device.

    ``capacity`` bounds the total bytes live at once (allocations beyond it raise ``MemoryError``),
    so out-of-memory behaves deterministically instead of depending on the OS overcommit policy.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = int(capacity)
        self.used = 0
        self._lock = threading.Lock()
        self._bases: list[int] = []
        self._allocs: list[Allocation] = []
        self._np_bases: np.ndarray | None = None
        self._np_sizes: np.ndarray | None = None
        self._np_allocs: list[Allocation] = []
        self.on_change: Callable[[], None] | None = None  # called after every change of the table

    # ------------------------------------------------------------------ table management
    def alloc(self, size: int, *, host: bool = False, own_pages: bool = False) -> int:
        """Allocate ``size`` zeroed bytes, 256-byte aligned; return the device (= host) address.

        ``own_pages``: the allocation starts on a page and no other data lies in its pages. A
        program's allocations (cuMemAlloc, cudaMalloc, ...) are made so because CUDA IPC remaps an
        exported allocation's pages as shared memory: a page that also held malloc'd host data (a
        Python thread state, say) would become shared with every process that maps it and with
        every child forked later, whose writes then corrupt this process's heap.
        """
        size = int(size)
        if size <= 0:
            raise DeviceMemoryError(f"allocation size must be positive, got {size}")
        with self._lock:
            if self.used + size > self.capacity:
                raise MemoryError(
                    f"out of device memory: {size} bytes requested, {self.capacity - self.used} free"
                )
            align = PAGE if own_pages else ALIGNMENT
            span = -(-size // PAGE) * PAGE if own_pages else size
            owner = np.zeros(span + align, dtype=np.uint8)
            start = (-owner.ctypes.data) % align
            data = owner[start : start + size]
            base = data.ctypes.data
            alloc = Allocation(base=base, size=size, host=host, data=data, _owner=owner, own_pages=own_pages)
            i = bisect.bisect_left(self._bases, base)
            self._bases.insert(i, base)
            self._allocs.insert(i, alloc)
            self._np_bases = None
            self.used += size
        self._changed()
        return base

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def adopt(self, base: int, size: int) -> None:
        """Enter ``size`` bytes of existing host memory at ``base`` in the table (cudaHostRegister):
        kernels may then access it; ``free(base)`` removes it again (the memory stays the caller's)."""
        base, size = int(base), int(size)
        if size <= 0:
            raise DeviceMemoryError(f"registration size must be positive, got {size}")
        data = np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(base))
        with self._lock:
            i = bisect.bisect_left(self._bases, base)
            if (i < len(self._bases) and self._bases[i] < base + size) or (i and self._allocs[i - 1].end > base):
                raise DeviceMemoryError(f"0x{base:x}+{size} overlaps a live allocation")
            self._bases.insert(i, base)
            self._allocs.insert(i, Allocation(base=base, size=size, host=True, data=data, _owner=data))
            self._np_bases = None
            self.used += size
        self._changed()

    def free(self, addr: int) -> Allocation:
        """Release the allocation that starts at ``addr``; anything else is an error."""
        addr = int(addr)
        with self._lock:
            i = bisect.bisect_left(self._bases, addr)
            if i >= len(self._bases) or self._bases[i] != addr:
                raise DeviceMemoryError(f"0x{addr:x} is not the start of a live allocation")
            alloc = self._allocs.pop(i)
            self._bases.pop(i)
            self._np_bases = None
            self.used -= alloc.size
        self._changed()
        return alloc

    def find(self, addr: int) -> tuple[Allocation, int] | None:
        """The live allocation containing byte ``addr`` and the offset into it, or None."""
        addr = int(addr)
        with self._lock:  # the two parallel lists change together under the lock
            i = bisect.bisect_right(self._bases, addr) - 1
            if i < 0:
                return None
            alloc = self._allocs[i]
        if addr >= alloc.end:
            return None
        return alloc, addr - alloc.base

    def allocations(self) -> list[Allocation]:
        with self._lock:
            return list(self._allocs)

    def _range(self, addr: int, n: int) -> tuple[Allocation, int]:
        found = self.find(addr)
        if found is None:
            raise DeviceMemoryError(f"0x{int(addr):x} is not inside a live allocation")
        alloc, off = found
        if n < 0 or off + n > alloc.size:
            raise DeviceMemoryError(
                f"range 0x{int(addr):x}+{n} runs past the end of its allocation "
                f"(0x{alloc.base:x}, {alloc.size} bytes)"
            )
        return alloc, off

    def view(self, addr: int, n: int) -> np.ndarray:
        """A writable uint8 view of ``n`` bytes at ``addr``, which must lie in one allocation."""
        alloc, off = self._range(addr, n)
        return alloc.data[off : off + n]

    def read(self, addr: int, n: int) -> bytes:
        return self.view(addr, n).tobytes()

    def write(self, addr: int, data: bytes | bytearray | memoryview | np.ndarray) -> None:
        src = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
        self.view(addr, src.size)[:] = src

    # ------------------------------------------------------------------ lane lookups
    def _tables(self) -> tuple[np.ndarray, np.ndarray, list[Allocation]]:
        with self._lock:
            if self._np_bases is None:
                self._np_allocs = list(self._allocs)
                self._np_sizes = np.array([a.size for a in self._allocs], dtype=np.uint64)
                self._np_bases = np.array(self._bases, dtype=np.uint64)
            return self._np_bases, self._np_sizes, self._np_allocs  # type: ignore[return-value]

    def _resolve(self, addrs: np.ndarray, itemsize: int) -> tuple[Allocation | list[Allocation], np.ndarray]:
        """Check every lane and locate it.

        Returns ``(alloc, element_index)`` when all lanes fall in one allocation (the fast path),
        else ``(allocations, index_into_allocations_per_lane)``. Raises MemoryFault for the first
        bad lane.
        """
        if addrs.size == 0:
            return [], np.zeros(0, dtype=np.intp)
        pow2 = itemsize & (itemsize - 1) == 0
        if itemsize > 1:
            # Alignment is a property of the address alone: checking it first is cheap and it is
            # what the load/store unit rejects before any translation happens. For power-of-two
            # sizes one OR-reduction (no temporary array) clears the common all-aligned case.
            if pow2 and not int(np.bitwise_or.reduce(addrs)) & (itemsize - 1):
                mis = None
            else:
                mis = (addrs & np.uint64(itemsize - 1)) if pow2 else addrs % np.uint64(itemsize)
            if mis is not None and mis.any():
                lane = int(np.flatnonzero(mis)[0])
                raise MemoryFault("misaligned_address", int(addrs[lane]), lane,
                                  f"{itemsize}-byte access must be {itemsize}-byte aligned")
        lo = int(addrs.min())
        hi = int(addrs.max())
        found = self.find(lo)
        if found is not None and hi + itemsize <= found[0].end:
            alloc = found[0]
            return alloc, _element_index(addrs, alloc.base, itemsize)
        bases, sizes, allocs = self._tables()
        pos = np.searchsorted(bases, addrs, side="right").astype(np.intp) - 1
        valid = pos >= 0
        idx = np.where(valid, pos, 0)
        if bases.size == 0:
            lane = 0
            raise MemoryFault("illegal_address", int(addrs[lane]), lane, "no live allocations")
        off = addrs - bases[idx]
        lim = sizes[idx]
        item = np.uint64(itemsize)
        # Written so that no uint64 expression can wrap around.
        valid &= (lim >= item) & (off <= lim - np.minimum(lim, item))
        if not valid.all():
            lane = int(np.flatnonzero(~valid)[0])
            raise MemoryFault("illegal_address", int(addrs[lane]), lane,
                              _nearest_allocation(int(addrs[lane]), itemsize, allocs))
        return allocs, idx

    @staticmethod
    def _as_addrs(addrs: np.ndarray) -> np.ndarray:
        a = np.asarray(addrs)
        if a.dtype != np.uint64:
            # int64 addresses reinterpret for free; negative ones become huge (and fault)
            a = a.view(np.uint64) if a.dtype == np.int64 else a.astype(np.uint64)
        return a.reshape(-1)

    # ------------------------------------------------------------------ kernel accessors
    def gather(self, addrs: np.ndarray, dtype: np.dtype | type | str) -> np.ndarray:
        """Load one ``dtype`` element per lane address."""
        dt = np.dtype(dtype)
        a = self._as_addrs(addrs)
        where, idx = self._resolve(a, dt.itemsize)
        if isinstance(where, Allocation):
            return np.take(where.typed(dt), idx)
        out = np.empty(a.size, dtype=dt)
        for ai in _present(idx, len(where)):
            al = where[int(ai)]
            sel = idx == ai
            out[sel] = np.take(al.typed(dt), _element_index(a[sel], al.base, dt.itemsize))
        return out

    def scatter(self, addrs: np.ndarray, values: np.ndarray) -> None:
        """Store one element per lane; when lanes collide the highest lane index wins."""
        a = self._as_addrs(addrs)
        v = np.asarray(values)
        v = np.broadcast_to(v, a.shape) if v.ndim == 0 or v.size == 1 else v.reshape(-1)
        if v.shape != a.shape:
            raise ValueError(f"scatter: {a.size} addresses but {v.size} values")
        dt = v.dtype
        where, idx = self._resolve(a, dt.itemsize)
        if isinstance(where, Allocation):
            _store_last_wins(where.typed(dt), idx, v)
            return
        for ai in _present(idx, len(where)):
            al = where[int(ai)]
            sel = idx == ai
            el = _element_index(a[sel], al.base, dt.itemsize)
            _store_last_wins(al.typed(dt), el, v[sel])

    def atomic(
        self,
        op: str,
        addrs: np.ndarray,
        values: np.ndarray,
        compare: np.ndarray | None = None,
        dtype: np.dtype | type | str | None = None,
        combine: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    ) -> np.ndarray:
        """Apply a read-modify-write per lane, in lane order; return each lane's old value.

        ``op`` is one of add/min/max/inc/dec/and/or/xor/exch/cas; signedness and float-ness come
        from ``dtype`` (default: ``values.dtype``). inc/dec follow PTX ``atom.inc/.dec``:
        inc: ``old >= v ? 0 : old + 1``; dec: ``(old == 0 or old > v) ? v : old - 1``.
        cas stores ``values`` where the old value equals ``compare`` (bitwise for floats).
        op ``rmw`` stores ``combine(old, value)`` (elementwise on arrays of ``dtype``).
        """
        if op == "rmw" and combine is None:
            raise ValueError("atomic rmw needs a combine function")
        if op not in _ATOMIC_OPS and op != "rmw":
            raise ValueError(f"unknown atomic op {op!r}; expected one of {', '.join(_ATOMIC_OPS)}")
        a = self._as_addrs(addrs)
        dt = np.dtype(dtype) if dtype is not None else np.asarray(values).dtype
        v = np.broadcast_to(np.asarray(values).astype(dt, copy=False), a.shape) if np.ndim(values) == 0 \
            else np.asarray(values).astype(dt, copy=False).reshape(-1)
        if v.shape != a.shape:
            raise ValueError(f"atomic: {a.size} addresses but {v.size} values")
        c = None
        if op == "cas":
            if compare is None:
                raise ValueError("atomic cas needs compare values")
            c = np.asarray(compare).astype(dt, copy=False)
            c = np.broadcast_to(c, a.shape) if c.ndim == 0 else c.reshape(-1)
        if op in ("and", "or", "xor", "inc", "dec") and dt.kind not in "iu":
            raise ValueError(f"atomic {op} needs an integer dtype, got {dt}")
        # Validate every lane up front so that a fault leaves memory untouched.
        self._resolve(a, dt.itemsize)
        if a.size == 0:
            return np.empty(0, dtype=dt)
        return _sequential_rmw(self, op, a, v, c, dt, combine)


def _element_index(addrs: np.ndarray, base: int, itemsize: int) -> np.ndarray:
    """Element numbers of (checked) addresses inside an allocation starting at ``base``."""
    rel = np.subtract(addrs, np.uint64(base))
    if itemsize & (itemsize - 1) == 0:  # a shift in place and a free int64 view: no more temporaries
        np.right_shift(rel, np.uint64(itemsize.bit_length() - 1), out=rel)
        return rel.view(np.int64)
    return (rel // np.uint64(itemsize)).astype(np.intp)


def _present(idx: np.ndarray, n: int) -> np.ndarray:
    """The distinct allocation indices in ``idx`` (a counting pass: cheaper than a sort)."""
    return np.flatnonzero(np.bincount(idx, minlength=n))


def _store_last_wins(target: np.ndarray, idx: np.ndarray, vals: np.ndarray) -> None:
    """``target[idx] = vals`` where, for repeated indices, the last occurrence wins.

    numpy does not promise an order for repeated indices in fancy assignment, so duplicates are
    removed explicitly; a strictly monotonic index vector (the coalesced case) cannot repeat and
    skips the sort.
    """
    if idx.size > 1:
        head, tail = idx[:-1], idx[1:]
        if not ((tail > head).all() or (tail < head).all()):  # bool temporaries only
            order = np.argsort(idx, kind="stable")
            s = idx[order]
            keep = np.empty(s.size, dtype=bool)
            keep[:-1] = s[1:] != s[:-1]
            keep[-1] = True
            target[s[keep]] = vals[order[keep]]
            return
    target[idx] = vals


_SCAN_UFUNCS = {"add": np.add, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _scan_ufunc(op: str, dt: np.dtype) -> np.ufunc | None:
    """The associative ufunc whose running accumulation gives each lane's old value, if any."""
    if op in _SCAN_UFUNCS:
        return _SCAN_UFUNCS[op]
    if op == "min":
        return np.fmin if dt.kind == "f" else np.minimum  # fmin: a NaN operand does not win
    if op == "max":
        return np.fmax if dt.kind == "f" else np.maximum
    return None


def _apply(op: str, old: np.ndarray, v: np.ndarray, c: np.ndarray | None,
           combine: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """The value stored by one round of ``op`` given the old values (all addresses distinct)."""
    if op == "rmw":
        assert combine is not None
        return np.asarray(combine(old, v), dtype=old.dtype)
    uf = _scan_ufunc(op, old.dtype)
    if uf is not None:
        return uf(old, v, dtype=old.dtype)
    if op == "exch":
        return v.copy()
    if op == "inc":
        return np.where(old >= v, old.dtype.type(0), old + old.dtype.type(1))
    if op == "dec":
        return np.where((old == 0) | (old > v), v, old - old.dtype.type(1))
    # cas: compare bit patterns so that NaNs and -0.0 behave like the hardware's integer compare
    assert c is not None
    bits = np.dtype(f"u{old.dtype.itemsize}")
    hit = old.view(bits) == c.view(bits)
    return np.where(hit, v, old)


def _sequential_rmw(
    mem: DeviceMemory, op: str, a: np.ndarray, v: np.ndarray, c: np.ndarray | None, dt: np.dtype,
    combine: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """Atomics with the result of executing the lanes one after another in lane order."""
    v = np.ascontiguousarray(v)
    if c is not None:
        c = np.ascontiguousarray(c)
    if a.size <= 1 or (a[1:] > a[:-1]).all() or (a[1:] < a[:-1]).all():
        # Distinct addresses (the common, coalesced case): one vectorized round.
        old = mem.gather(a, dt)
        mem.scatter(a, _apply(op, old, v, c, combine))
        return old
    order = np.argsort(a, kind="stable")  # stable: lane order kept inside each address group
    sa = a[order]
    sv = v[order]
    sc = c[order] if c is not None else None
    n = sa.size
    first = np.empty(n, dtype=bool)
    first[0] = True
    first[1:] = sa[1:] != sa[:-1]
    starts = np.flatnonzero(first)
    lengths = np.diff(np.append(starts, n))
    init = mem.gather(sa[starts], dt)
    old_sorted = np.empty(n, dtype=dt)
    final = init.copy()
    uf = _scan_ufunc(op, dt)
    if op == "exch":
        old_sorted[starts] = init
        rest = np.flatnonzero(~first)
        old_sorted[rest] = sv[rest - 1]
        final = sv[starts + lengths - 1].copy()
    elif uf is not None:
        _segmented_scan(uf, dt, sv, starts, lengths, init, old_sorted, final)
    else:
        # cas/inc/dec have no cheap closed form: run "rounds", the k-th lane of every group at once.
        cur = init.copy()
        for k in range(int(lengths.max())):
            rows = np.flatnonzero(lengths > k)
            lanes = starts[rows] + k
            prev = cur[rows]
            old_sorted[lanes] = prev
            cur[rows] = _apply(op, prev, sv[lanes], sc[lanes] if sc is not None else None, combine)
        final = cur
    mem.scatter(sa[starts], final)
    old = np.empty(n, dtype=dt)
    old[order] = old_sorted
    return old


def _segmented_scan(
    uf: np.ufunc, dt: np.dtype, sv: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
    init: np.ndarray, old_sorted: np.ndarray, final: np.ndarray,
) -> None:
    """Exclusive running ``uf`` per address group, seeded with the memory's initial value.

    ``ufunc.accumulate`` is strictly sequential (unlike ``sum``'s pairwise reduction), so float
    results round exactly as lane-by-lane execution would. Groups are padded into 2-D blocks of
    power-of-two width, which bounds the padding to 2x the lane count.
    """
    width = np.left_shift(1, np.ceil(np.log2(lengths + 1)).astype(np.int64))
    for w in np.unique(width):
        rows = np.flatnonzero(width == w)
        w = int(w)
        cols = np.arange(w - 1)
        lane = starts[rows, None] + cols[None, :]
        ok = cols[None, :] < lengths[rows, None]
        block = np.zeros((rows.size, w), dtype=dt)
        block[:, 0] = init[rows]
        block[:, 1:] = np.where(ok, sv[np.where(ok, lane, 0)], dt.type(0))
        acc = uf.accumulate(block, axis=1, dtype=dt)
        old_sorted[lane[ok]] = acc[:, :-1][ok]
        final[rows] = acc[np.arange(rows.size), lengths[rows]]


def host_address(buf: np.ndarray) -> int:
    """Address of a contiguous numpy array's first byte (helper for tests and the runtime)."""
    return int(buf.ctypes.data)


def memmove(dst: int, src: int, n: int) -> None:
    """Raw copy between two addresses of this process (unified memory: H<->D, D<->D alike)."""
    if n:
        ctypes.memmove(dst, src, n)
