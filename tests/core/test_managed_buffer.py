"""cumetal.core.ManagedBuffer (cuda.core 1.2): managed-memory hints read back through the driver,
prefetch/discard on a stream, data intact."""

from __future__ import annotations

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.core import Device, Host, ManagedBuffer, ManagedMemoryResource


@pytest.fixture(scope="module")
def dev():
    d = Device()
    d.set_current()
    yield d
    from cumetal.core import _device

    d.sync()
    cu.cuCtxSetCurrent(None)
    cu.cuDevicePrimaryCtxRelease(0)
    _device._tls.__dict__.clear()


def test_managed_buffer_hints_and_prefetch(dev):
    s = dev.create_stream()
    buf = ManagedMemoryResource().allocate(4096)
    assert isinstance(buf, ManagedBuffer) and buf.is_managed
    view = np.from_dlpack(buf).view(np.uint32)
    view[:] = np.arange(1024)
    assert buf.read_mostly is False and buf.preferred_location is None and len(buf.accessed_by) == 0
    buf.read_mostly = True
    buf.preferred_location = dev
    buf.accessed_by.add(Host())
    assert buf.read_mostly is True and buf.preferred_location == dev and Host() in buf.accessed_by
    buf.accessed_by = [dev]
    assert set(buf.accessed_by) == {dev}
    buf.preferred_location = Host()
    assert buf.preferred_location == Host()
    buf.preferred_location = None
    assert buf.preferred_location is None
    buf.prefetch(dev, stream=s)
    buf.prefetch(Host(), stream=s)
    s.sync()
    assert (np.from_dlpack(buf).view(np.uint32) == np.arange(1024)).all()  # nothing moved or changed
    buf.discard_prefetch(dev, stream=s)
    buf.discard(stream=s)
    s.sync()
    with pytest.raises(TypeError):
        buf.prefetch("gpu", stream=s)
    with pytest.raises(TypeError):
        buf.accessed_by = ["gpu"]
    buf.close()
    with pytest.raises(RuntimeError):
        buf.read_mostly  # noqa: B018 - closed
    s.close()
