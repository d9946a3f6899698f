"""JIT-compile one kernel's AIR module for the host (air-sim and cpu-jit).

The instrumented module is optimized and compiled to a native object once; the object is cached
in memory and on disk (``$CUMETAL_CACHE_DIR/air-sim/jit/<key>.o``, key = hash of the kernel's
AIR bitcode, the instrumentation, the runtime source, llvmlite and the host CPU), and each worker
thread of the runtime gets its own copy of it loaded (an MCJIT engine over the cached object: its
own threadgroup globals and check-site caches).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import os
import re
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from cumetal.backends.air.air_schema_metadata import IntOp, parse_module_metadata
from cumetal.backends.air.lower import kernel_bitcode
from cumetal.backends.air.sim import coroutine, runtime_lib, vectorize, wivector, workitem
from cumetal.backends.air.sim.instrument import ORDER, SITES, entry_wrapper, instrument, workgroup_function
from cumetal.backends.apple import abi as metal_abi
from cumetal.backends.common.codes import SimArgKind
from cumetal.ir import nodes as N

# Argument kinds understood by runtime.c (enum K_*)
K_PTR, K_TID, K_CTAID, K_NTID, K_NCTAID, K_TINDEX, K_LANE, K_WARP, K_SHARED = (int(k) for k in SimArgKind)  # codes.py
BUILTIN_KINDS = {
    "air.thread_position_in_threadgroup": K_TID, "air.threadgroup_position_in_grid": K_CTAID,
    "air.threads_per_threadgroup": K_NTID, "air.threadgroups_per_grid": K_NCTAID,
    "air.thread_index_in_threadgroup": K_TINDEX, "air.thread_index_in_simdgroup": K_LANE,
    "air.simdgroup_index_in_threadgroup": K_WARP,
}
ROLE_OF_INDEX = {metal_abi.PARAMS_INDEX: "params", metal_abi.LAUNCH_INFO_INDEX: "launch_info",
                 metal_abi.PRINTF_INDEX: "printf", metal_abi.CONSTANT_INDEX: "constant"}
HELPERS = ("sim_check0", "sim_slow1", "sim_slow3", "sim_local", "sim_watchdog", "sim_volatile_step", "sim_wait_point",
           "sim_enter", "sim_leave",
           "__extendhfsf2", "__truncsfhf2", "__truncdfhf2") + coroutine.RUNTIME_SYMBOLS
CACHE_FORMAT = "7"  # bump when the cached object's contract with runtime.c changes
SLP_MAX_LINES = 50_000  # IR lines above which the SLP vectorizer is off (CUB onesweep: 24.6k, compiles with it)
# A kernel whose instrumented module (before the work-item transform and the vectorized copies) has
# more lines than LARGE_LINES compiles cheaply (docs/cpu-backend.md "Compile time of large kernels"):
# without the vectorized copies (each is another copy of the body: they were 5.6x a kernel's compile
# time) and with the greedy register allocator's region growth capped at LARGE_SPLIT_BUDGET (LLVM's
# default 10000: its live-range splitting was most of the code generation of a 21k-line body), and
# without inlining the kernel into the threadgroup's thread loop (__sim_wg: a second copy of the body)
LARGE_LINES = 6000
LARGE_SPLIT_BUDGET = 100
_SPLIT_BUDGET_DEFAULT = 10_000  # LLVM's -grow-region-complexity-budget

_SOURCES = [Path(__file__).with_name(n) for n in ("instrument.py", "order.py", "coroutine.py", "compile.py",
                                                  "runtime.c", "vectorize.py", "workitem.py", "workitem.c",
                                                  "wivector.py")]


class SimCompileError(RuntimeError):
    """The AIR module cannot run on the air-sim (the message names what is missing)."""


@dataclass
class CompiledKernel:
    name: str
    obj: bytes  # the native object (what every worker's engine loads)
    externals: list[str]  # symbols the object needs from the runtime
    arg_kinds: list[tuple[int, str | None]]  # (K_*, binding role for K_PTR)
    as3_globals: list[tuple[str, int]]  # threadgroup globals: (name, bytes)
    nsites: int
    direct: bool  # no barrier or SIMD-group call: threads can run as plain calls, without fibers
    coro: bool = False  # barriers only, in the kernel's body: threads run as coroutines (coroutine.py)
    vector: bool = False  # direct, with an exact probe: __sim_wgv runs the vectorized loop (vectorize.py)
    wi: tuple[int, int, bool] | None = None  # work-item mode (workitem.py): (resume points, context bytes, steps)
    compile_s: float = 0.0
    from_disk: bool = False
    ranges: bool = False  # vector, and no threadgroup access: __sim_wgvn may run threadgroups in ranges
    wiv: bool = False  # work-item regions with vectorized copies (__sim_wrv; off with CUMETAL_JIT_WIVECTOR=0)
    large: bool = False  # over LARGE_LINES: compiled without vectorized copies, with cheaper register allocation
    engines: list = field(default_factory=list)  # per worker: (engine, module, SimEngine)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def engine_array(self, n: int):
        """A ctypes array of the first ``n`` workers' ``SimEngine`` records (cached)."""
        arrays = self.__dict__.setdefault("_arrays", {})
        if n not in arrays:
            from cumetal.backends.air.sim.runtime_lib import SimEngine

            arrays[n] = (SimEngine * n)(*[e for _, _, e in self.workers(n)])
        return arrays[n]

    def workers(self, n: int) -> list:
        """The first ``n`` workers' loaded copies (made on first use)."""
        with self.lock:
            while len(self.engines) < n:
                self.engines.append(_load(self))
            return self.engines[:n]


