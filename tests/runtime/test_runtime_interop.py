"""Graphics interop entry points: CuMetal registers no OpenGL/EGL/VDPAU resource, so registrations
and connections are cudaErrorNotSupported and calls on (never registered) resources answer CUDA's
invalid-handle codes; none raises."""

from __future__ import annotations

from tests.runtime.conftest import check

from cumetal import runtime as rt

E = rt.cudaError_t


def test_registration_is_not_supported():
    for call in (lambda: rt.cudaGraphicsGLRegisterBuffer(1, 0), lambda: rt.cudaGraphicsGLRegisterImage(1, 0x0DE1, 0),
                 lambda: rt.cudaGLGetDevices(1, 1), lambda: rt.cudaGraphicsEGLRegisterImage(1, 0),
                 lambda: rt.cudaEventCreateFromEGLSync(1, 0), lambda: rt.cudaGraphicsVDPAURegisterVideoSurface(1, 0),
                 lambda: rt.cudaGraphicsVDPAURegisterOutputSurface(1, 0), lambda: rt.cudaVDPAUGetDevice(1, 1),
                 lambda: rt.cudaVDPAUSetVDPAUDevice(0, 1, 1), lambda: rt.cudaEGLStreamConsumerConnect(1),
                 lambda: rt.cudaEGLStreamConsumerConnectWithFlags(1, 0), lambda: rt.cudaEGLStreamProducerConnect(1, 4, 4)):
        result = call()
        assert result[0] == E.cudaErrorNotSupported and all(r is None for r in result[1:]), result
    assert rt.cudaVDPAUSetVDPAUDevice(5, 1, 1)[0] == E.cudaErrorInvalidDevice
    assert rt.cudaGraphicsGLRegisterBuffer(1, -1)[0] == E.cudaErrorInvalidValue


def test_resources_and_connections_are_invalid():
    r = rt.cudaGraphicsResource_t(0x1234)
    for call in (lambda: rt.cudaGraphicsUnregisterResource(r), lambda: rt.cudaGraphicsResourceSetMapFlags(r, 0),
                 lambda: rt.cudaGraphicsResourceGetMappedPointer(r),
                 lambda: rt.cudaGraphicsResourceGetMappedMipmappedArray(r),
                 lambda: rt.cudaGraphicsSubResourceGetMappedArray(r, 0, 0),
                 lambda: rt.cudaGraphicsResourceGetMappedEglFrame(r, 0, 0),
                 lambda: rt.cudaGraphicsMapResources(1, [r], 0), lambda: rt.cudaGraphicsUnmapResources(1, [r], 0)):
        assert call()[0] == E.cudaErrorInvalidResourceHandle
    check(rt.cudaGraphicsMapResources(0, [], 0))  # nothing to map
    assert rt.cudaGraphicsMapResources(-1, [], 0)[0] == E.cudaErrorInvalidValue
    assert rt.cudaGraphicsMapResources(1, [r], "stream")[0] == E.cudaErrorInvalidResourceHandle
    c = rt.cudaEglStreamConnection(7)
    for call in (lambda: rt.cudaEGLStreamConsumerDisconnect(c), lambda: rt.cudaEGLStreamProducerDisconnect(c),
                 lambda: rt.cudaEGLStreamConsumerAcquireFrame(c, 0, 0, 0),
                 lambda: rt.cudaEGLStreamConsumerReleaseFrame(c, 0, 0),
                 lambda: rt.cudaEGLStreamProducerPresentFrame(c, None, 0),
                 lambda: rt.cudaEGLStreamProducerReturnFrame(c, None, 0)):
        assert call()[0] == E.cudaErrorInvalidValue
