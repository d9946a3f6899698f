"""cumetal.core's batched copies (utils.copy_batch, CopyOptions, Host) and texture API (opaque
arrays, texture objects sampled by a kernel), checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from cumetal.core import (
    Device,
    Host,
    LaunchConfig,
    LegacyPinnedMemoryResource,
    Program,
    ProgramOptions,
    launch,
)
from cumetal.core.texture import OpaqueArrayOptions, ResourceDescriptor, TextureObjectOptions
from cumetal.core.typing import AddressModeType, FilterModeType
from cumetal.core.utils import CopyOptions, MemcpySrcAccessOrder, copy_batch


@pytest.fixture(scope="module")
def dev():
    d = Device()
    d.set_current()
    yield d
    from cumetal import driver as cu
    from cumetal.core import _device

    d.sync()
    cu.cuCtxSetCurrent(None)
    cu.cuDevicePrimaryCtxRelease(0)
    _device._tls.__dict__.clear()


def test_host_is_a_singleton_per_location() -> None:
    assert Host() is Host() and Host(numa_id=1) is Host(numa_id=1) and Host() is not Host.numa_current()
    with pytest.raises(ValueError):
        Host(numa_id=-1)
    with pytest.raises(ValueError):
        CopyOptions(src_access_order="sometimes")


def test_copy_batch_copies_each_buffer_with_per_copy_options(dev) -> None:
    stream = dev.create_stream()
    pinned = LegacyPinnedMemoryResource()
    rng = np.random.default_rng(1)
    data = [rng.integers(0, 255, 256 * (i + 1), dtype=np.uint8) for i in range(3)]
    srcs = [pinned.allocate(d.size) for d in data]
    for s, d in zip(srcs, data, strict=False):
        np.from_dlpack(s)[:] = d
    dsts = [dev.allocate(d.size, stream=stream) for d in data]
    opts = [CopyOptions(), CopyOptions(src_access_order=MemcpySrcAccessOrder.ANY, dst_location_hint=Host()),
            CopyOptions(src_location_hint=dev)]
    copy_batch(stream, srcs, dsts, options=opts)
    stream.sync()
    for dst, d in zip(dsts, data, strict=False):
        np.testing.assert_array_equal(np.from_dlpack(dst), d)
    with pytest.raises(ValueError):
        copy_batch(stream, srcs, dsts[::-1])  # sizes differ
    with pytest.raises(TypeError):
        copy_batch(dev.default_stream, srcs, dsts)  # the driver refuses the legacy stream
    for b in srcs + dsts:
        b.close()


TEX = r"""
extern "C" __global__ void sample(cudaTextureObject_t tex, float* out, const float* xy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, xy[2 * i], xy[2 * i + 1]);
}
"""


def test_texture_object_samples_an_opaque_array_bilinearly(dev) -> None:
    w, h = 8, 4
    pattern = (np.arange(w)[None, :] + 10.0 * np.arange(h)[:, None]).astype(np.float32)
    stream = dev.create_stream()
    with dev.create_opaque_array(OpaqueArrayOptions(shape=(w, h), format="float32", num_channels=1)) as arr:
        arr.copy_from(pattern, stream=stream)
        back = np.zeros_like(pattern)
        arr.copy_to(back, stream=stream)
        stream.sync()
        np.testing.assert_array_equal(back, pattern)
        opts = TextureObjectOptions(address_mode=AddressModeType.CLAMP, filter_mode=FilterModeType.LINEAR)
        with dev.create_texture_object(resource=ResourceDescriptor.from_opaque_array(arr), options=opts) as tex:
            xy = np.array([[0.5, 0.5], [3.5, 2.5], [1.0, 1.0], [-5.0, 0.5], [2.25, 3.0]], np.float32)
            pinned = LegacyPinnedMemoryResource()
            xy_buf, out_buf = pinned.allocate(xy.nbytes), pinned.allocate(4 * len(xy))
            np.from_dlpack(xy_buf).view(np.float32)[:] = xy.ravel()
            kernel = Program(TEX, "c++", ProgramOptions(arch=f"sm_{dev.arch}")).compile("cubin").get_kernel("sample")
            launch(stream, LaunchConfig(grid=1, block=32), kernel, np.uint64(tex.handle), out_buf, xy_buf,
                   np.int32(len(xy)))
            stream.sync()
            got = np.from_dlpack(out_buf).view(np.float32)

            def bilinear(x: float, y: float) -> float:  # CUDA's unnormalized linear filtering, clamped
                x, y = x - 0.5, y - 0.5
                x0, y0 = int(np.floor(x)), int(np.floor(y))
                tx, ty = x - x0, y - y0

                def at(i: int, j: int) -> float:
                    return float(pattern[min(max(j, 0), h - 1), min(max(i, 0), w - 1)])

                return ((1 - tx) * (1 - ty) * at(x0, y0) + tx * (1 - ty) * at(x0 + 1, y0)
                        + (1 - tx) * ty * at(x0, y0 + 1) + tx * ty * at(x0 + 1, y0 + 1))

            expect = np.array([bilinear(x, y) for x, y in xy], np.float32)
            np.testing.assert_allclose(got, expect, atol=1e-2)  # 1/256 weight quantization, as hardware
            xy_buf.close()
            out_buf.close()
    with pytest.raises(ValueError):
        OpaqueArrayOptions(shape=(4,), format="complex64", num_channels=1)


def test_object_code_pickles_as_its_code(dev) -> None:
    """numba-cuda's disk cache pickles ObjectCode: a copy must load a library of its own."""
    import pickle

    from tests.driver.ptx_snippets import SCALE

    from cumetal import driver as cu
    from cumetal.core import ObjectCode

    original = ObjectCode.from_ptx(SCALE, name="scale.ptx")
    original.get_kernel("scale")
    copy = pickle.loads(pickle.dumps(original))
    assert copy.code == original.code and copy.name == "scale.ptx"
    assert int(copy.handle) != int(original.handle)
    assert cu.cuLibraryUnload(original.handle)[0] == 0
    assert copy.get_kernel("scale").num_arguments == 4  # unaffected by the original's unload


