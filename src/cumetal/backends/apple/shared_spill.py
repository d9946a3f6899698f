"""Shared memory beyond an Apple GPU's threadgroup memory, placed in device memory (issue #15).

CUDA gives every block 48 KiB of shared memory (static + dynamic) without opting in, and CUB's and
Thrust's tunings use it: CUB's radix-sort tile needs 33,856 bytes, llm.c's ``matmul_forward_kernel4``
33,024. An Apple GPU's threadgroup memory is 32 KiB (``maxThreadgroupMemoryLength``). A launch whose
shared memory does not fit is run with **all** of its shared memory in a per-threadgroup slice of
device memory that the device layer allocates for the launch; a launch that fits is untouched (this
module is not even consulted past one comparison).

The rewrite is IR to IR, written once for every Apple target (air-sim, msl-sim, the Metal device's
AIR and MSL paths), and runs before the backends legalize and lower the kernel:

* shared addresses stay what the IR says they are (offsets in the block's shared window, so
  ``&shared:x`` operands, pointer arithmetic and stored offsets are unchanged); only the instructions
  that *access* memory change: a ``load``/``store``/``atomic``/``atomic_cas``/``memcpy`` in space
  ``shared`` becomes the same access in space ``global`` at ``base + offset``;
* ``base`` is the block's slice: the module global ``__cumetal_shared_spill`` (whose address the
  launch supplies through the globals table, so it is per launch and readable in device functions)
  plus ``slice * (ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z))``, computed at the entry of
  each function that needs it;
* generic addresses of shared memory are the device addresses of the slice: ``cvta_to_generic`` adds
  ``base``, ``cvta_from_generic`` subtracts it, ``isspacep.shared`` tests the slice's range (and
  ``isspacep.global`` excludes it);
* ``%dynamic_smem_size`` / ``%total_smem_size`` read the launch's figures as constants (the variant is
  made per dynamic size), because the backends see a kernel with no shared memory of its own.

Memory ordering: CUDA's ``__syncthreads``/``bar.sync`` and ``membar.cta`` order global memory for
the block as well, so both Apple backends already emit ``threadgroup_barrier(mem_device |
mem_threadgroup)`` (AIR: ``air.wg.barrier`` with flags 3) and device-scope fences: the barriers a
program has give its spilled shared memory the ordering its shared memory had. Atomics keep shared
memory's rules where they differ (``atom.add.f32.ftz`` keeps subnormals in shared memory, so the
flag is dropped).

Where the slice comes from: the simulators wrap their launcher (``with_shared_spill``: one buffer per
device memory, grown on demand and reused, since their launches run one at a time); the Metal
device (devices/metal/device.py) compiles the variant once per kernel and dynamic size and carves
``blocks x slice`` bytes from its arena per launch, freed when the command buffer completes. Devices
that use this report CUDA's shared memory figures (48 KiB per block, sm_80's 163 KiB opted in).

Not supported in a spilled kernel (a clear launch error instead): mbarrier objects, bulk and tensor
(TMA) copies, whose legalization addresses threadgroup memory directly. Out-of-bounds offsets are
not trapped per block (a slice sits next to the next block's), unlike the threadgroup global.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable

from cumetal.backends.apple import abi
from cumetal.backends.common.outcome import KernelFault, LaunchOutcome
from cumetal.ir import nodes as N

SYMBOL = "__cumetal_shared_spill"
SLICE_ALIGN = 16
ACCESS_OPS = ("load", "store", "atomic", "atomic_cas")
REFUSED_OPS = {"mbarrier": "mbarrier objects", "mbarrier_wait": "mbarrier waits",
               "bulk_copy": "bulk asynchronous copies", "tensor_copy": "tensor (TMA) copies"}
_SMEM_SREGS = ("dynamic_smem_size", "total_smem_size", "aggr_smem_size")

_lock = threading.Lock()
_variants: dict[tuple[int, int, int], tuple[N.Function, N.Module, N.Function, N.Module]] = {}


class SpillError(Exception):
    """The kernel cannot run with its shared memory in device memory (the message says why)."""


def threadgroup_bytes(kernel: N.Function, dynamic_shared: int) -> int:
    """Threadgroup memory a launch needs on an Apple target (program + barrier scratch: apple/abi.py)."""
    return abi.shared_bytes(kernel, dynamic_shared)


def needs_spill(kernel: N.Function, dynamic_shared: int, limit: int | None) -> bool:
    """Whether a launch's shared memory exceeds ``limit`` bytes of threadgroup memory (None: no limit)."""
    return limit is not None and threadgroup_bytes(kernel, dynamic_shared) > limit


def slice_bytes(kernel: N.Function, dynamic_shared: int) -> int:
    """Bytes of device memory per threadgroup: the program's static + dynamic shared memory."""
    return max(SLICE_ALIGN, threadgroup_bytes(kernel, dynamic_shared) - abi.REDUCTION_SCRATCH)


def grid_blocks(grid: tuple[int, int, int]) -> int:
    return int(grid[0]) * int(grid[1]) * int(grid[2])


