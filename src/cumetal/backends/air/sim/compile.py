"""JIT-compile one kernel's AIR module for the air-sim (cached by the module's bitcode hash)."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass

from cumetal.backends.air.air_schema_metadata import IntOp, parse_module_metadata
from cumetal.backends.air.lower import kernel_bitcode
from cumetal.backends.air.sim import runtime_lib
from cumetal.backends.air.sim.instrument import entry_wrapper, instrument
from cumetal.backends.msl import abi as metal_abi
from cumetal.ir import nodes as N

# Argument kinds understood by runtime.c (enum K_*)
K_PTR, K_TID, K_CTAID, K_NTID, K_NCTAID, K_TINDEX, K_LANE, K_WARP, K_SHARED = range(9)
BUILTIN_KINDS = {
    "air.thread_position_in_threadgroup": K_TID, "air.threadgroup_position_in_grid": K_CTAID,
    "air.threads_per_threadgroup": K_NTID, "air.threadgroups_per_grid": K_NCTAID,
    "air.thread_index_in_threadgroup": K_TINDEX, "air.thread_index_in_simdgroup": K_LANE,
    "air.simdgroup_index_in_threadgroup": K_WARP,
}
ROLE_OF_INDEX = {metal_abi.PARAMS_INDEX: "params", metal_abi.LAUNCH_INFO_INDEX: "launch_info",
                 metal_abi.PRINTF_INDEX: "printf", metal_abi.CONSTANT_INDEX: "constant"}
HELPERS = ("sim_check0", "sim_check1", "sim_check3", "sim_local", "sim_tick", "__extendhfsf2", "__truncsfhf2",
           "__truncdfhf2")


class SimCompileError(RuntimeError):
    """The AIR module cannot run on the air-sim (the message names what is missing)."""


@dataclass
class CompiledKernel:
    name: str
    engine: object  # llvmlite ExecutionEngine (keeps the code alive)
    entry: int
    arg_kinds: list[tuple[int, str | None]]  # (K_*, binding role for K_PTR)
    as3_ranges: list[tuple[int, int]]
    direct: bool  # no barrier or SIMD-group call: threads can run as plain calls, without fibers
    compile_s: float = 0.0


_lock = threading.Lock()
_cache: dict[bytes, CompiledKernel] = {}
_target_machine = None


def _tm():
    global _target_machine
    import llvmlite.binding as llvm

    if _target_machine is None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        _target_machine = target.create_target_machine(opt=2, codemodel="jitdefault")
    return _target_machine


def argument_kinds(text: str, kernel: str) -> list[tuple[int, str | None]]:
    """Read the kernel's ``!air.kernel`` argument tuples: what each parameter receives."""
    md = parse_module_metadata(text)
    for entry in md.named_tuples("air.kernel"):
        if not entry or getattr(entry[0], "name", None) != kernel:
            continue
        out = []
        for ref in md.node(entry[2]) or ():
            tup = md.node(ref) or ()
            kind = tup[1] if len(tup) > 1 else None
            if kind == "air.buffer":
                i = tup.index("air.location_index")
                loc = tup[i + 1].value if isinstance(tup[i + 1], IntOp) else -1
                j = tup.index("air.address_space")
                space = tup[j + 1].value if isinstance(tup[j + 1], IntOp) else -1
                if space == 3:
                    out.append((K_SHARED, None))
                elif loc in ROLE_OF_INDEX:
                    out.append((K_PTR, ROLE_OF_INDEX[loc]))
                else:
                    raise SimCompileError(f"kernel {kernel}: buffer index {loc} is not in the CuMetal ABI")
            elif kind in BUILTIN_KINDS:
                out.append((BUILTIN_KINDS[kind], None))
            else:
                raise SimCompileError(f"kernel {kernel}: argument kind {kind!r} is not supported by air-sim")
        return out
    raise SimCompileError(f"!air.kernel does not describe {kernel}")


def compile_kernel(kernel: N.Function, module: N.Module) -> CompiledKernel:
    import time

    import llvmlite.binding as llvm

    raw = kernel_bitcode(module, kernel.name)  # the very module the .metallib holds
    key = hashlib.sha256(raw).digest()
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            return hit
        t0 = time.perf_counter()
        air = llvm.parse_bitcode(raw)
        air_text = str(air)
        kinds = argument_kinds(air_text, kernel.name)
        fn = air.get_function(kernel.name)
        arg_types = [str(a.type) for a in fn.arguments]
        tm = _tm()
        text = instrument(air_text, tm.triple, str(tm.target_data)) + entry_wrapper(kernel.name, arg_types)
        host = llvm.parse_assembly(text)
        host.verify()
        runtime_lib.runtime()
        missing = []
        convergent = ("air.wg.barrier", "air.simdgroup.barrier", "air.simd_")
        direct = not any(f.is_declaration and f.name.startswith(convergent) for f in host.functions)
        for f in host.functions:
            if not f.is_declaration or f.name.startswith("llvm."):
                continue
            addr = runtime_lib.symbol_address(f.name)
            if addr is None:
                missing.append(f.name)
            else:
                llvm.add_symbol(f.name, addr)
        for name in HELPERS:
            addr = runtime_lib.symbol_address(name)
            if addr is not None:
                llvm.add_symbol(name, addr)
        if missing:
            raise SimCompileError(f"kernel {kernel.name}: air-sim has no implementation of {', '.join(missing)}")
        pto = llvm.create_pipeline_tuning_options(speed_level=2)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(host, pb)
        engine = llvm.create_mcjit_compiler(host, tm)
        engine.finalize_object()
        entry = engine.get_function_address("__sim_entry")
        as3 = []
        for g in host.global_variables:
            if str(g.type).startswith("ptr addrspace(3)"):
                lo = engine.get_global_value_address(g.name)
                as3.append((lo, lo + tm.target_data.get_abi_size(g.global_value_type)))
        if len(as3) > runtime_lib.MAX_AS3:  # CuMetal emits one (static shared memory); Apple's may have more
            raise SimCompileError(f"kernel {kernel.name}: {len(as3)} threadgroup globals, air-sim handles "
                                  f"{runtime_lib.MAX_AS3}")
        ck = CompiledKernel(kernel.name, engine, entry, kinds, as3, direct, time.perf_counter() - t0)
        _cache[key] = ck
        return ck
