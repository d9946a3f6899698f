"""Driver calls added for breadth (docs/driver-api.md): batched and attributed copies, peer 3D
copies, stream memory operations, legacy launch configuration, context/device/stream queries,
user objects and the error log — each checked for what it does, not only that it answers."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.driver.conftest import OK, check

from cumetal import driver as cu

R = cu.CUresult


def _attrs(order=cu.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM):
    a = cu.CUmemcpyAttributes()
    a.srcAccessOrder = order
    return a


def test_memcpy_batch_copies_every_pair_and_validates_like_cuda(ctx) -> None:
    stream = check(cu.cuStreamCreate(0))
    host = [np.arange(n, dtype=np.uint8) * (i + 1) for i, n in enumerate((16, 300, 4096))]
    dev = [check(cu.cuMemAlloc(h.size)) for h in host]
    any_order = _attrs(cu.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
    assert cu.cuMemcpyBatchAsync(dev, host, [h.size for h in host], 3, [_attrs(), any_order], [0, 2], 2,
                                 stream)[0] == OK
    back = [np.zeros_like(h) for h in host]
    assert cu.cuMemcpyBatchAsync(back, dev, [h.size for h in host], 3, [_attrs()], [0], 1, stream)[0] == OK
    check(cu.cuStreamSynchronize(stream))
    for h, b in zip(host, back, strict=False):
        np.testing.assert_array_equal(b, h)
    sizes = [h.size for h in host]
    bad = [
        (dev, host, sizes, 3, [_attrs()], [1], 1, stream),  # attrsIdxs must start at 0
        (dev, host, sizes, 3, [_attrs(), _attrs()], [0, 0], 2, stream),  # and increase
        (dev, host, sizes, 3, [_attrs(0)], [0], 1, stream),  # an invalid source access order
        (dev, host, sizes, 3, [_attrs()], [0], 1, 0),  # the legacy NULL stream
        (dev, host, [h.size + 1 for h in host], 3, [_attrs()], [0], 1, stream),  # past an allocation's end
    ]
    for args in bad:
        assert cu.cuMemcpyBatchAsync(*args)[0] == R.CUDA_ERROR_INVALID_VALUE
    # cuMemcpyWithAttributesAsync: one copy
    out = np.zeros(16, np.uint8)
    assert cu.cuMemcpyWithAttributesAsync(out, dev[0], 16, _attrs(), stream)[0] == OK
    check(cu.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(out, host[0])


def test_memcpy_3d_batch_and_peer_copy_a_sub_box(ctx) -> None:
    stream = check(cu.cuStreamCreate(0))
    src = np.arange(4 * 5 * 6, dtype=np.uint8).reshape(4, 5, 6)  # depth, height, row length
    dst = np.zeros((3, 4, 7), np.uint8)
    op = cu.CUDA_MEMCPY3D_BATCH_OP()
    op.srcAccessOrder = cu.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    for side, arr in (("src", src), ("dst", dst)):
        operand = getattr(op, side)
        operand.type = cu.CUmemcpy3DOperandType.CU_MEMCPY_OPERAND_TYPE_POINTER
        operand.op.ptr.ptr = arr.ctypes.data
        operand.op.ptr.rowLength, operand.op.ptr.layerHeight = arr.shape[2], arr.shape[1]
    op.extent.width, op.extent.height, op.extent.depth = 5, 3, 2
    assert cu.cuMemcpy3DBatchAsync(1, [op], 0, stream)[0] == OK
    check(cu.cuStreamSynchronize(stream))
    expect = np.zeros_like(dst)
    expect[:2, :3, :5] = src[:2, :3, :5]
    np.testing.assert_array_equal(dst, expect)
    op.extent.depth = 0
    assert cu.cuMemcpy3DBatchAsync(1, [op], 0, stream)[0] == R.CUDA_ERROR_INVALID_VALUE
    # cuMemcpy3DPeer between two contexts of the one device: an ordinary 3D copy
    p = cu.CUDA_MEMCPY3D_PEER()
    d_src = check(cu.cuMemAlloc(src.nbytes))
    check(cu.cuMemcpyHtoD(d_src, src, src.nbytes))
    out = np.zeros_like(src)
    p.srcMemoryType, p.srcDevice, p.srcPitch, p.srcHeight = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE, d_src, 6, 5
    p.dstMemoryType, p.dstHost, p.dstPitch, p.dstHeight = cu.CUmemorytype.CU_MEMORYTYPE_HOST, out, 6, 5
    p.WidthInBytes, p.Height, p.Depth = 6, 5, 4
    p.srcContext = p.dstContext = ctx
    assert cu.cuMemcpy3DPeer(p)[0] == OK
    np.testing.assert_array_equal(out, src)
    p.dstContext = cu.CUcontext(0xDEAD)
    assert cu.cuMemcpy3DPeer(p)[0] == R.CUDA_ERROR_INVALID_CONTEXT


def test_graph_exec_update_takes_new_node_parameters(ctx) -> None:
    """cuGraphExecUpdate (it reached the runtime's update through a module that moved)."""
    buf = check(cu.cuMemAlloc(64))
    out = np.zeros(64, np.uint8)

    def graph_filling(value: int):
        g = check(cu.cuGraphCreate(0))
        p = cu.CUDA_MEMSET_NODE_PARAMS()
        p.dst, p.value, p.elementSize, p.width, p.height = buf, value, 1, 64, 1
        check(cu.cuGraphAddMemsetNode(g, None, 0, p, ctx))
        return g

    exe = check(cu.cuGraphInstantiate(graph_filling(7), 0))
    info = check(cu.cuGraphExecUpdate(exe, graph_filling(9)))
    assert info.result == cu.CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_SUCCESS
    check(cu.cuGraphLaunch(exe, 0))
    check(cu.cuMemcpyDtoH(out, buf, 64))
    assert (out == 9).all()
    ctypes.memset(out.ctypes.data, 0, 64)


# ---------------------------------------------------------------- stream memory operations
def test_stream_write_and_wait_value_order_work_on_the_stream(ctx, monkeypatch) -> None:
    import threading
    import time

    stream = check(cu.cuStreamCreate(0))
    word = check(cu.cuMemAlloc(16))
    check(cu.cuStreamWriteValue32(stream, word, 0xDEADBEEF, 0))
    check(cu.cuStreamWriteValue64(stream, int(word) + 8, 2**40 + 3, 0))
    out = np.zeros(2, np.uint64)
    check(cu.cuMemcpyDtoH(out, word, 16))
    assert int(out[0]) & 0xFFFFFFFF == 0xDEADBEEF and int(out[1]) == 2**40 + 3
    W = cu.CUstreamWaitValue_flags
    # already satisfied: GEQ is CUDA's cyclic comparison ((int32)(*addr - value) >= 0), AND, NOR
    check(cu.cuStreamWaitValue32(stream, word, 0xDEADBEE0, W.CU_STREAM_WAIT_VALUE_GEQ))
    check(cu.cuStreamWaitValue32(stream, word, 0x1, W.CU_STREAM_WAIT_VALUE_AND))
    check(cu.cuStreamWaitValue64(stream, int(word) + 8, 2**40 + 3, W.CU_STREAM_WAIT_VALUE_EQ))
    # not yet satisfied: the stream (here: the caller) waits until another thread writes the value
    flag = check(cu.cuMemAlloc(4))
    writer = threading.Timer(0.1, lambda: ctypes.c_uint32.from_address(int(flag)).__setattr__("value", 7))
    start = time.monotonic()
    writer.start()
    check(cu.cuStreamWaitValue32(stream, flag, 7, W.CU_STREAM_WAIT_VALUE_EQ))
    assert time.monotonic() - start >= 0.09
    writer.join()
    # never satisfied: a timeout, not a hang
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "0.2")
    assert cu.cuStreamWaitValue32(stream, flag, 8, W.CU_STREAM_WAIT_VALUE_EQ)[0] == R.CUDA_ERROR_LAUNCH_TIMEOUT
    assert cu.cuStreamWaitValue32(stream, int(flag) + 1, 7, 0)[0] == R.CUDA_ERROR_INVALID_VALUE  # misaligned
    # a batch: write 32, write 64, barrier, wait
    T = cu.CUstreamBatchMemOpType
    ops = [cu.CUstreamBatchMemOpParams() for _ in range(4)]
    ops[0].operation, ops[0].writeValue.address, ops[0].writeValue.value = T.CU_STREAM_MEM_OP_WRITE_VALUE_32, word, 11
    ops[1].operation = T.CU_STREAM_MEM_OP_WRITE_VALUE_64
    ops[1].writeValue.address, ops[1].writeValue.value64 = int(word) + 8, 2**50
    ops[2].operation = T.CU_STREAM_MEM_OP_BARRIER
    ops[3].operation, ops[3].waitValue.address, ops[3].waitValue.value = T.CU_STREAM_MEM_OP_WAIT_VALUE_32, word, 11
    check(cu.cuStreamBatchMemOp(stream, 4, ops, 0))
    check(cu.cuMemcpyDtoH(out, word, 16))
    assert int(out[0]) & 0xFFFFFFFF == 11 and int(out[1]) == 2**50


