"""Modules and functions: loading PTX, finding kernels and globals, function attributes."""

from __future__ import annotations

import ctypes
import math
import os
import re
import sys
from typing import Any

import numpy as np

from cumetal.devices.compile import ModuleLoadError, compile_image
from cumetal.driver.enums import CUfunction_attribute, CUjit_option, CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import CUdeviceptr, CUfunction, CUmodule
from cumetal.driver.register_caps import maxnreg_by_entry
from cumetal.driver.state import STATE, FunctionRec, LoadedModule

R = CUresult
F = CUfunction_attribute
# A message that already starts with its own FILE:LINE:COL (a CUDA source line from .loc).
_LOCATED = re.compile(r"[^\s:][^:\n]*:\d+:\d+: ")

_LOAD_ERRORS = {
    "invalid_image": R.CUDA_ERROR_INVALID_IMAGE,
    "invalid_ptx": R.CUDA_ERROR_INVALID_PTX,
    "unsupported": R.CUDA_ERROR_NO_BINARY_FOR_GPU,
}


def _image_bytes(image: Any) -> bytes | str:
    if isinstance(image, str):
        return image
    if isinstance(image, int | np.integer) and not isinstance(image, bool):
        if int(image) == 0:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "image is NULL")
        return ctypes.string_at(int(image))  # a NUL-terminated PTX string at that address
    try:
        return np.frombuffer(image, dtype=np.uint8).tobytes()
    except (TypeError, ValueError, BufferError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"image must be PTX text (str/bytes), a buffer or an address; got {type(image).__name__}") from None


def _load(image: Any, filename: str, max_registers: int = 0) -> tuple:
    ctx = STATE.current()
    data = _image_bytes(image)
    try:
        ir_module = compile_image(data, filename)
    except ModuleLoadError as e:
        # compiler diagnostics already start with FILE:LINE:COL
        text = e.message if e.message.startswith(filename) or _LOCATED.match(e.message) else f"{filename}: {e.message}"
        raise CudaError(_LOAD_ERRORS[e.kind], text) from None
    if not ir_module.kernels and ir_module.failed:
        raise CudaError(R.CUDA_ERROR_INVALID_PTX, f"{filename}: no kernel could be compiled:\n" +
                        _failures_text(ir_module.failed))
    if ir_module.failed:
        print(f"cumetal: {filename}: these kernels cannot run (cuModuleGetFunction will return "
              f"CUDA_ERROR_NOT_SUPPORTED):\n{_failures_text(ir_module.failed)}", file=sys.stderr, flush=True)
    managed_names = managed_globals(data)
    try:
        img = ctx.device.load_module(ir_module)
    except MemoryError as e:
        raise CudaError(R.CUDA_ERROR_OUT_OF_MEMORY, str(e)) from None
    except ValueError as e:
        raise CudaError(R.CUDA_ERROR_INVALID_IMAGE, f"{filename}: {e}") from None
    registers = img.register_estimates()
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    for name, limit in maxnreg_by_entry(text).items():  # ptxas meets .maxnreg by spilling
        if name in registers and limit > 0:
            registers[name] = max(1, min(registers[name], limit))
    if max_registers > 0:  # cuModuleLoadDataEx's CU_JIT_MAX_REGISTERS
        registers = {name: max(1, min(n, max_registers)) for name, n in registers.items()}
    with STATE.lock:
        rec = LoadedModule(STATE.new_id(), ctx, img, registers=registers,
                           managed=dict(img.symbols[n] for n in managed_names if n in img.symbols),
                           ptx_version=_target_version(text))
        STATE.objects[rec.handle] = rec
        ctx.modules.add(rec.handle)
    if "__cumetal_devrt_info" in img.symbols:  # device code calls the device runtime API (cudacxx/devrt.py)
        from cumetal.cudacxx.devrt import fill_device_runtime_info  # noqa: PLC0415

        fill_device_runtime_info(CUmodule(rec.handle))
    return (CUmodule(rec.handle),)


# `.global .attribute(.managed) .align 4 .u32 name[4] = {...};`: a CUDA __managed__ variable
_MANAGED_DECL = re.compile(r"\.global\b[^;{]*?\.attribute\(\s*\.managed\s*\)[^;{=]*?([A-Za-z_$%][\w$]*)\s*(?:\[[^;]*)?(?:=|;)")


_TARGET = re.compile(r"^\s*\.target\s+(?:sm|compute)_(\d+)", re.M)


