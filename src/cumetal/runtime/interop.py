"""Graphics interoperability entry points (OpenGL, EGL, EGLStreams, VDPAU).

CuMetal shares no memory with a graphics API on Linux (there is no OpenGL/EGL/VDPAU driver behind
its devices; on macOS the counterpart would be Metal resources, not these APIs), so no graphics
resource can ever be registered: every registration or connection is ``cudaErrorNotSupported`` with
a message, and every call that takes a resource (which can only be a handle that was never
registered) answers as CUDA does for an invalid one. They exist so that programs probing for interop
get CUDA's error codes instead of a missing function.
"""

from __future__ import annotations

from typing import Any

from cumetal.runtime.device import device_ordinal, int_arg
from cumetal.runtime.enums import cudaError_t
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.types import _Handle

E = cudaError_t


class cudaGraphicsResource_t(_Handle):  # noqa: N801
    __slots__ = ()


class cudaEglStreamConnection(_Handle):  # noqa: N801
    __slots__ = ()


def _none(api: str) -> RtError:
    return RtError(E.cudaErrorNotSupported, f"CuMetal has no {api} interoperability (no graphics driver shares "
                   "memory with its devices)")


def _resource(resource: Any) -> RtError:
    return RtError(E.cudaErrorInvalidResourceHandle, f"{resource!r} is not a registered graphics resource "
                   "(CuMetal registers none)")


def _flags(flags: Any) -> int:
    return int_arg(flags, "flags", hi=2**32)


# ---------------------------------------------------------------- registration
@rt_api(1)
def cudaGraphicsGLRegisterBuffer(buffer: Any, flags: Any) -> tuple:  # noqa: N802
    _flags(flags)
    raise _none("OpenGL")


@rt_api(1)
def cudaGraphicsGLRegisterImage(image: Any, target: Any, flags: Any) -> tuple:  # noqa: N802
    _flags(flags)
    raise _none("OpenGL")


@rt_api(2)
def cudaGLGetDevices(cudaDeviceCount: Any, deviceList: Any) -> tuple:  # noqa: N802, N803
    int_arg(cudaDeviceCount, "cudaDeviceCount", hi=2**32)
    raise _none("OpenGL")


@rt_api(1)
def cudaGraphicsEGLRegisterImage(image: Any, flags: Any) -> tuple:  # noqa: N802
    _flags(flags)
    raise _none("EGL")


@rt_api(1)
def cudaEventCreateFromEGLSync(eglSync: Any, flags: Any) -> tuple:  # noqa: N802, N803
    _flags(flags)
    raise _none("EGL")


@rt_api(1)
def cudaGraphicsVDPAURegisterVideoSurface(vdpSurface: Any, flags: Any) -> tuple:  # noqa: N802, N803
    _flags(flags)
    raise _none("VDPAU")


@rt_api(1)
def cudaGraphicsVDPAURegisterOutputSurface(vdpSurface: Any, flags: Any) -> tuple:  # noqa: N802, N803
    _flags(flags)
    raise _none("VDPAU")


@rt_api(1)
def cudaVDPAUGetDevice(vdpDevice: Any, vdpGetProcAddress: Any) -> tuple:  # noqa: N802, N803
    raise _none("VDPAU")


@rt_api(0)
def cudaVDPAUSetVDPAUDevice(device: Any, vdpDevice: Any, vdpGetProcAddress: Any) -> tuple:  # noqa: N802, N803
    device_ordinal(device)
    raise _none("VDPAU")


# ---------------------------------------------------------------- EGLStreams
@rt_api(1)
def cudaEGLStreamConsumerConnect(eglStream: Any) -> tuple:  # noqa: N802, N803
    raise _none("EGLStream")


@rt_api(1)
def cudaEGLStreamConsumerConnectWithFlags(eglStream: Any, flags: Any) -> tuple:  # noqa: N802, N803
    _flags(flags)
    raise _none("EGLStream")


@rt_api(1)
def cudaEGLStreamProducerConnect(eglStream: Any, width: Any, height: Any) -> tuple:  # noqa: N802, N803
    raise _none("EGLStream")


def _connection(conn: Any) -> RtError:
    return RtError(E.cudaErrorInvalidValue, f"{conn!r} is not an EGLStream connection (CuMetal makes none)")


@rt_api(0)
def cudaEGLStreamConsumerDisconnect(conn: Any) -> tuple:  # noqa: N802
    raise _connection(conn)


@rt_api(0)
def cudaEGLStreamProducerDisconnect(conn: Any) -> tuple:  # noqa: N802
    raise _connection(conn)


@rt_api(0)
def cudaEGLStreamConsumerAcquireFrame(conn: Any, pCudaResource: Any, pStream: Any, timeout: Any) -> tuple:  # noqa: N802, N803
    raise _connection(conn)


@rt_api(0)
def cudaEGLStreamConsumerReleaseFrame(conn: Any, pCudaResource: Any, pStream: Any) -> tuple:  # noqa: N802, N803
    raise _connection(conn)


@rt_api(0)
def cudaEGLStreamProducerPresentFrame(conn: Any, eglframe: Any, pStream: Any) -> tuple:  # noqa: N802, N803
    raise _connection(conn)


@rt_api(0)
def cudaEGLStreamProducerReturnFrame(conn: Any, eglframe: Any, pStream: Any) -> tuple:  # noqa: N802, N803
    raise _connection(conn)


# ---------------------------------------------------------------- registered resources (none exist)
def _resources(count: Any, resources: Any) -> None:
    n = int_arg(count, "count", lo=-(2**31), hi=2**31)
    if n < 0:
        raise RtError(E.cudaErrorInvalidValue, f"count {n} is negative")
    if n:
        raise _resource(resources)


@rt_api(0)
def cudaGraphicsMapResources(count: Any, resources: Any, stream: Any = 0) -> tuple:  # noqa: N802
    from cumetal.runtime.state import RUNTIME

    RUNTIME.stream_handle(stream)
    _resources(count, resources)
    return ()


@rt_api(0)
def cudaGraphicsUnmapResources(count: Any, resources: Any, stream: Any = 0) -> tuple:  # noqa: N802
    from cumetal.runtime.state import RUNTIME

    RUNTIME.stream_handle(stream)
    _resources(count, resources)
    return ()


@rt_api(0)
def cudaGraphicsUnregisterResource(resource: Any) -> tuple:  # noqa: N802
    raise _resource(resource)


@rt_api(0)
def cudaGraphicsResourceSetMapFlags(resource: Any, flags: Any) -> tuple:  # noqa: N802
    _flags(flags)
    raise _resource(resource)


@rt_api(2)
def cudaGraphicsResourceGetMappedPointer(resource: Any) -> tuple:  # noqa: N802
    raise _resource(resource)


@rt_api(1)
def cudaGraphicsResourceGetMappedMipmappedArray(resource: Any) -> tuple:  # noqa: N802
    raise _resource(resource)


@rt_api(1)
def cudaGraphicsSubResourceGetMappedArray(resource: Any, arrayIndex: Any, mipLevel: Any) -> tuple:  # noqa: N802, N803
    raise _resource(resource)


@rt_api(1)
def cudaGraphicsResourceGetMappedEglFrame(resource: Any, index: Any, mipLevel: Any) -> tuple:  # noqa: N802, N803
    raise _resource(resource)
