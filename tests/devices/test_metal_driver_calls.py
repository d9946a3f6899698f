"""The Metal backend's exact Metal call sequences, driven through ``cumetal.driver``.

The PyObjC factory is replaced by RecordingMetal (test_metal_standin.py), a recording stand-in
for the Metal objects; no kernel runs. What is checked: the selectors and arguments each driver
operation sends (cuInit, memory, copies, fills, module loading, launches with the ABI's binding
indices, streams, events), the data the backend writes for the kernel (parameters, launch_info),
and what it makes of what a kernel or Metal reports back (fault records, printf records,
command-buffer errors). Whether real Metal accepts these calls is untested (docs/metal-backend.md).
"""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import numpy as np
import pytest
from test_metal_standin import GPU_OFFSET, RecordingMetal

from cumetal import driver as cu
from cumetal.backends.air.lower import compile_metallib
from cumetal.backends.apple.abi import REDUCTION_SCRATCH as SCRATCH
from cumetal.backends.msl import abi, emit_module
from cumetal.devices.compile import compile_image
from cumetal.devices.metal import bridge
from cumetal.driver.state import STATE

R = cu.CUresult
A = cu.CUdevice_attribute
DATA = Path(__file__).parents[1] / "driver" / "data"
PTX = (DATA / "kernels.ptx").read_text()
PADDR_PTX = """.version 7.8
.target sm_80
.address_size 64
.visible .entry paddr(.param .u64 paddr_param_0, .param .u64 paddr_param_1)
{
    .reg .b64 %rd<6>;
    mov.u64 %rd1, paddr_param_1;
    ld.param.u64 %rd2, [%rd1];
    ld.param.u64 %rd3, [paddr_param_0];
    cvta.to.global.u64 %rd4, %rd3;
    st.global.u64 [%rd4], %rd2;
    ret;
}
"""
ARENA = 16 << 20  # a quarter of the stand-in's 64 MiB recommendedMaxWorkingSetSize (1 GiB at most)
OPTIONS = "compile-options(MSL 3.2, fastMath=NO, mathMode=0)"  # what bridge.make_compile_options makes on macOS 15


def ok(result):
    err, *rest = result
    assert err == R.CUDA_SUCCESS, f"{R(err).name}: {cu.last_error_message()}"
    return rest[0] if len(rest) == 1 else tuple(rest) if rest else None


@pytest.fixture
def metal(monkeypatch, tmp_path):
    """A fresh driver whose cuInit opens the Metal backend on a RecordingMetal."""
    rec = RecordingMetal()
    monkeypatch.setattr(bridge, "PyObjCFactory", lambda: rec)
    monkeypatch.setenv("CUMETAL_BACKEND", "metal")
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    for var in ("CUMETAL_METAL_LIBRARY", "CUMETAL_FP64", "CUMETAL_METAL_ARENA_MB", "CUMETAL_QUIET"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(STATE, "initialized", False)
    monkeypatch.setattr(STATE, "device", None)
    monkeypatch.setattr(STATE, "primary", None)
    monkeypatch.setattr(STATE, "primary_refs", 0)
    return rec


@pytest.fixture
def ctx(metal):
    ok(cu.cuInit(0))
    c = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    yield c
    assert cu.cuCtxDestroy(c)[0] == R.CUDA_SUCCESS


def arena_base(metal: RecordingMetal) -> int:
    return STATE.device.arena.base


# ---------------------------------------------------------------- cuInit and properties
def test_cuinit_call_sequence(metal):
    ok(cu.cuInit(0))
    assert metal.log == [
        ("factory", "MTLCreateSystemDefaultDevice", "device1"),
        ("device1", "name"),
        ("device1", "supportsFamily:", 1007),
        ("device1", "newCommandQueue", "queue1"),
        ("device1", "newLibraryWithSource:options:error:", "<31 chars>", OPTIONS, None),
        ("library1", "newFunctionWithName:", "cumetal_probe"),
        ("device1", "newComputePipelineStateWithFunction:error:", "function1", None),
        ("pipeline1", "threadExecutionWidth"),
        ("device1", "recommendedMaxWorkingSetSize"),
        ("device1", "maxBufferLength"),
        ("device1", "newBufferWithLength:options:", ARENA, 0, "buffer1"),  # 0 = MTLResourceStorageModeShared
        ("buffer1", "contents"),
        ("buffer1", "gpuAddress"),
        ("device1", "maxThreadgroupMemoryLength"),
        ("device1", "maxThreadsPerThreadgroup"),
    ]
    assert metal.sources == ["kernel void cumetal_probe() {}\n"]
    assert STATE.device.arena.delta == GPU_OFFSET


def test_device_properties(ctx, metal):
    dev = ok(cu.cuDeviceGet(0))
    assert ok(cu.cuDeviceGetName(64, dev)).split(b"\0")[0] == b"Apple M2 Pro"
    assert ok(cu.cuDeviceTotalMem(dev)) == ARENA
    attr = {a: ok(cu.cuDeviceGetAttribute(a, dev)) for a in (
        A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, A.CU_DEVICE_ATTRIBUTE_WARP_SIZE,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING)}
    assert attr == {A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: 16,  # M2 Pro: 16-19 cores, fewest reported
                    A.CU_DEVICE_ATTRIBUTE_WARP_SIZE: 32,
                    A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: 48 * 1024,  # CUDA's: beyond the GPU's
                    # threadgroup memory a launch's shared memory is in device memory (apple/shared_spill.py)
                    A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024,
                    A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: 8,
                    A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: 1}
    assert ok(cu.cuMemGetInfo()) == (ARENA, ARENA)
    # sm_80's opt-in maximum and multiprocessor total, as the other devices report
    assert ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev)) == 163 * 1024
    assert ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev)) == 164 * 1024


