"""``LaunchConfig`` and ``launch``: kernel arguments packed by their Python types, as cuda.core does
(``Buffer`` and ``int`` → pointer-sized, ``float`` → ``double``, ``bool``, numpy and ctypes scalars
as themselves), launched with ``cuLaunchKernelEx``."""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator
from typing import Any

import numpy as np

from cumetal import driver as cu
from cumetal.core._memory import Buffer
from cumetal.core._utils import CUDAError, check


def _dims(value: Any, what: str) -> tuple[int, int, int]:
    if value is None:
        return (1, 1, 1)
    if isinstance(value, int | np.integer):
        value = (int(value),)
    dims = tuple(int(v) for v in value)
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise ValueError(f"{what} must be 1 to 3 positive ints, got {value!r}")
    return dims + (1,) * (3 - len(dims))


class LaunchConfig:
    def __init__(self, grid: Any = None, cluster: Any = None, block: Any = None, shmem_size: int | None = None,
                 cooperative_launch: bool = False, programmatic_stream_serialization: bool = False,
                 is_cooperative: bool | None = None) -> None:
        if is_cooperative is not None:  # cuda.core 1.x's name for cooperative_launch
            cooperative_launch = is_cooperative
        self.grid = _dims(grid, "grid")  # in clusters when ``cluster`` is given, as in cuda.core
        self.cluster = None
        if cluster is not None:
            from cumetal.core._device import Device

            cc = Device().compute_capability
            if cc < (9, 0):  # cuda.core's check; CUMETAL_COMPUTE_CAPABILITY=9.0 makes the cpu device report 9.0
                raise CUDAError("thread block clusters are not supported on devices with compute capability < 9.0 "
                                f"(got {cc}; CuMetal's cpu device runs them with CUMETAL_COMPUTE_CAPABILITY=9.0)")
            self.cluster = _dims(cluster, "cluster")
        self.block = _dims(block, "block")
        self.shmem_size = int(shmem_size or 0)
        self.cooperative_launch = bool(cooperative_launch)
        self.programmatic_stream_serialization = programmatic_stream_serialization

    @property
    def is_cooperative(self) -> bool:
        return self.cooperative_launch

    def _driver_config(self, stream: Any, attrs: list) -> cu.CUlaunchConfig:
        cfg = cu.CUlaunchConfig()
        if self.cluster is None:
            cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = self.grid
        else:  # the grid is given in clusters: the driver takes blocks
            cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = (g * c for g, c in zip(self.grid, self.cluster, strict=True))
        cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = self.block
        cfg.sharedMemBytes = self.shmem_size
        cfg.hStream = stream
        if self.cooperative_launch:
            a = cu.CUlaunchAttribute()
            a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
            a.value.cooperative = 1
            attrs.append(a)
        if self.cluster is not None:
            a = cu.CUlaunchAttribute()
            a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = self.cluster
            attrs.append(a)
        cfg.attrs, cfg.numAttrs = attrs, len(attrs)
        return cfg

    def __repr__(self) -> str:
        cluster = f", cluster={self.cluster}" if self.cluster is not None else ""
        return f"LaunchConfig(grid={self.grid}{cluster}, block={self.block}, shmem_size={self.shmem_size})"


_NP_CTYPES = {np.dtype(k): v for k, v in (
    (np.int8, ctypes.c_int8), (np.int16, ctypes.c_int16), (np.int32, ctypes.c_int32), (np.int64, ctypes.c_int64),
    (np.uint8, ctypes.c_uint8), (np.uint16, ctypes.c_uint16), (np.uint32, ctypes.c_uint32),
    (np.uint64, ctypes.c_uint64), (np.float32, ctypes.c_float), (np.float64, ctypes.c_double),
    (np.bool_, ctypes.c_bool))}


def pack_args(args: tuple) -> tuple[tuple, tuple]:
    """cuda-python's ``((values), (ctypes types))`` form for ``args``."""
    values, types = [], []
    for i, a in enumerate(args):
        if isinstance(a, Buffer):
            values.append(a.handle)
            types.append(ctypes.c_void_p)
        elif isinstance(a, bool):
            values.append(a)
            types.append(ctypes.c_bool)
        elif isinstance(a, int):
            values.append(a)
            types.append(ctypes.c_uint64 if a >= 0 else ctypes.c_int64)  # pointer-sized, as cuda.core (intptr_t)
        elif isinstance(a, float):
            values.append(a)
            types.append(ctypes.c_double)
        elif isinstance(a, np.generic):
            if a.dtype == np.float16:
                values.append(int(a.view(np.uint16)))
                types.append(ctypes.c_uint16)
            elif a.dtype in _NP_CTYPES:
                values.append(a.item())
                types.append(_NP_CTYPES[a.dtype])
            else:  # complex and structured scalars: their bytes
                raw = a.tobytes()
                buf = (ctypes.c_char * len(raw)).from_buffer_copy(raw)
                values.append(buf)
                types.append(None)
        elif hasattr(a, "_kernel_argument"):  # a TensorMapDescriptor: its 128 bytes by value
            values.append(a._kernel_argument())
            types.append(None)
        elif isinstance(a, ctypes._SimpleCData | ctypes.Structure | ctypes.Array):
            values.append(a)
            types.append(None)
        elif hasattr(a, "__cuda_array_interface__"):
            values.append(int(a.__cuda_array_interface__["data"][0]))
            types.append(ctypes.c_void_p)
        elif hasattr(a, "handle") and isinstance(a.handle, int):
            values.append(a.handle)
            types.append(ctypes.c_void_p)
        else:
            raise TypeError(f"kernel argument {i}: unsupported type {type(a).__name__}")
    return tuple(values), tuple(types)


def _stream_handle(stream: Any) -> Any:
    from cumetal.core.graph import GraphBuilder

    if isinstance(stream, GraphBuilder):
        return stream.stream.handle
    if hasattr(stream, "__cuda_stream__"):
        return stream.__cuda_stream__()[1]
    if stream is None:
        raise ValueError("launch needs a stream")
    return getattr(stream, "handle", stream)


def launch(stream: Any, config: LaunchConfig, kernel: Any, *kernel_args: Any) -> None:
    """Launch ``kernel`` with ``config`` on ``stream`` (a Stream, a GraphBuilder, or a ``__cuda_stream__``)."""
    if not isinstance(config, LaunchConfig):
        raise TypeError("config must be a LaunchConfig")
    handle = getattr(kernel, "handle", kernel)
    h = _stream_handle(stream)
    cfg = config._driver_config(h, [])
    with _stream_context(h):
        check(cu.cuLaunchKernelEx(cfg, handle, pack_args(kernel_args), None))


@contextlib.contextmanager
def _stream_context(h: Any) -> Iterator[None]:
    """A kernel (``CUkernel``) launches in its stream's context, as CUDA does: a green context's
    stream works while the primary context is current."""
    if int(h or 0) in (0, 1, 2):
        yield
        return
    ctx = check(cu.cuStreamGetCtx(h))
    if ctx == check(cu.cuCtxGetCurrent()):
        yield
        return
    check(cu.cuCtxPushCurrent(ctx))
    try:
        yield
    finally:
        check(cu.cuCtxPopCurrent())


def host_launch(stream: Any, fn: Any, *args: Any) -> None:
    """Run the Python callable ``fn(*args)`` on the host in stream order (after earlier work)."""
    if not callable(fn):
        raise TypeError("fn must be callable")
    check(cu.cuLaunchHostFunc(_stream_handle(stream), lambda _data: fn(*args), None))
