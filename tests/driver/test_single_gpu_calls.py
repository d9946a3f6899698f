"""The last single-GPU driver calls: green contexts and device resources, coredump settings,
context usage counts, host atomic capabilities, notifications, the one-device multi-device
cooperative launch, array/texture queries, and the calls answered with CUDA_ERROR_NOT_SUPPORTED."""

from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest
from tests.driver.conftest import check
from tests.driver.ptx_snippets import SCALE

from cumetal import driver as cu
from cumetal.driver import unsupported

R = cu.CUresult
SM = cu.CUdevResourceType.CU_DEV_RESOURCE_TYPE_SM
N = 1000


def _sms() -> int:
    return check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0))


@pytest.fixture
def scale(ctx):
    mod = check(cu.cuModuleLoadData(SCALE))
    fn = check(cu.cuModuleGetFunction(mod, b"scale"))
    x = np.arange(N, dtype=np.float32)
    dx, dy = check(cu.cuMemAlloc(4 * N)), check(cu.cuMemAlloc(4 * N))
    check(cu.cuMemcpyHtoD(dx, x, 4 * N))
    return fn, x, dx, dy


def _args(dx, dy, a):
    return ((dx, dy, a, N), (None, None, ctypes.c_float, ctypes.c_uint))


def _result(dy):
    y = np.empty(N, np.float32)
    check(cu.cuMemcpyDtoH(y, dy, 4 * N))
    return y


