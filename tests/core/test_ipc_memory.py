"""cumetal.core memory shared between processes (Linux), as cuda.core does it: an IPC-enabled
DeviceMemoryResource, its allocation handle and buffer descriptors, and buffers sent to a
multiprocessing child (spawn) that writes into them."""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.core import Buffer, Device, DeviceMemoryResource, DeviceMemoryResourceOptions

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="IPC on CuMetal needs Linux")


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


def _child(buf: Buffer, second: Buffer) -> None:  # runs in the spawned process
    Device().set_current()
    view = np.from_dlpack(buf).view(np.int32)
    view[:] = view * 2 + 1  # read the parent's data, write through the shared pool
    np.from_dlpack(second).view(np.int32)[:] = 7
    assert buf.memory_resource is second.memory_resource and buf.memory_resource.is_mapped
    buf.close()
    second.close()


def test_buffers_shared_with_a_spawned_process(dev):
    mr = DeviceMemoryResource(dev, DeviceMemoryResourceOptions(ipc_enabled=True))
    assert mr.is_ipc_enabled and not mr.is_mapped and mr.uuid is not None
    buf, second = mr.allocate(4096), mr.allocate(256)
    np.from_dlpack(buf).view(np.int32)[:] = np.arange(1024)
    proc = mp.get_context("spawn").Process(target=_child, args=(buf, second))
    proc.start()
    proc.join(timeout=240)
    if proc.is_alive():
        proc.kill()
    assert proc.exitcode == 0
    np.testing.assert_array_equal(np.from_dlpack(buf).view(np.int32), np.arange(1024) * 2 + 1)
    assert (np.from_dlpack(second).view(np.int32) == 7).all()
    # the same through the explicit calls, in this process: a mapped resource and a descriptor
    handle = mr.allocation_handle
    assert int(handle) >= 0 and handle.uuid == mr.uuid
    mapped = DeviceMemoryResource.from_allocation_handle(dev, handle)
    assert mapped.is_mapped and mapped.register(mr.uuid) is DeviceMemoryResource.from_registry(mr.uuid)
    desc = pickle.loads(pickle.dumps(buf.ipc_descriptor))
    alias = Buffer.from_ipc_descriptor(mapped, desc)
    assert alias.size == 4096
    np.testing.assert_array_equal(np.from_dlpack(alias).view(np.int32), np.arange(1024) * 2 + 1)
    with pytest.raises(RuntimeError):
        mapped.allocate(64)  # a mapped resource receives buffers only
    with pytest.raises(RuntimeError):
        alias.ipc_descriptor  # noqa: B018 - re-export from the mapped side
    with pytest.raises(TypeError):
        pickle.dumps(DeviceMemoryResource(dev).allocate(64))  # not IPC-enabled
    alias.close()
    buf.close()
    second.close()
    mapped.close()
    mr.close()