@pytest.mark.parametrize("name,os_count,expect", [("Apple M2 Pro", 19, 19), ("Apple M4 Max", None, 32),
                                                    ("Apple M9 Hyper", None, 8), ("AMD Radeon Pro", None, 8)])
def test_multiprocessor_count(metal, name, os_count, expect):
    metal.device_name, metal.cores = name, os_count
    ok(cu.cuInit(0))
    assert ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0)) == expect


def test_simd_width_other_than_32_is_a_hard_error(metal, capfd):
    metal.simd_width = 64
    assert cu.cuInit(0)[0] == R.CUDA_ERROR_NO_DEVICE
    err = capfd.readouterr().err
    assert "SIMD-groups of 64 threads" in err and "assume 32" in err
    assert "newBufferWithLength:options:" not in metal.selectors()  # nothing after the probe


def test_old_gpu_family_warns_and_continues(metal, capfd):
    metal.apple7 = False
    ok(cu.cuInit(0))
    assert "below MTLGPUFamilyApple7" in capfd.readouterr().err


def test_arena_size_from_environment(metal, monkeypatch):
    monkeypatch.setenv("CUMETAL_METAL_ARENA_MB", "8")
    ok(cu.cuInit(0))
    assert ("device1", "newBufferWithLength:options:", 8 << 20, 0, "buffer1") in metal.log


# ---------------------------------------------------------------- memory
def test_alloc_free_and_sync_copies_send_no_metal_calls_when_idle(ctx, metal):
    mark = metal.mark()
    d = ok(cu.cuMemAlloc(1000))
    h = ok(cu.cuMemAllocHost(64))
    assert int(d) == arena_base(metal) and int(h) == arena_base(metal) + 1024  # 256-aligned, in the arena
    src = np.arange(250, dtype=np.int32)
    ok(cu.cuMemcpyHtoD(d, src, src.nbytes))
    assert np.frombuffer(ctypes.string_at(int(d), 1000), np.int32).tolist() == src.tolist()  # contents ptr = dptr
    ok(cu.cuMemsetD32(int(d) + 8, 0xDEADBEEF, 2))
    out = np.empty(250, np.int32)
    ok(cu.cuMemcpyDtoH(out, d, out.nbytes))
    expect = src.copy()
    expect[2:4] = np.int32(-559038737)
    assert out.tolist() == expect.tolist()
    assert ok(cu.cuMemGetAddressRange(int(d) + 500)) == (d, 1000)
    assert ok(cu.cuMemGetInfo())[0] == ARENA - 1024 - 256
    ok(cu.cuMemFree(d))
    ok(cu.cuMemFreeHost(h))
    assert ok(cu.cuMemGetInfo())[0] == ARENA
    assert metal.selectors(mark) == []  # unified memory: the CPU does it


def test_freed_memory_is_zeroed_when_reused(ctx, metal):
    d = ok(cu.cuMemAlloc(256))
    ok(cu.cuMemsetD8(d, 0xFF, 256))
    ok(cu.cuMemFree(d))
    d2 = ok(cu.cuMemAlloc(256))
    assert int(d2) == int(d) and ctypes.string_at(int(d2), 256) == bytes(256)


