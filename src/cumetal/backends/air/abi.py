"""The AIR kernel signature: the runtime's ONE Metal argument ABI plus Apple's thread-ID arguments.

The bindings (buffer 0 parameters, buffer 1 launch_info, buffer 2 printf, buffer 30 constant bank,
threadgroup 0 shared memory) come from ``cumetal.backends.msl.abi`` so that MSL and AIR kernels are
launched identically. AIR additionally receives thread and threadgroup indices as kernel arguments
(Apple's compiler never calls an intrinsic for them; reference/air-abi-observed.md section 7).
Every AIR kernel gets the same list, in the same order, whether or not it uses each argument, so
that a launcher (and the air-sim) can rely on it; the ``!air.kernel`` metadata states it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from cumetal.backends.msl import abi as metal_abi
from cumetal.backends.msl.abi import BufferBinding, argument_abi
from cumetal.ir import nodes as N

__all__ = ["AirArgument", "BUILTINS", "BufferBinding", "air_arguments", "argument_abi", "metal_abi"]

# (air builtin name, MSL type name, LLVM lanes (1 = scalar i32), argument name)
BUILTINS: tuple[tuple[str, str, int, str], ...] = (
    ("air.thread_position_in_threadgroup", "uint3", 3, "cm_tid"),
    ("air.threadgroup_position_in_grid", "uint3", 3, "cm_ctaid"),
    ("air.threads_per_threadgroup", "uint3", 3, "cm_ntid"),
    ("air.threadgroups_per_grid", "uint3", 3, "cm_nctaid"),
    ("air.thread_index_in_threadgroup", "uint", 1, "cm_tindex"),
    ("air.thread_index_in_simdgroup", "uint", 1, "cm_lane"),
    ("air.simdgroup_index_in_threadgroup", "uint", 1, "cm_warp"),
)

# Address space and access of each binding role (the MSL qualifier of abi.BufferBinding.msl_type).
ROLE_SPACE = {"params": 1, "launch_info": 1, "printf": 1, "constant": 2, "shared": 3}
ROLE_ACCESS = {"params": "air.read", "launch_info": "air.read_write", "printf": "air.read_write",
               "constant": "air.read", "shared": "air.read_write"}
ROLE_ELEMENT = {"params": ("uchar", 1), "launch_info": ("uint", 4), "printf": ("uint", 4),
                "constant": ("uchar", 1), "shared": ("uchar", 1)}


@dataclass(frozen=True)
class AirArgument:
    """One LLVM parameter of an AIR kernel: a binding (``binding`` set) or a builtin (``builtin``)."""

    name: str
    binding: BufferBinding | None = None
    builtin: str | None = None
    type_name: str = ""
    lanes: int = 1
    address_space: int = 0


def air_arguments(kernel: N.Function, module: N.Module) -> list[AirArgument]:
    """The kernel's LLVM parameters in order: the ABI bindings, then the seven thread builtins."""
    out = []
    for bb in argument_abi(kernel, module):
        tname, _ = ROLE_ELEMENT[bb.role]
        out.append(AirArgument(bb.msl_name, binding=bb, type_name=tname, address_space=ROLE_SPACE[bb.role]))
    for builtin, tname, lanes, name in BUILTINS:
        out.append(AirArgument(name, builtin=builtin, type_name=tname, lanes=lanes))
    return out