# ---------------------------------------------------------------- stream, event and context queries
def test_stream_attributes_events_and_context_queries(ctx) -> None:
    s1, s2 = check(cu.cuStreamCreate(0)), check(cu.cuStreamCreate(0))
    A = cu.CUstreamAttrID
    assert check(cu.cuStreamGetAttribute(s1, A.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY)).syncPolicy == 1
    v = cu.CUstreamAttrValue()
    v.syncPolicy = cu.CUsynchronizationPolicy.CU_SYNC_POLICY_YIELD
    check(cu.cuStreamSetAttribute(s1, A.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, v))
    check(cu.cuStreamCopyAttributes(s2, s1))
    assert check(cu.cuStreamGetAttribute(s2, A.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY)).syncPolicy == 3
    v.priority = -5  # one priority level: clamped into cuCtxGetStreamPriorityRange's (0, 0)
    check(cu.cuStreamSetAttribute(s1, A.CU_LAUNCH_ATTRIBUTE_PRIORITY, v))
    assert check(cu.cuStreamGetAttribute(s1, A.CU_LAUNCH_ATTRIBUTE_PRIORITY)).priority == 0
    assert cu.cuStreamGetAttribute(s1, A.CU_LAUNCH_ATTRIBUTE_COOPERATIVE)[0] == R.CUDA_ERROR_INVALID_VALUE
    owner, green = check(cu.cuStreamGetCtx_v2(s1))
    assert owner == ctx and green is None
    managed = check(cu.cuMemAllocManaged(64, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    check(cu.cuStreamAttachMemAsync(s1, managed, 0, cu.CUmemAttach_flags.CU_MEM_ATTACH_SINGLE))
    assert cu.cuStreamAttachMemAsync(s1, managed, 0, 3)[0] == R.CUDA_ERROR_INVALID_VALUE
    ev = check(cu.cuEventCreate(0))
    check(cu.cuEventRecordWithFlags(ev, s1, cu.CUevent_record_flags.CU_EVENT_RECORD_EXTERNAL))
    assert cu.cuEventRecordWithFlags(ev, s1, 4)[0] == R.CUDA_ERROR_INVALID_VALUE
    check(cu.cuCtxRecordEvent(ctx, ev))
    assert cu.cuEventQuery(ev)[0] == OK
    check(cu.cuCtxWaitEvent(ctx, ev))
    assert check(cu.cuCtxGetDevice_v2(ctx)) == check(cu.cuCtxGetDevice())
    check(cu.cuCtxSynchronize_v2(ctx))
    flags = cu.CUctx_flags.CU_CTX_SCHED_BLOCKING_SYNC | cu.CUctx_flags.CU_CTX_MAP_HOST
    check(cu.cuCtxSetFlags(flags))
    assert check(cu.cuCtxGetFlags()) == flags
    assert cu.cuCtxSetFlags(0x3)[0] == R.CUDA_ERROR_INVALID_VALUE  # two scheduling modes at once
    check(cu.cuCtxSetSharedMemConfig(cu.CUsharedconfig.CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE))
    assert check(cu.cuCtxGetSharedMemConfig()) == cu.CUsharedconfig.CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE
    sms = check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0))
    aff = check(cu.cuCtxGetExecAffinity(cu.CUexecAffinityType.CU_EXEC_AFFINITY_TYPE_SM_COUNT))
    assert aff.param.smCount.val == sms
    assert check(cu.cuDeviceGetExecAffinitySupport(0, 0)) == 0
    prop = check(cu.cuDeviceGetProperties(0))
    DA = cu.CUdevice_attribute
    assert prop.maxThreadsPerBlock == check(cu.cuDeviceGetAttribute(DA.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0))
    assert prop.maxGridSize[1] == check(cu.cuDeviceGetAttribute(DA.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 0))
    assert prop.SIMDWidth == 32
    width = check(cu.cuDeviceGetTexture1DLinearMaxWidth(cu.CUarray_format.CU_AD_FORMAT_FLOAT, 4, 0))
    assert width == check(cu.cuDeviceGetAttribute(DA.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, 0))
    assert cu.cuDeviceGetTexture1DLinearMaxWidth(cu.CUarray_format.CU_AD_FORMAT_FLOAT, 3, 0)[0] != OK
    M = cu.CUstreamCaptureMode
    old = check(cu.cuThreadExchangeStreamCaptureMode(M.CU_STREAM_CAPTURE_MODE_RELAXED))
    assert check(cu.cuThreadExchangeStreamCaptureMode(old)) == M.CU_STREAM_CAPTURE_MODE_RELAXED


