"""Kernel IR -> an ``MTLLibrary`` and one ``MTLComputePipelineState`` per kernel.

``CUMETAL_METAL_LIBRARY`` picks the path: ``msl`` (default) emits Metal Shading Language and
compiles it with ``newLibraryWithSource:options:error:`` (fast math off); ``metallib`` writes
CuMetal's own AIR ``.metallib`` and loads it. The metallib goes through a file and
``newLibraryWithURL:error:``: ``newLibraryWithData:error:`` wants a ``dispatch_data_t``, which
PyObjC only builds with pyobjc-framework-libdispatch, a dependency not worth adding for this.
Libraries are cached by the hash of their source (MSL text or metallib bytes), pipelines by
(hash, function name), so loading the same PTX twice compiles nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cumetal.backends.apple.printf_ring import printf_formats
from cumetal.devices.metal.bridge import FENCE_MACOS, MSL_3_2, MSL_VERSION_NAMES, Bridge
from cumetal.ir import Module as IRModule
from cumetal.ir import nodes as N

LIBRARY_MODES = ("msl", "metallib")
SIMD_WIDTH = 32


class LibraryError(ValueError):
    """The module cannot become a Metal library (the driver reports CUDA_ERROR_INVALID_IMAGE)."""


def library_mode() -> str:
    raw = os.environ.get("CUMETAL_METAL_LIBRARY", "").strip().lower() or "msl"
    if raw not in LIBRARY_MODES:
        raise LibraryError(f"CUMETAL_METAL_LIBRARY={raw!r}: expected one of {', '.join(LIBRARY_MODES)}")
    return raw


def fp64_mode() -> str:
    from cumetal.backends.msl.fp64 import FP64_MODES

    raw = os.environ.get("CUMETAL_FP64", "").strip().lower() or "emulate"  # Apple GPUs reject double
    if raw not in FP64_MODES:
        raise LibraryError(f"CUMETAL_FP64={raw!r}: expected one of {', '.join(FP64_MODES)}")
    return raw


@dataclass
class KernelPipeline:
    function_name: str  # the Metal function's name
    pipeline: Any = None
    max_threads: int = 0
    error: str = ""  # why no pipeline could be made


@dataclass
class CompiledModule:
    mode: str
    key: str  # hash of the library source
    library: Any
    kernels: dict[str, KernelPipeline] = field(default_factory=dict)  # IR kernel name ->
    printf_formats: list[bytes] = field(default_factory=list)


def _needs_msl_3_2(kernel: N.Function, module: IRModule) -> bool:
    """Whether the kernel's MSL uses atomic_thread_fence with a scope (membar/fence, bar.arrive, the
    device heap's allocator), which needs MSL 3.2 (macOS 15)."""
    from cumetal.ir.analysis import reachable_functions

    return any(inst.op in ("membar", "malloc", "free")  # malloc/free: the device heap's allocator fences
               or (inst.op == "barrier" and inst.attrs.get("kind") == "arrive")
               for fn in reachable_functions(kernel, module) for b in fn.blocks for inst in b.insts)


def _as_emitted(module: IRModule) -> IRModule:
    """The IR the MSL emitter receives (ModuleEmitter prepares it: the device heap linked in, the
    legalizer's rules applied). Those steps make fences of their own (mbarrier waits, bulk and
    tensor copies, the heap's lock), so the PTX alone does not say which kernels need MSL 3.2."""
    from cumetal.backends.msl import EmitError
    from cumetal.backends.msl.emit import ModuleEmitter

    try:
        return ModuleEmitter(module, fp64_mode()).module
    except EmitError:  # the emitter refuses such a module with its own message
        return module


def fence_refusals(module: IRModule, language_version: int) -> dict[str, str]:
    """Kernels that need a newer MSL than this macOS has (fences need MSL 3.2, macOS 15)."""
    if language_version >= MSL_3_2:
        return {}
    have = MSL_VERSION_NAMES.get(language_version, hex(language_version))
    emitted = _as_emitted(module)
    return {name: (f"it uses a memory fence (membar/fence/bar.arrive, or an mbarrier or asynchronous copy, "
                   f"which are fences on Metal), which needs MSL 3.2 (macOS {FENCE_MACOS} or later); "
                   f"this Mac has MSL {have}")
            for name, kernel in emitted.kernels.items() if name in module.kernels and _needs_msl_3_2(kernel, emitted)}


