"""Execution control: libraries and registered kernels, launches, function attributes, occupancy.

Kernels are named by a **kernel handle** (``cudaKernel_t``/``cudaFunction_t``) from
``cudaLibraryGetKernel``, from :func:`register_function` (what compiled host code registers), or by
the **host stub address** given at registration (what ``cudaLaunchKernel(func, ...)`` receives
from C); a driver ``CUfunction`` is accepted too.
"""

from __future__ import annotations

import math
import os
import threading
from typing import Any

from cumetal.driver import launch as dlaunch
from cumetal.driver import modules as dmod
from cumetal.driver.enums import CUfunction_attribute
from cumetal.driver.state import STATE as DRIVER
from cumetal.driver.state import FunctionRec
from cumetal.runtime.device import enum_arg, int_arg
from cumetal.runtime.enums import (
    cudaError_t,
    cudaFuncAttribute,
    cudaFuncCache,
    cudaOccupancyDisableCachingOverride,
    cudaSharedMemConfig,
)
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.state import RUNTIME, KernelRec, LibraryRec, VarRec, raw
from cumetal.runtime.types import cudaFuncAttributes, cudaKernel_t, cudaLibrary_t, dim3

E = cudaError_t
F = CUfunction_attribute


# ---------------------------------------------------------------- registration (the C ABI's entry points)
def register_module(image: bytes | str, name: str = "") -> int:
    """Register a PTX image (``__cudaRegisterFatBinary``); it is compiled on first use. Returns a
    library handle for :func:`register_function`/:func:`register_variable`."""
    if isinstance(image, memoryview | bytearray):
        image = bytes(image)
    lib = LibraryRec(RUNTIME.new_id(), image, name or "<registered module>")
    with RUNTIME.lock:
        RUNTIME.libraries[lib.handle] = lib
    return lib.handle


def register_function(library: int, host_address: int, device_name: str | bytes) -> int:
    """``__cudaRegisterFunction``: the kernel ``device_name`` of ``library``, launched through
    ``host_address`` (the host stub). Returns its kernel handle (also accepted by cudaLaunchKernel)."""
    lib = _library(library)
    name = device_name.decode() if isinstance(device_name, bytes) else str(device_name)
    with RUNTIME.lock:
        for k in RUNTIME.kernels.values():
            if k.library is lib and k.name == name:
                break
        else:
            k = KernelRec(RUNTIME.new_id(), lib, name)
            RUNTIME.kernels[k.handle] = k
        if host_address:
            RUNTIME.host_functions[int(host_address)] = k
    return k.handle


def register_variable(library: int, host_address: int, device_name: str | bytes, size: int, *,
                      constant: bool = False, managed: bool = False, host_storage: bool = False) -> None:
    """``__cudaRegisterVar``/``__cudaRegisterManagedVar``: the host shadow ``host_address`` names the
    module global ``device_name`` (``cudaMemcpyToSymbol(&var, ...)``, ``cudaGetSymbolAddress``).

    ``host_storage``: the variable is a clang-built ``__managed__`` one, whose host code reads and
    writes the shadow itself (clang has no managed variables in CUDA mode): the module global is
    placed at ``host_address`` when the module loads, so host and kernels share one storage."""
    lib = _library(library)
    name = device_name.decode() if isinstance(device_name, bytes) else str(device_name)
    with RUNTIME.lock:
        RUNTIME.variables[int(host_address)] = VarRec(lib, name, int(size), constant, managed or host_storage,
                                                      host_storage)


def unregister_module(library: int) -> None:
    """``__cudaUnregisterFatBinary``: forget the module (its device copy goes with the context)."""
    with RUNTIME.lock:
        lib = RUNTIME.libraries.pop(int(library), None)
        if lib is None:
            return
        for table in (RUNTIME.kernels, RUNTIME.host_functions, RUNTIME.variables):
            for key in [k for k, v in table.items() if v.library is lib]:
                del table[key]


_config = threading.local()


def push_call_configuration(grid: Any, block: Any, shared_mem: int = 0, stream: Any = 0) -> int:
    """``__cudaPushCallConfiguration`` (``kernel<<<grid, block, shared, stream>>>``); returns 0."""
    stack = getattr(_config, "stack", None)
    if stack is None:
        stack = _config.stack = []
    stack.append((_dims(grid, "gridDim"), _dims(block, "blockDim"), int(shared_mem), stream))
    return 0