# ---------------------------------------------------------------- the legacy launch interface
def test_legacy_launch_interface_runs_a_kernel(ctx) -> None:
    from tests.driver.ptx_snippets import SCALE

    mod = check(cu.cuModuleLoadFatBinary(SCALE.encode()))  # PTX loads as with cuModuleLoadData
    assert cu.cuModuleLoadFatBinary(b"\x7fELF" + bytes(60))[0] == R.CUDA_ERROR_NO_BINARY_FOR_GPU
    fn = check(cu.cuModuleGetFunction(mod, b"scale"))
    n = 300
    x = np.arange(n, dtype=np.float32)
    dx, dy = check(cu.cuMemAlloc(4 * n)), check(cu.cuMemAlloc(4 * n))
    check(cu.cuMemcpyHtoD(dx, x, 4 * n))
    assert cu.cuLaunchGrid(fn, 3, 1)[0] == R.CUDA_ERROR_INVALID_VALUE  # no block shape yet
    check(cu.cuFuncSetBlockShape(fn, 128, 1, 1))
    check(cu.cuParamSetSize(fn, 24))
    check(cu.cuParamSetv(fn, 0, np.array([int(dx), int(dy)], np.uint64), 16))
    check(cu.cuParamSetf(fn, 16, 2.5))
    check(cu.cuParamSeti(fn, 20, n))
    assert cu.cuParamSeti(fn, 24, 1)[0] == R.CUDA_ERROR_INVALID_VALUE  # past cuParamSetSize
    check(cu.cuLaunchGridAsync(fn, 3, 1, 0))
    y = np.zeros(n, np.float32)
    check(cu.cuMemcpyDtoH(y, dy, 4 * n))
    np.testing.assert_array_equal(y, x * 2.5)
    check(cu.cuParamSetSize(fn, 20))  # smaller than the kernel's 24-byte parameter buffer
    assert cu.cuLaunch(fn)[0] == R.CUDA_ERROR_INVALID_VALUE
    lib = check(cu.cuLibraryLoadData(SCALE.encode(), None, None, 0, None, None, 0))
    kernel = check(cu.cuLibraryGetKernel(lib, b"scale"))
    assert check(cu.cuKernelGetParamCount(kernel)) == 4


