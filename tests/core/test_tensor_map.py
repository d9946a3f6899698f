"""cumetal.core's TensorMapDescriptor (cuda.core 1.2): StridedMemoryView.as_tensor_map encodes a tiled
TMA map in the view's row-major order; a kernel taking it by value (``.param .align 64 .b8 [128]``)
copies the box at given coordinates with cp.async.bulk.tensor, checked against numpy slicing."""

from __future__ import annotations

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.core import Device, LaunchConfig, ObjectCode, TensorMapDescriptorOptions, launch
from cumetal.core.utils import StridedMemoryView

PTX = r"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry tile(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 x0, .param .u32 y0)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .shared .align 128 .b8 sbuf[256];
    .shared .align 8 .b64 bar;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [x0];
    ld.param.u32 %r3, [y0];
    mov.u64 %rd2, tmap;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra WAIT;
    mbarrier.init.shared.b64 [bar], 1;
    fence.proxy.async.shared::cta;
    mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 256;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sbuf], [%rd2, {%r2, %r3}], [bar];
WAIT:
    bar.sync 0;
LOOP:
    mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
    @!%p2 bra LOOP;
    shl.b32 %r4, %r1, 2;
    mov.u32 %r5, sbuf;
    add.u32 %r5, %r5, %r4;
    ld.shared.u32 %r6, [%r5];
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r6;
    ret;
}
"""


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


def _tile(dev, desc, x, y):
    out = dev.allocate(256)
    kernel = ObjectCode.from_ptx(PTX).get_kernel("tile")
    launch(dev.default_stream, LaunchConfig(grid=1, block=64), kernel, desc, out, np.uint32(x), np.uint32(y))
    dev.sync()
    got = np.from_dlpack(out).view(np.uint32).reshape(8, 8).copy()
    out.close()
    return got


def test_tiled_tensor_map_loads_the_box(dev):
    a = np.arange(16 * 24, dtype=np.uint32).reshape(16, 24)
    buf = dev.allocate(a.nbytes)
    np.from_dlpack(buf).view(np.uint32)[:] = a.ravel()
    view = StridedMemoryView.from_buffer(buf, (16, 24), dtype=np.uint32)
    desc = view.as_tensor_map((8, 8))
    np.testing.assert_array_equal(_tile(dev, desc, 8, 4), a[4:12, 8:16])  # coordinates innermost first
    np.testing.assert_array_equal(_tile(dev, desc, 16, 8), a[8:16, 16:24])
    # the same through options, and a new address with the same layout
    b = a * 3
    buf2 = dev.allocate(b.nbytes)
    np.from_dlpack(buf2).view(np.uint32)[:] = b.ravel()
    desc2 = view.as_tensor_map(options=TensorMapDescriptorOptions(box_dim=(8, 8)))
    desc2.replace_address(StridedMemoryView.from_buffer(buf2, (16, 24), dtype=np.uint32))
    np.testing.assert_array_equal(_tile(dev, desc2, 0, 0), b[0:8, 0:8])
    with pytest.raises(ValueError):
        view.as_tensor_map((8,))  # rank mismatch
    with pytest.raises(ValueError):
        view.as_tensor_map((8, 8), options=TensorMapDescriptorOptions(box_dim=(8, 8)))
    with pytest.raises(ValueError):
        StridedMemoryView.from_buffer(buf, (4,), (2,), dtype=np.uint8).as_tensor_map((4,), data_type=np.complex64)
    for x in (buf, buf2):
        x.close()