def pop_call_configuration() -> tuple[tuple[int, int, int], tuple[int, int, int], int, Any]:
    """``__cudaPopCallConfiguration``: ``(grid, block, shared_mem, stream)``; ((1,1,1),(1,1,1),0,0) if none."""
    stack = getattr(_config, "stack", None)
    if not stack:
        return ((1, 1, 1), (1, 1, 1), 0, 0)
    return stack.pop()


def launch_packed(func: int, grid_x: int, grid_y: int, grid_z: int, block_x: int, block_y: int, block_z: int,
                  args: int, shared_mem: int, stream: int) -> int:
    """Flat form of cudaLaunchKernel for C: ``args`` is the address of the ``void*`` argument array.
    Returns the cudaError_t as an int (and sets the thread's last error like cudaLaunchKernel)."""
    return int(cudaLaunchKernel(func, (grid_x, grid_y, grid_z), (block_x, block_y, block_z), args,
                                shared_mem, stream)[0])


def _library(library: Any) -> LibraryRec:
    try:
        h = int(library)
    except (TypeError, ValueError):
        raise RtError(E.cudaErrorInvalidResourceHandle, f"library: expected cudaLibrary_t, got {type(library).__name__}") from None
    lib = RUNTIME.libraries.get(h)
    if lib is None:
        raise RtError(E.cudaErrorInvalidResourceHandle, f"library {hex(h)} is not loaded")
    return lib


def kernel_function(func: Any) -> int:
    """The driver CUfunction handle of a kernel argument (see module doc)."""
    if func is None or isinstance(func, bool | str | bytes | float):
        raise RtError(E.cudaErrorInvalidDeviceFunction, f"func: expected a kernel handle, got {func!r}")
    try:
        h = int(func)
    except (TypeError, ValueError):
        raise RtError(E.cudaErrorInvalidDeviceFunction, f"func: expected a kernel handle, got {type(func).__name__}") from None
    k = RUNTIME.kernels.get(h) or RUNTIME.host_functions.get(h)
    if k is not None:
        # (a launch's common case: the kernel's module is loaded in the current context)
        fh, lib = k.function, k.library
        if (fh and lib.module and lib.context is RUNTIME.ensure() and DRIVER.objects.get(lib.module) is not None
                and type(DRIVER.objects.get(fh)) is FunctionRec):
            return fh
        return RUNTIME.kernel_function(k)
    if isinstance(DRIVER.objects.get(h), FunctionRec):
        return h
    if h == 0:
        raise RtError(E.cudaErrorInvalidDeviceFunction, "func is NULL")
    # CUDA 12+ takes a cudaKernel_t wherever a kernel's host function is due, so an address that is
    # neither is an invalid handle (an H100 with CUDA 13 answers 400: tests/programs/data/bad_pointers.h100.txt)
    raise RtError(E.cudaErrorInvalidResourceHandle, f"func {hex(h)} is neither a registered kernel nor a kernel handle")


def _function_rec(func: Any) -> FunctionRec:
    return DRIVER.objects[kernel_function(func)]


# ---------------------------------------------------------------- libraries (cuda-python's runtime loading path)
def _load(image: Any, name: str) -> cudaLibrary_t:
    if isinstance(image, memoryview | bytearray):
        image = bytes(image)
    lib = LibraryRec(RUNTIME.new_id(), image, name)
    RUNTIME.load_library(lib)  # compile now: errors belong to the load call
    with RUNTIME.lock:
        RUNTIME.libraries[lib.handle] = lib
    return cudaLibrary_t(lib.handle)


@rt_api(1)
def cudaLibraryLoadData(code: Any, jitOptions: Any = None, jitOptionsValues: Any = None, numJitOptions: Any = 0,  # noqa: N802, N803
                        libraryOptions: Any = None, libraryOptionValues: Any = None, numLibraryOptions: Any = 0) -> tuple:  # noqa: N803
    """Options are validated for count and otherwise ignored."""
    for opts, vals, n in ((jitOptions, jitOptionsValues, numJitOptions),
                          (libraryOptions, libraryOptionValues, numLibraryOptions)):
        if len(list(opts or [])) != int_arg(n, "numOptions") or len(list(vals or [])) != int(n):
            raise RtError(E.cudaErrorInvalidValue, "option lists do not match their counts")
    if isinstance(code, int) and not isinstance(code, bool):
        import ctypes

        if code == 0:
            raise RtError(E.cudaErrorInvalidValue, "code is NULL")
        code = ctypes.string_at(code)
    return (_load(code, "<cudaLibraryLoadData>"),)