def test_out_of_memory(ctx, metal):
    assert cu.cuMemAlloc(ARENA + 1)[0] == R.CUDA_ERROR_OUT_OF_MEMORY
    assert "CUMETAL_METAL_ARENA_MB" in cu.last_error_message()


def test_async_device_copy_and_byte_fill_are_blits(ctx, metal):
    s = ok(cu.cuStreamCreate(0))
    a, b = ok(cu.cuMemAlloc(4096)), ok(cu.cuMemAlloc(4096))
    ok(cu.cuMemcpyHtoD(a, bytes(range(256)) * 16, 4096))
    base = arena_base(metal)
    mark = metal.mark()
    ok(cu.cuMemcpyDtoDAsync(b, int(a) + 16, 1024, s))
    ok(cu.cuMemsetD8Async(int(b) + 2048, 0x7E, 512, s))
    assert metal.log[mark:] == [
        ("queue2", "commandBuffer", "cb1"),
        ("cb1", "blitCommandEncoder", "blit1"),
        ("blit1", "copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:", "buffer1", int(a) + 16 - base,
         "buffer1", int(b) - base, 1024),
        ("blit1", "endEncoding"),
        ("cb1", "commit"),
        ("queue2", "commandBuffer", "cb2"),
        ("cb2", "blitCommandEncoder", "blit2"),
        ("blit2", "fillBuffer:range:value:", "buffer1", (int(b) + 2048 - base, 512), 0x7E),
        ("blit2", "endEncoding"),
        ("cb2", "commit"),
    ]
    ok(cu.cuStreamSynchronize(s))
    assert ctypes.string_at(int(b), 1024) == (bytes(range(256)) * 16)[16:1040]
    assert ctypes.string_at(int(b) + 2048, 513) == b"\x7e" * 512 + b"\0"
    ok(cu.cuStreamDestroy(s))


def test_async_copies_the_blit_cannot_do_run_on_the_cpu_after_the_stream(ctx, metal):
    metal.hold = True
    s = ok(cu.cuStreamCreate(0))
    a = ok(cu.cuMemAlloc(4096))
    ok(cu.cuMemsetD8Async(a, 1, 4096, s))  # a blit, held in flight
    host = np.full(16, 9, np.uint16)
    mark = metal.mark()
    ok(cu.cuMemsetD16Async(int(a) + 64, 0xBEEF, 8, s))  # 16-bit fill: CPU, after the blit completes
    ok(cu.cuMemcpyHtoDAsync(int(a) + 128, host, host.nbytes, s))  # pageable host memory: CPU
    ok(cu.cuMemcpyDtoDAsync(int(a) + 1, a, 3, s))  # offsets not multiples of 4: CPU
    assert metal.log[mark:] == [("cb1", "waitUntilCompleted")]
    raw = ctypes.string_at(int(a), 4096)
    assert raw[:4] == b"\x01" * 4
    assert np.frombuffer(raw[64:80], np.uint16).tolist() == [0xBEEF] * 8
    assert np.frombuffer(raw[128:160], np.uint16).tolist() == [9] * 16
    ok(cu.cuStreamDestroy(s))


# ---------------------------------------------------------------- modules
def test_module_load_compiles_the_emitted_msl_once_and_builds_every_pipeline(ctx, metal, capfd):
    mark = metal.mark()
    mod = ok(cu.cuModuleLoadData(PTX))
    ir = compile_image(PTX, "<cuModuleLoadData>")
    expected = []
    for i, name in enumerate(ir.kernels):
        fn, pso = f"function{i + 2}", f"pipeline{i + 2}"
        expected += [("library2", "newFunctionWithName:", name),
                     ("device1", "newComputePipelineStateWithFunction:error:", fn, None),
                     (pso, "threadExecutionWidth"), (pso, "maxTotalThreadsPerThreadgroup")]
    source = emit_module(ir, fp64="emulate").source  # fp64 emulated by default (Apple GPUs reject double)
    assert "double" not in source
    assert metal.log[mark:] == [("device1", "newLibraryWithSource:options:error:", f"<{len(source)} chars>",
                                 OPTIONS, None)] + expected
    assert metal.sources[-1] == source
    # globals live in the arena, initialised (coeffs = 1, 2, 3, 4)
    addr, size = ok(cu.cuModuleGetGlobal(mod, b"coeffs"))
    assert size == 16 and np.frombuffer(ctypes.string_at(int(addr), 16), np.float32).tolist() == [1, 2, 3, 4]
    assert STATE.device.arena.find(int(addr)).kind == "global"
    mark = metal.mark()
    mod2 = ok(cu.cuModuleLoadData(PTX))  # same source: library and pipelines from the cache
    assert metal.log[mark:] == []
    ok(cu.cuModuleUnload(mod2))
    ok(cu.cuModuleUnload(mod))