_lock = threading.Lock()
# Called after each compile and object load (LLVM used): libcumetal re-registers its exit handler
# there, so that it runs before the destructors of LLVM statics first used meanwhile (capi/bridge.py)
AFTER_LLVM_USE: list = []
_cache: dict[bytes, CompiledKernel] = {}
_by_function: OrderedDict[tuple, tuple[N.Function, N.Module, CompiledKernel]] = OrderedDict()
_stack: dict[tuple[int, int], tuple[N.Function, N.Module, int]] = {}
_BY_FUNCTION_MAX = 512
_target_machine = None
_source_digest: str | None = None
# Every MCJIT engine ever made stays alive: disposing one crashes llvmlite 0.50 (std::bad_alloc /
# segfault in the engine's destructor), and their number is bounded by the kernels x workers run.
_ENGINES: list[tuple] = []


def _tm():
    global _target_machine
    import llvmlite.binding as llvm

    if _target_machine is None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        _target_machine = target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                                       features=llvm.get_host_cpu_features().flatten(),
                                                       opt=3, codemodel="jitdefault")
    return _target_machine


def _digest() -> str:
    global _source_digest
    if _source_digest is None:
        import llvmlite

        h = hashlib.sha256(CACHE_FORMAT.encode() + llvmlite.__version__.encode())
        for p in _SOURCES:
            h.update(p.read_bytes())
        _source_digest = h.hexdigest()
    return _source_digest


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


def jit_cache_dir() -> Path:
    return runtime_lib.cache_dir() / "jit"


def _register_symbols(names) -> list[str]:
    """Point LLVM at the runtime's implementation of each name; the names it lacks."""
    import llvmlite.binding as llvm

    runtime_lib.runtime()
    missing = []
    for name in names:
        addr = runtime_lib.symbol_address(name)
        if addr is None:
            missing.append(name)
        else:
            llvm.add_symbol(name, addr)
    return missing