# ---------------------------------------------------------------- user objects, logs, pools, misc
def test_user_objects_are_destroyed_with_their_last_reference(ctx) -> None:
    destroyed = []
    obj = check(cu.cuUserObjectCreate("payload", destroyed.append, 2, 1))
    check(cu.cuUserObjectRetain(obj, 1))
    graph = check(cu.cuGraphCreate(0))
    check(cu.cuGraphRetainUserObject(graph, obj, 2, 1))  # moves two of the caller's three references
    check(cu.cuUserObjectRelease(obj, 1))
    assert destroyed == []
    assert cu.cuGraphReleaseUserObject(graph, obj, 3)[0] == R.CUDA_ERROR_INVALID_VALUE  # holds only 2
    check(cu.cuGraphReleaseUserObject(graph, obj, 1))
    assert destroyed == []
    check(cu.cuGraphDestroy(graph))  # gives back the graph's last reference
    assert destroyed == ["payload"]
    assert cu.cuUserObjectRelease(obj, 1)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuUserObjectCreate(None, destroyed.append, 1, 0)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_error_log_records_failed_calls(ctx, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    heard = []
    handle = check(cu.cuLogsRegisterCallback(lambda user, level, msg, n: heard.append((user, msg)), "me"))
    start = check(cu.cuLogsCurrent(0))
    assert cu.cuMemFree(0x1234)[0] == R.CUDA_ERROR_INVALID_VALUE
    buf = bytearray(4096)
    it, n = check(cu.cuLogsDumpToMemory(start, buf, len(buf), 0))
    text = bytes(buf[:n]).decode()
    assert "cuMemFree" in text and "CUDA_ERROR_INVALID_VALUE" in text and buf[n] == 0
    assert int(it) == int(start) + 1
    assert heard and heard[-1][0] == "me" and "cuMemFree" in heard[-1][1]
    check(cu.cuLogsUnregisterCallback(handle))
    cu.cuMemFree(0x1234)
    assert len(heard) == 1
    path = tmp_path / "log.txt"
    check(cu.cuLogsDumpToFile(it, str(path), 0))
    assert path.read_text().count("cuMemFree") == 1


def test_pools_by_location_host_func_v2_and_flush(ctx) -> None:
    loc = cu.CUmemLocation()
    loc.type, loc.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    pinned = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    default = check(cu.cuMemGetDefaultMemPool(loc, pinned))
    assert default == check(cu.cuDeviceGetDefaultMemPool(0))
    props = cu.CUmemPoolProps()
    props.allocType, props.location = pinned, loc
    pool = check(cu.cuMemPoolCreate(props))
    check(cu.cuMemSetMemPool(loc, pinned, pool))
    assert check(cu.cuMemGetMemPool(loc, pinned)) == pool == check(cu.cuDeviceGetMemPool(0))
    check(cu.cuMemSetMemPool(loc, pinned, default))
    check(cu.cuMemPoolDestroy(pool))
    loc.id = 1
    assert cu.cuMemGetMemPool(loc, pinned)[0] == R.CUDA_ERROR_INVALID_DEVICE
    ran = []
    check(cu.cuLaunchHostFunc_v2(0, ran.append, 5, 0))
    check(cu.cuCtxSynchronize())
    assert ran == [5]
    check(cu.cuFlushGPUDirectRDMAWrites(0, 100))
    assert cu.cuFlushGPUDirectRDMAWrites(0, 7)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_linker_keeps_one_of_several_weak_definitions(ctx) -> None:
    """``.weak`` definitions of one function in several PTX inputs (numba-cuda with debug=True
    compiles a shared device function into each caller's module): one is kept, a strong one first."""
    from tests.driver.ptx_snippets import CALLEE, CALLER

    ptx = cu.CUjitInputType.CU_JIT_INPUT_PTX
    weak_twice = CALLEE.replace(".visible .func", ".weak .func")
    weak_thrice = weak_twice.replace("add.s32 %r2, %r1, %r1;", "mul.lo.s32 %r2, %r1, 3;")
    caller_too = CALLER + weak_thrice.split(".address_size 64", 1)[1]  # a module defining it and calling it

    def run(*inputs):
        state = check(cu.cuLinkCreate(0, [], []))
        for text in inputs:
            data = text.encode()
            check(cu.cuLinkAddData(state, ptx, data, len(data), b"in.ptx", 0, None, None))
        image, _size = check(cu.cuLinkComplete(state))
        fn = check(cu.cuModuleGetFunction(check(cu.cuModuleLoadData(image)), b"use_twice"))
        out = check(cu.cuMemAlloc(128))
        check(cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, ((out,), (None,)), None))
        got = np.zeros(32, np.uint32)
        check(cu.cuMemcpyDtoH(got, out, 128))
        return got

    np.testing.assert_array_equal(run(caller_too, weak_twice), np.arange(32) * 3)  # the first weak one
    np.testing.assert_array_equal(run(caller_too, CALLEE), np.arange(32) * 2)  # the strong one wins
    state = check(cu.cuLinkCreate(0, [], []))
    for text in (CALLER, CALLEE, CALLEE):
        check(cu.cuLinkAddData(state, ptx, text.encode(), len(text), b"in.ptx", 0, None, None))
    assert cu.cuLinkComplete(state)[0] == R.CUDA_ERROR_INVALID_IMAGE  # two strong definitions