def emit_refusals(module: IRModule, skip: dict[str, str]) -> dict[str, str]:
    """Kernels the MSL back end refuses on their own (recursion of any shape gets an explicit stack,
    backends/apple/recursion.py, so what remains is what MSL cannot express). Only asked after the whole module failed to emit; the
    other kernels are then built without them, so one bad kernel never costs the rest (as under
    msl-sim)."""
    from cumetal.backends.msl import EmitError, emit_module

    refused: dict[str, str] = {}
    for name in module.kernels:
        if name in skip:
            continue
        try:
            emit_module(_without(module, {n: "" for n in module.kernels if n != name}), fp64=fp64_mode())
        except EmitError as e:
            refused[name] = f"the MSL back end refuses it: {e}"
    return refused


class _EmitFailed(LibraryError):
    """emit_module refused the module (some kernel cannot be expressed in MSL)."""


def _without(module: IRModule, kernels: dict[str, str]) -> IRModule:
    if not kernels:
        return module
    return dataclasses.replace(module, kernels={k: v for k, v in module.kernels.items() if k not in kernels})


def _uses_f64(module: IRModule) -> bool:
    fns = [*module.kernels.values(), *module.functions.values()]
    return any(getattr(v, "type", None) == "f64" for fn in fns for b in fn.blocks for inst in b.insts
               for v in (*inst.dsts, *inst.args))