def test_module_load_from_our_metallib(ctx, metal, monkeypatch, tmp_path, capfd):
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", "metallib")
    mark = metal.mark()
    mod = ok(cu.cuModuleLoadData(PTX))
    ir = compile_image(PTX, "<cuModuleLoadData>")
    # 'affine' uses f64: emulated (passes/legalize/fp64), so every kernel is in the .metallib
    data = compile_metallib(ir, fp64="emulate")
    (url_call,) = [e for e in metal.log[mark:] if e[1] == "newLibraryWithURL:error:"]
    assert Path(url_call[2]).parent == tmp_path / "metallib" and url_call[3] is None
    assert metal.metallibs == [data]
    names = [e[2] for e in metal.log[mark:] if e[1] == "newFunctionWithName:"]
    assert names == list(ir.kernels)  # AIR functions keep the IR names
    assert "newLibraryWithSource:options:error:" not in metal.selectors(mark)
    assert "uses f64" not in capfd.readouterr().err
    ok(cu.cuModuleGetFunction(mod, b"affine"))


def test_metallib_native_f64_only_when_asked(ctx, metal, monkeypatch):
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", "metallib")
    monkeypatch.setenv("CUMETAL_FP64", "native")
    ok(cu.cuModuleLoadData(PTX))
    assert metal.metallibs == [compile_metallib(compile_image(PTX, "<cuModuleLoadData>"), fp64="native")]
    assert metal.metallibs[0] != compile_metallib(compile_image(PTX, "<cuModuleLoadData>"))  # the default emulates


def test_bad_library_mode_is_a_load_error(ctx, metal, monkeypatch):
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", "spirv")
    assert cu.cuModuleLoadData(PTX)[0] == R.CUDA_ERROR_INVALID_IMAGE
    assert "CUMETAL_METAL_LIBRARY='spirv'" in cu.last_error_message()


def test_rejected_msl_is_invalid_image_with_metals_message(ctx, metal):
    metal.reject_source = "program_source:12:3: error: use of undeclared identifier 'x'"
    assert cu.cuModuleLoadData(PTX)[0] == R.CUDA_ERROR_INVALID_IMAGE
    assert "undeclared identifier 'x'" in cu.last_error_message()


def test_failed_pipeline_fails_only_its_kernel(ctx, metal, capfd):
    metal.reject_pipeline["affine"] = "too many registers"
    mod = ok(cu.cuModuleLoadData(PTX))
    assert "kernel 'affine' cannot run on Metal" in capfd.readouterr().err
    affine = ok(cu.cuModuleGetFunction(mod, b"affine"))
    d = ok(cu.cuMemAlloc(64))
    mark = metal.mark()
    params = (((ctypes.c_char * 16)(), d, d, d), (None, None, None, None))
    assert cu.cuLaunchKernel(affine, 1, 1, 1, 1, 1, 1, 0, 0, params, None)[0] == R.CUDA_ERROR_LAUNCH_FAILED
    assert "too many registers" in capfd.readouterr().err
    assert metal.selectors(mark) == []
    hello = ok(cu.cuModuleGetFunction(mod, b"hello"))
    ok(cu.cuLaunchKernel(hello, 1, 1, 1, 1, 1, 1, 0, 0, ((1,), (ctypes.c_uint,)), None))


# ---------------------------------------------------------------- launches
def _info_at_dispatch(metal: RecordingMetal) -> list[bytes]:
    """Capture what the kernel would find in its launch_info binding when it runs."""
    seen: list[bytes] = []

    def on_dispatch(enc):
        buf, off = enc.buffers[abi.LAUNCH_INFO_INDEX]
        seen.append(ctypes.string_at(buf.address + off, 4 * abi.INFO_HEADER_WORDS + 64))

    metal.on_dispatch = on_dispatch
    return seen