def _target_version(ptx: str) -> int:
    """The PTX's target architecture as CUDA's PTX_VERSION attribute counts it (``sm_60`` -> 60), 0 if none.
    CUB and Thrust pick their tuning by it and require it to be one of the architectures the program
    was compiled for (``cumetalc -arch=sm_60`` gives CUB's smaller sm_60 tiles)."""
    m = _TARGET.search(ptx[:4096])
    return int(m.group(1)) if m else 0


def managed_globals(ptx: bytes | str) -> set[str]:
    """Names of the module's managed globals (declared with ``.attribute(.managed)``)."""
    text = ptx.decode("utf-8", "replace") if isinstance(ptx, bytes) else ptx
    return {m.group(1) for m in _MANAGED_DECL.finditer(text)} if ".managed" in text else set()


def _failures_text(failed: dict) -> str:
    lines = []
    for name, diags in failed.items():
        lines.append(f"  kernel '{name}':")
        for d in diags:
            text = d.format() if hasattr(d, "format") else str(d)
            lines.extend(f"    {line}" for line in text.splitlines())
    return "\n".join(lines)


@api(1)
def cuModuleLoadData(image: Any) -> tuple:  # noqa: N802
    return _load(image, "<cuModuleLoadData>")


@api(1)
def cuModuleLoadDataEx(image: Any, numOptions: Any, options: Any, optionValues: Any) -> tuple:  # noqa: N802, N803
    """JIT options are accepted and ignored (there is no JIT log to fill: errors go to stderr)."""
    n = int(numOptions) if hasattr(numOptions, "__index__") else -1
    opts = list(options or [])
    vals = list(optionValues or [])
    if n < 0 or len(opts) != n or len(vals) != n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"numOptions={numOptions!r} but {len(opts)} options and {len(vals)} values given")
    limit = 0
    for o, v in zip(opts, vals, strict=True):
        try:
            CUjit_option(int(o))
        except (ValueError, TypeError):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{o!r} is not a CUjit_option") from None
        if int(o) == CUjit_option.CU_JIT_MAX_REGISTERS:
            limit = jit_int(v, "CU_JIT_MAX_REGISTERS")
    return _load(image, "<cuModuleLoadDataEx>", limit)


def jit_int(value: Any, what: str) -> int:
    """An integer JIT option value (an int, a ctypes integer or a handle-like ``int()``-able)."""
    try:
        return int(getattr(value, "value", value) or 0)
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an integer, got {type(value).__name__}") from None


@api(1)
def cuModuleLoad(fname: Any) -> tuple:  # noqa: N802
    STATE.current()
    if isinstance(fname, bytes):
        fname = os.fsdecode(fname)
    if not isinstance(fname, str | os.PathLike):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"fname must be a path, got {type(fname).__name__}")
    path = os.fspath(fname)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise CudaError(R.CUDA_ERROR_FILE_NOT_FOUND, f"{path}: no such file") from None
    except OSError as e:
        raise CudaError(R.CUDA_ERROR_FILE_NOT_FOUND, f"{path}: {e.strerror}") from None
    return _load(data, path)


@api(0)
def cuModuleUnload(hmod: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    rec = STATE.module(hmod)
    with STATE.lock:
        for fh in rec.functions.values():
            STATE.objects.pop(fh, None)
        STATE.objects.pop(rec.handle, None)
        rec.context.modules.discard(rec.handle)
    rec.context.device.unload_module(rec.image)
    return ()


def _name(name: Any) -> str:
    if isinstance(name, bytes):
        return name.decode("utf-8", "replace")
    if isinstance(name, str):
        return name
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"name must be str or bytes, got {type(name).__name__}")


@api(1)
def cuModuleGetFunction(hmod: Any, name: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    rec = STATE.module(hmod)
    n = _name(name)
    image = rec.image
    with STATE.lock:
        if n in rec.functions:
            return (CUfunction(rec.functions[n]),)
        kernel = image.kernel(n)
        if kernel is not None:
            fn = FunctionRec(STATE.new_id(), rec, kernel)
            STATE.objects[fn.handle] = fn
            rec.functions[n] = fn.handle
            return (CUfunction(fn.handle),)
    failed = image.failed_kernels()
    if n in failed:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, f"kernel '{n}' could not be compiled:\n" +
                        _failures_text({n: failed[n]}))
    raise CudaError(R.CUDA_ERROR_NOT_FOUND, f"no kernel named '{n}' in the module" + _missing_hint(n, image.kernel_names()))


