"""cumetal.core, the cuda.core-shaped API: devices, programs, launches, memory, numpy interop,
linker and graphs, checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from tests.driver.ptx_snippets import CALLEE, CALLER, NVVM_TRIPLE, SCALE

from cumetal import core
from cumetal.core import Device, LaunchConfig, Program, ProgramOptions, launch

SAXPY = """
template<typename T>
__global__ void saxpy(const T a, const T* x, const T* y, T* out, size_t n) {
    const unsigned int tid = threadIdx.x + blockIdx.x * blockDim.x;
    for (size_t i = tid; i < n; i += gridDim.x * blockDim.x) out[i] = a * x[i] + y[i];
}
"""


@pytest.fixture(scope="module")
def dev():
    d = Device()
    d.set_current()
    yield d
    # give the primary context back, so that later tests see the driver as they left it
    from cumetal import driver as cu
    from cumetal.core import _device

    d.sync()
    cu.cuCtxSetCurrent(None)
    cu.cuDevicePrimaryCtxRelease(0)
    _device._tls.__dict__.clear()


def _array(buf, dtype):
    return np.from_dlpack(buf).view(dtype)


def test_device_identity(dev):
    assert Device(0) is dev and dev.device_id == 0
    assert dev.arch == "".join(map(str, dev.compute_capability))
    assert dev.properties.warp_size == 32
    assert core.system.num_devices == 1
    assert len(dev.uuid) == 36


def test_cxx_program_templates_and_launch(dev):
    s = dev.create_stream()
    prog = Program(SAXPY, code_type="c++", options=ProgramOptions(std="c++17", arch=f"sm_{dev.arch}", fma=False))  # numpy rounds a*x, then +y
    mod = prog.compile("cubin", name_expressions=("saxpy<float>", "saxpy<double>"))
    n = 1000
    rng = np.random.default_rng(1)
    for dtype, ctype in ((np.float32, "float"), (np.float64, "double")):
        ker = mod.get_kernel(f"saxpy<{ctype}>")
        assert ker.num_arguments == 5
        x, y, out = (dev.allocate(n * np.dtype(dtype).itemsize, stream=s) for _ in range(3))
        hx, hy = rng.random(n).astype(dtype), rng.random(n).astype(dtype)
        _array(x, dtype)[:] = hx
        _array(y, dtype)[:] = hy
        launch(s, LaunchConfig(grid=(n + 127) // 128, block=128), ker, dtype(2.5), x, y, out, np.uint64(n))
        s.sync()
        np.testing.assert_array_equal(_array(out, dtype), dtype(2.5) * hx + hy)
        for b in (x, y, out):
            b.close(s)
        assert x.handle == 0
    s.close()


def test_buffers_copy_fill_and_views(dev):
    s = dev.create_stream()
    d = dev.memory_resource.allocate(64, stream=s)
    pinned = core.LegacyPinnedMemoryResource().allocate(64, stream=s)
    d.fill(0x3F800000, 4, stream=s)  # 1.0f
    d.copy_to(pinned, stream=s)
    s.sync()
    np.testing.assert_array_equal(np.from_dlpack(pinned).view(np.float32), np.ones(16, np.float32))
    assert np.asarray(d).nbytes == 64 and d.__cuda_array_interface__["data"][0] == d.handle
    view = core.utils.StridedMemoryView(d)
    assert view.ptr == d.handle and view.shape == (64,)
    d.close(s)
    pinned.close(s)


def test_events_time_work(dev):
    s = dev.create_stream()
    e1 = s.record(options=core.EventOptions(timing_enabled=True))
    buf = dev.allocate(1 << 20, stream=s)
    buf.fill(0, stream=s)
    e2 = s.record(options=core.EventOptions(timing_enabled=True))
    e2.sync()
    assert e2.is_done and (e2 - e1) >= 0.0
    buf.close(s)


def test_ptx_and_nvvm_programs_and_linker(dev):
    s = dev.create_stream()
    out = dev.allocate(128, stream=s)
    nvvm = Program(NVVM_TRIPLE, code_type="nvvm").compile("ptx")
    launch(s, LaunchConfig(grid=1, block=32), nvvm.get_kernel("triple"), out)
    s.sync()
    np.testing.assert_array_equal(_array(out, np.uint32), np.arange(32) * 3)
    linker = core.Linker(core.ObjectCode.from_ptx(CALLER, name="caller"), core.ObjectCode.from_ptx(CALLEE),
                         options=core.LinkerOptions(arch=f"sm_{dev.arch}"))
    linked = linker.link("cubin")
    launch(s, LaunchConfig(grid=1, block=32), linked.get_kernel("use_twice"), out)
    s.sync()
    np.testing.assert_array_equal(_array(out, np.uint32), np.arange(32) * 2)
    bad = core.Linker(core.ObjectCode.from_ptx(CALLEE), core.ObjectCode.from_ptx(CALLEE))
    with pytest.raises(core.CUDAError):
        bad.link("cubin")
    assert "twice" in bad.get_error_log()


def test_kernel_occupancy_and_attributes(dev):
    ker = Program(SCALE, code_type="ptx").compile("cubin").get_kernel("scale")
    assert ker.attributes.max_threads_per_block() == dev.properties.max_threads_per_block
    assert [tuple(p) for p in ker.arguments_info] == [(0, 8), (8, 8), (16, 4), (20, 4)]
    res = ker.occupancy.max_potential_block_size(0, 256)
    assert res.max_block_size == 256 and res.min_grid_size > 0


def test_graph_builder_replays(dev):
    s = dev.create_stream()
    ker = Program(SCALE, code_type="ptx").compile("ptx").get_kernel("scale")
    n = 256
    x, y = dev.allocate(4 * n, stream=s), dev.allocate(4 * n, stream=s)
    _array(x, np.float32)[:] = np.arange(n)
    s.sync()
    gb = s.create_graph_builder().begin_building()
    launch(gb, LaunchConfig(grid=1, block=n), ker, x, y, np.float32(3), np.uint32(n))
    launch(gb, LaunchConfig(grid=1, block=n), ker, y, x, np.float32(2), np.uint32(n))
    assert (_array(x, np.float32) == np.arange(n)).all()  # recorded, not run
    graph = gb.end_building().complete()
    graph.launch(s)
    graph.launch(s)
    s.sync()
    np.testing.assert_array_equal(_array(x, np.float32), np.arange(n) * 36.0)


MAIN_RDC = r"""
extern __device__ void generate(float* data);
extern "C" __global__ void main_workflow(float* data) { generate(data); }
"""
USER_CODE = r"""
__device__ void generate(float* data) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    data[x] = 2.0f * x + 1.0f;
}
"""


@pytest.mark.parametrize("fmt", ["ptx", "ltoir"])
def test_link_relocatable_cxx_with_ptx_or_lto_ir(dev, fmt):
    """A kernel calling an extern device function that a second program supplies (cuda.core's JIT LTO
    pattern): PTX + PTX, or PTX + LTO IR."""
    arch = f"sm_{dev.arch}"
    main = Program(MAIN_RDC, "c++", ProgramOptions(arch=arch, relocatable_device_code=True)).compile("ptx")
    user_opts = ProgramOptions(arch=arch, relocatable_device_code=fmt == "ptx", link_time_optimization=fmt == "ltoir")
    user = Program(USER_CODE, "c++", user_opts).compile(fmt)
    assert user.code_type == fmt and (fmt != "ltoir" or user.code.startswith(b"BC"))
    kernel = core.Linker(main, user, options=core.LinkerOptions(arch=arch, link_time_optimization=fmt == "ltoir")
                         ).link("cubin").get_kernel("main_workflow")
    s = dev.create_stream()
    buf = dev.allocate(4 * 256, stream=s)
    launch(s, LaunchConfig(grid=2, block=128), kernel, buf)
    s.sync()
    np.testing.assert_array_equal(_array(buf, np.float32), 2 * np.arange(256, dtype=np.float32) + 1)


def test_bad_input_is_explained(dev):
    with pytest.raises(RuntimeError, match="error"):
        Program("__global__ void k( { }", "c++").compile("ptx")
    with pytest.raises(RuntimeError, match="code_type"):
        Program("", "fortran")
    ker = Program(SCALE, code_type="ptx").compile("ptx").get_kernel("scale")
    with pytest.raises(TypeError, match="argument 0"):
        launch(dev.create_stream(), LaunchConfig(grid=1, block=1), ker, object(), 0, 1.0, 1)
    with pytest.raises(core.CUDAError, match="CUDA_ERROR_NOT_FOUND"):
        Program(SCALE, code_type="ptx").compile("ptx").get_kernel("nope")
    with pytest.raises(ValueError, match="grid"):
        LaunchConfig(grid=(0,), block=1)
    e = dev.create_stream().record(options={"enable_timing": True})  # cuda.core 0.x spelling
    assert e.is_timing_enabled
