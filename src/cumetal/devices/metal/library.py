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

import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cumetal.backends.msl.printf import printf_formats
from cumetal.ir import Module as IRModule
from cumetal.devices.metal.bridge import Bridge

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

    raw = os.environ.get("CUMETAL_FP64", "").strip().lower() or "native"
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
        self.pipelines: dict[tuple[str, str], KernelPipeline] = {}

    def compile(self, module: IRModule) -> CompiledModule:
        mode = library_mode()
        if mode == "msl":
            key, library, names = self._msl(module)
        else:
            key, library, names = self._metallib(module)
        out = CompiledModule(mode, key, library, printf_formats=printf_formats(module))
        for kernel, fname in names.items():
            out.kernels[kernel] = self._pipeline(key, library, fname)
        return out

    def _msl(self, module: IRModule) -> tuple[str, Any, dict[str, str]]:
        from cumetal.backends.msl import EmitError, emit_module

        chosen = fp64_mode()
        # Unset CUMETAL_FP64: native doubles first (§8.1's default); when Metal rejects them, the
        # float-float emulation, said on stderr, rather than no module at all.
        modes = [chosen] if os.environ.get("CUMETAL_FP64", "").strip() else ["native", "emulate"]
        first_error = ""
        for mode in modes:
            try:
                emitted = emit_module(module, fp64=mode)
            except EmitError as e:
                raise LibraryError(f"cannot emit MSL: {e}") from None
            key = "msl-" + hashlib.sha256(emitted.source.encode()).hexdigest()
            library = self.libraries.get(key)
            if library is None:
                library, err = self.bridge.library_from_source(self.device, emitted.source)
                if library is None:
                    first_error = first_error or err
                    if not _uses_f64(module):
                        break
                    continue
                self.libraries[key] = library
            for w in emitted.warnings:
                print(f"cumetal: {module.filename}: {w}", file=sys.stderr, flush=True)
            if mode != modes[0]:
                print(f"cumetal: {module.filename}: Metal rejected native double; compiled with "
                      "CUMETAL_FP64=emulate (float-float, about 44 bits of mantissa)", file=sys.stderr, flush=True)
            return key, library, dict(emitted.kernel_names)
        raise LibraryError(f"Metal rejected the generated MSL:\n{first_error}")

    def _metallib(self, module: IRModule) -> tuple[str, Any, dict[str, str]]:
        from cumetal.backends.air.lower import AirLoweringError, compile_metallib

        try:
            data = compile_metallib(module)
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