def _missing_hint(name: str, kernels) -> str:
    """At most three likely names (a C++ kernel's mangled name, near misses), never the whole list."""
    import difflib

    names = list(kernels)
    if not names:
        return " (the module has no kernels)"
    close = [k for k in names if f"{len(name)}{name}" in k and k.startswith("_Z")]  # mangled C++ name
    close += [k for k in difflib.get_close_matches(name, names, 3, 0.6) if k not in close]
    hint = f"did you mean {' or '.join(repr(c) for c in close[:3])}? " if close else ""
    return f" ({hint}{len(names)} kernel(s) in the module)"


@api(2)
def cuModuleGetGlobal(hmod: Any, name: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    rec = STATE.module(hmod)
    n = _name(name)
    if n not in rec.image.symbols:
        raise CudaError(R.CUDA_ERROR_NOT_FOUND, f"no global named '{n}' in the module")
    addr, size = rec.image.symbols[n]
    return (CUdeviceptr(addr), size)


def max_threads(fn: FunctionRec) -> int:
    limit = STATE.device.info.max_threads_per_block
    for dims in (fn.kernel.reqntid, fn.kernel.maxntid):
        if dims:
            limit = min(limit, math.prod(dims))
    return limit


def max_dynamic_shared(fn: FunctionRec) -> int:
    """Dynamic shared bytes a launch of ``fn`` may ask for: what cuFuncSetAttribute opted in to (up to
    the device's opt-in maximum), else what the per-block limit leaves after the static shared memory."""
    total = STATE.device.info.shared_memory_per_block
    return fn.max_dynamic_shared or max(0, total - fn.kernel.static_shared_size)


def shared_memory_problem(fn: FunctionRec, dynamic: int) -> str | None:
    """Why a launch of ``fn`` with ``dynamic`` bytes of dynamic shared memory cannot run (None if it
    can): static + dynamic must fit the device's per-block limit, or the kernel's opted-in maximum."""
    info = STATE.device.info
    static = fn.kernel.static_shared_size
    if static > info.shared_memory_per_block:
        return (f"kernel '{fn.kernel.name}' declares {static} bytes of static shared memory; the device "
                f"allows {info.shared_memory_per_block} per block")
    if dynamic > max_dynamic_shared(fn):
        return (f"{dynamic} bytes of dynamic shared memory requested; {max_dynamic_shared(fn)} available "
                f"({static} static; {info.shared_memory_per_block} per block, "
                f"{info.shared_memory_per_block_optin} with cudaFuncAttributeMaxDynamicSharedMemorySize)")
    return None


@api(1)
def cuFuncGetAttribute(attrib: Any, hfunc: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    try:
        attr = F(int(attrib))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attrib!r} is not a CUfunction_attribute") from None
    fn = STATE.function(hfunc)
    k = fn.kernel
    cc = STATE.device.info.compute_capability
    values = {
        F.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: max_threads(fn),
        F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: k.static_shared_size,
        F.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: fn.module.image.const_bytes(),
        F.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: k.local_size,
        F.CU_FUNC_ATTRIBUTE_NUM_REGS: fn.module.registers.get(k.name, 1),  # ir/registers.py, capped in driver/register_caps.py
        F.CU_FUNC_ATTRIBUTE_PTX_VERSION: fn.module.ptx_version or cc[0] * 10 + cc[1],
        F.CU_FUNC_ATTRIBUTE_BINARY_VERSION: cc[0] * 10 + cc[1],
        F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: max_dynamic_shared(fn),
        F.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: -1,
    }
    if attr == F.CU_FUNC_ATTRIBUTE_MAX:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "CU_FUNC_ATTRIBUTE_MAX is not an attribute")
    return (int(values.get(attr, 0)),)


@api(0)
def cuFuncSetAttribute(hfunc: Any, attrib: Any, value: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    fn = STATE.function(hfunc)
    try:
        attr = F(int(attrib))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attrib!r} is not a CUfunction_attribute") from None
    v = int(value)
    if attr == F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        room = STATE.device.info.shared_memory_per_block_optin - fn.kernel.static_shared_size
        if not 0 <= v <= room:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"at most {room} bytes of dynamic shared memory fit")
        fn.max_dynamic_shared = v
    elif attr == F.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if not -1 <= v <= 100:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "carveout is a percentage (or -1)")
    elif attr not in (F.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, F.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
                      F.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, F.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                      F.CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attr.name} is read-only")
    return ()


@api(1)
def cuFuncGetName(hfunc: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    return (STATE.function(hfunc).kernel.name.encode(),)