def _build(kernel: N.Function, module: N.Module, raw: bytes, vectors: bool = True) -> CompiledKernel:
    """Instrument, optimize and compile the kernel's AIR to a native object. ``vectors=False``:
    without the vectorized copies (vectorize.py, wivector.py), for small launches (compile_kernel)."""
    import llvmlite.binding as llvm

    t0 = time.perf_counter()
    # a context of its own: LLVM contexts are not thread-safe, and compiles run on the tiering's
    # background thread while stream workers load other kernels (_load) in theirs
    ctx = llvm.create_context()
    air = llvm.parse_bitcode(raw, context=ctx)
    air_text = str(air)
    kinds = argument_kinds(air_text, kernel.name)
    fn = air.get_function(kernel.name)
    arg_types = [str(a.type) for a in fn.arguments]
    tm = _tm()
    info_words = (0, metal_abi.INFO_PARAMS_ADDR + 2), (metal_abi.INFO_DYNAMIC_SMEM, metal_abi.INFO_NLOCKS + 1), \
        (metal_abi.INFO_HEADER_WORDS, metal_abi.INFO_HEADER_WORDS + 2 * len(module.globals))
    read_only = {"%cm_params": [(0, kernel.param_size)], "%cm_info": [(4 * a, 4 * b) for a, b in info_words]}
    text, nsites = instrument(air_text, tm.triple, str(tm.target_data), kernel.name, read_only,
                              checks=not _checks_off())
    text += entry_wrapper(kernel.name, arg_types)
    large = text.count("\n") > LARGE_LINES
    vectors = vectors and not large
    convergent = ("air.wg.barrier", "air.simdgroup.barrier", "air.simd_")
    declared = [ln.split("@", 1)[1].split("(", 1)[0].strip('"') for ln in air_text.splitlines()
                if ln.startswith("declare ")]
    direct = not any(d.startswith(convergent) for d in declared) and "call void @sim_volatile_step()" not in text \
        and "call void @sim_wait_point(" not in text
    coro = False
    vec = None
    if direct:
        wg = workgroup_function(kernel.name, arg_types, [k for k, _ in kinds], len(kinds))
        if large:  # the body once, called per thread: not a second copy inlined in the thread loop
            wg = wg.replace(") alwaysinline\n", ") noinline\n")
        text += wg
        deref = {i: (kernel.param_size if role == "params" else 4 * max(b for _, b in info_words))
                 for i, (k, role) in enumerate(kinds) if k == K_PTR and role in ("params", "launch_info")}
        vec = vectorize.vector_functions(text, kernel.name, arg_types, [k for k, _ in kinds], len(kinds),
                                         {i: n for i, n in deref.items() if n > 0}) if vectors else None
        text += vec or ""
    wi = None
    wiv_text = False
    if not direct and not _fibers_only() and _workitems_off() != "noworkitems":
        wk = workitem.workitem_kernel(text, kernel.name, arg_types, [k for k, _ in kinds],
                                      merged=not _merged_off())
        if wk is not None:
            try:  # a shape the transform got wrong must not stop the kernel: coroutines then
                host = llvm.parse_assembly(text + wk.text, context=ctx)
                host.verify()
                text += wk.text
                wi = (wk.nres, wk.ctx_bytes, wk.steps)
            except RuntimeError:
                wi = None
        if wi is not None and vectors and _workitems_off() == "wivector":
            extra = wivector.region_vector_functions(text, arg_types, [k for k, _ in kinds])
            try:  # a region shape wivector.py got wrong must not stop the kernel: __sim_wr then
                if extra:
                    with_extra = llvm.parse_assembly(text + extra, context=ctx)
                    with_extra.verify()
                    text, host, wiv_text = text + extra, with_extra, True
            except RuntimeError:
                pass
    if not direct and wi is None and not _fibers_only() and coroutine.eligible(text, kernel.name):
        text += coroutine.coroutine_kernel(text, kernel.name, arg_types, [k for k, _ in kinds])
        coro = True
    if wi is None:
        try:
            host = llvm.parse_assembly(text, context=ctx)
            host.verify()
        except RuntimeError:
            if not vec:
                raise
            # a kernel shape vectorize.py got wrong must not stop the kernel: the checked loop then
            text, vec = text[: len(text) - len(vec)], None
            host = llvm.parse_assembly(text, context=ctx)
            host.verify()
    externals = [f.name for f in host.functions if f.is_declaration and not f.name.startswith("llvm.")]
    missing = _register_symbols(externals)
    if missing:
        raise SimCompileError(f"kernel {kernel.name}: air-sim has no implementation of {', '.join(missing)}")
    _register_symbols(HELPERS)
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    # LLVM's SLP vectorizer never finished (15+ min) on CUB's DeviceHistogram::HistogramRange sweep
    # kernel once the work-item transform had made it 94k lines of IR; the largest kernels skip it
    pto.slp_vectorization = text.count("\n") <= SLP_MAX_LINES
    pb = llvm.create_pass_builder(tm, pto)
    _dump(kernel.name, text, None)  # before the pipeline too: a compile that takes too long can be profiled
    pb.getModulePassManager().run(host, pb)
    host = vectorize.after_optimization(host, ctx)  # the main path's non-temporal stores (no-op for most kernels)
    _dump(kernel.name, text, host)
    vector = direct and bool(vec) and vectorize.probe_is_pure(str(host.get_function(vectorize.PROBE)))
    wiv = wiv_text and vectorize.probe_is_pure(str(host.get_function(wivector.WRP)))
    ranges = vector and vectorize.RANGE in {f.name for f in host.functions} \
        and vectorize.probe_is_pure(str(host.get_function(vectorize.PROBE_RANGE))) \
        and vectorize.no_threadgroup_access(str(host.get_function(vectorize.RANGE)))
    as3 = [(g.name, tm.target_data.get_abi_size(g.global_value_type)) for g in host.global_variables
           if str(g.type).startswith("ptr addrspace(3)")]
    if len(as3) > runtime_lib.MAX_AS3:  # CuMetal emits one (static shared memory); Apple's may have more
        raise SimCompileError(f"kernel {kernel.name}: {len(as3)} threadgroup globals, air-sim handles "
                              f"{runtime_lib.MAX_AS3}")
    obj = _emit(tm, host, large)
    for hook in AFTER_LLVM_USE:
        hook()
    return CompiledKernel(kernel.name, obj, sorted(set(externals) | set(HELPERS)), kinds, as3, nsites, direct,
                          coro, vector, wi, time.perf_counter() - t0, ranges=ranges, wiv=wiv, large=large)