# ---------------------------------------------------------------- device resources and green contexts
def test_sm_resources_split_by_cudas_rules(ctx):
    total = _sms()
    dev_res = check(cu.cuDeviceGetDevResource(0, SM))
    assert dev_res.type == SM and dev_res.sm.smCount == total
    assert dev_res.sm.minSmPartitionSize == 2 and dev_res.sm.smCoscheduledAlignment == 2
    assert check(cu.cuCtxGetDevResource(ctx, SM)).sm.smCount == total
    # groups of max(minCount, 2) rounded up to a multiple of 2; the remainder gets the rest
    for min_count in range(0, total + 1):
        size = max(2, -(-min_count // 2) * 2)
        _, possible, _ = check(cu.cuDevSmResourceSplitByCount(0, dev_res, 0, min_count))
        assert possible == total // size
        if possible:
            groups, made, rest = check(cu.cuDevSmResourceSplitByCount(possible, dev_res, 0, min_count))
            assert made == possible and [g.sm.smCount for g in groups] == [size] * made
            assert rest.sm.smCount == total - made * size
    ones = check(cu.cuDevSmResourceSplitByCount(total, dev_res, 1, 1))  # IGNORE_SM_COSCHEDULING: groups of 1
    assert ones[1] == total and ones[2].sm.smCount == 0
    # errors: wrong type, minCount beyond the input, a split's result split again, unknown flags
    assert cu.cuDeviceGetDevResource(0, cu.CUdevResourceType.CU_DEV_RESOURCE_TYPE_WORKQUEUE)[0] == \
        R.CUDA_ERROR_INVALID_RESOURCE_TYPE
    assert cu.cuDevSmResourceSplitByCount(1, dev_res, 0, total + 1)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuDevSmResourceSplitByCount(1, dev_res, 8, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuDeviceGetDevResource(1, SM)[0] == R.CUDA_ERROR_INVALID_DEVICE
    if ones[1]:
        assert cu.cuDevSmResourceSplitByCount(1, ones[0][0], 1, 1)[0] == R.CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION


def test_structured_split_with_discovery(ctx):
    total = _sms()
    if total < 2:
        pytest.skip("a structured group needs 2 SMs")
    dev_res = check(cu.cuDeviceGetDevResource(0, SM))
    p = cu.CU_DEV_SM_RESOURCE_GROUP_PARAMS()  # smCount 0: discover (all whole pairs left)
    groups, rest = check(cu.cuDevSmResourceSplit(1, dev_res, 0, [p]))
    assert p.smCount == total - total % 2 == groups[0].sm.smCount and rest.sm.smCount == total % 2
    odd = cu.CU_DEV_SM_RESOURCE_GROUP_PARAMS(smCount=3)
    assert cu.cuDevSmResourceSplit(1, dev_res, 0, [odd])[0] == R.CUDA_ERROR_INVALID_VALUE
    big = cu.CU_DEV_SM_RESOURCE_GROUP_PARAMS(smCount=total + 2 - total % 2)
    assert cu.cuDevSmResourceSplit(1, dev_res, 0, [big])[0] in (R.CUDA_ERROR_INVALID_VALUE,
                                                                 R.CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION)
    assert cu.cuDevSmResourceSplit(2, dev_res, 0, [p])[0] == R.CUDA_ERROR_INVALID_VALUE


def test_green_context_runs_kernels_and_reports_its_resources(scale):
    fn, x, dx, dy = scale
    total = _sms()
    dev_res = check(cu.cuDeviceGetDevResource(0, SM))
    (groups, made, _) = check(cu.cuDevSmResourceSplitByCount(1, dev_res, 1, 1))
    desc = check(cu.cuDevResourceGenerateDesc(groups, 1))
    green = check(cu.cuGreenCtxCreate(desc, 0, 0))
    try:
        assert check(cu.cuGreenCtxGetDevResource(green, SM)).sm.smCount == 1 <= total
        gctx = check(cu.cuCtxFromGreenCtx(green))
        assert cu.cuCtxDestroy(gctx)[0] == R.CUDA_ERROR_INVALID_CONTEXT  # it is not cuCtxCreate's
        check(cu.cuCtxPushCurrent(gctx))
        try:
            assert check(cu.cuCtxGetDevResource(None, SM)).sm.smCount == 1
            gid = check(cu.cuGreenCtxGetId(None))  # NULL: the current green context
            assert gid == check(cu.cuGreenCtxGetId(green)) > 0
            stream = check(cu.cuGreenCtxStreamCreate(green, cu.CUstream_flags.CU_STREAM_NON_BLOCKING, 0))
            assert check(cu.cuStreamGetGreenCtx(stream)) == green
            assert check(cu.cuStreamGetDevResource(stream, SM)).sm.smCount == 1
            mod = check(cu.cuModuleLoadData(SCALE))  # modules load per context
            gfn = check(cu.cuModuleGetFunction(mod, b"scale"))
            check(cu.cuLaunchKernel(gfn, 4, 1, 1, 256, 1, 1, 0, stream, _args(dx, dy, 5.0), None))
            event = check(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
            check(cu.cuGreenCtxRecordEvent(green, event))
            check(cu.cuGreenCtxWaitEvent(green, event))
            assert check(cu.cuEventQuery(event)) is None
            np.testing.assert_array_equal(_result(dy), x * 5)  # memory is shared with the creating context
            assert cu.cuGreenCtxStreamCreate(green, 0, 0)[0] == R.CUDA_ERROR_INVALID_VALUE  # must be non-blocking
        finally:
            check(cu.cuCtxPopCurrent())
        assert check(cu.cuStreamGetGreenCtx(0)) == cu.CUgreenCtx(0)  # the creating context is not green
        assert cu.cuGreenCtxGetId(None)[0] == R.CUDA_ERROR_INVALID_CONTEXT
    finally:
        check(cu.cuGreenCtxDestroy(green))
    assert cu.cuCtxFromGreenCtx(green)[0] == R.CUDA_ERROR_INVALID_CONTEXT
    assert cu.cuGreenCtxCreate(cu.CUdevResourceDesc(12345), 0, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuDevResourceGenerateDesc([], 0)[0] == R.CUDA_ERROR_INVALID_VALUE


# ---------------------------------------------------------------- coredumps
def test_coredump_attributes_and_dump_on_fault(scale, tmp_path, monkeypatch):
    fn, x, dx, dy = scale
    S = cu.CUcoredumpSettings
    assert check(cu.cuCoredumpGetAttribute(S.CU_COREDUMP_ENABLE_ON_EXCEPTION)) == (False, 1)
    assert check(cu.cuCoredumpGetAttributeGlobal(S.CU_COREDUMP_TRIGGER_HOST)) == (True, 1)
    path, _ = check(cu.cuCoredumpGetAttribute(S.CU_COREDUMP_FILE))
    assert path == f"core.cuda.{os.uname().nodename}.{os.getpid()}"
    assert cu.cuCoredumpSetAttribute(S.CU_COREDUMP_PIPE, "p")[0] == R.CUDA_ERROR_NOT_PERMITTED  # global only
    assert cu.cuCoredumpSetAttribute(S.CU_COREDUMP_MAX, 1)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuCoredumpSetAttribute(S.CU_COREDUMP_FILE, "")[0] == R.CUDA_ERROR_INVALID_VALUE
    dump = tmp_path / "core.txt"
    check(cu.cuCoredumpSetAttribute(S.CU_COREDUMP_FILE, str(dump)))
    check(cu.cuCoredumpSetAttribute(S.CU_COREDUMP_ENABLE_ON_EXCEPTION, True))
    check(cu.cuCoredumpSetAttribute(S.CU_COREDUMP_LIGHTWEIGHT, True))
    assert check(cu.cuCoredumpGetAttribute(S.CU_COREDUMP_GENERATION_FLAGS)) == (303, 4)  # LIGHTWEIGHT_FLAGS
    assert check(cu.cuCoredumpGetAttributeGlobal(S.CU_COREDUMP_ENABLE_ON_EXCEPTION))[0] is False  # per context
    events = []
    start = check(cu.cuCoredumpRegisterStartCallback(lambda data, pid, dev: events.append(("start", data, pid)), 7))
    done = check(cu.cuCoredumpRegisterCompleteCallback(lambda data, pid, dev: events.append(("done", data,
                                                                                          dump.exists())), 8))
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    err, = cu.cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, 0, _args(dx, 16, 1.0), None)  # y = 16: illegal address
    assert err == R.CUDA_ERROR_ILLEGAL_ADDRESS
    assert cu.cuCtxSynchronize()[0] == R.CUDA_ERROR_ILLEGAL_ADDRESS  # reported again: one dump only
    assert events == [("start", 7, os.getpid()), ("done", 8, True)]
    text = dump.read_text()
    assert "illegal_address" in text and "kernel 'scale'" in text and "generation flags: 0x12f" in text
    check(cu.cuCoredumpDeregisterStartCallback(start))
    check(cu.cuCoredumpDeregisterCompleteCallback(done))
    assert cu.cuCoredumpDeregisterStartCallback(start)[0] == R.CUDA_ERROR_INVALID_VALUE
    check(cu.cuCoredumpSetAttribute(S.CU_COREDUMP_ENABLE_ON_EXCEPTION, False))


# ---------------------------------------------------------------- contexts, atomics, notifications, launches
def test_ctx_attach_detach_counts_usage():
    assert cu.cuInit(0)[0] == R.CUDA_SUCCESS
    c = check(cu.cuCtxCreate(None, 0, 0))
    assert check(cu.cuCtxAttach(0)) == c
    assert cu.cuCtxAttach(1)[0] == R.CUDA_ERROR_INVALID_VALUE
    check(cu.cuCtxDetach(c))  # usage 2 -> 1: still alive
    assert check(cu.cuCtxGetCurrent()) == c and check(cu.cuCtxGetApiVersion(c)) > 0
    check(cu.cuCtxDetach(c))  # usage 1 -> 0: destroyed
    assert cu.cuCtxGetApiVersion(c)[0] == R.CUDA_ERROR_INVALID_CONTEXT
    assert cu.cuCtxDetach(c)[0] == R.CUDA_ERROR_INVALID_CONTEXT


def test_host_atomic_capabilities(ctx):
    Op, Cap = cu.CUatomicOperation, cu.CUatomicOperationCapability
    assert check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, 0))
    ops = [Op.CU_ATOMIC_OPERATION_INTEGER_ADD, Op.CU_ATOMIC_OPERATION_CAS, Op.CU_ATOMIC_OPERATION_FLOAT_ADD]
    caps = check(cu.cuDeviceGetHostAtomicCapabilities(ops, 3, 0))
    assert len(caps) == 3 and all(c & Cap.CU_ATOMIC_CAPABILITY_SCALAR_32 and c & Cap.CU_ATOMIC_CAPABILITY_SCALAR_64
                                  and not c & Cap.CU_ATOMIC_CAPABILITY_SCALAR_128 for c in caps)
    assert caps[0] & Cap.CU_ATOMIC_CAPABILITY_SIGNED and not caps[2] & Cap.CU_ATOMIC_CAPABILITY_SIGNED
    assert cu.cuDeviceGetHostAtomicCapabilities(ops, 4, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuDeviceGetHostAtomicCapabilities([Op.CU_ATOMIC_OPERATION_MAX], 1, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuDeviceGetHostAtomicCapabilities(ops, 3, 2)[0] == R.CUDA_ERROR_INVALID_DEVICE
    assert cu.cuDeviceGetP2PAtomicCapabilities(ops, 3, 0, 0)[0] == R.CUDA_ERROR_INVALID_DEVICE


def test_async_notification_registration(ctx):
    h = check(cu.cuDeviceRegisterAsyncNotification(0, lambda info, data, handle: None, None))
    assert cu.cuDeviceRegisterAsyncNotification(0, None, None)[0] == R.CUDA_ERROR_INVALID_VALUE
    check(cu.cuDeviceUnregisterAsyncNotification(0, h))
    assert cu.cuDeviceUnregisterAsyncNotification(0, h)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_multi_device_cooperative_launch_on_one_device(scale):
    fn, x, dx, dy = scale
    p = cu.CUDA_LAUNCH_PARAMS(function=fn, gridDimX=1, blockDimX=1000, kernelParams=_args(dx, dy, 6.0))
    check(cu.cuLaunchCooperativeKernelMultiDevice([p], 1, 0))
    np.testing.assert_array_equal(_result(dy), x * 6)
    assert cu.cuLaunchCooperativeKernelMultiDevice([p, p], 2, 0)[0] == R.CUDA_ERROR_INVALID_DEVICE
    assert cu.cuLaunchCooperativeKernelMultiDevice([p], 1, 4)[0] == R.CUDA_ERROR_INVALID_VALUE
    p.gridDimX = 100000  # beyond what can be resident at once
    assert cu.cuLaunchCooperativeKernelMultiDevice([p], 1, 0)[0] == R.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE


def test_graph_node_tools_id(ctx):
    g = check(cu.cuGraphCreate(0))
    a, b = check(cu.cuGraphAddEmptyNode(g, None, 0)), check(cu.cuGraphAddEmptyNode(g, None, 0))
    ida, idb = check(cu.cuGraphNodeGetToolsId(a)), check(cu.cuGraphNodeGetToolsId(b))
    assert ida != idb and ida == check(cu.cuGraphNodeGetToolsId(a))
    check(cu.cuGraphDestroy(g))
    assert cu.cuGraphNodeGetToolsId(a)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_array_queries_answer_as_cuda_for_what_cumetal_makes(ctx):
    desc = cu.CUDA_ARRAY3D_DESCRIPTOR()
    desc.Width, desc.Height, desc.Format, desc.NumChannels = 64, 16, cu.CUarray_format.CU_AD_FORMAT_FLOAT, 1
    arr = check(cu.cuArray3DCreate(desc))
    assert cu.cuArrayGetPlane(arr, 0)[0] == R.CUDA_ERROR_INVALID_VALUE  # not multi-planar
    assert cu.cuArrayGetSparseProperties(arr)[0] == R.CUDA_ERROR_INVALID_VALUE  # not sparse
    assert cu.cuArrayGetSparseProperties(cu.CUarray(0))[0] == R.CUDA_ERROR_INVALID_VALUE
    mip = check(cu.cuMipmappedArrayCreate(desc, 3))
    req = check(cu.cuMipmappedArrayGetMemoryRequirements(mip, 0))
    assert req.size == 64 * 16 * 4 + 32 * 8 * 4 + 16 * 4 * 4 and req.alignment == 256  # levels halve
    assert cu.cuMipmappedArrayGetSparseProperties(mip)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMipmappedArrayGetMemoryRequirements(mip, 1)[0] == R.CUDA_ERROR_INVALID_DEVICE
    res = cu.CUDA_RESOURCE_DESC()
    res.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    res.res.array.hArray = arr
    tex = check(cu.cuTexObjectCreate(res, cu.CUDA_TEXTURE_DESC(), None))
    assert cu.cuTexObjectGetResourceViewDesc(tex)[0] == R.CUDA_ERROR_INVALID_VALUE  # created without a view
    check(cu.cuTexObjectDestroy(tex))
    check(cu.cuMipmappedArrayDestroy(mip))
    check(cu.cuArrayDestroy(arr))


# ---------------------------------------------------------------- not supported
def test_unsupported_calls_answer_not_supported_with_a_reason(ctx, capsys):
    assert len(unsupported.UNSUPPORTED) >= 100
    for name, (outputs, why) in {**unsupported.UNSUPPORTED, **unsupported.NOT_BUILT}.items():
        result = getattr(cu, name)(None, None)
        assert result == (R.CUDA_ERROR_NOT_SUPPORTED, *([None] * outputs)), name
        assert cu.last_error_message() == why
    desc = cu.CUDA_EXTERNAL_MEMORY_HANDLE_DESC(type=1, size=4096)  # the structs exist, as in cuda-python
    assert cu.cuImportExternalMemory(desc)[0] == R.CUDA_ERROR_NOT_SUPPORTED
    assert "graphics interop" in capsys.readouterr().err


# ---------------------------------------------------------------- interprocess events and shared pools
IPC_CHILD = """
import sys
import numpy as np
from cumetal import driver as cu
def ok(r):
    assert r[0] == 0, (cu.CUresult(r[0]).name, cu.last_error_message())
    return r[1] if len(r) == 2 else None
ok(cu.cuInit(0)); ok(cu.cuCtxCreate(None, 0, 0))
fd, export, evh = int(sys.argv[1]), bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
pool = ok(cu.cuMemPoolImportFromShareableHandle(fd, 1, 0))
ptr = ok(cu.cuMemPoolImportPointer(pool, cu.CUmemPoolPtrExportData(export)))
seen = np.zeros(256, np.uint32)
ok(cu.cuMemcpyDtoH(seen, ptr, 1024))
h = cu.CUipcEventHandle(); h.reserved = evh
ev = ok(cu.cuIpcOpenEventHandle(h))
ok(cu.cuMemsetD32(ptr, int(seen.sum()), 256))  # the parent's data, summed, written back for it to see
ok(cu.cuEventRecord(ev, 0)); ok(cu.cuEventSynchronize(ev))
ok(cu.cuMemFree(ptr)); ok(cu.cuEventDestroy(ev)); ok(cu.cuMemPoolDestroy(pool))
print("child done")
"""


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="IPC on CuMetal needs Linux")
def test_shared_pool_and_ipc_event_between_processes(ctx, tmp_path):
    import subprocess
    import sys

    from cumetal.runtime import ipc

    assert check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0))
    assert check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 0))
    props = cu.CUmemPoolProps(allocType=cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED, handleTypes=1)
    props.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    pool = check(cu.cuMemPoolCreate(props))
    ptr = check(cu.cuMemAllocFromPoolAsync(1024, pool, 0))
    data = np.arange(256, dtype=np.uint32)
    check(cu.cuMemcpyHtoD(ptr, data, 1024))
    assert check(cu.cuMemPoolGetAttribute(pool, cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_EXPORT_HANDLE_TYPES)) == 1
    fd = check(cu.cuMemPoolExportToShareableHandle(pool, 1, 0))
    export = check(cu.cuMemPoolExportPointer(ptr))
    ev = check(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_INTERPROCESS | cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    evh = check(cu.cuIpcGetEventHandle(ev))
    shared = ipc.shared_event(int(ev))
    script = tmp_path / "child.py"
    script.write_text(IPC_CHILD)
    proc = subprocess.run([sys.executable, str(script), str(fd), export.reserved.hex(), evh.reserved.hex()],
                          capture_output=True, text=True, timeout=240, pass_fds=(fd,), cwd=os.getcwd(),
                          env=dict(os.environ, CUMETAL_QUIET="1"))
    os.close(fd)
    assert proc.returncode == 0 and "child done" in proc.stdout, proc.stdout + proc.stderr
    out = np.zeros(256, np.uint32)
    check(cu.cuMemcpyDtoH(out, ptr, 1024))
    assert (out == data.sum()).all()  # the child read our data and wrote through the shared pool
    assert int(shared.cells[0]) == int(shared.cells[1]) == 1  # the child's record, completed
    seq = shared.issue()  # a record another process has made and not completed yet
    assert cu.cuEventQuery(ev)[0] == R.CUDA_ERROR_NOT_READY
    shared.complete(seq)
    check(cu.cuEventQuery(ev))
    check(cu.cuEventSynchronize(ev))
    # bad input
    plain = check(cu.cuEventCreate(0))
    assert cu.cuIpcGetEventHandle(plain)[0] == R.CUDA_ERROR_INVALID_HANDLE
    assert cu.cuIpcOpenEventHandle(cu.CUipcEventHandle())[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemPoolExportPointer(check(cu.cuMemAlloc(64)))[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemPoolExportToShareableHandle(pool, 2, 0)[0] != R.CUDA_SUCCESS  # not a POSIX descriptor
    props.handleTypes = 0
    plain_pool = check(cu.cuMemPoolCreate(props))
    assert cu.cuMemPoolExportToShareableHandle(plain_pool, 1, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    props.handleTypes = 8  # fabric handles
    assert cu.cuMemPoolCreate(props)[0] == R.CUDA_ERROR_NOT_SUPPORTED
    props.handleTypes = 0
    check(cu.cuMemFreeAsync(ptr, 0))
    check(cu.cuEventDestroy(ev))
    check(cu.cuMemPoolDestroy(pool))
    check(cu.cuMemPoolDestroy(plain_pool))


def _write_op(addr, value):
    p = cu.CUstreamBatchMemOpParams()
    p.operation = cu.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_32
    p.writeValue.address, p.writeValue.value = addr, value
    return p


def test_batch_memop_graph_node_runs_in_graph_order(ctx):
    flag = check(cu.cuMemAlloc(16))
    check(cu.cuMemsetD32(flag, 0, 4))
    wait = cu.CUstreamBatchMemOpParams()
    wait.operation = cu.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WAIT_VALUE_32
    wait.waitValue.address, wait.waitValue.value = int(flag), 5  # GEQ: satisfied by the memset node before it
    wait.waitValue.flags = cu.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ
    g = check(cu.cuGraphCreate(0))
    ms = cu.CUDA_MEMSET_NODE_PARAMS(dst=flag, value=7, elementSize=4, width=1, height=1)
    first = check(cu.cuGraphAddMemsetNode(g, None, 0, ms, ctx))
    params = cu.CUDA_BATCH_MEM_OP_NODE_PARAMS(count=2, paramArray=[wait, _write_op(int(flag) + 4, 42)])
    node = check(cu.cuGraphAddBatchMemOpNode(g, [first], 1, params))
    assert check(cu.cuGraphNodeGetType(node)) == cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_BATCH_MEM_OP
    assert check(cu.cuGraphBatchMemOpNodeGetParams(node)) is params
    exe = check(cu.cuGraphInstantiate(g, 0))
    check(cu.cuGraphLaunch(exe, 0))
    check(cu.cuCtxSynchronize())
    out = np.zeros(4, np.uint32)
    check(cu.cuMemcpyDtoH(out, flag, 16))
    assert out.tolist() == [7, 42, 0, 0]
    # the instantiated graph's copy changes alone; then the node's own parameters
    check(cu.cuGraphExecBatchMemOpNodeSetParams(exe, node, cu.CUDA_BATCH_MEM_OP_NODE_PARAMS(
        count=1, paramArray=[_write_op(int(flag) + 8, 9)])))
    check(cu.cuGraphLaunch(exe, 0))
    check(cu.cuCtxSynchronize())
    check(cu.cuGraphBatchMemOpNodeSetParams(node, cu.CUDA_BATCH_MEM_OP_NODE_PARAMS(
        count=1, paramArray=[_write_op(int(flag) + 12, 3)])))
    check(cu.cuGraphLaunch(check(cu.cuGraphInstantiate(g, 0)), 0))
    check(cu.cuCtxSynchronize())
    check(cu.cuMemcpyDtoH(out, flag, 16))
    assert out.tolist() == [7, 42, 9, 3]
    # bad input: misaligned or unallocated addresses, an empty batch, another kind of node
    bad = cu.CUDA_BATCH_MEM_OP_NODE_PARAMS(count=1, paramArray=[_write_op(int(flag) + 2, 1)])
    assert cu.cuGraphAddBatchMemOpNode(g, None, 0, bad)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuGraphAddBatchMemOpNode(g, None, 0, cu.CUDA_BATCH_MEM_OP_NODE_PARAMS())[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuGraphBatchMemOpNodeGetParams(first)[0] == R.CUDA_ERROR_INVALID_VALUE
    check(cu.cuGraphDestroy(g))
