"""Validation of cluster and cooperative launches, as CUDA validates them.

Clusters (sm_90): the shape comes from the launch (``CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION``) or
from the kernel (``.reqnctapercluster`` / ``__cluster_dims__``); the two must agree, every grid
dimension must be a multiple of the cluster's, and a cluster holds at most 8 blocks (CUDA's
portable limit) — otherwise ``CUDA_ERROR_INVALID_CLUSTER_SIZE``.

Cooperative launches: every block of the grid must be resident at once, so the grid may hold at
most (blocks per multiprocessor, by CUDA's occupancy rules) x (multiprocessors) blocks —
otherwise ``CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE``.

Only a device whose engine co-schedules blocks runs either (the CPU device: a cluster's blocks, or
the whole cooperative grid, execute as one batch); elsewhere a cluster of more than one block is
``CUDA_ERROR_NOT_SUPPORTED`` (Metal has no distributed shared memory) and a cooperative grid of
more than one block ``CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE``.
"""

from __future__ import annotations

import math
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError

R = CUresult
MAX_PORTABLE_CLUSTER = 8


def _grouped_device(device: Any) -> bool:
    check = getattr(device, "supports_grouped_launch", None)
    return bool(check()) if callable(check) else False


def check_grouping(device: Any, fn: Any, grid: tuple[int, int, int], block: tuple[int, int, int], shared: int,
                   cluster: tuple[int, int, int] | None, cooperative: bool) -> dict[str, Any]:
    """The keyword arguments for ``enqueue_launch`` (empty for a plain launch), or CudaError."""
    kernel = fn.kernel
    compiled = getattr(kernel, "cluster_dims", None)
    if cluster is not None and compiled is not None and tuple(cluster) != tuple(compiled):
        raise CudaError(R.CUDA_ERROR_INVALID_CLUSTER_SIZE, f"cluster dimension {tuple(cluster)} differs from the "
                        f"{tuple(compiled)} kernel '{kernel.name}' was compiled for (__cluster_dims__)")
    dims = tuple(cluster or compiled or (1, 1, 1))
    out: dict[str, Any] = {}
    size = math.prod(dims)
    if min(dims) < 1:
        raise CudaError(R.CUDA_ERROR_INVALID_CLUSTER_SIZE, f"cluster dimension {dims} has a 0 axis")
    if size > MAX_PORTABLE_CLUSTER:
        raise CudaError(R.CUDA_ERROR_INVALID_CLUSTER_SIZE,
                        f"a cluster of {size} blocks {dims}: at most {MAX_PORTABLE_CLUSTER} (the portable size)")
    bad = [("xyz"[i], g, c) for i, (g, c) in enumerate(zip(grid, dims, strict=True)) if g % c]
    if bad:
        axis, g, c = bad[0]
        raise CudaError(R.CUDA_ERROR_INVALID_CLUSTER_SIZE,
                        f"gridDim.{axis}={g} is not a multiple of the cluster dimension {c}")
    grouped = _grouped_device(device)
    if size > 1 and not grouped:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, f"kernel '{kernel.name}' needs clusters of {size} blocks: "
                        f"the {device.info.name} device has no thread-block clusters (no distributed shared memory)")
    if cluster is not None and grouped:
        out["cluster"] = dims
    if cooperative:
        blocks = math.prod(grid)
        if grouped:
            from cumetal.driver.launch_more import active_blocks

            per_sm = active_blocks(fn, math.prod(block), shared)
            limit = per_sm * device.info.multiprocessor_count
            why = f"{per_sm} per multiprocessor x {device.info.multiprocessor_count} multiprocessors"
        else:
            limit, why = 1, "this device runs one block at a time"
        if blocks > limit:
            raise CudaError(R.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                            f"a cooperative grid of {blocks} blocks: at most {limit} can be resident at once ({why})")
        if grouped:
            out["cooperative"] = True
    return out