def _emit(tm, module, large: bool) -> bytes:
    """The native object; a large kernel's with the register allocator's region growth capped (an
    LLVM option read at each allocation, so set around this one code generation: under ``_lock``)."""
    import llvmlite.binding as llvm

    if not large:
        return tm.emit_object(module)
    llvm.set_option("", f"-grow-region-complexity-budget={LARGE_SPLIT_BUDGET}")
    try:
        return tm.emit_object(module)
    finally:
        llvm.set_option("", f"-grow-region-complexity-budget={_SPLIT_BUDGET_DEFAULT}")


def _dump(name: str, before: str, after) -> None:
    """``CUMETAL_JIT_DUMP=<dir>``: write the instrumented module and the optimized one (for profiling)."""
    where = os.environ.get("CUMETAL_JIT_DUMP", "").strip()
    if where:
        d = Path(where)
        d.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^\w.-]", "_", name)[:120]
        if after is None:
            (d / f"{safe}.in.ll").write_text(before)
        else:
            (d / f"{safe}.opt.ll").write_text(str(after))


def _load(ck: CompiledKernel) -> tuple:
    """One worker's copy: an MCJIT engine that loads the object (no code generation)."""
    import llvmlite.binding as llvm

    from cumetal.backends.air.sim.runtime_lib import SimEngine

    # under the compile lock: the target machine (_tm) is shared with compiles, which run on the
    # tiering's background thread while stream workers load kernels, and LLVM's code generator is
    # not thread-safe (NVIDIA's memMapIPCDrv failed LLVM assertions, SelectionDAG::setRoot and
    # MVT::getSizeInBits, on the tiered cpu backend; not shown to be this race)
    with _lock:
        _register_symbols(ck.externals)
        tm = _tm()
        # the code comes from the object; the module only names the target (a context of its own)
        module = llvm.parse_assembly("", context=llvm.create_context())
        module.triple, module.data_layout = tm.triple, str(tm.target_data)
        engine = llvm.create_mcjit_compiler(module, tm)
        obj = ck.obj
        notify, get = (lambda _m, _b: None), (lambda _m: obj)
        engine.set_object_cache(notify, get)
        engine.finalize_object()
        for hook in AFTER_LLVM_USE:
            hook()
    _ENGINES.append((engine, module, notify, get))
    eng = SimEngine()
    eng.entry = engine.get_function_address("__sim_entry")
    eng.wg = engine.get_function_address("__sim_wg") if ck.direct else 0
    # CUMETAL_JIT_VECTOR=0: the checked work-group loop only (to compare; docs/cpu-backend.md)
    vector_on = os.environ.get("CUMETAL_JIT_VECTOR", "").strip() != "0"
    eng.wgv = engine.get_function_address(vectorize.VECTOR) if ck.vector and vector_on else 0
    eng.wgvn = engine.get_function_address(vectorize.RANGE) if eng.wgv and ck.ranges and _ranges_on() else 0
    if ck.wi:
        eng.wr = engine.get_function_address(wivector.WRV if ck.wiv else workitem.WR)
        eng.wrs = engine.get_global_value_address(workitem.REACHES_STEP)
        eng.wnres, eng.wctx, eng.wsteps = ck.wi[0], ck.wi[1], int(ck.wi[2])
        eng.wxop = engine.get_global_value_address(workitem.EXCHANGE_OPS)
        eng.wxoff = ctypes.c_int64.from_address(engine.get_global_value_address(workitem.EXCHANGE_OFFSET)).value
    if ck.coro:
        eng.cstart = engine.get_function_address("__sim_cstart")
        eng.cresume = engine.get_function_address("__sim_cresume")
        eng.susp = engine.get_global_value_address(coroutine.SUSP)
    eng.sites = engine.get_global_value_address(SITES)
    eng.order = engine.get_global_value_address(ORDER)
    eng.nsites = max(ck.nsites, 1)
    for i, (name, size) in enumerate(ck.as3_globals):
        lo = engine.get_global_value_address(name)
        eng.as3_lo[i], eng.as3_hi[i] = lo, lo + size
    if not eng.entry or (ck.direct and not eng.wg) or (ck.coro and not (eng.cstart and eng.cresume and eng.susp)) or not eng.sites \
            or (ck.wi and not (eng.wr and eng.wrs and eng.wxop)):
        raise SimCompileError(f"kernel {ck.name}: the compiled object lacks its entry points")
    return engine, module, eng


