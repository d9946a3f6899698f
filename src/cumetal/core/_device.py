"""``Device``, ``Context`` and ``system``: one device (ordinal 0), its primary context per thread."""

from __future__ import annotations

import threading
from collections import namedtuple
from typing import Any

from cumetal import driver as cu
from cumetal.core._utils import CUDAError, check, ensure_init

ComputeCapability = namedtuple("ComputeCapability", ("major", "minor"))
_tls = threading.local()
A = cu.CUdevice_attribute


class Context:
    """A driver context (``.handle`` is the ``CUcontext``); a green one (``Device.create_context``)
    also holds its ``CUgreenCtx`` and makes streams."""

    def __init__(self, handle: Any, device_id: int, green: Any = None) -> None:
        self._handle = handle
        self._device_id = device_id
        self._green = green
        self._closed = False

    @property
    def handle(self) -> Any:
        return None if self._closed else self._handle

    @property
    def is_closed(self) -> bool:
        return self._closed

    @property
    def is_green(self) -> bool:
        return self._green is not None

    @property
    def resources(self):
        from cumetal.core._resources import context_resources

        if self._closed:
            raise RuntimeError("the context is closed")
        return context_resources(self._handle)

    def create_stream(self, options: Any = None):
        """A stream of this green context (non-blocking, as CUDA requires)."""
        from cumetal.core._stream import Stream, StreamOptions

        if self._green is None:
            raise RuntimeError("Context.create_stream is for green contexts; use Device.create_stream")
        if self._closed:
            raise RuntimeError("the context is closed")
        opts = options if isinstance(options, StreamOptions) else StreamOptions(**(options or {}))
        if not opts.nonblocking:
            raise ValueError("a green context's streams are non-blocking (StreamOptions(nonblocking=True))")
        handle = check(cu.cuGreenCtxStreamCreate(self._green, cu.CUstream_flags.CU_STREAM_NON_BLOCKING,
                                                 opts.priority or 0))
        return Stream._wrap(handle, owned=True, nonblocking=True, priority=opts.priority or 0)

    def close(self) -> None:
        if self._green is not None and not self._closed:
            check(cu.cuGreenCtxDestroy(self._green))
        self._closed = True

    def __repr__(self) -> str:
        return f"<Context handle={int(self._handle):#x}{' green' if self._green is not None else ''}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and int(other._handle) == int(self._handle)

    def __hash__(self) -> int:
        return hash(int(self._handle))


class DeviceProperties:
    """Device attributes by cuda.core's snake_case names (``max_threads_per_block``, ``warp_size``…):
    any ``CU_DEVICE_ATTRIBUTE_<NAME>`` answers as ``properties.<name>``."""

    def __init__(self, device_id: int) -> None:
        self._id = device_id

    def __getattr__(self, name: str) -> int:
        attr = getattr(A, f"CU_DEVICE_ATTRIBUTE_{name.upper()}", None)
        if attr is None:
            raise AttributeError(name)
        return check(cu.cuDeviceGetAttribute(attr, self._id))

    def __dir__(self) -> list[str]:
        return sorted(m.name.removeprefix("CU_DEVICE_ATTRIBUTE_").lower() for m in A)


