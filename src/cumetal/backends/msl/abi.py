"""The Metal argument ABI shared by the MSL and AIR back ends and the runtime.

Metal passes data to a compute kernel only through indexed bindings, so a CUDA launch becomes:

========  =================  ==============================================================
index     binding            contents
========  =================  ==============================================================
buffer 0  ``params``         the packed kernel parameter buffer (``ir.Function.params`` layout)
buffer 1  ``launch_info``    hidden per-launch words: address translation, fault record,
                             sizes, the module-globals address table, 64-bit atomic locks
buffer 2  ``printf``         the printf ring buffer (only when the kernel or a callee prints)
buffer 30 ``constant``       the module's constant bank (``kConstantBufferIndex``; reserved)
tg 0      ``shared``         static + dynamic threadgroup memory (``[[threadgroup(0)]]``)
========  =================  ==============================================================

Addresses inside buffers (pointer parameters, pointers stored in memory) are IR addresses, i.e.
CuMetal device pointers; a kernel turns one into a Metal ``device`` pointer by adding the
``addr_delta`` word of ``launch_info`` (0 where device pointers already are GPU addresses, as in
msl-sim). docs/msl-backend.md, section "Argument ABI", is the normative description.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from cumetal.ir import nodes as N

PARAMS_INDEX = 0
LAUNCH_INFO_INDEX = 1
PRINTF_INDEX = 2
CONSTANT_INDEX = 30
SHARED_INDEX = 0

# launch_info layout, in 32-bit words
INFO_ADDR_DELTA = 0  # int64: Metal GPU address = IR address + delta
INFO_PARAMS_ADDR = 2  # uint64: IR address of the parameter buffer (for &param)
INFO_FAULT_CODE = 4  # uint32: first fault (0 none); written by the kernel
INFO_FAULT_AUX = 5  # uint32: reserved
INFO_FAULT_ADDR = 6  # uint64: faulting address
INFO_DYNAMIC_SMEM = 8  # uint32: dynamic shared bytes of this launch
INFO_TOTAL_SMEM = 9  # uint32: shared bytes of this launch (static + dynamic)
INFO_NGLOBALS = 10  # uint32
INFO_NLOCKS = 11  # uint32: number of lock words (a power of two)
INFO_HEADER_WORDS = 16
DEFAULT_LOCKS = 1024

FAULT_TRAP = 3
FAULT_ASSERT = 7  # a failed device-side assert (__assertfail): cudaErrorAssert
FAULT_CODES = {1: "illegal_address", 2: "misaligned_address", FAULT_TRAP: "trap", 4: "illegal_instruction",
               5: "timeout", FAULT_ASSERT: "assert"}

# printf ring layout (buffer 2), in bytes
PRINTF_HEADER_BYTES = 16  # u32 used bytes, u32 capacity (data bytes), u32 dropped records, u32 0
DYNAMIC_SHARED_ALIGN = 16


@dataclass(frozen=True)
class BufferBinding:
    """One kernel binding: ``kind`` 'buffer' or 'threadgroup', its Metal index, its role and the
    MSL parameter it becomes."""

    kind: str
    index: int
    role: str  # 'params' | 'launch_info' | 'printf' | 'constant' | 'shared'
    msl_name: str
    msl_type: str
    doc: str


def uses_printf(kernel: N.Function, module: N.Module) -> bool:
    return any(inst.op == "printf" for fn in reachable_functions(kernel, module) for b in fn.blocks
               for inst in b.insts)


def indirect_targets(module: N.Module, inst: N.Inst) -> list[N.Function]:
    """Possible callees of a call_indirect: functions whose address is taken somewhere in the
    module (an instruction operand or a global's relocation) and whose parameters match."""
    taken = {r[1] for g in module.globals.values() for r in g.relocs}
    for fn in [*module.functions.values(), *module.kernels.values()]:
        for b in fn.blocks:
            for i in b.insts:
                taken.update(a.name for a in i.args if isinstance(a, N.SymAddr) and a.space == "func")
    args = inst.args[1:]
    return [f for name, f in module.functions.items() if name in taken and not f.ret_vars
            and len(f.arg_vars) == len(args) and all(a.type == p.type for a, p in zip(args, f.arg_vars, strict=True))]


def _callees(module: N.Module, inst: N.Inst) -> list[N.Function]:
    if inst.op == "call":
        f = module.functions.get(inst.attrs["callee"])
        return [f] if f is not None else []
    if inst.op == "call_indirect":
        return indirect_targets(module, inst)
    return []


def reachable_functions(kernel: N.Function, module: N.Module) -> list[N.Function]:
    """The kernel and every device function it may call (directly or through a taken address)."""
    seen: dict[str, N.Function] = {}
    order = [kernel]
    todo = [kernel]
    while todo:
        fn = todo.pop()
        for b in fn.blocks:
            for inst in b.insts:
                for callee in _callees(module, inst):
                    if callee.name not in seen:
                        seen[callee.name] = callee
                        order.append(callee)
                        todo.append(callee)
    return order


def argument_abi(kernel: N.Function, module: N.Module | None = None) -> list[BufferBinding]:
    """The bindings of ``kernel``, in the order of the emitted MSL parameters."""
    out = [
        BufferBinding("buffer", PARAMS_INDEX, "params", "cm_params", "device uchar*",
                      f"packed parameters, {kernel.param_size} bytes"),
        BufferBinding("buffer", LAUNCH_INFO_INDEX, "launch_info", "cm_info", "device uint*",
                      "hidden launch words (see abi.py INFO_*)"),
    ]
    if module is not None and uses_printf(kernel, module):
        out.append(BufferBinding("buffer", PRINTF_INDEX, "printf", "cm_printf_ring", "device uint*",
                                 "printf ring buffer"))
    if module is not None and any(g.space == "const" for g in module.globals.values()):
        out.append(BufferBinding("buffer", CONSTANT_INDEX, "constant", "cm_const", "constant uchar*",
                                 "module constant bank (kept resident; read through the globals table)"))
    out.append(BufferBinding("threadgroup", SHARED_INDEX, "shared", "cm_shared", "threadgroup uchar*",
                             "static + dynamic shared memory"))
    return out


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def dynamic_shared_base(kernel: N.Function) -> int:
    return _align(kernel.static_shared_size, DYNAMIC_SHARED_ALIGN)


REDUCTION_SCRATCH = 16  # bytes after the program's shared memory, used by bar.red


def shared_bytes(kernel: N.Function, dynamic_shared: int) -> int:
    """Threadgroup memory length to set at index 0 (Metal wants a multiple of 16): the program's
    static + dynamic shared memory, then 16 bytes of scratch for barrier reductions. The
    INFO_TOTAL_SMEM word holds the length without the scratch (the scratch's offset)."""
    used = dynamic_shared_base(kernel) + dynamic_shared if dynamic_shared else kernel.static_shared_size
    return _align(used, 16) + REDUCTION_SCRATCH


def local_stack_bytes(kernel: N.Function, module: N.Module) -> int:
    """Per-thread local memory: the deepest chain of frames (recursion is rejected)."""
    memo: dict[str, int] = {}

    def depth(fn: N.Function, stack: tuple[str, ...]) -> int:
        if fn.name in stack:
            raise ValueError(f"recursive call chain {' -> '.join(stack + (fn.name,))} "
                             "cannot run on Metal (no call stack)")
        if fn.kind == "func" and fn.name in memo:
            return memo[fn.name]
        deepest = 0
        for b in fn.blocks:
            for inst in b.insts:
                for c in _callees(module, inst):
                    deepest = max(deepest, depth(c, stack + (fn.name,)))
        total = _align(fn.local_size, 16) + deepest
        if fn.kind == "func":
            memo[fn.name] = total
        return total

    return max(depth(kernel, ()), 16)


def global_index(module: N.Module) -> dict[str, int]:
    """Slot of each module global in the launch_info globals table."""
    return {name: i for i, name in enumerate(module.globals)}


def launch_info_words(module: N.Module) -> int:
    return INFO_HEADER_WORDS + 2 * len(module.globals) + DEFAULT_LOCKS


def pack_launch_info(module: N.Module, *, params_addr: int, global_addrs: dict[str, int],
                     dynamic_shared: int, total_shared: int, addr_delta: int = 0) -> bytearray:
    """Build the launch_info buffer. ``global_addrs`` maps every module global to its IR address."""
    words = launch_info_words(module)
    buf = bytearray(4 * words)
    struct.pack_into("<qQ", buf, 0, addr_delta, params_addr)
    struct.pack_into("<IIII", buf, 4 * INFO_DYNAMIC_SMEM, dynamic_shared, total_shared, len(module.globals),
                     DEFAULT_LOCKS)
    for name, i in global_index(module).items():
        if name not in global_addrs:
            raise ValueError(f"no address for module global '{name}'")
        struct.pack_into("<Q", buf, 4 * (INFO_HEADER_WORDS + 2 * i), global_addrs[name])
    return buf


def read_fault(info: bytes | bytearray | memoryview) -> tuple[str, int] | None:
    """The fault recorded in a launch_info buffer after the kernel ran, as (code name, address)."""
    code, = struct.unpack_from("<I", info, 4 * INFO_FAULT_CODE)
    if code == 0:
        return None
    addr, = struct.unpack_from("<Q", info, 4 * INFO_FAULT_ADDR)
    return FAULT_CODES.get(code, f"fault {code}"), addr