def test_generic_graph_node_calls_build_and_update_graphs(ctx) -> None:
    from tests.driver.ptx_snippets import SCALE

    T = cu.CUgraphNodeType
    fn = check(cu.cuModuleGetFunction(check(cu.cuModuleLoadData(SCALE.encode())), b"scale"))
    n = 64
    dx, dy = check(cu.cuMemAlloc(4 * n)), check(cu.cuMemAlloc(4 * n))
    graph = check(cu.cuGraphCreate(0))
    fill = cu.CUgraphNodeParams()
    fill.type = T.CU_GRAPH_NODE_TYPE_MEMSET
    fill.memset.dst, fill.memset.value, fill.memset.elementSize, fill.memset.width = dx, 0x40000000, 4, n  # 2.0f
    memset_node = check(cu.cuGraphAddNode(graph, None, None, 0, fill))
    kp = cu.CUgraphNodeParams()
    kp.type = T.CU_GRAPH_NODE_TYPE_KERNEL
    k = kp.kernel
    k.func, k.gridDimX, k.blockDimX = fn, 1, n
    k.kernelParams = ((dx, dy, 3.0, n), (None, None, ctypes.c_float, ctypes.c_uint32))
    kernel_node = check(cu.cuGraphAddNode(graph, [memset_node], None, 1, kp))
    got = check(cu.cuGraphNodeGetParams(kernel_node))
    assert got.type == T.CU_GRAPH_NODE_TYPE_KERNEL and got.kernel.blockDimX == n
    assert check(cu.cuGraphNodeGetParams(memset_node)).memset.width == n
    v = cu.CUkernelNodeAttrValue()
    v.cooperative = 1
    check(cu.cuGraphKernelNodeSetAttribute(kernel_node, cu.CUkernelNodeAttrID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE, v))
    assert check(cu.cuGraphKernelNodeGetAttribute(kernel_node,
                                                  cu.CUkernelNodeAttrID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE)).cooperative == 1
    ip = cu.CUDA_GRAPH_INSTANTIATE_PARAMS()
    exe = check(cu.cuGraphInstantiateWithParams(graph, ip))
    assert ip.result_out == cu.CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_SUCCESS
    check(cu.cuGraphLaunch(exe, 0))
    y = np.zeros(n, np.float32)
    check(cu.cuMemcpyDtoH(y, dy, 4 * n))
    np.testing.assert_array_equal(y, np.full(n, 6.0, np.float32))
    k.kernelParams = ((dx, dy, 5.0, n), (None, None, ctypes.c_float, ctypes.c_uint32))
    check(cu.cuGraphExecNodeSetParams(exe, kernel_node, kp))  # the executable graph changes...
    check(cu.cuGraphLaunch(exe, 0))
    check(cu.cuMemcpyDtoH(y, dy, 4 * n))
    np.testing.assert_array_equal(y, np.full(n, 10.0, np.float32))
    check(cu.cuGraphLaunch(check(cu.cuGraphInstantiate(graph, 0)), 0))  # ...not the graph
    check(cu.cuMemcpyDtoH(y, dy, 4 * n))
    np.testing.assert_array_equal(y, np.full(n, 6.0, np.float32))
    assert cu.cuGraphNodeSetParams(kernel_node, fill)[0] == R.CUDA_ERROR_INVALID_VALUE  # a memset for a kernel