def _cache_dir() -> Path:
    root = os.environ.get("CUMETAL_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "cumetal")
    return Path(root) / "metallib"


class LibraryCache:
    """Process-wide libraries and pipelines of one Metal device."""

    def __init__(self, bridge: Bridge, device: Any) -> None:
        self.bridge = bridge
        self.device = device
        self.libraries: dict[str, Any] = {}
        self.rejected: dict[str, str] = {}  # source hash -> Metal's error (not compiled again)
        self.pipelines: dict[tuple[str, str], KernelPipeline] = {}

    def compile(self, module: IRModule) -> CompiledModule:
        mode = library_mode()
        refused: dict[str, str] = {}
        if mode == "msl":
            refused = fence_refusals(module, self.bridge.factory.language_version)
            try:
                self._all_refused(module, refused)
                key, library, names, formats = self._msl(_without(module, refused))
            except _EmitFailed as e:
                refused.update(emit_refusals(module, refused))
                if not refused:
                    raise LibraryError(str(e)) from None
                self._all_refused(module, refused)
                key, library, names, formats = self._msl(_without(module, refused))
        else:
            self._metallib_supported()
            refused = self._metallib_refused(module)
            if len(refused) == len(module.kernels):
                raise LibraryError("\n".join(refused.values()))
            key, library, names = self._metallib(_without(module, refused))
            formats = printf_formats(module)
        out = CompiledModule(mode, key, library, printf_formats=formats)
        for kernel, fname in names.items():
            out.kernels[kernel] = self._pipeline(key, library, fname)
        for kernel, why in refused.items():
            out.kernels[kernel] = KernelPipeline("", error=why)
        return out

    @staticmethod
    def _all_refused(module: IRModule, refused: dict[str, str]) -> None:
        if refused and len(refused) == len(module.kernels):
            reasons = "\n".join(f"  kernel '{k}': {why}" for k, why in refused.items())
            raise LibraryError(f"no kernel of {module.filename} can run on Metal:\n{reasons}")

    def _msl(self, module: IRModule) -> tuple[str, Any, dict[str, str], list[bytes]]:
        from cumetal.backends.msl import EmitError, emit_module

        # fp64: emulated unless CUMETAL_FP64 asks for native doubles (which Apple GPUs reject: the
        # error then names the mode). A source Metal rejected is remembered, not compiled again.
        mode = fp64_mode()
        try:
            emitted = emit_module(module, fp64=mode)
        except EmitError as e:
            raise _EmitFailed(f"cannot emit MSL: {e}") from None
        key = "msl-" + hashlib.sha256(emitted.source.encode()).hexdigest()
        library = self.libraries.get(key)
        if library is None:
            err = self.rejected.get(key)
            if err is None:
                library, err = self.bridge.library_from_source(self.device, emitted.source)
            if library is None:
                self.rejected[key] = err
                hint = "" if mode == "emulate" or not _uses_f64(module) else (
                    "\n(Apple GPUs have no double: unset CUMETAL_FP64 to emulate fp64)")
                raise LibraryError(f"Metal rejected the generated MSL (CUMETAL_FP64={mode}):\n{err}{hint}")
            self.libraries[key] = library
        for w in emitted.warnings:
            print(f"cumetal: {module.filename}: {w}", file=sys.stderr, flush=True)
        return key, library, dict(emitted.kernel_names), list(emitted.printf_formats)

    def _metallib_supported(self) -> None:
        """CuMetal's .metallib states an MSL version and a macOS deployment target (AirVersions:
        MSL 3.1, macOS 14.0); Metal refuses a library whose target is newer than the OS ("This
        library is using a deployment target ... that is not supported on this OS")."""
        from cumetal.backends.air.lower import DEFAULT_VERSIONS

        msl = (DEFAULT_VERSIONS.msl[0] << 16) | DEFAULT_VERSIONS.msl[1]
        have = self.bridge.factory.language_version
        if have < msl:
            want = ".".join(map(str, DEFAULT_VERSIONS.msl))
            raise LibraryError(
                f"CUMETAL_METAL_LIBRARY=metallib needs macOS {DEFAULT_VERSIONS.macos[0]} or later: CuMetal's "
                f".metallib targets MSL {want} and macOS {'.'.join(map(str, DEFAULT_VERSIONS.macos))}, and this "
                f"Mac has MSL {MSL_VERSION_NAMES.get(have, hex(have))}; unset CUMETAL_METAL_LIBRARY to compile MSL "
                "(macOS 13 or later)")

    def _metallib_refused(self, module: IRModule) -> dict[str, str]:
        """Kernels whose f64 code cannot be emulated (an f64 operation without an emulation rule);
        none under CUMETAL_FP64=native (Metal itself then rejects double)."""
        from cumetal.backends.air.fp64_check import emulation_refusals

        if fp64_mode() != "emulate":
            return {}
        return emulation_refusals(module)

    def _metallib(self, module: IRModule) -> tuple[str, Any, dict[str, str]]:
        from cumetal.backends.air.lower import AirLoweringError, compile_metallib

        try:
            data = compile_metallib(module, fp64=fp64_mode())
        except AirLoweringError as e:
            raise LibraryError(f"cannot lower to AIR: {e}") from None
        digest = hashlib.sha256(data).hexdigest()
        key = "metallib-" + digest
        library = self.libraries.get(key)
        if library is None:
            path = _cache_dir() / f"{digest}.metallib"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as fh:
                    fh.write(data)
                os.replace(fh.name, path)  # atomic publish into the cache
            library, err = self.bridge.library_from_file(self.device, str(path))
            if library is None:
                raise LibraryError(f"Metal rejected the .metallib ({path}):\n{err}")
            self.libraries[key] = library
        return key, library, {name: name for name in module.kernels}

    def _pipeline(self, key: str, library: Any, fname: str) -> KernelPipeline:
        hit = self.pipelines.get((key, fname))
        if hit is not None:
            return hit
        kp = KernelPipeline(fname)
        function = self.bridge.function(library, fname)
        if function is None:
            kp.error = f"the library has no function '{fname}'"
        else:
            pso, err = self.bridge.pipeline(self.device, function)
            if pso is None:
                kp.error = f"Metal could not build the pipeline of '{fname}': {err}"
            elif (width := self.bridge.execution_width(pso)) != SIMD_WIDTH:
                # §7: warp size 32 is compiled into every kernel; another width cannot run them
                kp.error = (f"pipeline '{fname}' has threadExecutionWidth {width}, not {SIMD_WIDTH}: this GPU "
                            "cannot run CuMetal kernels; please file a CuMetal issue")
            else:
                kp.pipeline = pso
                kp.max_threads = self.bridge.max_total_threads(pso)
        self.pipelines[(key, fname)] = kp
        return kp