def test_kernel_attributes_read_as_properties_and_as_calls(dev) -> None:
    """cuda.core 1.x reads ``attrs.max_threads_per_block``; numba-cuda does arithmetic with it."""
    from tests.driver.ptx_snippets import SCALE

    from cumetal.core import ObjectCode

    attrs = ObjectCode.from_ptx(SCALE).get_kernel("scale").attributes
    assert attrs.max_threads_per_block + 0 == attrs.max_threads_per_block() == 1024
    # scale's most live registers (ir/registers.py): x, y (2 each), a, n, ctaid, ntid, tid
    # before the mad that combines the last three = 9
    assert attrs[0].num_regs == attrs[dev].num_regs == 9


def test_managed_batches_check_their_buffers(dev) -> None:
    from cumetal.core import ManagedMemoryResource
    from cumetal.core.utils import discard_batch, discard_prefetch_batch, prefetch_batch

    stream = dev.create_stream()
    mr = ManagedMemoryResource()
    bufs = [mr.allocate(4096) for _ in range(3)]
    np.from_dlpack(bufs[0])[:] = 7
    prefetch_batch(stream, bufs, [dev, Host(), dev])
    discard_prefetch_batch(stream, bufs[1:], dev)
    discard_batch(stream, bufs[2:])
    stream.sync()
    assert (np.from_dlpack(bufs[0]) == 7).all()  # a prefetch keeps the contents
    with pytest.raises(ValueError):
        prefetch_batch(stream, bufs, [dev, dev])  # two locations for three buffers
    for b in bufs:
        b.close()


