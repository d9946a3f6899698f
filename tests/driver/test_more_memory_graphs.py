"""Pointer attributes, registered host memory, pitched copies, pools, VMM, graphs and capture."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.driver.conftest import check
from tests.driver.ptx_snippets import SCALE

from cumetal import driver as cu

R = cu.CUresult
P = cu.CUpointer_attribute
N = 1000


def test_pointer_attributes(ctx):
    d = check(cu.cuMemAlloc(4000))
    h = check(cu.cuMemAllocHost(64))
    attrs = [P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, P.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
             P.CU_POINTER_ATTRIBUTE_RANGE_SIZE, P.CU_POINTER_ATTRIBUTE_CONTEXT, P.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL]
    mt, start, size, owner, ordinal = check(cu.cuPointerGetAttributes(len(attrs), attrs, int(d) + 100))
    assert (mt, int(start), size, owner, ordinal) == (cu.CUmemorytype.CU_MEMORYTYPE_DEVICE, int(d), 4000, ctx, 0)
    assert check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, h)) == cu.CUmemorytype.CU_MEMORYTYPE_HOST
    # an unknown pointer: cuPointerGetAttribute fails, cuPointerGetAttributes answers zeros (as CUDA)
    assert cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 16)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert check(cu.cuPointerGetAttributes(1, [P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE], 16)) == [0]


def test_host_register_any_buffer_and_kernel_use(ctx):
    mod = check(cu.cuModuleLoadData(SCALE))
    fn = check(cu.cuModuleGetFunction(mod, b"scale"))
    x = (ctypes.c_float * N)(*range(N))  # a ctypes array, as cuda-python examples pass
    y = np.zeros(N, np.float32)
    check(cu.cuMemHostRegister(x, 4 * N, cu.CU_MEMHOSTREGISTER_DEVICEMAP))
    check(cu.cuMemHostRegister(y, 4 * N, 0))
    dx, dy = check(cu.cuMemHostGetDevicePointer(x, 0)), check(cu.cuMemHostGetDevicePointer(y, 0))
    assert int(dx) == ctypes.addressof(x)
    check(cu.cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, 0,
                            ((dx, dy, 0.5, N), (None, None, ctypes.c_float, ctypes.c_uint)), None))
    check(cu.cuCtxSynchronize())
    np.testing.assert_array_equal(y, np.arange(N, dtype=np.float32) * 0.5)
    assert cu.cuMemHostRegister(y, 4 * N, 0)[0] == R.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
    check(cu.cuMemHostUnregister(y))
    check(cu.cuMemHostUnregister(x))
    assert cu.cuMemHostUnregister(y)[0] == R.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED


def test_pitched_2d_3d_copies_and_fills(ctx):
    rows, cols = 5, 37
    d, pitch = check(cu.cuMemAllocPitch(4 * cols, rows, 4))
    assert pitch % 512 == 0 and pitch >= 4 * cols
    check(cu.cuMemsetD2D32(d, pitch, 0xDEADBEEF, cols, rows))
    host = np.arange(rows * cols, dtype=np.uint32).reshape(rows, cols)
    cp = cu.CUDA_MEMCPY2D()
    cp.srcMemoryType, cp.srcHost, cp.srcPitch = cu.CUmemorytype.CU_MEMORYTYPE_HOST, host, 4 * cols
    cp.dstMemoryType, cp.dstDevice, cp.dstPitch = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE, d, pitch
    cp.WidthInBytes, cp.Height = 4 * (cols - 2), rows  # leave two columns of the fill
    check(cu.cuMemcpy2D(cp))
    back = np.zeros(pitch * rows // 4, np.uint32)
    check(cu.cuMemcpyDtoH(back, d, pitch * rows))
    grid = back.reshape(rows, pitch // 4)
    np.testing.assert_array_equal(grid[:, : cols - 2], host[:, : cols - 2])
    assert (grid[:, cols - 2: cols] == 0xDEADBEEF).all()
    # 3D: a 2x3x4 box out of a 4x5x6 device volume, into a dense host array
    vol = np.arange(4 * 5 * 6, dtype=np.uint8)
    dv = check(cu.cuMemAlloc(vol.size))
    check(cu.cuMemcpyHtoD(dv, vol, vol.size))
    out = np.zeros(2 * 3 * 4, np.uint8)
    c3 = cu.CUDA_MEMCPY3D()
    c3.srcMemoryType, c3.srcDevice, c3.srcPitch, c3.srcHeight = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE, dv, 6, 5
    c3.srcXInBytes, c3.srcY, c3.srcZ = 1, 2, 1
    c3.dstMemoryType, c3.dstHost, c3.dstPitch, c3.dstHeight = cu.CUmemorytype.CU_MEMORYTYPE_HOST, out, 4, 3
    c3.WidthInBytes, c3.Height, c3.Depth = 4, 3, 2
    check(cu.cuMemcpy3D(c3))
    np.testing.assert_array_equal(out.reshape(2, 3, 4), vol.reshape(4, 5, 6)[1:3, 2:5, 1:5])


def test_prefetch_advise_range_attributes(ctx):
    m = check(cu.cuMemAllocManaged(1 << 16, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    loc = cu.CUmemLocation()
    loc.type, loc.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    check(cu.cuMemAdvise(m, 1 << 16, cu.CUmem_advise.CU_MEM_ADVISE_SET_READ_MOSTLY, loc))
    check(cu.cuMemPrefetchAsync(m, 1 << 16, loc, 0, 0))
    RA = cu.CUmem_range_attribute
    assert check(cu.cuMemRangeGetAttribute(4, RA.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 1 << 16)) == 1
    assert check(cu.cuMemRangeGetAttribute(4, RA.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 1 << 16)) == 0
    assert cu.cuMemPrefetchAsync(m, 1 << 17, loc, 0, 0)[0] == R.CUDA_ERROR_INVALID_VALUE  # past the allocation


def test_pools_count_stream_ordered_allocations(ctx):
    stream = check(cu.cuStreamCreate(0))
    pool = check(cu.cuDeviceGetDefaultMemPool(0))
    used = cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_USED_MEM_CURRENT
    before = int(check(cu.cuMemPoolGetAttribute(pool, used)))
    p = check(cu.cuMemAllocAsync(4096, stream))
    assert int(check(cu.cuMemPoolGetAttribute(pool, used))) == before + 4096
    assert check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p)) == pool
    check(cu.cuMemsetD8Async(p, 7, 4096, stream))
    check(cu.cuMemFreeAsync(p, stream))
    assert int(check(cu.cuMemPoolGetAttribute(pool, used))) == before
    props = cu.CUmemPoolProps()
    props.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    props.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.maxSize = 8192
    mine = check(cu.cuMemPoolCreate(props))
    q = check(cu.cuMemAllocFromPoolAsync(8192, mine, stream))
    assert cu.cuMemAllocFromPoolAsync(1, mine, stream)[0] == R.CUDA_ERROR_OUT_OF_MEMORY
    check(cu.cuMemFreeAsync(q, stream))
    check(cu.cuMemPoolDestroy(mine))


def test_vmm_maps_one_physical_allocation_twice(ctx):
    prop = cu.CUmemAllocationProp()
    prop.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type, prop.location.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    gran = check(cu.cuMemGetAllocationGranularity(prop, 0))
    va = check(cu.cuMemAddressReserve(2 * gran, 0, 0, 0))
    handle = check(cu.cuMemCreate(gran, prop, 0))
    check(cu.cuMemMap(va, gran, 0, handle, 0))
    check(cu.cuMemMap(int(va) + gran, gran, 0, handle, 0))
    assert cu.cuMemsetD8(va, 1, 16)[0] == R.CUDA_ERROR_INVALID_VALUE  # no access set yet
    desc = cu.CUmemAccessDesc()
    desc.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    desc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    check(cu.cuMemSetAccess(va, 2 * gran, [desc], 1))
    check(cu.cuMemsetD32(va, 0x01020304, 4))
    seen = np.zeros(4, np.uint32)
    check(cu.cuMemcpyDtoH(seen, int(va) + gran, 16))  # the second mapping aliases the first
    assert (seen == 0x01020304).all()
    both = np.zeros(2 * gran, np.uint8)
    check(cu.cuMemcpyDtoH(both, va, 2 * gran))  # a copy across the two mappings
    np.testing.assert_array_equal(both[:gran], both[gran:])
    check(cu.cuMemUnmap(va, 2 * gran))
    check(cu.cuMemRelease(handle))
    check(cu.cuMemAddressFree(va, 2 * gran))


def _scale_setup():
    mod = check(cu.cuModuleLoadData(SCALE))
    fn = check(cu.cuModuleGetFunction(mod, b"scale"))
    x = np.arange(N, dtype=np.float32)
    dx, dy = check(cu.cuMemAlloc(4 * N)), check(cu.cuMemAlloc(4 * N))
    check(cu.cuMemcpyHtoD(dx, x, 4 * N))
    return fn, x, dx, dy


def _kernel_node(fn, dx, dy, a):
    p = cu.CUDA_KERNEL_NODE_PARAMS()
    p.func, p.gridDimX, p.blockDimX = fn, 4, 256
    p.kernelParams = ((dx, dy, a, N), (None, None, ctypes.c_float, ctypes.c_uint))
    return p


def test_graph_built_by_hand_replays_in_order(ctx):
    fn, x, dx, dy = _scale_setup()
    stream = check(cu.cuStreamCreate(0))
    graph = check(cu.cuGraphCreate(0))
    ms = cu.CUDA_MEMSET_NODE_PARAMS()
    ms.dst, ms.value, ms.elementSize, ms.width, ms.height = dy, 0, 4, N, 1
    n1 = check(cu.cuGraphAddMemsetNode(graph, None, 0, ms, ctx))
    n2 = check(cu.cuGraphAddKernelNode(graph, [n1], 1, _kernel_node(fn, dx, dy, 3.0)))
    out = np.zeros(N, np.float32)
    cp = cu.CUDA_MEMCPY3D()
    cp.srcMemoryType, cp.srcDevice = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE, dy
    cp.dstMemoryType, cp.dstHost = cu.CUmemorytype.CU_MEMORYTYPE_HOST, out
    cp.WidthInBytes, cp.Height, cp.Depth = 4 * N, 1, 1
    n3 = check(cu.cuGraphAddMemcpyNode(graph, [n2], 1, cp, ctx))
    calls = []
    host = cu.CUDA_HOST_NODE_PARAMS()
    host.fn, host.userData = lambda data: calls.append((data, out[:3].tolist())), "after copy"
    check(cu.cuGraphAddHostNode(graph, [n3], 1, host))
    assert check(cu.cuGraphGetNodes(graph)) == ([], 4)
    assert check(cu.cuGraphNodeGetType(n2)) == cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
    exe = check(cu.cuGraphInstantiate(graph, 0))
    check(cu.cuGraphLaunch(exe, stream))
    check(cu.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(out, x * 3)
    assert calls == [("after copy", [0.0, 3.0, 6.0])]
    check(cu.cuGraphExecKernelNodeSetParams(exe, n2, _kernel_node(fn, dx, dy, 7.0)))
    check(cu.cuGraphLaunch(exe, stream))
    check(cu.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(out, x * 7)
    check(cu.cuGraphExecDestroy(exe))
    check(cu.cuGraphDestroy(graph))
    assert cu.cuGraphLaunch(exe, stream)[0] != R.CUDA_SUCCESS


def test_stream_capture_records_launches(ctx):
    fn, x, dx, dy = _scale_setup()
    stream = check(cu.cuStreamCreate(0))
    check(cu.cuStreamBeginCapture(stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    assert check(cu.cuStreamIsCapturing(stream)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    args = ((dx, dy, 4.0, N), (None, None, ctypes.c_float, ctypes.c_uint))
    check(cu.cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, stream, args, None))
    args2 = ((dy, dy, 0.5, N), (None, None, ctypes.c_float, ctypes.c_uint))
    check(cu.cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, stream, args2, None))
    staged = np.zeros(N, np.float32)
    check(cu.cuMemcpyDtoHAsync(staged, dy, 4 * N, stream))  # a captured copy…
    check(cu.cuMemsetD32Async(dx, 0, N, stream))  # …and fill run at replay, in stream order
    assert (staged == 0).all() and check(cu.cuStreamIsCapturing(stream))
    out = np.empty(N, np.float32)
    check(cu.cuMemcpyDtoH(out, dy, 4 * N))
    assert (out == 0).all()  # captured, not run
    graph = check(cu.cuStreamEndCapture(stream))
    assert check(cu.cuStreamIsCapturing(stream)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE
    nodes, count = check(cu.cuGraphGetNodes(graph, 4))
    assert count == 4 and check(cu.cuGraphNodeGetDependencies(nodes[1], 1))[0] == [nodes[0]]
    assert [check(cu.cuGraphNodeGetType(n)) for n in nodes] == [
        cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL, cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL,
        cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMCPY, cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMSET]
    exe = check(cu.cuGraphInstantiate(graph, 0))
    check(cu.cuGraphLaunch(exe, stream))
    check(cu.cuStreamSynchronize(stream))
    check(cu.cuMemcpyDtoH(out, dy, 4 * N))
    np.testing.assert_array_equal(out, x * 2)
    np.testing.assert_array_equal(staged, x * 2)
    check(cu.cuMemcpyDtoH(out, dx, 4 * N))
    assert (out == 0).all()
    assert cu.cuStreamBeginCapture(0, 0)[0] == R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED


def test_capture_fork_join_and_host_nodes(ctx):
    """Capture across streams (event fork/join) and a captured host function, replayed in order."""
    fn, x, dx, dy = _scale_setup()
    main, side = check(cu.cuStreamCreate(0)), check(cu.cuStreamCreate(0))
    fork, join = check(cu.cuEventCreate(0)), check(cu.cuEventCreate(0))
    seen = []
    check(cu.cuStreamBeginCapture(main, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    check(cu.cuEventRecord(fork, main))
    check(cu.cuStreamWaitEvent(side, fork, 0))  # side joins the capture
    assert check(cu.cuStreamIsCapturing(side)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    check(cu.cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, side,
                            ((dx, dy, 5.0, N), (None, None, ctypes.c_float, ctypes.c_uint)), None))
    check(cu.cuEventRecord(join, side))
    check(cu.cuStreamWaitEvent(main, join, 0))
    check(cu.cuLaunchHostFunc(main, lambda data: seen.append((data, float(
        (ctypes.c_float * 2).from_address(int(dy))[1]))), "host node"))
    graph = check(cu.cuStreamEndCapture(main))
    assert not seen
    _, count = check(cu.cuGraphGetNodes(graph))
    assert count == 2
    exe = check(cu.cuGraphInstantiate(graph, 0))
    check(cu.cuGraphLaunch(exe, main))
    check(cu.cuStreamSynchronize(main))
    assert seen == [("host node", 5.0)]  # the host node ran after the kernel it depends on
