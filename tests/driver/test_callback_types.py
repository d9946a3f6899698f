"""cuda-bindings' function-pointer wrappers (CUstreamCallback, CUoccupancyB2DSize, …) under their names:
a callback passed as such a wrapper runs as one passed as a ctypes function or an address."""

from __future__ import annotations

import ctypes

from cumetal import driver as cu

PTX = b"""
.version 7.0
.target sm_80
.address_size 64
.visible .entry k() { ret; }
"""


def _context() -> None:
    assert cu.cuInit(0)[0] == 0
    err, dev = cu.cuDeviceGet(0)
    err, ctx = cu.cuDevicePrimaryCtxRetain(dev)
    assert cu.cuCtxSetCurrent(ctx)[0] == 0


def test_stream_callback_given_as_cuda_bindings_wrapper_runs_with_status_and_data() -> None:
    _context()
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    seen: list[tuple[int, int]] = []
    fn = proto(lambda stream, status, data: seen.append((status, data)))
    err, stream = cu.cuStreamCreate(0)
    wrapped = cu.CUstreamCallback(ctypes.cast(fn, ctypes.c_void_p).value)
    assert int(wrapped) == wrapped.getPtr() == ctypes.cast(fn, ctypes.c_void_p).value
    assert cu.cuStreamAddCallback(stream, wrapped, 1234, 0) == (cu.CUresult.CUDA_SUCCESS,)
    assert cu.cuStreamSynchronize(stream)[0] == 0
    assert seen == [(0, 1234)]
    assert cu.cuStreamAddCallback(stream, cu.CUstreamCallback(0), 0, 0)[0] == cu.CUresult.CUDA_ERROR_INVALID_VALUE


def test_occupancy_size_callback_given_as_cuda_bindings_wrapper_is_called_per_block_size() -> None:
    _context()
    err, module = cu.cuModuleLoadData(PTX)
    err, fn = cu.cuModuleGetFunction(module, b"k")
    proto = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int)
    asked: list[int] = []
    size_fn = proto(lambda block: asked.append(block) or 0)
    err, grid, block = cu.cuOccupancyMaxPotentialBlockSize(
        fn, cu.CUoccupancyB2DSize(ctypes.cast(size_fn, ctypes.c_void_p).value), 0, 0)
    assert err == 0 and block > 0 and grid > 0
    assert asked and all(b % 32 == 0 for b in asked)


def test_every_callback_wrapper_of_cuda_bindings_is_named() -> None:
    for name in ("CUstreamCallback", "CUoccupancyB2DSize", "CUasyncCallback", "CUlogsCallback", "CUhostFn",
                 "CUcoredumpStatusCallback", "CUgraphRecaptureCallback"):
        wrapper = getattr(cu, name)(0x40)
        assert int(wrapper) == 0x40 and name in repr(wrapper)