# ---------------------------------------------------------------------------------------- rewrite
def _touches_shared(inst: N.Inst) -> bool:
    a = inst.attrs
    if inst.op in ACCESS_OPS or inst.op in ("cvta_to_generic", "cvta_from_generic"):
        return a.get("space") == "shared"
    if inst.op == "isspacep":
        return a.get("space") in ("shared", "global")
    if inst.op == "memcpy":
        return "shared" in (a.get("dst_space"), a.get("src_space"))
    return inst.op == "sreg" and a.get("name") in _SMEM_SREGS


class _Rewriter:
    def __init__(self, fn: N.Function, kernel: str, slice_: int, dynamic: int, total: int) -> None:
        self.fn = dataclasses.replace(fn, blocks=[])
        self.kernel, self.slice, self.dynamic, self.total = kernel, slice_, dynamic, total
        self.base = self.fn.new_var("i64", "spill.base")
        self.out: list[N.Inst] = []

    def _tmp(self, op: str, t: str, *args: N.Value, src: N.Inst, **attrs) -> N.Var:
        d = self.fn.new_var(t)
        self.out.append(N.Inst(op, (d,), tuple(args), dict(attrs), loc=src.loc, text=src.text))
        return d

    def _addr(self, off: N.Value, src: N.Inst) -> N.Var:
        return self._tmp("add", "i64", self.base, off, src=src)

    def _in_slice(self, g: N.Value, src: N.Inst) -> N.Var:
        rel = self._tmp("sub", "i64", g, self.base, src=src)
        return self._tmp("icmp", "i1", rel, N.Const.int("i64", self.slice), src=src, cond="ult")

    def inst(self, i: N.Inst) -> None:
        if i.op in REFUSED_OPS:
            raise SpillError(f"kernel '{self.kernel}' uses {REFUSED_OPS[i.op]} ({i.text or i.op}), which CuMetal "
                             "cannot place in device memory")
        if not _touches_shared(i):
            self.out.append(i)
            return
        a = dict(i.attrs)
        same = dict(guard=i.guard, guard_negated=i.guard_negated, loc=i.loc, text=i.text)
        if i.op in ACCESS_OPS:
            a["space"] = "global"
            a.pop("ftz", None)  # shared memory keeps subnormals (ir/ops.py, atomic)
            self.out.append(N.Inst(i.op, i.dsts, (self._addr(i.args[0], i), *i.args[1:]), a, **same))
        elif i.op == "memcpy":
            args = list(i.args)
            for k, key in ((0, "dst_space"), (1, "src_space")):
                if a[key] == "shared":
                    args[k], a[key] = self._addr(args[k], i), "global"
            self.out.append(N.Inst(i.op, i.dsts, tuple(args), a, **same))
        elif i.op == "cvta_to_generic":
            self.out.append(N.Inst("add", i.dsts, (self.base, i.args[0]), {}, **same))
        elif i.op == "cvta_from_generic":
            self.out.append(N.Inst("sub", i.dsts, (i.args[0], self.base), {}, **same))
        elif i.op == "isspacep" and a["space"] == "shared":
            inside = self._in_slice(i.args[0], i)
            self.out.append(N.Inst("mov", i.dsts, (inside,), {}, **same))
        elif i.op == "isspacep":  # global: a device address, but not one of the slice's
            glob = self._tmp("isspacep", "i1", i.args[0], src=i, space="global")
            outside = self._tmp("not", "i1", self._in_slice(i.args[0], i), src=i)
            self.out.append(N.Inst("and", i.dsts, (glob, outside), {}, **same))
        else:  # the launch's shared memory sizes, which the backend no longer sees
            value = self.dynamic if a["name"] == "dynamic_smem_size" else self.total
            self.out.append(N.Inst("mov", i.dsts, (N.Const.int(i.dsts[0].type, value),), {}, **same))

    def prologue(self, src: N.Inst) -> list[N.Inst]:
        """``base = &global:__cumetal_shared_spill + slice * linear block index`` (64-bit)."""
        self.out = []
        r = {}
        for name in ("ctaid.x", "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y"):
            r[name] = self._tmp("zext", "i64", self._tmp("sreg", "i32", src=src, name=name), src=src)
        lin = self._tmp("mul", "i64", r["nctaid.y"], r["ctaid.z"], src=src)
        lin = self._tmp("add", "i64", lin, r["ctaid.y"], src=src)
        lin = self._tmp("mul", "i64", lin, r["nctaid.x"], src=src)
        lin = self._tmp("add", "i64", lin, r["ctaid.x"], src=src)
        off = self._tmp("mul", "i64", lin, N.Const.int("i64", self.slice), src=src)
        self.out.append(N.Inst("add", (self.base,), (N.SymAddr(SYMBOL, "global"), off), {}, loc=src.loc,
                               text="(shared memory in device memory)"))
        return self.out

    def run(self, fn: N.Function) -> N.Function:
        blocks = []
        for b in fn.blocks:
            self.out = []
            for i in b.insts:
                self.inst(i)
            blocks.append(N.Block(b.label, self.out))
        if blocks and blocks[0].insts:
            blocks[0].insts[:0] = self.prologue(blocks[0].insts[0])
        self.fn.blocks = blocks
        return self.fn


