"""Context-independent loading (``cuLibrary*``, ``cuKernel*``) and more module/function queries.

A library keeps its image; it is loaded as an ordinary module into each context that asks for one of
its kernels (CUDA's lazy loading), so a ``CUkernel`` works in any context: ``cuKernelGetFunction``
answers the ``CUfunction`` of the current context. Wherever a ``CUfunction`` is accepted by the calls
added beside the core driver (``cuLaunchKernelEx``, occupancy…), a ``CUkernel`` is accepted too, as
in CUDA 12+.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from cumetal.driver import modules as _modules
from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUfunctionLoadingState, CUmoduleLoadingMode
from cumetal.driver.errors import CudaError, api, last_error_message
from cumetal.driver.handles import CUfunction, CUmodule
from cumetal.driver.handles_more import CUkernel, CUlibrary
from cumetal.driver.state import STATE, Context, FunctionRec, LoadedModule, handle_value

R = CUresult


@dataclass(eq=False)
class LibraryRec:
    handle: int
    image: Any  # what cuModuleLoadData accepts
    name: str
    modules: dict[int, int] = field(default_factory=dict)  # context handle -> module handle
    kernels: dict[str, int] = field(default_factory=dict)  # kernel name -> CUkernel handle


@dataclass(eq=False)
class KernelRec:
    handle: int
    library: LibraryRec
    name: str


def _ok(result: tuple) -> tuple:
    err, *rest = result
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, last_error_message())
    return tuple(rest)


def _library(value: Any) -> LibraryRec:
    return STATE.lookup(value, LibraryRec, CUlibrary, R.CUDA_ERROR_INVALID_HANDLE, "library")


def _kernel(value: Any) -> KernelRec:
    return STATE.lookup(value, KernelRec, CUkernel, R.CUDA_ERROR_INVALID_HANDLE, "kernel")


def module_in(lib: LibraryRec, ctx: Context) -> LoadedModule:
    """The library's module in ``ctx``, loaded on first use."""
    h = lib.modules.get(ctx.handle)
    if h is None or not isinstance(STATE.objects.get(h), LoadedModule):
        (mod,) = _modules._load(lib.image, lib.name)
        h = lib.modules[ctx.handle] = int(mod)
    return STATE.objects[h]


def resolve_function(f: Any) -> FunctionRec:
    """A CUfunction, or the current context's function for a CUkernel."""
    h = handle_value(f, CUfunction, "function") if not isinstance(f, CUkernel) else int(f)
    rec = STATE.objects.get(h)
    if isinstance(rec, KernelRec):
        mod = module_in(rec.library, STATE.current())
        (fn,) = _ok(_modules.cuModuleGetFunction(mod.handle, rec.name))
        return STATE.objects[int(fn)]
    return STATE.function(f)


def _options(n: Any, keys: Any, values: Any, what: str) -> None:
    count = int(n or 0)
    if len(list(keys or [])) < count or len(list(values or [])) < count:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: {count} options announced, fewer given")


def _new_library(image: Any, name: str) -> tuple:
    STATE.require_init()
    if not isinstance(image, str | bytes | bytearray | memoryview) and not hasattr(image, "__index__"):
        image = bytes(memoryview(image))
    rec = LibraryRec(STATE.new_id(), image, name)
    if STATE.stack():  # validate now when a context exists (CUDA reports bad images at load)
        module_in(rec, STATE.current())
    with STATE.lock:
        STATE.objects[rec.handle] = rec
    return (CUlibrary(rec.handle),)


@api(1)
def cuLibraryLoadData(code: Any, jitOptions: Any, jitOptionsValues: Any, numJitOptions: Any,  # noqa: N802, N803
                      libraryOptions: Any, libraryOptionValues: Any, numLibraryOptions: Any) -> tuple:  # noqa: N803
    _options(numJitOptions, jitOptions, jitOptionsValues, "jitOptions")
    _options(numLibraryOptions, libraryOptions, libraryOptionValues, "libraryOptions")
    return _new_library(code, "<cuLibraryLoadData>")


@api(1)
def cuLibraryLoadFromFile(fileName: Any, jitOptions: Any, jitOptionsValues: Any, numJitOptions: Any,  # noqa: N802, N803
                          libraryOptions: Any, libraryOptionValues: Any, numLibraryOptions: Any) -> tuple:  # noqa: N803
    _options(numJitOptions, jitOptions, jitOptionsValues, "jitOptions")
    _options(numLibraryOptions, libraryOptions, libraryOptionValues, "libraryOptions")
    path = os.fsdecode(fileName) if isinstance(fileName, bytes) else str(fileName)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise CudaError(R.CUDA_ERROR_FILE_NOT_FOUND, f"{path}: {e.strerror}") from None
    return _new_library(data, path)


