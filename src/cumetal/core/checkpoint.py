"""``cuda.core.checkpoint``: process checkpointing, which CuMetal's device does not support (every
operation raises ``CUDAError`` with ``CUDA_ERROR_NOT_SUPPORTED``)."""

from cumetal.core._unsupported import Process

__all__ = ["Process"]