def test_virtual_memory_resource_grows_a_buffer_in_place_of_copying(dev) -> None:
    from cumetal.core import VirtualMemoryResource, VirtualMemoryResourceOptions

    mr = VirtualMemoryResource(dev, VirtualMemoryResourceOptions(granularity="minimum"))
    buf = mr.allocate(1000)
    gran = buf.size
    assert gran >= 1000 and gran % 4096 == 0
    data = np.arange(gran // 4, dtype=np.int32)
    np.from_dlpack(buf).view(np.int32)[:] = data
    stream = dev.create_stream()
    other = dev.allocate(gran, stream=stream)
    buf.copy_to(other, stream=stream)  # device copies see the mapping
    stream.sync()
    np.testing.assert_array_equal(np.from_dlpack(other).view(np.int32), data)
    grown = mr.modify_allocation(buf, 3 * gran)
    assert grown.size == 3 * gran
    view = np.from_dlpack(grown).view(np.int32)
    np.testing.assert_array_equal(view[: gran // 4], data)  # the old bytes, not a copy of garbage
    view[gran // 4:] = 5
    grown.close()
    other.close()
    with pytest.raises(ValueError):
        VirtualMemoryResourceOptions(peers=(1,))


def test_graph_definition_builds_nodes_and_runs(dev) -> None:
    """cuda.core 1.x's explicit graphs: fill -> kernel -> copy, a host callback, an if/else node."""
    from tests.driver.ptx_snippets import SCALE

    from cumetal.core import ObjectCode
    from cumetal.core.graph import GraphDefinition, IfElseNode, KernelNode

    n = 64
    kernel = ObjectCode.from_ptx(SCALE).get_kernel("scale")
    x, y, out = (dev.allocate(4 * n) for _ in range(3))
    g = GraphDefinition()
    fill = g.memset(x, np.float32(1.5), n)
    k = fill.launch(LaunchConfig(grid=1, block=n), kernel, x, y, np.float32(4.0), np.uint32(n))
    copy = k.memcpy(out, y, 4 * n)
    seen = []
    done = copy.callback(lambda: seen.append(float(np.from_dlpack(out).view(np.float32)[0])))
    cond = g.create_condition(default_value=0)
    branch = done.if_else(cond)
    branch.then.memset(out, np.float32(-1.0), n)
    branch.else_.memset(out, np.float32(7.0), n)
    assert isinstance(k, KernelNode) and k.block == (n, 1, 1) and isinstance(branch, IfElseNode)
    assert k.pred == {fill} and copy in k.succ and (fill, k) in g.edges and len(g.nodes) == 5
    exe = g.instantiate()
    stream = dev.create_stream()
    exe.launch(stream)
    stream.sync()
    assert seen == [6.0]  # the callback ran after the copy of 1.5 * 4
    np.testing.assert_array_equal(np.from_dlpack(out).view(np.float32), np.full(n, 7.0, np.float32))  # else
    exe.close()
    g.close()
    for b in (x, y, out):
        b.close()


def test_graph_definition_nodes_update_and_executable_graphs_follow(dev) -> None:
    from tests.driver.ptx_snippets import SCALE

    from cumetal.core import ObjectCode
    from cumetal.core.graph import GraphDefinition

    n = 32
    kernel = ObjectCode.from_ptx(SCALE).get_kernel("scale")
    x, y = dev.allocate(4 * n), dev.allocate(4 * n)
    g = GraphDefinition()
    fill = g.memset(x, np.float32(2.0), n)
    k = fill.launch(LaunchConfig(grid=1, block=n), kernel, x, y, np.float32(3.0), np.uint32(n))
    exe = g.instantiate()
    stream = dev.create_stream()
    exe.launch(stream)
    stream.sync()
    np.testing.assert_array_equal(np.from_dlpack(y).view(np.float32), np.full(n, 6.0, np.float32))
    fill.update(value=np.float32(5.0))
    k.update(args=(x, y, np.float32(10.0), np.uint32(n)))
    exe.update(g)  # the executable graph takes the definition's new parameters
    exe.launch(stream)
    stream.sync()
    np.testing.assert_array_equal(np.from_dlpack(y).view(np.float32), np.full(n, 50.0, np.float32))
    exe.close()
    g.close()
