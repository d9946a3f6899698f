"""The Metal argument ABI shared by the MSL and AIR back ends, their simulators and the Metal device.

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
msl-sim). docs/msl-backend.md, section "Argument ABI", is the normative description. The word
numbers and fault codes come from ``backends/common/codes.py`` (shared with C and MSL).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from cumetal.backends.common.codes import FAULT_NAMES, FaultCode, LaunchInfo, PrintfRing, fault_name
from cumetal.ir import analysis
from cumetal.ir import nodes as N
from cumetal.ir.analysis import indirect_targets, reachable_functions  # noqa: F401 (part of the ABI's API)

PARAMS_INDEX = 0
LAUNCH_INFO_INDEX = 1
PRINTF_INDEX = 2
CONSTANT_INDEX = 30
SHARED_INDEX = 0

# launch_info layout, in 32-bit words (codes.LaunchInfo)
INFO_ADDR_DELTA = LaunchInfo.ADDR_DELTA  # int64: Metal GPU address = IR address + delta
INFO_PARAMS_ADDR = LaunchInfo.PARAMS_ADDR  # uint64: IR address of the parameter buffer (for &param)
INFO_FAULT_CODE = LaunchInfo.FAULT_CODE  # uint32: first fault (0 none); written by the kernel
INFO_FAULT_AUX = LaunchInfo.FAULT_AUX  # uint32: reserved
INFO_FAULT_ADDR = LaunchInfo.FAULT_ADDR  # uint64: faulting address
INFO_DYNAMIC_SMEM = LaunchInfo.DYNAMIC_SMEM  # uint32: dynamic shared bytes of this launch
INFO_TOTAL_SMEM = LaunchInfo.TOTAL_SMEM  # uint32: shared bytes of this launch (static + dynamic)
INFO_NGLOBALS = LaunchInfo.NGLOBALS  # uint32
INFO_NLOCKS = LaunchInfo.NLOCKS  # uint32: number of lock words (a power of two)
INFO_HEADER_WORDS = LaunchInfo.HEADER_WORDS
DEFAULT_LOCKS = 1024

FAULT_TRAP = FaultCode.TRAP
FAULT_ASSERT = FaultCode.ASSERT  # a failed device-side assert (__assertfail): cudaErrorAssert
FAULT_CODES = FAULT_NAMES  # code -> the device protocol's fault name
# The fault a ``trap`` records, by its ``kind`` attribute (ir/ops.py): none is PTX's trap; the
# legalizer's refusals name the fault NVIDIA hardware raises for the same operation.
TRAP_FAULTS = {None: FaultCode.TRAP, "assert": FaultCode.ASSERT,
               "illegal_instruction": FaultCode.ILLEGAL_INSTRUCTION,
               "misaligned_address": FaultCode.MISALIGNED_ADDRESS}


def trap_fault_code(kind: str | None) -> int:
    """The fault code a ``trap`` of this kind records in launch_info."""
    return int(TRAP_FAULTS.get(kind, FaultCode.TRAP))

# printf ring layout (buffer 2), in bytes
PRINTF_HEADER_BYTES = 4 * PrintfRing.HEADER_WORDS  # u32 used bytes, u32 capacity (data bytes), u32 dropped, u32 0
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
    return analysis.uses_op(kernel, module, "printf")


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


REDUCTION_SCRATCH = 80  # bytes after the program's shared memory: 16 for bar.red, then 16 named-barrier words (passes/legalize/rules/async_named_barrier.py)


def shared_bytes(kernel: N.Function, dynamic_shared: int) -> int:
    """Threadgroup memory length to set at index 0 (Metal wants a multiple of 16): the program's
    static + dynamic shared memory, then 16 bytes of scratch for barrier reductions. The
    INFO_TOTAL_SMEM word holds the length without the scratch (the scratch's offset)."""
    used = dynamic_shared_base(kernel) + dynamic_shared if dynamic_shared else kernel.static_shared_size
    return _align(used, 16) + REDUCTION_SCRATCH


def local_stack_bytes(kernel: N.Function, module: N.Module) -> int:
    """Per-thread local memory: the deepest chain of frames (recursion is rejected)."""
    return max(analysis.deepest_call_chain(kernel, module, lambda fn: _align(fn.local_size, 16)), 16)


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
    return fault_name(code), addr