def _rewrite(fn: N.Function, kernel: str, slice_: int, dynamic: int, total: int) -> N.Function:
    if not any(_touches_shared(i) or i.op in REFUSED_OPS for b in fn.blocks for i in b.insts):
        return fn
    return _Rewriter(fn, kernel, slice_, dynamic, total).run(fn)


def spilled(kernel: N.Function, module: N.Module, dynamic_shared: int) -> tuple[N.Function, N.Module]:
    """The kernel with its shared memory in device memory, for launches with ``dynamic_shared`` bytes,
    and a module holding only it (the same device functions, rewritten where they touch shared memory,
    in the same order, and the globals plus ``__cumetal_shared_spill``, appended last so the other
    globals keep their table slots). Cached while both objects live. Raises SpillError."""
    key = (id(kernel), id(module), dynamic_shared)
    with _lock:
        hit = _variants.get(key)
        if hit is not None and hit[0] is kernel and hit[1] is module:
            return hit[2], hit[3]
    if SYMBOL in module.globals:
        raise SpillError(f"module defines {SYMBOL}, which CuMetal reserves")
    slice_ = slice_bytes(kernel, dynamic_shared)
    total = slice_  # what %total_smem_size reads on the Apple targets: static + dynamic, 16-byte aligned
    k = _rewrite(kernel, kernel.name, slice_, dynamic_shared, total)
    # the backends see a kernel without shared memory of its own: no threadgroup global, no binding
    k = dataclasses.replace(k, static_shared_size=0, uses_dynamic_shared=False)
    functions = {n: _rewrite(f, kernel.name, slice_, dynamic_shared, total) for n, f in module.functions.items()}
    cell = N.GlobalVar(SYMBOL, "global", SLICE_ALIGN, SLICE_ALIGN)
    out = dataclasses.replace(module, kernels={kernel.name: k}, functions=functions,
                              globals={**module.globals, SYMBOL: cell})
    with _lock:
        if len(_variants) > 128:
            _variants.clear()
        _variants[key] = (kernel, module, k, out)
    return k, out


# ---------------------------------------------------------------------------------------- launch
class _SpillBuffer:
    """One device allocation per device memory, grown on demand and reused: launches on the
    simulators run one at a time, and shared memory starts undefined in every block."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.addr = 0
        self.size = 0

    def get(self, memory, nbytes: int) -> int:
        with self.lock:
            if nbytes > self.size:
                if self.addr:
                    memory.free(self.addr)
                    self.addr, self.size = 0, 0
                self.addr = memory.alloc(nbytes)
                self.size = nbytes
            return self.addr


def _buffer(memory) -> _SpillBuffer:
    buf = getattr(memory, "_cumetal_shared_spill", None)
    if buf is None:
        with _lock:
            buf = getattr(memory, "_cumetal_shared_spill", None)
            if buf is None:
                buf = _SpillBuffer()
                memory._cumetal_shared_spill = buf
    return buf


def _fault(code: str, message: str) -> LaunchOutcome:
    return LaunchOutcome(KernelFault(code, message))


def with_shared_spill(launch: Callable, limit: int) -> Callable:
    """``launch`` (a simulator's launcher: kernel, module, memory, grid, block, dynamic shared, params,
    symbols, **options) where a launch needing more than ``limit`` bytes of threadgroup memory runs
    the spilled variant with a device-memory slice per threadgroup."""

    def spill_launch(kernel: N.Function, module: N.Module, memory, grid, block, dynamic_shared: int,
                     params: bytes, symbols: dict[str, int], **options):
        if not needs_spill(kernel, dynamic_shared, limit):
            return launch(kernel, module, memory, grid, block, dynamic_shared, params, symbols, **options)
        try:
            k, m = spilled(kernel, module, dynamic_shared)
        except SpillError as e:
            need = threadgroup_bytes(kernel, dynamic_shared)
            return _fault("launch_failure", f"{e}; it needs {need} bytes of threadgroup memory, more than the "
                         f"{limit} an Apple GPU has (docs/libraries.md, shared memory beyond 32 KiB)")
        try:
            base = _buffer(memory).get(memory, max(1, grid_blocks(grid)) * slice_bytes(kernel, dynamic_shared))
        except (MemoryError, ValueError) as e:
            return _fault("out_of_resources", f"no device memory for the shared memory of {kernel.name} "
                         f"({grid_blocks(grid)} blocks x {slice_bytes(kernel, dynamic_shared)} bytes): {e}")
        return launch(k, m, memory, grid, block, 0, params, {**symbols, SYMBOL: base}, **options)

    spill_launch.__wrapped__ = launch  # type: ignore[attr-defined]
    return spill_launch