def _disk_get(key: str) -> CompiledKernel | None:
    base = jit_cache_dir() / key
    try:
        meta = json.loads(base.with_suffix(".json").read_text())
        obj = base.with_suffix(".o").read_bytes()
        if hashlib.sha256(obj).hexdigest() != meta["obj_sha256"]:
            return None
        try:  # the cache is pruned least recently used first, by the object's mtime (cpu_jit_device)
            os.utime(base.with_suffix(".o"))
        except OSError:
            pass
        return CompiledKernel(meta["name"], obj, meta["externals"], [tuple(k) for k in meta["arg_kinds"]],
                              [tuple(g) for g in meta["as3_globals"]], meta["nsites"], meta["direct"],
                              meta["coro"], meta.get("vector", False),
                              tuple(meta["wi"]) if meta.get("wi") else None, from_disk=True,
                              ranges=meta.get("ranges", False), wiv=meta.get("wiv", False),
                              large=meta.get("large", False))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _disk_put(key: str, ck: CompiledKernel) -> None:
    d = jit_cache_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        meta = {"name": ck.name, "externals": ck.externals, "arg_kinds": ck.arg_kinds,
                "as3_globals": ck.as3_globals, "nsites": ck.nsites, "direct": ck.direct, "coro": ck.coro, "vector": ck.vector,
                "ranges": ck.ranges, "wiv": ck.wiv, "large": ck.large, "wi": list(ck.wi) if ck.wi else None,
                "obj_sha256": hashlib.sha256(ck.obj).hexdigest()}
        for suffix, data in ((".o", ck.obj), (".json", json.dumps(meta).encode())):
            tmp = d / f"{key}{suffix}.{os.getpid()}.{threading.get_ident()}.tmp"
            tmp.write_bytes(data)
            os.replace(tmp, d / f"{key}{suffix}")  # atomic: concurrent processes never see half a file
    except OSError:
        pass  # a read-only cache directory only costs the next process a compile