def test_launch_binds_per_abi_and_dispatches_grid_and_block(ctx, metal):
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    a, b, c = (ok(cu.cuMemAlloc(4096)) for _ in range(3))
    coeffs, _ = ok(cu.cuModuleGetGlobal(mod, b"coeffs"))
    base = arena_base(metal)
    infos = _info_at_dispatch(metal)
    mark = metal.mark()
    ok(cu.cuLaunchKernel(fn, 4, 2, 1, 128, 1, 1, 0, 0, ((a, b, c, 1000), (None, None, None, ctypes.c_int)), None))
    log = metal.log[mark:]
    pso = STATE.device.libraries.pipelines[(next(iter(STATE.device.libraries.libraries)), "vector_add")].pipeline
    params = struct.pack("<QQQi", int(a), int(b), int(c), 1000)
    info_off = log[4][3]
    assert log == [
        ("queue1", "commandBuffer", "cb1"),
        ("cb1", "computeCommandEncoder", "compute1"),
        ("compute1", "setComputePipelineState:", pso.label),
        ("compute1", "setBytes:length:atIndex:", params, len(params), 0),  # small, address never taken
        ("compute1", "setBuffer:offset:atIndex:", "buffer1", info_off, 1),
        ("compute1", "setBuffer:offset:atIndex:", "buffer1", int(coeffs) - base, 30),  # module has .const
        ("compute1", "useResource:usage:", "buffer1", 3),  # read | write: pointers reach the whole arena
        ("compute1", "setThreadgroupMemoryLength:atIndex:", SCRATCH, 0),  # no shared memory: the scratch
        ("compute1", "dispatchThreadgroups:threadsPerThreadgroup:", (4, 2, 1), (128, 1, 1)),
        ("compute1", "endEncoding"),
        ("cb1", "commit"),
        ("cb1", "waitUntilCompleted"),  # the null stream is synchronous
    ]
    (info,) = infos
    delta, params_addr = struct.unpack_from("<qQ", info, 0)
    assert delta == GPU_OFFSET and params_addr == 0
    dyn, total, nglobals, nlocks = struct.unpack_from("<IIII", info, 4 * abi.INFO_DYNAMIC_SMEM)
    assert (dyn, total, nglobals) == (0, 0, 3)
    globals_table = struct.unpack_from("<3Q", info, 4 * abi.INFO_HEADER_WORDS)  # in module order
    addrs = [int(ok(cu.cuModuleGetGlobal(mod, n))[0]) for n in (b"counter", b"coeffs", b"$str")]
    assert list(globals_table) == addrs
    assert STATE.device.arena.used == 3 * 4096 + sum(_round(s) for s in (4, 16, 38))  # launch block freed


def _round(n):
    return (n + 255) // 256 * 256


def test_dynamic_shared_memory_length_and_info_words(ctx, metal):
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"scale_dynamic_shared"))
    d = ok(cu.cuMemAlloc(4096))
    infos = _info_at_dispatch(metal)
    mark = metal.mark()
    ok(cu.cuLaunchKernel(fn, 2, 1, 1, 256, 1, 1, 1024, 0, ((d, 2.0), (None, ctypes.c_float)), None))
    assert ("compute1", "setThreadgroupMemoryLength:atIndex:", 1024 + SCRATCH, 0) in metal.log[mark:]
    assert struct.unpack_from("<II", infos[0], 4 * abi.INFO_DYNAMIC_SMEM) == (1024, 1024)


STATIC_AND_DYNAMIC_SHARED_PTX = """.version 7.8
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry both_shared(.param .u64 both_shared_param_0)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .shared .align 4 .b8 fixed[100];
    ld.param.u64 %rd1, [both_shared_param_0];
    mov.u32 %r1, %tid.x;
    st.shared.u32 [fixed], %r1;
    st.shared.u32 [dyn], %r1;
    bar.sync 0;
    ld.shared.u32 %r2, [fixed];
    ld.shared.u32 %r3, [dyn];
    add.s32 %r2, %r2, %r3;
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""


@pytest.mark.parametrize("library, length", [
    ("msl", 1120 + SCRATCH),  # align16(align16(100 static) + 1000 dynamic) + the barrier scratch
    ("metallib", 1008 + SCRATCH),  # AIR: static memory is an addrspace(3) global; align16(1000) + scratch
])
def test_threadgroup_length_follows_the_library_mode(ctx, metal, monkeypatch, library, length):
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", library)
    mod = ok(cu.cuModuleLoadData(STATIC_AND_DYNAMIC_SHARED_PTX.encode()))
    fn = ok(cu.cuModuleGetFunction(mod, b"both_shared"))
    d = ok(cu.cuMemAlloc(4))
    infos = _info_at_dispatch(metal)
    mark = metal.mark()
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 1000, 0, ((d,), (None,)), None))
    lengths = [e for e in metal.log[mark:] if e[1] == "setThreadgroupMemoryLength:atIndex:"]
    assert lengths == [("compute1", "setThreadgroupMemoryLength:atIndex:", length, 0)]
    # launch_info is the same in both modes: dynamic bytes; MSL's window length without the scratch
    # (the AIR kernel finds its scratch at align16(dynamic bytes), not through this word)
    assert struct.unpack_from("<II", infos[0], 4 * abi.INFO_DYNAMIC_SMEM) == (1000, 1120)


BIG_STATIC_SHARED_PTX = """.version 7.8
.target sm_80
.address_size 64
.visible .entry big_static(.param .u64 big_static_param_0)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .shared .align 4 .b8 tile[40960];
    ld.param.u64 %rd1, [big_static_param_0];
    mov.u32 %r1, %tid.x;
    st.shared.u32 [tile+40956], %r1;
    bar.sync 0;
    ld.shared.u32 %r2, [tile+40956];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""


