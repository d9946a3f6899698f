"""Graph support the driver API forwards to a graph implementation registered by the Runtime API.

CuMetal keeps CUDA graphs in one place, ``cumetal.runtime.graphs``; the driver layer only defines
what it needs from it (so that it does not import the runtime): ``cuGraphAddKernelNode`` with
``CUDA_KERNEL_NODE_PARAMS``, and the capture of ``cuLaunchKernel`` on a stream that the runtime is
capturing. Without the runtime imported there is no graph to add to
(``CUDA_ERROR_NOT_SUPPORTED``) and no capture.
"""

from __future__ import annotations

from typing import Any, Protocol

from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.kernel_params import pack_launch_params
from cumetal.driver.state import STATE

R = CUresult


class GraphBackend(Protocol):
    def add_kernel_node(self, graph: Any, deps: Any, count: Any, function: int, grid: tuple[int, int, int],
                        block: tuple[int, int, int], shared: int, params: bytes) -> Any: ...

    def capture_launch(self, stream: int, function: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                       shared: int, params: bytes) -> bool: ...


BACKEND: GraphBackend | None = None


def register(backend: GraphBackend) -> None:
    global BACKEND
    BACKEND = backend


def capture_launch(stream: int, function: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                   shared: int, params: bytes) -> bool:
    """True when the launch was recorded into a stream capture instead of being run."""
    return BACKEND is not None and BACKEND.capture_launch(stream, function, grid, block, shared, params)


class CUDA_KERNEL_NODE_PARAMS:  # noqa: N801 - cuda-python's name
    def __init__(self) -> None:
        self.func: Any = 0
        self.gridDimX = self.gridDimY = self.gridDimZ = 1
        self.blockDimX = self.blockDimY = self.blockDimZ = 1
        self.sharedMemBytes = 0
        self.kernelParams: Any = None
        self.extra: Any = None
        self.kern: Any = 0
        self.ctx: Any = 0


@api(1)
def cuGraphAddKernelNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    if BACKEND is None:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "graphs come with cumetal.runtime (import it)")
    if not isinstance(nodeParams, CUDA_KERNEL_NODE_PARAMS):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "nodeParams must be a CUDA_KERNEL_NODE_PARAMS")
    STATE.current()
    fn = STATE.function(nodeParams.func)
    grid = (int(nodeParams.gridDimX), int(nodeParams.gridDimY), int(nodeParams.gridDimZ))
    block = (int(nodeParams.blockDimX), int(nodeParams.blockDimY), int(nodeParams.blockDimZ))
    params = pack_launch_params(nodeParams.kernelParams, nodeParams.extra, fn.kernel.params, fn.kernel.param_size)
    node = BACKEND.add_kernel_node(hGraph, dependencies, numDependencies, fn.handle, grid, block,
                                   int(nodeParams.sharedMemBytes), params)
    return (node,)