@rt_api(1)
def cudaLibraryLoadFromFile(fileName: Any, jitOptions: Any = None, jitOptionsValues: Any = None,  # noqa: N802, N803
                            numJitOptions: Any = 0, libraryOptions: Any = None, libraryOptionValues: Any = None,  # noqa: N803
                            numLibraryOptions: Any = 0) -> tuple:  # noqa: N803
    path = os.fsdecode(fileName) if isinstance(fileName, bytes) else str(fileName)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise RtError(E.cudaErrorFileNotFound, f"{path}: {e.strerror}") from None
    return (_load(data, path),)


@rt_api(0)
def cudaLibraryUnload(library: Any) -> tuple:  # noqa: N802
    lib = _library(library)
    if lib.module and DRIVER.objects.get(lib.module) is not None:
        raw(dmod.cuModuleUnload)(lib.module)
    unregister_module(lib.handle)
    return ()


@rt_api(1)
def cudaLibraryGetKernel(library: Any, name: Any) -> tuple:  # noqa: N802
    lib = _library(library)
    n = name.decode() if isinstance(name, bytes) else str(name)
    mod = RUNTIME.load_library(lib)
    raw(dmod.cuModuleGetFunction)(mod, n)  # cudaErrorSymbolNotFound (500) if absent
    return (cudaKernel_t(register_function(lib.handle, 0, n)),)


@rt_api(1)
def cudaLibraryGetKernelCount(lib: Any) -> tuple:  # noqa: N802
    rec = _library(lib)
    RUNTIME.load_library(rec)
    return (len(DRIVER.objects[rec.module].image.kernel_names()),)


@rt_api(1)
def cudaLibraryEnumerateKernels(numKernels: Any, lib: Any) -> tuple:  # noqa: N802, N803
    rec = _library(lib)
    RUNTIME.load_library(rec)
    names = DRIVER.objects[rec.module].image.kernel_names()[: int_arg(numKernels, "numKernels")]
    return ([cudaKernel_t(register_function(rec.handle, 0, n)) for n in names],)


@rt_api(2)
def cudaLibraryGetGlobal(library: Any, name: Any) -> tuple:  # noqa: N802
    lib = _library(library)
    mod = RUNTIME.load_library(lib)
    addr, size = raw(dmod.cuModuleGetGlobal)(mod, name)
    return (int(addr), int(size))


@rt_api(2)
def cudaLibraryGetManaged(library: Any, name: Any) -> tuple:  # noqa: N802
    return cudaLibraryGetGlobal.__wrapped__(library, name)


@rt_api(1)
def cudaGetKernel(entryFuncAddr: Any) -> tuple:  # noqa: N802, N803
    h = int_arg(entryFuncAddr, "entryFuncAddr", code=E.cudaErrorInvalidDeviceFunction)
    k = RUNTIME.host_functions.get(h) or RUNTIME.kernels.get(h)
    if k is None:
        raise RtError(E.cudaErrorInvalidDeviceFunction, f"0x{h:x} is not a registered kernel")
    return (cudaKernel_t(k.handle),)


