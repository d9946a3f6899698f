"""The numbers that Python, C (the air-sim runtime, msl-sim) and MSL (the prelude) must agree on,
written once. ``python -m cumetal.backends.common.codes`` writes them as ``#define``s into
``backends/common/include/cumetal_codes.h`` (valid C, C++ and MSL); the MSL prelude embeds that
header, the C runtimes include it, and ``tests/backends/test_codes_header.py`` fails when the
committed header is stale (``--check`` exits 1 then).
"""

from __future__ import annotations

import argparse
import sys
from enum import IntEnum
from pathlib import Path

from cumetal.ir.ops import LOCAL_WINDOW, SHARED_WINDOW

HEADER = Path(__file__).resolve().parent / "include" / "cumetal_codes.h"


class FaultCode(IntEnum):
    """Why a kernel stopped, as recorded by the device code (launch_info word INFO_FAULT_CODE on
    Metal, the simulators' launch structs)."""

    NONE = 0
    ILLEGAL_ADDRESS = 1
    MISALIGNED_ADDRESS = 2
    TRAP = 3
    ILLEGAL_INSTRUCTION = 4  # also: a call through an address that is no function
    TIMEOUT = 5  # the watchdog
    INTERNAL = 6  # a simulator's own failure (reported as illegal_instruction)
    ASSERT = 7  # a failed device-side assert (__assertfail): cudaErrorAssert


# The device protocol's fault name of each code (cumetal.devices.protocol.FAULT_CODES).
FAULT_NAMES: dict[int, str] = {
    FaultCode.ILLEGAL_ADDRESS: "illegal_address",
    FaultCode.MISALIGNED_ADDRESS: "misaligned_address",
    FaultCode.TRAP: "trap",
    FaultCode.ILLEGAL_INSTRUCTION: "illegal_instruction",
    FaultCode.TIMEOUT: "timeout",
    FaultCode.INTERNAL: "illegal_instruction",
    FaultCode.ASSERT: "assert",
}


def fault_name(code: int) -> str:
    """The protocol name of a recorded fault code (an unknown code reads as illegal_instruction)."""
    return FAULT_NAMES.get(code, "illegal_instruction")


class RoundingMode(IntEnum):
    """Rounding-mode argument of the prelude's exact float helpers."""

    RN = 0
    RZ = 1
    RM = 2
    RP = 3


class MemSpace(IntEnum):
    """Space argument of the prelude's atomic helpers (generic: resolved at run time)."""

    GLOBAL = 0
    SHARED = 1
    LOCAL = 2
    GENERIC = 3


class AtomicOp(IntEnum):
    """Operation argument of the prelude's atomic helpers (cm_aop32/cm_aop16/cm_aop64)."""

    ADD = 0
    AND = 1
    OR = 2
    XOR = 3
    EXCH = 4
    UMIN = 5
    UMAX = 6
    MIN = 7
    MAX = 8
    INC = 9
    DEC = 10
    FADD = 11
    FMIN = 12
    FMAX = 13
    FADD_F16 = 14
    FADD_BF16 = 15
    CAS = 16
    FADD_FTZ = 17  # atom.add.f32: flushes subnormals in global memory (H100)
    FADD_F64_SHARED = 18  # atom.add.f64 in shared memory: add.f64's NaN rule, memory word first


class FloatCompare(IntEnum):
    """Condition argument of the prelude's cm_fcmp (the IR fcmp conditions, ordered then unordered)."""

    OEQ = 0
    ONE = 1
    OLT = 2
    OLE = 3
    OGT = 4
    OGE = 5
    ORD = 6
    UNO = 7
    UEQ = 8
    UNE = 9
    ULT = 10
    ULE = 11
    UGT = 12
    UGE = 13