@pytest.mark.parametrize("library", ["msl", "metallib"])
def test_shared_memory_beyond_the_gpu_goes_to_device_memory(ctx, metal, monkeypatch, library):
    """40 KiB of static shared memory on a GPU with 32 KiB of threadgroup memory: the launch compiles
    the kernel's spilled variant once, binds only the barrier scratch as threadgroup memory, gives the
    kernel a slice of arena memory per threadgroup through the globals table and frees it after."""
    from cumetal.backends.apple import shared_spill

    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", library)
    mod = ok(cu.cuModuleLoadData(BIG_STATIC_SHARED_PTX.encode()))
    fn = ok(cu.cuModuleGetFunction(mod, b"big_static"))
    d = ok(cu.cuMemAlloc(4))
    used = STATE.device.arena.used
    infos = _info_at_dispatch(metal)
    for _ in range(2):
        mark = metal.mark()
        ok(cu.cuLaunchKernel(fn, 3, 2, 1, 32, 1, 1, 0, 0, ((d,), (None,)), None))
        lengths = [e[2:] for e in metal.log[mark:] if e[1] == "setThreadgroupMemoryLength:atIndex:"]
        assert lengths == [(SCRATCH, 0)]
    assert len(STATE.device.libraries.libraries) == 2  # the module's library and the variant's, made once
    assert STATE.device.arena.used == used  # the slices are freed when the command buffer completes
    loaded = STATE.module(mod).image.module
    variant = shared_spill.spilled(loaded.kernels["big_static"], loaded, 0)[1]
    slot = list(variant.globals).index(shared_spill.SYMBOL)
    spill_addr, = struct.unpack_from("<Q", infos[0], 4 * (abi.INFO_HEADER_WORDS + 2 * slot))
    assert spill_addr != 0 and STATE.device.arena.base <= spill_addr < STATE.device.arena.base + ARENA
    assert struct.unpack_from("<II", infos[0], 4 * abi.INFO_DYNAMIC_SMEM) == (0, 0)


def test_parameters_whose_address_is_taken_live_in_the_arena(ctx, metal):
    mod = ok(cu.cuModuleLoadData(PADDR_PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"paddr"))
    d = ok(cu.cuMemAlloc(8))
    infos = _info_at_dispatch(metal)
    bound = []
    metal.on_dispatch = lambda enc: (bound.append(enc.buffers[0]), infos.append(
        ctypes.string_at(enc.buffers[1][0].address + enc.buffers[1][1], 16)))
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((d, 0x1122334455667788), (None, ctypes.c_uint64)), None))
    assert "setBytes:length:atIndex:" not in metal.selectors()
    (buf, off), = bound
    params_addr = struct.unpack_from("<Q", infos[0], 8)[0]
    assert params_addr == arena_base(metal) + off  # &param: the device address of binding 0
    assert ctypes.string_at(buf.address + off, 16) == struct.pack("<QQ", int(d), 0x1122334455667788)


def test_printf_ring_is_bound_at_2_and_drained_after_completion(ctx, metal, capfd):
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"hello"))

    def kernel_prints(enc):  # what the device's printf would append to the ring (msl/printf.py layout)
        buf, off = enc.buffers[abi.PRINTF_INDEX]
        ring = buf.address + off
        used, capacity = struct.unpack("<II", ctypes.string_at(ring, 8))
        assert (used, capacity) == (0, 1 << 20)
        records = b"".join(struct.pack("<II3i4x", 1, 12, tid, 1, 7) for tid in (0, 1))
        ctypes.memmove(ring + abi.PRINTF_HEADER_BYTES, records, len(records))
        ctypes.memmove(ring, struct.pack("<I", len(records)), 4)

    metal.on_dispatch = kernel_prints
    mark = metal.mark()
    ok(cu.cuLaunchKernel(fn, 2, 1, 1, 2, 1, 1, 0, 0, ((7,), (ctypes.c_uint,)), None))
    binds = [e for e in metal.log[mark:] if e[1] == "setBuffer:offset:atIndex:"]
    assert [e[4] for e in binds] == [1, 2, 30]
    assert capfd.readouterr().out == "hello from thread 0 block 1 tag 7\nhello from thread 1 block 1 tag 7\n"