@rt_api(1)
def cudaGetFuncBySymbol(symbolPtr: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime.types import cudaFunction_t

    return (cudaFunction_t(kernel_function(symbolPtr)),)


# ---------------------------------------------------------------- launches
def _dims(value: Any, what: str) -> tuple[int, int, int]:
    if type(value) is tuple and len(value) == 3:  # the C ABI's and most callers' form
        x, y, z = value
        if type(x) is int and type(y) is int and type(z) is int and 0 <= x < 2**32 and 0 <= y < 2**32 and 0 <= z < 2**32:
            return value
    if isinstance(value, dim3):
        dims = [value.x, value.y, value.z]
    elif isinstance(value, tuple | list):
        dims = list(value) + [1] * (3 - len(value))
        if len(dims) != 3:
            raise RtError(E.cudaErrorInvalidValue, f"{what} has {len(value)} dimensions")
    else:
        dims = [value, 1, 1]
    return tuple(int_arg(d, what, hi=2**32, code=E.cudaErrorInvalidConfiguration) for d in dims)  # type: ignore[return-value]


_CONFIGS_PER_FUNCTION = 64


def _check_configuration(fn: FunctionRec, grid: tuple[int, int, int], block: tuple[int, int, int], shared: int) -> None:
    """cudaErrorInvalidConfiguration unless the configuration can launch ``fn``; a configuration
    checked before is not checked again (what is checked depends on the function, its opt-in to
    dynamic shared memory, part of the key, and the configuration: per-launch cost, docs/cpu-backend.md)."""
    seen = fn.__dict__.get("_rt_configs")
    if seen is None:
        seen = fn.__dict__["_rt_configs"] = set()
    key = (grid, block, shared, fn.max_dynamic_shared)
    if key in seen:
        return
    _check_configuration_now(fn, grid, block, shared)
    if len(seen) >= _CONFIGS_PER_FUNCTION:
        seen.clear()
    seen.add(key)


def _check_configuration_now(fn: FunctionRec, grid: tuple[int, int, int], block: tuple[int, int, int],
                             shared: int) -> None:
    info = DRIVER.device.info
    if 0 in grid or 0 in block:
        raise RtError(E.cudaErrorInvalidConfiguration, f"grid {grid} and block {block} must not have a 0 dimension")
    for axis, (g, gmax) in enumerate(zip(grid, info.max_grid_dim, strict=True)):
        if g > gmax:
            raise RtError(E.cudaErrorInvalidConfiguration, f"gridDim.{'xyz'[axis]}={g} exceeds {gmax}")
    for axis, (b, bmax) in enumerate(zip(block, info.max_block_dim, strict=True)):
        if b > bmax:
            raise RtError(E.cudaErrorInvalidConfiguration, f"blockDim.{'xyz'[axis]}={b} exceeds {bmax}")
    limit = dmod.max_threads(fn)
    if math.prod(block) > limit:
        raise RtError(E.cudaErrorInvalidConfiguration,
                      f"{math.prod(block)} threads per block exceed the kernel's limit of {limit}")
    problem = dmod.shared_memory_problem(fn, shared)
    if problem:
        raise RtError(E.cudaErrorInvalidConfiguration, problem)


@rt_api(0)
def cudaLaunchKernel(func: Any, gridDim: Any, blockDim: Any, args: Any, sharedMem: Any = 0, stream: Any = 0) -> tuple:  # noqa: N802, N803
    """Launch ``func`` (see module doc). ``args``: the address of a C ``void*`` array (one per
    parameter), cuda-python's ``((values...), (types...))``, or None. ``gridDim``/``blockDim``: dim3,
    a tuple of up to 3 ints, or an int. Returns at once; faults surface at the next synchronising call."""
    fh = kernel_function(func)
    fn = DRIVER.objects[fh]
    grid = _dims(gridDim, "gridDim")
    block = _dims(blockDim, "blockDim")
    shared = sharedMem if type(sharedMem) is int and 0 <= sharedMem < 2**32 else int_arg(sharedMem, "sharedMem", hi=2**32)
    _check_configuration(fn, grid, block, shared)
    h = RUNTIME.stream_handle(stream)
    graphs = _graphs()
    if graphs.capturing(h):
        graphs.capture_node(h, graphs.T.cudaGraphNodeTypeKernel,
                            graphs.kernel_params(func, grid, block, shared, args, None))
        return ()
    dlaunch.launch_grouped(fh, *grid, *block, shared, h, args if args is not None else None, None)
    return ()


_graphs_module = None


def _graphs():
    """cumetal.runtime.graphs (imported on first use: it imports this module)."""
    global _graphs_module
    if _graphs_module is None:
        from cumetal.runtime import graphs

        _graphs_module = graphs
    return _graphs_module


@rt_api(0)
def cudaLaunchCooperativeKernel(func: Any, gridDim: Any, blockDim: Any, args: Any, sharedMem: Any = 0,  # noqa: N802, N803
                                stream: Any = 0) -> tuple:
    """A cooperative launch: every block resident at once, so grid_group::sync() completes. A grid
    beyond CUDA's co-residency limit (occupancy x multiprocessors) is
    cudaErrorCooperativeLaunchTooLarge (driver/launch_groups.py)."""
    return _launch_ex(func, gridDim, blockDim, args, sharedMem, stream, cooperative=True)


@rt_api(0)
def cudaLaunchKernelEx(config: Any, func: Any, *args: Any) -> tuple:  # noqa: N802
    """``config``: a cudaLaunchConfig_t (gridDim, blockDim, dynamicSmemBytes, stream, attrs,
    numAttrs); the cluster-dimension and cooperative attributes are honoured, the scheduling hints
    ignored. ``args``: the kernel arguments as for cudaLaunchKernel (one object)."""
    attrs = list(getattr(config, "attrs", None) or [])[: int(getattr(config, "numAttrs", 0) or 0)]
    cluster = None
    cooperative = False
    for a in attrs:
        key = int(getattr(a, "id", 0))
        val = getattr(a, "val", None) or getattr(a, "value", None)
        if key == 4:  # cudaLaunchAttributeClusterDimension
            dims = getattr(val, "clusterDim", val)
            cluster = tuple(int_arg(getattr(dims, ax, 1), f"clusterDim.{ax}", hi=2**32) for ax in "xyz")
        elif key == 2:  # cudaLaunchAttributeCooperative
            cooperative = bool(int(getattr(val, "cooperative", 0) or 0))
    kargs = args[0] if args else None
    return _launch_ex(func, config.gridDim, config.blockDim, kargs, getattr(config, "dynamicSmemBytes", 0),
                      getattr(config, "stream", 0), cluster=cluster, cooperative=cooperative)


cudaLaunchKernelExC = cudaLaunchKernelEx  # the name cuda.bindings.runtime uses


def _launch_ex(func: Any, gridDim: Any, blockDim: Any, args: Any, sharedMem: Any, stream: Any,  # noqa: N803
               *, cluster: tuple | None = None, cooperative: bool = False) -> tuple:
    fh = kernel_function(func)
    fn = DRIVER.objects[fh]
    grid = _dims(gridDim, "gridDim")
    block = _dims(blockDim, "blockDim")
    shared = int_arg(sharedMem, "sharedMem", hi=2**32)
    _check_configuration(fn, grid, block, shared)
    h = RUNTIME.stream_handle(stream)
    dlaunch.launch_grouped(fh, *grid, *block, shared, h, args if args is not None else None, None,
                           cluster=cluster, cooperative=cooperative)
    return ()


# ---------------------------------------------------------------- function attributes
@rt_api(1)
def cudaFuncGetAttributes(func: Any) -> tuple:  # noqa: N802
    fh = kernel_function(func)
    get = raw(dmod.cuFuncGetAttribute)
    a = cudaFuncAttributes()
    a.sharedSizeBytes = get(F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fh)[0]
    a.constSizeBytes = get(F.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, fh)[0]
    a.localSizeBytes = get(F.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fh)[0]
    a.maxThreadsPerBlock = get(F.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fh)[0]
    a.numRegs = get(F.CU_FUNC_ATTRIBUTE_NUM_REGS, fh)[0]
    a.ptxVersion = get(F.CU_FUNC_ATTRIBUTE_PTX_VERSION, fh)[0]
    a.binaryVersion = get(F.CU_FUNC_ATTRIBUTE_BINARY_VERSION, fh)[0]
    a.maxDynamicSharedSizeBytes = get(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fh)[0]
    a.preferredShmemCarveout = get(F.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, fh)[0]
    return (a,)


@rt_api(0)
def cudaFuncSetAttribute(func: Any, attr: Any, value: Any) -> tuple:  # noqa: N802
    fh = kernel_function(func)
    a = enum_arg(attr, cudaFuncAttribute, "attr")
    if a in (cudaFuncAttribute.cudaFuncAttributeMax, cudaFuncAttribute.cudaFuncAttributeSharedMemoryMode):
        raise RtError(E.cudaErrorInvalidValue, f"{a.name} cannot be set")
    raw(dmod.cuFuncSetAttribute)(fh, F(int(a)), int_arg(value, "value", lo=-(2**31), hi=2**31))
    return ()


@rt_api(0)
def cudaKernelSetAttributeForDevice(kernel: Any, attr: Any, value: Any, device: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.device import device_ordinal

    device_ordinal(device)
    return cudaFuncSetAttribute.__wrapped__(kernel, attr, value)


@rt_api(0)
def cudaFuncSetCacheConfig(func: Any, cacheConfig: Any) -> tuple:  # noqa: N802, N803
    kernel_function(func)
    enum_arg(cacheConfig, cudaFuncCache, "cacheConfig")
    return ()  # one memory configuration: accepted, no effect


@rt_api(0)
def cudaFuncSetSharedMemConfig(func: Any, config: Any) -> tuple:  # noqa: N802
    kernel_function(func)
    enum_arg(config, cudaSharedMemConfig, "config")
    return ()


@rt_api(1)
def cudaFuncGetParamCount(func: Any) -> tuple:  # noqa: N802
    return (len(_function_rec(func).kernel.params),)


@rt_api(1)
def cudaFuncGetName(func: Any) -> tuple:  # noqa: N802
    return (_function_rec(func).kernel.name.encode(),)


# ---------------------------------------------------------------- occupancy
def max_active_blocks(fn: FunctionRec, block_size: int, dynamic_smem: int) -> int:
    """Blocks of ``block_size`` threads resident on one multiprocessor at once (documented model):
    limited by threads per multiprocessor (whole warps), by shared memory (static + dynamic per
    block, of the multiprocessor's total), and by CUDA's 32 blocks per multiprocessor."""
    info = DRIVER.device.info
    if block_size <= 0 or block_size > dmod.max_threads(fn):
        return 0
    warps = -(-block_size // info.warp_size) * info.warp_size
    by_threads = info.max_threads_per_multiprocessor // warps
    smem = fn.kernel.static_shared_size + dynamic_smem
    by_smem = info.shared_memory_per_multiprocessor // smem if smem else by_threads
    if smem > info.shared_memory_per_block_optin:
        return 0
    return max(0, min(by_threads, by_smem, 32))


@rt_api(1)
def cudaOccupancyMaxActiveBlocksPerMultiprocessor(func: Any, blockSize: Any, dynamicSMemSize: Any) -> tuple:  # noqa: N802, N803
    fn = _function_rec(func)
    return (max_active_blocks(fn, int_arg(blockSize, "blockSize", hi=2**31),
                              int_arg(dynamicSMemSize, "dynamicSMemSize")),)


@rt_api(1)
def cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(func: Any, blockSize: Any, dynamicSMemSize: Any,  # noqa: N802, N803
                                                           flags: Any) -> tuple:
    if int_arg(flags, "flags") & ~cudaOccupancyDisableCachingOverride:
        raise RtError(E.cudaErrorInvalidValue, "unknown occupancy flags")
    fn = _function_rec(func)
    return (max_active_blocks(fn, int_arg(blockSize, "blockSize", hi=2**31),
                              int_arg(dynamicSMemSize, "dynamicSMemSize")),)


@rt_api(1)
def cudaOccupancyAvailableDynamicSMemPerBlock(func: Any, numBlocks: Any, blockSize: Any) -> tuple:  # noqa: N802, N803
    fn = _function_rec(func)
    n = int_arg(numBlocks, "numBlocks", lo=1, hi=2**31)
    int_arg(blockSize, "blockSize", lo=1, hi=2**31)
    per_block = DRIVER.device.info.shared_memory_per_multiprocessor // n - fn.kernel.static_shared_size
    return (max(0, min(per_block, dmod.max_dynamic_shared(fn))),)


@rt_api(2)
def cudaOccupancyMaxPotentialBlockSize(func: Any, dynamicSMemSize: Any = 0, blockSizeLimit: Any = 0) -> tuple:  # noqa: N802, N803
    """CUDA's C++ helper (not in cuda-python): ``(minGridSize, blockSize)`` maximising resident
    threads per multiprocessor; ties go to the larger block. ``minGridSize`` fills every multiprocessor."""
    fn = _function_rec(func)
    smem = int_arg(dynamicSMemSize, "dynamicSMemSize")
    info = DRIVER.device.info
    limit = dmod.max_threads(fn)
    cap = int_arg(blockSizeLimit, "blockSizeLimit", hi=2**31)
    if cap:
        limit = min(limit, cap)
    best = (0, 0)
    for size in range(info.warp_size, limit + 1, info.warp_size):
        blocks = max_active_blocks(fn, size, smem)
        if blocks * size >= best[0] * best[1] and blocks:
            best = (blocks, size)
    if best == (0, 0):
        return (0, 0)
    return (best[0] * info.multiprocessor_count, best[1])