def test_array_copies_by_byte_offset(ctx) -> None:
    desc = cu.CUDA_ARRAY_DESCRIPTOR()
    desc.Width, desc.Height, desc.Format, desc.NumChannels = 64, 0, cu.CUarray_format.CU_AD_FORMAT_FLOAT, 1
    a, b = check(cu.cuArrayCreate(desc)), check(cu.cuArrayCreate(desc))
    x = np.arange(64, dtype=np.float32)
    check(cu.cuMemcpyHtoA(a, 0, x, x.nbytes))
    check(cu.cuMemcpyAtoA(b, 16, a, 0, 32 * 4))  # b[4:36] = a[0:32]
    d = check(cu.cuMemAlloc(64 * 4))
    check(cu.cuMemsetD32(d, 0, 64))
    check(cu.cuMemcpyAtoD(d, b, 16, 32 * 4))
    got = np.zeros(64, np.float32)
    check(cu.cuMemcpyDtoH(got, d, 64 * 4))
    np.testing.assert_array_equal(got[:32], x[:32])
    check(cu.cuMemcpyDtoA(a, 4 * 60, d, 16))  # a[60:64] = d[0:4]
    back = np.zeros(64, np.float32)
    stream = check(cu.cuStreamCreate(0))
    check(cu.cuMemcpyAtoHAsync(back, a, 0, 64 * 4, stream))
    check(cu.cuStreamSynchronize(stream))
    np.testing.assert_array_equal(back, np.concatenate([x[:60], x[:4]]))
    assert cu.cuMemcpyHtoA(a, 4, x, x.nbytes)[0] == R.CUDA_ERROR_INVALID_VALUE  # past the array's end
    req = check(cu.cuArrayGetMemoryRequirements(a, 0))
    assert req.size == 64 * 4 and req.alignment > 0