class Device:
    """The CUDA device ``device_id`` (default: the current one, else 0); one object per id and thread."""

    def __new__(cls, device_id: Device | int | None = None) -> Device:
        ensure_init()
        if isinstance(device_id, Device):
            return device_id
        if device_id is None:
            device_id = getattr(_tls, "current", 0)
        count = check(cu.cuDeviceGetCount())
        if not 0 <= int(device_id) < count:
            raise ValueError(f"device_id must be within [0, {count}), got {device_id}")
        cache = getattr(_tls, "devices", None)
        if cache is None:
            cache = _tls.devices = {}
        if int(device_id) not in cache:
            dev = super().__new__(cls)
            dev._id = int(device_id)
            dev._context = None
            dev._mr = None
            dev._props = DeviceProperties(dev._id)
            cache[dev._id] = dev
        return cache[int(device_id)]

    # ---- identity
    @property
    def device_id(self) -> int:
        return self._id

    @property
    def name(self) -> str:
        return check(cu.cuDeviceGetName(256, self._id)).split(b"\0", 1)[0].decode()

    @property
    def uuid(self) -> str:
        raw = check(cu.cuDeviceGetUuid(self._id)).bytes
        h = raw.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    @property
    def pci_bus_id(self) -> str:
        return check(cu.cuDeviceGetPCIBusId(13, self._id)).decode()

    @property
    def compute_capability(self) -> ComputeCapability:
        return ComputeCapability(self._props.compute_capability_major, self._props.compute_capability_minor)

    @property
    def arch(self) -> str:
        return "".join(str(i) for i in self.compute_capability)

    @property
    def properties(self) -> DeviceProperties:
        return self._props

    def can_access_peer(self, peer: Device | int) -> bool:
        return bool(check(cu.cuDeviceCanAccessPeer(self._id, int(Device(peer).device_id))))

    @staticmethod
    def get_all_devices() -> tuple[Device, ...]:
        ensure_init()
        return tuple(Device(i) for i in range(check(cu.cuDeviceGetCount())))

    # ---- context
    def set_current(self, ctx: Context | None = None) -> Context | None:
        """Make this device current (its primary context) in the calling thread."""
        if ctx is not None:
            previous = check(cu.cuCtxGetCurrent())
            check(cu.cuCtxSetCurrent(ctx.handle))
            self._context = ctx
            _tls.current = self._id
            return Context(previous, self._id) if previous else None
        if self._context is None:
            handle = check(cu.cuDevicePrimaryCtxRetain(self._id))
            self._context = Context(handle, self._id)
        check(cu.cuCtxSetCurrent(self._context.handle))
        _tls.current = self._id
        return None

    @property
    def resources(self):
        from cumetal.core._resources import device_resources

        return device_resources(self._id)

    def create_context(self, options: Any = None) -> Context:
        """A green context with the SM resources in ``ContextOptions(resources=[...])`` (not made current)."""
        from cumetal.core._resources import create_green_context

        green, handle = create_green_context(self._id, options)
        return Context(handle, self._id, green=green)

    def _require_current(self) -> None:
        if self._context is None:
            raise CUDAError(cu.CUresult.CUDA_ERROR_INVALID_CONTEXT,
                            "call Device.set_current() before using the device")

    @property
    def context(self) -> Context:
        self._require_current()
        return self._context

    def sync(self) -> None:
        self._require_current()
        check(cu.cuCtxSynchronize())

    # ---- streams, events, memory, graphs
    @property
    def default_stream(self):
        from cumetal.core._stream import LEGACY_DEFAULT_STREAM

        return LEGACY_DEFAULT_STREAM

    def create_stream(self, obj: Any = None, options: Any = None):
        from cumetal.core._stream import Stream

        self._require_current()
        return Stream._create(self, obj, options)

    def create_event(self, options: Any = None):
        from cumetal.core._stream import Event

        self._require_current()
        return Event._create(self, options)

    @property
    def memory_resource(self):
        from cumetal.core._memory import DeviceMemoryResource

        if self._mr is None:
            self._mr = DeviceMemoryResource(self._id)
        return self._mr

    @memory_resource.setter
    def memory_resource(self, mr: Any) -> None:
        self._mr = mr

    def allocate(self, size: int, stream: Any = None):
        self._require_current()
        return self.memory_resource.allocate(size, stream)

    def create_vmm_memory_resource(self, config: Any = None):
        from cumetal.core._vmm import VirtualMemoryResource

        return VirtualMemoryResource(self, config)

    # ---- opaque arrays, textures and surfaces (cumetal.core.texture)
    def create_opaque_array(self, options: Any):
        from cumetal.core.texture import OpaqueArray, OpaqueArrayOptions

        self._require_current()
        if not isinstance(options, OpaqueArrayOptions):
            raise TypeError(f"options must be an OpaqueArrayOptions, got {type(options).__name__}")
        return OpaqueArray._create(options, self._id)

    def create_mipmapped_array(self, options: Any):
        from cumetal.core.texture import MipmappedArray, MipmappedArrayOptions

        self._require_current()
        if isinstance(options, dict):
            options = MipmappedArrayOptions(**options)
        if not isinstance(options, MipmappedArrayOptions):
            raise TypeError(f"options must be a MipmappedArrayOptions, got {type(options).__name__}")
        return MipmappedArray._create(options, self._id)

    def create_texture_object(self, resource: Any, options: Any = None):
        from cumetal.core.texture import TextureObject

        self._require_current()
        return TextureObject._create(resource, options, self._id)

    def create_surface_object(self, array: Any):
        from cumetal.core.texture import SurfaceObject

        self._require_current()
        return SurfaceObject._create(array, self._id)

    def create_graph_builder(self):
        return self.create_stream().create_graph_builder()

    def __int__(self) -> int:
        return self._id

    def __repr__(self) -> str:
        return f"<Device {self._id} ({self.name})>"


class _System:
    """``cuda.core.system``: the driver version and the devices."""

    @property
    def num_devices(self) -> int:
        ensure_init()
        return check(cu.cuDeviceGetCount())

    @property
    def driver_version(self) -> tuple[int, int]:
        v = check(cu.cuDriverGetVersion())
        return (v // 1000, (v % 1000) // 10)

    @property
    def devices(self) -> tuple[Device, ...]:
        return Device.get_all_devices()

    def get_num_devices(self) -> int:
        return self.num_devices


system = _System()
