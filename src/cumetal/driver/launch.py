"""cuLaunchKernel: validate the configuration, pack the parameters, enqueue."""

from __future__ import annotations

import math
from typing import Any

from cumetal.driver import graph_hooks
from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.faults import fault_error
from cumetal.driver.kernel_params import pack_launch_params
from cumetal.driver.launch_groups import check_grouping
from cumetal.driver.modules import max_threads, shared_memory_problem
from cumetal.driver.state import STATE

R = CUresult


def _dim(value: Any, what: str) -> int:
    if isinstance(value, float) and math.isfinite(value):
        value = int(value)  # cuda-python coerces a float to C unsigned int (truncating)
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an int, got {type(value).__name__}")
    v = int(value)
    if not 0 <= v < 2**32:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}={v} is not an unsigned int")
    return v


@api(0)
def cuLaunchKernel(  # noqa: N802
    f: Any,
    gridDimX: Any, gridDimY: Any, gridDimZ: Any,  # noqa: N803
    blockDimX: Any, blockDimY: Any, blockDimZ: Any,  # noqa: N803
    sharedMemBytes: Any, hStream: Any, kernelParams: Any, extra: Any,  # noqa: N803
) -> tuple:
    return launch_grouped(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                          hStream, kernelParams, extra)


def launch_grouped(f: Any, gridDimX: Any, gridDimY: Any, gridDimZ: Any,  # noqa: N803
                   blockDimX: Any, blockDimY: Any, blockDimZ: Any,  # noqa: N803
                   sharedMemBytes: Any, hStream: Any, kernelParams: Any, extra: Any,  # noqa: N803
                   *, cluster: tuple[int, int, int] | None = None, cooperative: bool = False) -> tuple:
    """cuLaunchKernel with a cluster shape (launch attribute) and/or as a cooperative launch
    (cuLaunchKernelEx, cuLaunchCooperativeKernel); validation: driver/launch_groups.py."""
    ctx = STATE.current()
    fn = STATE.function(f)
    if fn.module.context is not ctx:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "the function's module was loaded in another context")
    config = None
    cache = _config_cache(fn)
    if (type(gridDimX) is int and type(gridDimY) is int and type(gridDimZ) is int and type(blockDimX) is int
            and type(blockDimY) is int and type(blockDimZ) is int and type(sharedMemBytes) is int):
        key = (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, cluster,
               cooperative, fn.max_dynamic_shared)
        config = cache.get(key)
    if config is None:
        config = _checked_configuration(ctx, fn, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                                        sharedMemBytes, cluster, cooperative)
        grid, block, shared, _ = config
        if len(cache) >= _CONFIGS_PER_FUNCTION:
            cache.clear()
        cache[(*grid, *block, shared, cluster, cooperative, fn.max_dynamic_shared)] = config
    grid, block, shared, grouping = config
    kernel = fn.kernel
    params = pack_launch_params(kernelParams, extra, kernel.params, kernel.param_size)
    stream = STATE.stream(hStream, ctx)
    if graph_hooks.BACKEND is not None and graph_hooks.capture_launch(int(hStream or 0), fn.handle, grid, block,
                                                                      shared, params):
        return ()  # recorded into the runtime's stream capture (driver/graph_hooks.py)
    fault = ctx.device.enqueue_launch(stream, fn.module.image, kernel.name, grid, block, shared, params, **grouping)
    if fault is not None:
        raise fault_error(fault)  # the device logged the details on stderr
    return ()


# A function's validated launch configurations: what cuLaunchKernel checks depends only on the
# function (its kernel, its device, its cuFuncSetAttribute opt-in, part of the key) and on the
# configuration, so a configuration launched before is not checked again (the per-launch Python
# cost is the launch overhead of small kernels: docs/cpu-backend.md).
_CONFIGS_PER_FUNCTION = 64


def _config_cache(fn: Any) -> dict:
    cache = fn.__dict__.get("_launch_configs")
    if cache is None:
        cache = fn.__dict__["_launch_configs"] = {}
    return cache


def _checked_configuration(ctx: Any, fn: Any, gridDimX: Any, gridDimY: Any, gridDimZ: Any,  # noqa: N803
                           blockDimX: Any, blockDimY: Any, blockDimZ: Any, sharedMemBytes: Any,  # noqa: N803
                           cluster: tuple[int, int, int] | None, cooperative: bool) -> tuple:
    """(grid, block, shared, grouping) of a valid configuration, else CudaError."""
    info = ctx.device.info
    grid = (_dim(gridDimX, "gridDimX"), _dim(gridDimY, "gridDimY"), _dim(gridDimZ, "gridDimZ"))
    block = (_dim(blockDimX, "blockDimX"), _dim(blockDimY, "blockDimY"), _dim(blockDimZ, "blockDimZ"))
    shared = _dim(sharedMemBytes, "sharedMemBytes")
    kernel = fn.kernel
    if 0 in grid or 0 in block:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"grid {grid} and block {block} must not have a 0 dimension")
    for axis, (g, gmax) in enumerate(zip(grid, info.max_grid_dim, strict=True)):
        if g > gmax:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"grid dimension {'xyz'[axis]}={g} exceeds {gmax}")
    for axis, (b, bmax) in enumerate(zip(block, info.max_block_dim, strict=True)):
        if b > bmax:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"block dimension {'xyz'[axis]}={b} exceeds {bmax}")
    threads = math.prod(block)
    limit = max_threads(fn)
    if threads > limit:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"{threads} threads per block exceed the kernel's limit of {limit}")
    if kernel.reqntid and tuple(kernel.reqntid) + (1,) * (3 - len(kernel.reqntid)) != block:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"kernel '{kernel.name}' requires block {kernel.reqntid} (.reqntid)")
    problem = shared_memory_problem(fn, shared)
    if problem:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, problem)
    grouping = check_grouping(ctx.device, fn, grid, block, shared, cluster, cooperative)
    return grid, block, shared, grouping