def vectors_for_launch(threads: int) -> bool:
    """Whether a launch of ``threads`` threads on the air-sim gets the vectorized copies compiled
    (``CUMETAL_JIT_VECTOR_THREADS``, default 16384; 0 = always). They are most of a kernel's compile
    time (the barrier-free sweep kernels: 5.6x, the barrier kernels: 2x, measured 2026-11-25) and
    pay off only over many threads; a kernel already compiled with them keeps them at any size."""
    return threads >= _vector_threads(os.environ.get("CUMETAL_JIT_VECTOR_THREADS", "").strip())


@functools.lru_cache(maxsize=8)
def _vector_threads(raw: str) -> int:
    """``CUMETAL_JIT_VECTOR_THREADS`` read (a bad value is reported once, the default used)."""
    try:
        limit = int(raw) if raw else 16384
    except ValueError:
        limit = -1
    if limit < 0:
        print(f"cumetal: CUMETAL_JIT_VECTOR_THREADS={raw!r} is not a thread count; using 16384",
              file=sys.stderr, flush=True)
        limit = 16384
    return limit


def compile_kernel(kernel: N.Function, module: N.Module, vectors: bool = True) -> CompiledKernel:
    """The compiled kernel (memory cache per Function, then by bitcode hash, then on disk).
    ``vectors=False`` (a small launch): the kernel without the vectorized copies, unless the
    process already holds it with them."""
    from cumetal.backends.air.fp64_check import fp64_mode

    # CUMETAL_FP64 picks the lowering (native/emulated f64); CUMETAL_JIT_FIBERS/CHECKS the instrumentation
    full = (id(kernel), id(module), fp64_mode(), _fibers_only(), _checks_off(), _workitems_off(), _merged_off())
    idents = (full,) if vectors else (full, full + ("novectors",))
    with _lock:
        for ident in idents:
            hit = _by_function.get(ident)
            if hit is not None and hit[0] is kernel and hit[1] is module:
                _by_function.move_to_end(ident)
                return hit[2]
    ident = idents[-1]
    key = _ir_key(kernel, module) + ("" if vectors else "-novectors")
    with _lock:
        ck = _cache.get(key.encode())
        if ck is None:
            ck = _disk_get(key)
            if ck is None:
                raw = kernel_bitcode(module, kernel.name)  # the very module the .metallib holds
                ck = _build(kernel, module, raw, vectors)
                _disk_put(key, ck)
            _cache[key.encode()] = ck
        _by_function[ident] = (kernel, module, ck)
        if len(_by_function) > _BY_FUNCTION_MAX:
            _by_function.popitem(last=False)
    return ck


def cached_kernel(kernel: N.Function, module: N.Module) -> CompiledKernel | None:
    """The compiled kernel when it is in the memory or disk cache, else None: compiles nothing
    (cpu-jit's tiering asks before choosing between the numpy engine and a compile)."""
    from cumetal.backends.air.fp64_check import fp64_mode

    ident = (id(kernel), id(module), fp64_mode(), _fibers_only(), _checks_off(), _workitems_off(), _merged_off())
    hit = _by_function.get(ident)
    if hit is not None and hit[0] is kernel and hit[1] is module:
        return hit[2]
    key = _ir_key(kernel, module)
    ck = _cache.get(key.encode()) or _disk_get(key)
    if ck is None:
        return None
    with _lock:
        ck = _cache.setdefault(key.encode(), ck)
        _by_function[ident] = (kernel, module, ck)
        if len(_by_function) > _BY_FUNCTION_MAX:
            _by_function.popitem(last=False)
    return ck


# What the AIR lowering of a kernel depends on besides the kernel IR: its code (these packages of
# cumetal) and the fp64 mode. The cache key hashes the IR text instead of the lowered bitcode so
# that a cached kernel is found without lowering it first.
_LOWERING_PACKAGES = ("backends/air", "backends/apple", "backends/common", "passes", "ir")
_lowering_digest: str | None = None


