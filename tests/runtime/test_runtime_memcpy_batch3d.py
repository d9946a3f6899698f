"""cudaMemcpy3DBatchAsync / cudaMemcpy3DWithAttributesAsync against numpy slicing: pointer-to-pointer
boxes with row lengths and layer heights, pointer to CUDA array and back with offsets; layouts
against cuda-bindings."""

from __future__ import annotations

import numpy as np
import pytest
from tests.runtime.conftest import check

from cumetal import runtime as rt

E = rt.cudaError_t
PTR, ARR = (rt.cudaMemcpy3DOperandType.cudaMemcpyOperandTypePointer,
            rt.cudaMemcpy3DOperandType.cudaMemcpyOperandTypeArray)
STREAM_ORDER = rt.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream


def _op(w, h, d):
    op = rt.cudaMemcpy3DBatchOp()
    op.extent = rt.make_cudaExtent(w, h, d)
    op.srcAccessOrder = STREAM_ORDER
    return op


def _ptr(operand, p, row=0, layer=0):
    operand.type = PTR
    operand.op.ptr.ptr, operand.op.ptr.rowLength, operand.op.ptr.layerHeight = p, row, layer


def test_pointer_boxes_match_numpy():
    rng = np.random.default_rng(11)
    src = rng.integers(0, 255, size=(5, 7, 12), dtype=np.uint8)  # depth, height, row
    dst = np.zeros((4, 6, 10), np.uint8)
    s = check(rt.cudaStreamCreate())
    ds = check(rt.cudaMalloc(src.nbytes))
    dd = check(rt.cudaMalloc(dst.nbytes))
    check(rt.cudaMemcpy(ds, src, src.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
    check(rt.cudaMemset(dd, 0, dst.nbytes))
    op = _op(8, 5, 3)  # an 8x5x3 box from the origin of both
    _ptr(op.src, ds, 12, 7)
    _ptr(op.dst, dd, 10, 6)
    second = _op(3, 2, 1)  # a 3x2x1 block, tightly packed in src (rowLength 0), into 10-byte rows of dst
    _ptr(second.src, ds)
    _ptr(second.dst, dd + 3 * 60 + 4 * 10 + 7, 10)
    check(rt.cudaMemcpy3DBatchAsync(2, [op, second], 0, s))
    got = np.zeros_like(dst)
    check(rt.cudaMemcpyAsync(got, dd, dst.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost, s))
    check(rt.cudaStreamSynchronize(s))
    want = np.zeros_like(dst)
    want[:3, :5, :8] = src[:3, :5, :8]
    flat = src.reshape(-1)
    want[3, 4, 7:10] = flat[0:3]  # the packed source's two rows: the second row lands 10 bytes later
    want[3, 5, 7:10] = flat[3:6]
    np.testing.assert_array_equal(got, want)
    # bad input: zero extent, short rows, unknown operand type, flags, legacy stream
    bad = _op(0, 1, 1)
    _ptr(bad.src, ds), _ptr(bad.dst, dd)
    assert rt.cudaMemcpy3DBatchAsync(1, [bad], 0, s)[0] == E.cudaErrorInvalidValue
    bad = _op(8, 1, 1)
    _ptr(bad.src, ds, 4), _ptr(bad.dst, dd)
    assert rt.cudaMemcpy3DBatchAsync(1, [bad], 0, s)[0] == E.cudaErrorInvalidValue
    bad.src.type = 7
    assert rt.cudaMemcpy3DWithAttributesAsync(bad, 0, s)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMemcpy3DWithAttributesAsync(op, 1, s)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMemcpy3DWithAttributesAsync(op, 0, 0)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMemcpy3DBatchAsync(2, [op], 0, s)[0] == E.cudaErrorInvalidValue
    check(rt.cudaStreamDestroy(s))
    check(rt.cudaFree(ds)), check(rt.cudaFree(dd))


def test_array_operands_with_offsets():
    desc = check(rt.cudaCreateChannelDesc(32, 0, 0, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    arr = check(rt.cudaMalloc3DArray(desc, rt.make_cudaExtent(9, 6, 4), 0))
    img = np.arange(4 * 6 * 9, dtype=np.float32).reshape(4, 6, 9)
    src = check(rt.cudaMalloc(img.nbytes))
    back = check(rt.cudaMalloc(img.nbytes))
    check(rt.cudaMemcpy(src, img, img.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
    check(rt.cudaMemset(back, 0, img.nbytes))
    s = check(rt.cudaStreamCreate())
    up = _op(9, 6, 4)  # the whole volume into the array (widths in elements)
    _ptr(up.src, src)
    up.dst.type = ARR
    up.dst.op.array.array = arr
    down = _op(5, 3, 2)  # a box at offset (2, 1, 1) of the array to the start of a 9-wide buffer
    down.src.type = ARR
    down.src.op.array.array = arr
    down.src.op.array.offset.x, down.src.op.array.offset.y, down.src.op.array.offset.z = 2, 1, 1
    _ptr(down.dst, back, 9, 6)
    check(rt.cudaMemcpy3DWithAttributesAsync(up, 0, s))
    check(rt.cudaMemcpy3DBatchAsync(1, [down], 0, s))
    got = np.zeros_like(img)
    check(rt.cudaMemcpyAsync(got, back, img.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost, s))
    check(rt.cudaStreamSynchronize(s))
    want = np.zeros_like(img)
    want[:2, :3, :5] = img[1:3, 1:4, 2:7]
    np.testing.assert_array_equal(got, want)
    check(rt.cudaStreamDestroy(s))
    check(rt.cudaFreeArray(arr))
    check(rt.cudaFree(src)), check(rt.cudaFree(back))


def test_layouts_match_cuda_bindings():
    real = pytest.importorskip("cuda.bindings.runtime")
    for name in ("cudaMemcpy3DBatchOp", "cudaMemcpy3DOperand", "cudaOffset3D"):
        theirs = {a for a in dir(getattr(real, name)()) if not a.startswith("_") and a != "getPtr"}
        assert theirs <= set(dir(getattr(rt, name)())), name
        assert rt.sizeof(getattr(rt, name)) == real.sizeof(getattr(real, name)), name
