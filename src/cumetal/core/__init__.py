"""A ``cuda.core``-shaped API on CuMetal: ``from cumetal import core`` (or ``from cumetal.core import
Device, Program, launch, …``) replaces ``from cuda.core import …``.

Devices, streams, events, programs (CUDA C++ via ``cumetal.nvrtc``, PTX, NVVM IR), object code,
kernels, launch configuration, memory resources and buffers (host-visible: numpy views through
DLPack, ``__array_interface__`` and ``__cuda_array_interface__``), the linker and graph builders,
built on :mod:`cumetal.driver`. See docs/python.md for what differs from cuda.core.
"""

from cumetal.core import checkpoint, graph, texture, typing, utils
from cumetal.core._copy import Host
from cumetal.core._device import ComputeCapability, Context, Device, DeviceProperties, system
from cumetal.core._launch import LaunchConfig, host_launch, launch
from cumetal.core._managed import ManagedBuffer
from cumetal.core._memory import (
    Buffer,
    DeviceMemoryResource,
    DeviceMemoryResourceOptions,
    GraphMemoryResource,
    LegacyPinnedMemoryResource,
    ManagedMemoryResource,
    ManagedMemoryResourceOptions,
    MemoryResource,
    PinnedMemoryResource,
    PinnedMemoryResourceOptions,
)
from cumetal.core._program import (
    Kernel,
    Linker,
    LinkerOptions,
    ObjectCode,
    Program,
    ProgramOptions,
)
from cumetal.core._resources import (
    ContextOptions,
    DeviceResources,
    SMResource,
    SMResourceOptions,
    WorkqueueResource,
    WorkqueueResourceOptions,
)
from cumetal.core._stream import (
    LEGACY_DEFAULT_STREAM,
    PER_THREAD_DEFAULT_STREAM,
    Event,
    EventOptions,
    Stream,
    StreamOptions,
)
from cumetal.core._tensor_map import TensorMapDescriptor, TensorMapDescriptorOptions
from cumetal.core._unsupported import GraphicsResource
from cumetal.core._utils import CUDAError
from cumetal.core._vmm import VirtualMemoryResource, VirtualMemoryResourceOptions
from cumetal.core.graph import Graph, GraphBuilder

__version__ = "1.2.0"  # the cuda.core API level mirrored (numba-cuda and others branch on it)

__all__ = [
    "LEGACY_DEFAULT_STREAM", "PER_THREAD_DEFAULT_STREAM", "Buffer", "CUDAError", "ComputeCapability", "Context",
    "ContextOptions", "DeviceResources", "GraphicsResource", "TensorMapDescriptor", "TensorMapDescriptorOptions", "ManagedBuffer", "checkpoint", "SMResource", "SMResourceOptions", "WorkqueueResource",
    "WorkqueueResourceOptions",
    "Device", "DeviceMemoryResource", "DeviceMemoryResourceOptions", "DeviceProperties", "Event", "EventOptions",
    "Graph", "GraphBuilder", "GraphMemoryResource", "Host", "ManagedMemoryResourceOptions", "PinnedMemoryResourceOptions",
    "host_launch", "Kernel", "LaunchConfig", "LegacyPinnedMemoryResource", "Linker", "LinkerOptions",
    "ManagedMemoryResource", "MemoryResource", "ObjectCode", "PinnedMemoryResource", "Program", "ProgramOptions",
    "Stream", "StreamOptions", "VirtualMemoryResource", "VirtualMemoryResourceOptions", "graph", "launch", "system", "texture", "typing", "utils",
]
