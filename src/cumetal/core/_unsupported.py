"""cuda.core names for features CuMetal's device lacks: ``GraphicsResource`` (OpenGL interop) and
``checkpoint.Process`` (NVIDIA's process checkpointing). They exist so that code importing them
loads; using them raises ``CUDAError`` with the driver's ``CUDA_ERROR_NOT_SUPPORTED`` and its reason
(driver/unsupported.py), as cuda.core does on a device without the feature."""

from __future__ import annotations

from typing import Any

from cumetal import driver as cu
from cumetal.core._utils import check, ensure_init


class GraphicsResource:
    """OpenGL buffers and images registered with CUDA: not supported (no OpenGL interop)."""

    def __init__(self) -> None:
        raise RuntimeError("use GraphicsResource.from_gl_buffer() or from_gl_image()")

    @classmethod
    def from_gl_buffer(cls, gl_buffer: int, *, flags: Any = None, stream: Any = None) -> GraphicsResource:
        ensure_init()
        check(cu.cuGraphicsGLRegisterBuffer(gl_buffer, 0))
        raise AssertionError("unreachable: the driver refuses OpenGL interop")

    @classmethod
    def from_gl_image(cls, image: int, target: int, *, flags: Any = None) -> GraphicsResource:
        ensure_init()
        check(cu.cuGraphicsGLRegisterImage(image, target, 0))
        raise AssertionError("unreachable: the driver refuses OpenGL interop")


class Process:
    """A process to checkpoint or restore (``cuda.core.checkpoint.Process``): not supported."""

    def __init__(self, pid: int) -> None:
        if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
            raise ValueError(f"pid must be a positive int, got {pid!r}")
        self._pid = pid

    @property
    def pid(self) -> int:
        return self._pid

    def _refused(self, call: Any, *args: Any) -> Any:
        ensure_init()
        return check(call(self._pid, *args))

    @property
    def state(self) -> str:
        return self._refused(cu.cuCheckpointProcessGetState)

    @property
    def restore_thread_id(self) -> int:
        return self._refused(cu.cuCheckpointProcessGetRestoreThreadId)

    def lock(self, timeout_ms: int = 0) -> None:
        self._refused(cu.cuCheckpointProcessLock, None)

    def checkpoint(self) -> None:
        self._refused(cu.cuCheckpointProcessCheckpoint, None)

    def restore(self, gpu_mapping: Any = None) -> None:
        self._refused(cu.cuCheckpointProcessRestore, None)

    def unlock(self) -> None:
        self._refused(cu.cuCheckpointProcessUnlock, None)