class LaunchInfo(IntEnum):
    """The launch_info buffer (Metal buffer 1), in 32-bit words."""

    ADDR_DELTA = 0  # int64: Metal GPU address = IR address + delta
    PARAMS_ADDR = 2  # uint64: IR address of the parameter buffer (for &param)
    FAULT_CODE = 4  # uint32: first fault (0 none); written by the kernel
    FAULT_AUX = 5  # uint32: reserved
    FAULT_ADDR = 6  # uint64: faulting address
    DYNAMIC_SMEM = 8  # uint32: dynamic shared bytes of this launch
    TOTAL_SMEM = 9  # uint32: shared bytes of this launch (static + dynamic)
    NGLOBALS = 10  # uint32: entries of the globals table
    NLOCKS = 11  # uint32: number of lock words (a power of two)
    HEADER_WORDS = 16  # the globals table (2 words each) starts here, then the lock words


class PrintfRing(IntEnum):
    """The printf ring (Metal buffer 2): a header of four u32 words, then the records."""

    USED = 0  # u32: bytes reserved so far (may exceed the capacity)
    CAPACITY = 1  # u32: data bytes after the header
    DROPPED = 2  # u32: records that did not fit
    HEADER_WORDS = 4


class SimArgKind(IntEnum):
    """What the air-sim runtime passes for each kernel argument (air/sim compile.py -> runtime.c)."""

    PTR = 0  # a buffer binding (its role says which)
    TID = 1
    CTAID = 2
    NTID = 3
    NCTAID = 4
    TINDEX = 5
    LANE = 6
    WARP = 7
    SHARED = 8


class WaitKind(IntEnum):
    """What a simulator's parked thread waits for, for its deadlock report: the kind of a legalized
    wait (air/sim/instrument.py and msl/wait_points.py find them; runtime.c and cumetal_msl_sim.h park)."""

    MBARRIER = 1
    NAMED = 2  # a named barrier with a thread count
    OTHER = 3


# Address windows of the IR's generic addresses (cumetal.ir.ops).
WINDOWS = {"CM_SHARED_WINDOW": SHARED_WINDOW, "CM_LOCAL_WINDOW": LOCAL_WINDOW, "CM_WINDOW_MASK": 0xFF00000000000000}

# Python enum -> C macro prefix.
TABLES: tuple[tuple[type[IntEnum], str], ...] = (
    (FaultCode, "CM_FAULT_"), (RoundingMode, "CM_"), (MemSpace, "CM_SPACE_"), (AtomicOp, "CM_AOP_"),
    (FloatCompare, "CM_FCMP_"), (LaunchInfo, "CM_INFO_"), (PrintfRing, "CM_RING_"), (SimArgKind, "CM_ARG_"),
    (WaitKind, "CM_WAIT_"),
)


def render_header() -> str:
    lines = ["// Generated by python -m cumetal.backends.common.codes from backends/common/codes.py. Do not edit.",
             "// The numbers shared by Python, C, C++ and MSL (valid in all four: #defines only).",
             "#ifndef CUMETAL_CODES_H", "#define CUMETAL_CODES_H", ""]
    for enum_cls, prefix in TABLES:
        lines.append(f"// {enum_cls.__name__}")
        for m in enum_cls:
            lines.append(f"#define {prefix}{m.name} {int(m)}")
        lines.append("")
    lines.append("// address windows (cumetal.ir.ops)")
    for name, value in WINDOWS.items():
        lines.append(f"#define {name} 0x{value:016X}ul")
    lines += ["", "#endif  // CUMETAL_CODES_H", ""]
    return "\n".join(lines)


def header_text() -> str:
    """The committed header's text (what the MSL prelude embeds)."""
    return HEADER.read_text()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cumetal.backends.common.codes", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the committed header is stale")
    args = ap.parse_args(argv)
    fresh = render_header()
    if args.check:
        if not HEADER.exists() or HEADER.read_text() != fresh:
            print(f"{HEADER} is stale: run python -m cumetal.backends.common.codes", file=sys.stderr)
            return 1
        return 0
    HEADER.parent.mkdir(parents=True, exist_ok=True)
    HEADER.write_text(fresh)
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