def test_kernel_fault_record_becomes_the_cuda_error_once(ctx, metal, capfd):
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"write_past_end"))
    d = ok(cu.cuMemAlloc(16))

    def kernel_faults(enc):
        buf, off = enc.buffers[abi.LAUNCH_INFO_INDEX]
        ctypes.memmove(buf.address + off + 4 * abi.INFO_FAULT_CODE, struct.pack("<IIQ", 1, 0, 0xDEAD0000), 16)

    metal.on_dispatch = kernel_faults
    params = ((d, 5), (None, ctypes.c_uint))
    assert cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, params, None)[0] == R.CUDA_ERROR_ILLEGAL_ADDRESS
    assert "kernel 'write_past_end': illegal_address: at address 0xdead0000" in capfd.readouterr().err
    assert cu.cuCtxSynchronize()[0] == R.CUDA_ERROR_ILLEGAL_ADDRESS  # reported again once
    metal.on_dispatch = None
    ok(cu.cuCtxSynchronize())
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, params, None))  # not sticky


@pytest.mark.parametrize("code,result", [
    (bridge.CB_ERROR_PAGE_FAULT, R.CUDA_ERROR_ILLEGAL_ADDRESS),
    (bridge.CB_ERROR_TIMEOUT, R.CUDA_ERROR_LAUNCH_TIMEOUT),
    (bridge.CB_ERROR_ACCESS_REVOKED, R.CUDA_ERROR_LAUNCH_FAILED),
    (bridge.CB_ERROR_INTERNAL, R.CUDA_ERROR_LAUNCH_FAILED),
    (bridge.CB_ERROR_OUT_OF_MEMORY, R.CUDA_ERROR_LAUNCH_FAILED),
])
def test_command_buffer_errors_on_a_stream_surface_at_synchronize(ctx, metal, capfd, code, result):
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    d = ok(cu.cuMemAlloc(64))
    s = ok(cu.cuStreamCreate(0))
    metal.fail_next = (code, "GPU said no")
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, s, ((d, d, d, 16), (None, None, None, ctypes.c_int)), None))
    assert cu.cuStreamSynchronize(s)[0] == result
    assert "GPU said no" in capfd.readouterr().err
    ok(cu.cuStreamSynchronize(s))
    ok(cu.cuStreamDestroy(s))


def test_block_above_the_pipeline_limit_is_refused_before_encoding(ctx, metal, capfd):
    metal.max_threads["vector_add"] = 256
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    d = ok(cu.cuMemAlloc(64))
    mark = metal.mark()
    err, = cu.cuLaunchKernel(fn, 1, 1, 1, 512, 1, 1, 0, 0, ((d, d, d, 16), (None, None, None, ctypes.c_int)), None)
    assert err in (R.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, R.CUDA_ERROR_LAUNCH_FAILED)  # see docs/metal-backend.md
    assert "512 threads per block, the Metal pipeline allows 256" in capfd.readouterr().err
    assert metal.selectors(mark) == []
    ok(cu.cuCtxSynchronize())  # a refused launch leaves no pending fault
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, 0, ((d, d, d, 16), (None, None, None, ctypes.c_int)), None))