def test_a_forked_child_cannot_use_the_parents_driver(ctx) -> None:
    """CUDA's rule (numba-cuda detects it as "CUDA initialized before forking")."""
    import os

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the codes and leave without running any cleanup
        codes = (int(cu.cuMemAlloc(64)[0]), int(cu.cuInit(0)[0]), int(cu.cuCtxGetCurrent()[0]))
        os.write(write, repr(codes).encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    codes = eval(os.read(read, 200).decode())  # noqa: S307 - our own child's repr of three ints
    os.close(read)
    assert codes == (R.CUDA_ERROR_NOT_INITIALIZED,) * 3
    assert cu.cuMemAlloc(64)[0] == OK  # the parent is unaffected


IPC_CHILD = """
import sys
from cumetal import driver as cu
import numpy as np
cu.cuInit(0)
ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])[1]
h = cu.CUipcMemHandle()
h.reserved = bytes.fromhex(sys.argv[1])
err, ptr = cu.cuIpcOpenMemHandle(h, 1)
out = np.zeros(1024, np.uint32)
cu.cuMemcpyDtoH(out, ptr, 4096)
cu.cuMemsetD32(ptr, 9, 1024)
print(int(err), int(out.sum()), int(cu.cuIpcCloseMemHandle(ptr)[0]))
"""


def test_ipc_memory_handle_shares_an_allocation_with_another_process(ctx) -> None:
    import subprocess
    import sys

    ptr = check(cu.cuMemAlloc(4096))
    check(cu.cuMemsetD32(ptr, 7, 1024))
    handle = check(cu.cuIpcGetMemHandle(ptr))
    assert len(handle.reserved) == 64
    proc = subprocess.run([sys.executable, "-c", IPC_CHILD, handle.reserved.hex()], capture_output=True,
                          text=True, timeout=120)
    assert proc.stdout.split() == ["0", str(7 * 1024), "0"], proc.stdout + proc.stderr
    out = np.zeros(1024, np.uint32)
    check(cu.cuMemcpyDtoH(out, ptr, 4096))
    assert (out == 9).all()  # the child's writes are the parent's memory
    assert cu.cuIpcOpenMemHandle(handle, 1)[0] != OK  # not in the exporting process


def test_conditional_if_else_nodes_pick_a_body_by_the_handle_value(ctx) -> None:
    buf = check(cu.cuMemAlloc(16))
    out = np.zeros(16, np.uint8)

    def run(default: int) -> int:
        graph = check(cu.cuGraphCreate(0))
        handle = check(cu.cuGraphConditionalHandleCreate(graph, ctx, default, cu.CU_GRAPH_COND_ASSIGN_DEFAULT))
        p = cu.CUgraphNodeParams()
        p.type = cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        p.conditional.handle, p.conditional.size = handle, 2
        p.conditional.type = cu.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF
        check(cu.cuGraphAddNode(graph, None, None, 0, p))
        then_body, else_body = p.conditional.phGraph_out
        for body, value in ((then_body, 1), (else_body, 2)):
            fill = cu.CUDA_MEMSET_NODE_PARAMS()
            fill.dst, fill.value, fill.elementSize, fill.width, fill.height = buf, value, 1, 16, 1
            check(cu.cuGraphAddMemsetNode(body, None, 0, fill, ctx))
        check(cu.cuGraphLaunch(check(cu.cuGraphInstantiate(graph, 0)), 0))
        check(cu.cuMemcpyDtoH(out, buf, 16))
        return int(out[0])

    assert run(1) == 1 and run(0) == 2  # the handle's default picks the IF body or the ELSE body
    graph = check(cu.cuGraphCreate(0))
    assert cu.cuGraphConditionalHandleCreate(graph, cu.CUcontext(12345), 0, 0)[0] == R.CUDA_ERROR_INVALID_CONTEXT
