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