# ---------------------------------------------------------------- streams and events
def test_stream_and_event_call_sequences(ctx, metal):
    mark = metal.mark()
    s = ok(cu.cuStreamCreate(0))
    s2 = ok(cu.cuStreamCreate(0))
    ev = ok(cu.cuEventCreate(0))
    quiet = ok(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    ok(cu.cuEventRecord(ev, s))
    ok(cu.cuEventRecord(quiet, s))
    ok(cu.cuStreamWaitEvent(s2, quiet, 0))
    probe = "pipeline1"
    assert metal.log[mark:] == [
        ("device1", "newCommandQueue", "queue2"),
        ("device1", "newCommandQueue", "queue3"),
        ("device1", "newSharedEvent", "event1"),
        ("device1", "newSharedEvent", "event2"),
        ("queue2", "commandBuffer", "cb1"),
        ("cb1", "computeCommandEncoder", "compute1"),  # timing: one probe thread for GPU timestamps
        ("compute1", "setComputePipelineState:", probe),
        ("compute1", "dispatchThreadgroups:threadsPerThreadgroup:", (1, 1, 1), (1, 1, 1)),
        ("compute1", "endEncoding"),
        ("cb1", "encodeSignalEvent:value:", "event1", 1),
        ("cb1", "commit"),
        ("queue2", "commandBuffer", "cb2"),
        ("cb2", "encodeSignalEvent:value:", "event2", 1),  # CU_EVENT_DISABLE_TIMING: the signal only
        ("cb2", "commit"),
        ("queue3", "commandBuffer", "cb3"),
        ("cb3", "encodeWaitForEvent:value:", "event2", 1),
        ("cb3", "commit"),
    ]
    ok(cu.cuEventRecord(quiet, s))
    assert ("cb4", "encodeSignalEvent:value:", "event2", 2) in metal.log  # the counter goes up per record
    for h in (s, s2):
        ok(cu.cuStreamDestroy(h))
    for e in (ev, quiet):
        ok(cu.cuEventDestroy(e))


def test_queries_follow_completion_and_elapsed_time_uses_gpu_timestamps(ctx, metal):
    metal.hold = True
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    d = ok(cu.cuMemAlloc(64))
    s = ok(cu.cuStreamCreate(0))
    start, end = ok(cu.cuEventCreate(0)), ok(cu.cuEventCreate(0))
    ok(cu.cuEventRecord(start, s))
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, s, ((d, d, d, 16), (None, None, None, ctypes.c_int)), None))
    ok(cu.cuEventRecord(end, s))
    assert cu.cuStreamQuery(s)[0] == R.CUDA_ERROR_NOT_READY
    assert cu.cuEventQuery(end)[0] == R.CUDA_ERROR_NOT_READY
    assert cu.cuEventElapsedTime(start, end)[0] == R.CUDA_ERROR_NOT_READY
    ok(cu.cuEventSynchronize(end))
    assert ("cb3", "waitUntilCompleted") in metal.log
    ok(cu.cuEventQuery(end))
    ok(cu.cuStreamQuery(s))
    # stand-in clock: each command buffer takes 1 ms from 100.000 s; start marker, kernel, end marker
    assert ok(cu.cuEventElapsedTime(start, end)) == pytest.approx(2.0)
    ok(cu.cuStreamDestroy(s))


def test_null_stream_waits_for_blocking_streams_but_not_non_blocking_ones(ctx, metal):
    metal.hold = True
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    d = ok(cu.cuMemAlloc(64))
    blocking = ok(cu.cuStreamCreate(0))
    free = ok(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
    args = ((d, d, d, 16), (None, None, None, ctypes.c_int))
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, blocking, args, None))  # cb1
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, free, args, None))  # cb2
    mark = metal.mark()
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, 0, args, None))  # null stream: cb3
    sel = [(e[0], e[1]) for e in metal.log[mark:]]
    assert sel[0] == ("cb1", "waitUntilCompleted")  # before anything is encoded
    assert ("cb2", "waitUntilCompleted") not in sel
    assert sel[-1] == ("cb3", "waitUntilCompleted")
    for h in (blocking, free):
        ok(cu.cuStreamDestroy(h))


def test_free_waits_for_work_in_flight(ctx, metal):
    metal.hold = True
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    d = ok(cu.cuMemAlloc(64))
    s = ok(cu.cuStreamCreate(0))
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, s, ((d, d, d, 16), (None, None, None, ctypes.c_int)), None))
    mark = metal.mark()
    ok(cu.cuMemFree(d))
    assert metal.log[mark:] == [("cb1", "waitUntilCompleted")]
    ok(cu.cuStreamDestroy(s))


def test_forcing_metal_off_macos_is_a_clear_error_at_cuinit():
    import subprocess
    import sys

    if sys.platform == "darwin":
        pytest.skip("this is about other operating systems")
    out = subprocess.run([sys.executable, "-c", "from cumetal import driver as cu; print(int(cu.cuInit(0)[0]))"],
                         capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "CUMETAL_BACKEND": "metal"})
    assert out.stdout.split() == [str(int(R.CUDA_ERROR_NO_DEVICE))]
    assert "CUMETAL_BACKEND='metal' cannot be used: the Metal backend needs macOS" in out.stderr
    assert "Traceback" not in out.stderr