@api(0)
def cuLibraryUnload(library: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    lib = _library(library)
    for mod in lib.modules.values():
        if isinstance(STATE.objects.get(mod), LoadedModule):
            _ok(_modules.cuModuleUnload(mod))
    with STATE.lock:
        for k in lib.kernels.values():
            STATE.objects.pop(k, None)
        STATE.objects.pop(lib.handle, None)
    return ()


def _kernel_names(lib: LibraryRec) -> list[str]:
    from cumetal.devices.compile import compile_image

    mod = lib.modules and STATE.objects.get(next(iter(lib.modules.values())))
    if isinstance(mod, LoadedModule):
        return mod.image.kernel_names()
    return list(compile_image(_modules._image_bytes(lib.image), lib.name).kernels)


@api(1)
def cuLibraryGetKernel(library: Any, name: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    lib = _library(library)
    n = _modules._name(name)
    with STATE.lock:
        if n not in lib.kernels:
            if n not in _kernel_names(lib):
                raise CudaError(R.CUDA_ERROR_NOT_FOUND, f"no kernel named '{n}' in the library")
            rec = KernelRec(STATE.new_id(), lib, n)
            STATE.objects[rec.handle] = rec
            lib.kernels[n] = rec.handle
    return (CUkernel(lib.kernels[n]),)


@api(1)
def cuLibraryGetKernelCount(lib: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    return (len(_kernel_names(_library(lib))),)


@api(1)
def cuLibraryEnumerateKernels(numKernels: Any, lib: Any) -> tuple:  # noqa: N802, N803
    rec = _library(lib)
    names = _kernel_names(rec)[: int(numKernels)]
    return ([_ok(cuLibraryGetKernel(rec.handle, n))[0] for n in names],)


@api(1)
def cuLibraryGetModule(library: Any) -> tuple:  # noqa: N802
    return (CUmodule(module_in(_library(library), STATE.current()).handle),)


@api(2)
def cuLibraryGetGlobal(library: Any, name: Any) -> tuple:  # noqa: N802
    mod = module_in(_library(library), STATE.current())
    return _ok(_modules.cuModuleGetGlobal(mod.handle, name))


@api(2)
def cuLibraryGetManaged(library: Any, name: Any) -> tuple:  # noqa: N802
    mod = module_in(_library(library), STATE.current())
    return _ok(_modules.cuModuleGetGlobal(mod.handle, name))  # managed and device memory are one here


@api(1)
def cuLibraryGetUnifiedFunction(library: Any, symbol: Any) -> tuple:  # noqa: N802
    raise CudaError(R.CUDA_ERROR_NOT_FOUND, "there are no unified functions in PTX libraries")


@api(1)
def cuKernelGetFunction(kernel: Any) -> tuple:  # noqa: N802
    STATE.current()
    _kernel(kernel)
    return (CUfunction(resolve_function(CUkernel(int(kernel))).handle),)


@api(1)
def cuKernelGetName(hfunc: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    return (_kernel(hfunc).name.encode(),)


@api(1)
def cuKernelGetLibrary(kernel: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    return (CUlibrary(_kernel(kernel).library.handle),)


@api(1)
def cuKernelGetAttribute(attrib: Any, kernel: Any, dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    fn = resolve_function(CUkernel(int(_kernel(kernel).handle)))
    return _ok(_modules.cuFuncGetAttribute(attrib, fn.handle))


@api(0)
def cuKernelSetAttribute(attrib: Any, val: Any, kernel: Any, dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    fn = resolve_function(CUkernel(int(_kernel(kernel).handle)))
    return _ok(_modules.cuFuncSetAttribute(fn.handle, attrib, val))


@api(0)
def cuKernelSetCacheConfig(kernel: Any, config: Any, dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    _kernel(kernel)
    return ()  # no L1/shared split to choose on this device


def _params(fn: FunctionRec) -> list[tuple[int, int]]:
    """(offset, size) of each kernel parameter."""
    return [(int(p.offset), int(p.size)) for p in fn.kernel.params]


@api(2)
def cuKernelGetParamInfo(kernel: Any, paramIndex: Any) -> tuple:  # noqa: N802, N803
    return _param_info(resolve_function(CUkernel(int(_kernel(kernel).handle))), paramIndex)


@api(2)
def cuFuncGetParamInfo(func: Any, paramIndex: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    return _param_info(resolve_function(func), paramIndex)


def _param_info(fn: FunctionRec, index: Any) -> tuple:
    params = _params(fn)
    i = int(index)
    if not 0 <= i < len(params):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"paramIndex {i}: the kernel has {len(params)} parameters")
    return params[i]


@api(1)
def cuKernelGetParamCount(kernel: Any) -> tuple:  # noqa: N802
    return (len(_params(resolve_function(CUkernel(int(_kernel(kernel).handle))))),)


@api(1)
def cuFuncGetParamCount(func: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    return (len(_params(resolve_function(func))),)


@api(1)
def cuFuncGetModule(hfunc: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    return (CUmodule(STATE.function(hfunc).module.handle),)


@api(1)
def cuFuncIsLoaded(function: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    STATE.function(function)
    return (CUfunctionLoadingState.CU_FUNCTION_LOADING_STATE_LOADED,)


@api(0)
def cuFuncLoad(function: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    STATE.function(function)
    return ()


@api(0)
def cuFuncSetCacheConfig(hfunc: Any, config: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    STATE.function(hfunc)
    return ()  # no L1/shared split to choose on this device


@api(0)
def cuFuncSetSharedMemConfig(hfunc: Any, config: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    STATE.function(hfunc)
    return ()


@api(1)
def cuModuleGetLoadingMode() -> tuple:  # noqa: N802
    STATE.require_init()
    return (CUmoduleLoadingMode.CU_MODULE_EAGER_LOADING,)  # PTX is compiled when the module is loaded


@api(1)
def cuModuleGetFunctionCount(mod: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    return (len(STATE.module(mod).image.kernel_names()),)


@api(1)
def cuModuleEnumerateFunctions(numFunctions: Any, mod: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    rec = STATE.module(mod)
    names = rec.image.kernel_names()[: int(numFunctions)]
    return ([_ok(_modules.cuModuleGetFunction(rec.handle, n))[0] for n in names],)


