"""The AIR kernel signature: the runtime's ONE Metal argument ABI plus Apple's thread-ID arguments.

The bindings (buffer 0 parameters, buffer 1 launch_info, buffer 2 printf, buffer 30 constant bank,
threadgroup 0 shared memory) come from ``cumetal.backends.apple.abi`` so that MSL and AIR kernels are
launched identically; only the LENGTH of threadgroup 0 differs (``air_threadgroup_bytes``): AIR
keeps a kernel's static ``__shared__`` memory in one Apple-style ``addrspace(3)`` module global
(``shared_layout``), so threadgroup 0 holds just the dynamic shared memory and the reduction scratch. AIR additionally receives thread and threadgroup indices as kernel arguments
(Apple's compiler never calls an intrinsic for them; reference/air-abi-observed.md section 7).
Every AIR kernel gets the same list, in the same order, whether or not it uses each argument, so
that a launcher (and the air-sim) can rely on it; the ``!air.kernel`` metadata states it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from cumetal.backends.apple import abi as metal_abi
from cumetal.backends.apple.abi import BufferBinding, argument_abi
from cumetal.ir import nodes as N
from cumetal.ir.analysis import reachable_functions

__all__ = ["AirArgument", "BUILTINS", "BufferBinding", "SharedLayout", "air_arguments", "air_threadgroup_bytes",
           "argument_abi", "metal_abi", "reduction_scratch_offset", "shared_layout"]

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


# ---------------------------------------------------------------------------------- shared memory
STATIC_SHARED_GLOBAL = "cm_static_shared"
# The largest PTX access is 16 bytes (v4.b32 / v2.b64), so a 16-byte aligned base keeps every access
# of the IR's layout aligned; the program only ever sees window offsets, never this base address.
STATIC_SHARED_ALIGN = 16


@dataclass(frozen=True)
class SharedLayout:
    """How the IR's shared window maps onto AIR threadgroup memory for one kernel module.

    Window offsets below ``dyn_base`` are the static part: ``@cm_static_shared[off]`` (a module
    global of ``static_size`` bytes; none when 0). Offsets from ``dyn_base`` on are dynamic shared
    memory: ``threadgroup(0)[off - dyn_base]``. ``uses_dynamic``: the kernel or a device function it
    reaches takes the address of an ``extern .shared`` array (otherwise no offset can legitimately
    reach the dynamic part, and a computed offset resolves to the global without a run-time select;
    nvcc declares the extern array at module scope for every kernel of a file, so the declaration
    alone says nothing)."""

    static_size: int
    dyn_base: int
    uses_dynamic: bool


def _addresses_dynamic_shared(fn: N.Function) -> bool:
    for b in fn.blocks:
        for inst in b.insts:
            # %total_smem_size is the scratch's shared address: the legalizer's named-barrier words
            # (passes/legalize/rules/async_named_barrier.py) are addressed past the dynamic base
            if inst.op == "sreg" and inst.attrs.get("name") == "total_smem_size":
                return True
            if not fn.uses_dynamic_shared:
                continue
            for a in inst.args:
                # the IR records an extern shared array as (dynamic base, size 0)
                if isinstance(a, N.SymAddr) and a.space == "shared" and fn.shared_vars.get(a.name, (0, 0))[1] == 0:
                    return True
    return False


def shared_layout(kernel: N.Function, module: N.Module) -> SharedLayout:
    fns = reachable_functions(kernel, module)
    return SharedLayout(kernel.static_shared_size, metal_abi.dynamic_shared_base(kernel),
                        any(_addresses_dynamic_shared(f) for f in fns))


def reduction_scratch_offset(dynamic_shared: int) -> int:
    """Offset of the 16-byte bar.red scratch in the AIR threadgroup(0) buffer. The kernel computes
    it from launch_info word INFO_DYNAMIC_SMEM (INFO_TOTAL_SMEM keeps the MSL meaning, static +
    dynamic, which ``%total_smem_size`` reads)."""
    return (dynamic_shared + metal_abi.DYNAMIC_SHARED_ALIGN - 1) // metal_abi.DYNAMIC_SHARED_ALIGN \
        * metal_abi.DYNAMIC_SHARED_ALIGN


def air_threadgroup_bytes(kernel: N.Function, dynamic_shared: int) -> int:
    """Threadgroup memory length to set at index 0 for an AIR (``.metallib``) pipeline: the launch's
    dynamic shared memory, 16-byte aligned, then the reduction scratch (a multiple of 16, as Metal
    wants, and never 0: the binding is always in the signature). The static shared memory is the
    module global, which Metal allocates by itself. ``kernel`` is not needed for the length today;
    it keeps the call shaped like ``abi.shared_bytes``."""
    return reduction_scratch_offset(dynamic_shared) + metal_abi.REDUCTION_SCRATCH