def _lowering_sources_digest() -> str:
    global _lowering_digest
    if _lowering_digest is None:
        root = Path(__file__).resolve().parents[3]  # src/cumetal
        h = hashlib.sha256()
        for pkg in _LOWERING_PACKAGES:
            for p in sorted((root / pkg).rglob("*")):
                if p.suffix in (".py", ".c", ".h") and p.is_file():
                    h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
        _lowering_digest = h.hexdigest()
    return _lowering_digest


def _ir_key(kernel: N.Function, module: N.Module) -> str:
    """The cache key of a kernel: its IR and its callees' (text), the module's globals, the fp64
    mode, the lowering's and this package's sources, llvmlite, the target and the host CPU."""
    from cumetal.backends.air.fp64_check import fp64_mode
    from cumetal.ir.analysis import reachable_functions
    from cumetal.ir.dump import dump_function

    tm = _tm()
    h = hashlib.sha256()
    for part in (_digest(), _lowering_sources_digest(), tm.triple, str(tm.target_data), _host_cpu(),
                 _fibers_only(), _checks_off(), _workitems_off(), _merged_off(), fp64_mode(), kernel.name,
                 repr(getattr(kernel, "reqntid", None)), repr(getattr(kernel, "maxntid", None))):
        h.update(part.encode() + b"\0")
    for g in module.globals.values():
        h.update(f"global {g.space} {g.name} size={g.size} align={g.align}\n".encode())
    for fn in reachable_functions(kernel, module):
        h.update(dump_function(fn).encode() + b"\0")
    return h.hexdigest()


def local_stack_bytes(kernel: N.Function, module: N.Module) -> int:
    """``lower_function.stack_bytes`` of the kernel (a call-graph walk: cached per Function)."""
    from cumetal.backends.air.lower_function import stack_bytes

    ident = (id(kernel), id(module))
    hit = _stack.get(ident)
    if hit is not None and hit[0] is kernel and hit[1] is module:
        return hit[2]
    size = stack_bytes(kernel, module)
    with _lock:
        if len(_stack) > _BY_FUNCTION_MAX:
            _stack.clear()
        _stack[ident] = (kernel, module, size)
    return size


def _fibers_only() -> str:
    """``CUMETAL_JIT_FIBERS=1``: barrier kernels keep fibers (the reference for coroutine mode)."""
    return "fibers" if os.environ.get("CUMETAL_JIT_FIBERS", "").strip() == "1" else ""


def _workitems_off() -> str:
    """``CUMETAL_JIT_WORKITEMS=0``: barrier kernels keep coroutine mode instead of work-item loops
    (workitem.py; the reference the work-item mode is tested against). Work-item regions get
    vectorized copies (wivector.py) unless ``CUMETAL_JIT_WIVECTOR=0`` (the checked ``__sim_wr``
    only: the reference the vectorized regions are tested against)."""
    if os.environ.get("CUMETAL_JIT_WORKITEMS", "").strip() == "0":
        return "noworkitems"
    return "nowivector" if os.environ.get("CUMETAL_JIT_WIVECTOR", "").strip() == "0" else "wivector"


def _merged_off() -> str:
    """``CUMETAL_JIT_MERGED=0``: a kernel whose work-item regions would be too large keeps fibers
    (workitem._merged off: the path such kernels took before, to compare)."""
    return "nomerged" if os.environ.get("CUMETAL_JIT_MERGED", "").strip() == "0" else ""


def _ranges_on() -> bool:
    """``CUMETAL_JIT_RANGES=0``: one call of the vectorized loop per threadgroup (vectorize.RANGE
    off; to compare)."""
    return os.environ.get("CUMETAL_JIT_RANGES", "").strip() != "0"


def _checks_off() -> str:
    """``CUMETAL_JIT_CHECKS=0``: compile without device/threadgroup bounds and alignment checks
    (faster; a bad access is no longer reported: see docs/cpu-backend.md)."""
    return "nochecks" if os.environ.get("CUMETAL_JIT_CHECKS", "").strip() == "0" else ""


def _host_cpu() -> str:
    import llvmlite.binding as llvm

    return llvm.get_host_cpu_name() + llvm.get_host_cpu_features().flatten()
