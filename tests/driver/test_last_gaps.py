"""The driver API's last gaps (issue #13): cuStreamBeginRecaptureToGraph, cuMemGetLocationInfo,
CU_FUNC_ATTRIBUTE_NUM_REGS from the kernel IR's liveness, CU_POINTER_ATTRIBUTE_IS_MANAGED.
Checked against numpy (replayed graphs), hand-counted live registers and CUDA's documented rules."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.driver.conftest import check
from tests.driver.ptx_snippets import SCALE

from cumetal import driver as cu

R = cu.CUresult
GLOBAL = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
N = 300
ARGS = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_uint)


def _scale_work(fn, s, x, y, a, fill):
    check(cu.cuLaunchKernel(fn, 2, 1, 1, 256, 1, 1, 0, s, ((x, y, a, N), ARGS), None))
    check(cu.cuMemsetD8Async(fill, 7, 64, s))


def _get(d, n=N):
    out = np.zeros(n, np.float32)
    check(cu.cuMemcpyDtoH(out, d, n * 4))
    return out


def test_recapture_updates_the_graph_in_place(ctx):
    mod = check(cu.cuModuleLoadData(SCALE.encode()))
    fn = check(cu.cuModuleGetFunction(mod, b"scale"))
    x = np.arange(N, dtype=np.float32)
    dx, dy, fill = (check(cu.cuMemAlloc(N * 4)) for _ in range(3))
    check(cu.cuMemcpyHtoD(dx, x, N * 4))
    s = check(cu.cuStreamCreate(0))
    check(cu.cuStreamBeginCapture(s, GLOBAL))
    _scale_work(fn, s, dx, dy, 2.0, fill)
    g = check(cu.cuStreamEndCapture(s))
    nodes, _n = check(cu.cuGraphGetNodes(g, 8))
    calls = []

    def callback(data, node, original, recaptured, status):
        calls.append((data, int(node), status, original.type, recaptured.type))
        return 0

    check(cu.cuStreamBeginRecaptureToGraph(s, GLOBAL, g, callback, "tag"))
    assert check(cu.cuStreamIsCapturing(s)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    _scale_work(fn, s, dx, dy, 3.0, fill)  # only the kernel's scalar changes
    again = check(cu.cuStreamEndCapture(s))
    assert int(again) == int(g)
    assert [int(n) for n in check(cu.cuGraphGetNodes(g, 8))[0]] == [int(n) for n in nodes]
    K = cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
    kernel = next(int(n) for n in nodes if check(cu.cuGraphNodeGetType(n)) == K)
    assert calls == [("tag", kernel, cu.CUgraphRecaptureStatus.CU_GRAPH_RECAPTURE_ELIGIBLE_FOR_UPDATE, K, K)]
    exe = check(cu.cuGraphInstantiate(g, 0))
    check(cu.cuGraphLaunch(exe, s))
    check(cu.cuStreamSynchronize(s))
    np.testing.assert_array_equal(_get(dy), 3 * x)  # the recaptured scalar, not 2
    # a different topology fails with CUDA's code; the stream stops capturing
    check(cu.cuStreamBeginRecaptureToGraph(s, GLOBAL, g, None, None))
    check(cu.cuLaunchKernel(fn, 2, 1, 1, 256, 1, 1, 0, s, ((dx, dy, 1.0, N), ARGS), None))
    assert cu.cuStreamEndCapture(s)[0] == R.CUDA_ERROR_GRAPH_RECAPTURE_FAILURE
    assert check(cu.cuStreamIsCapturing(s)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE
    # a callback answering an error fails the recapture
    check(cu.cuStreamBeginRecaptureToGraph(s, GLOBAL, g, lambda *a: R.CUDA_ERROR_INVALID_VALUE, None))
    _scale_work(fn, s, dx, dy, 5.0, fill)
    assert cu.cuStreamEndCapture(s)[0] == R.CUDA_ERROR_GRAPH_RECAPTURE_FAILURE
    # bad input
    assert cu.cuStreamBeginRecaptureToGraph(s, GLOBAL, 12345, None, None)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuStreamBeginRecaptureToGraph(0, GLOBAL, g, None, None)[0] == R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert cu.cuStreamBeginRecaptureToGraph(s, 99, g, None, None)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuStreamBeginRecaptureToGraph(s, GLOBAL, g, "nope", None)[0] == R.CUDA_ERROR_INVALID_VALUE
    check(cu.cuGraphExecDestroy(exe))
    check(cu.cuGraphDestroy(g))
    check(cu.cuStreamDestroy(s))


def test_recapture_releases_the_graphs_user_objects(ctx):
    destroyed = []
    obj = check(cu.cuUserObjectCreate(None, lambda data: destroyed.append(1), 1,
                                      cu.CUuserObject_flags.CU_USER_OBJECT_NO_DESTRUCTOR_SYNC))
    g = check(cu.cuGraphCreate(0))
    check(cu.cuGraphRetainUserObject(g, obj, 1, cu.CUuserObjectRetain_flags.CU_GRAPH_USER_OBJECT_MOVE))
    s = check(cu.cuStreamCreate(0))
    check(cu.cuStreamBeginRecaptureToGraph(s, GLOBAL, g, None, None))
    assert destroyed == [1]  # "released prior to the recapture"
    assert int(check(cu.cuStreamEndCapture(s))) == int(g)  # empty graph, empty recapture: same topology
    check(cu.cuGraphDestroy(g))
    check(cu.cuStreamDestroy(s))


def test_mem_get_location_info(ctx):
    T = cu.CUmemLocationType
    m = check(cu.cuMemAllocManaged(10000, 1))
    locs = [cu.CUmemLocation() for _ in range(3)]
    check(cu.cuMemGetLocationInfo(m, 10000, 4096, 1024, locs))  # ceil(10000 / 4096) = 3 regions
    assert [(int(c.type), c.id) for c in locs] == [(T.CU_MEM_LOCATION_TYPE_DEVICE, 0)] * 3
    host = np.zeros(4096, np.uint8)
    one = cu.CUmemLocation()
    check(cu.cuMemGetLocationInfo(host.ctypes.data, 4096, 4096, 0, one))
    assert int(one.type) == T.CU_MEM_LOCATION_TYPE_HOST
    c_out = (ctypes.c_int * 4)(-1, -1, -1, -1)  # a C array of two CUmemLocation {int type; int id;}
    check(cu.cuMemGetLocationInfo(m, 8000, 4096, 0, ctypes.addressof(c_out)))
    assert list(c_out) == [int(T.CU_MEM_LOCATION_TYPE_DEVICE), 0] * 2
    d = check(cu.cuMemAlloc(4096))
    pinned = check(cu.cuMemAllocHost(4096))
    for p in (d, pinned):  # neither managed nor pageable
        assert cu.cuMemGetLocationInfo(p, 4096, 4096, 0, one)[0] == R.CUDA_ERROR_INVALID_VALUE
    for size, summary, sampling in ((0, 1, 0), (100, 0, 0), (100, 200, 0), (100, 50, 60)):
        assert cu.cuMemGetLocationInfo(m, size, summary, sampling, locs)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemGetLocationInfo(m, 10000, 4096, 0, locs[:2])[0] == R.CUDA_ERROR_INVALID_VALUE  # too few cells
    assert cu.cuMemGetLocationInfo(m, 20000, 4096, 0, locs * 2)[0] == R.CUDA_ERROR_INVALID_VALUE  # past the end
    for p in (m, d):
        check(cu.cuMemFree(p))
    check(cu.cuMemFreeHost(pinned))


# Live 32-bit registers counted by hand after each instruction (predicates take none):
#   rd1 (2) | r1 | r1 r2 | r2 r3 | r2 fd1 (2) | r2 fd2 (2) | r2 r4 | r5  -> at most 2+1+2 = 5 with rd1
REGS_PTX = r"""
.version 8.0
.target sm_80
.address_size 64
.visible .global .attribute(.managed) .align 4 .u32 counter;
.visible .global .attribute(.managed) .align 8 .b8 table[64] = {1, 2, 3};
.visible .global .align 4 .u32 plain;

.visible .entry k(.param .u64 p)
{
    .reg .b64 %rd<4>; .reg .b32 %r<8>; .reg .f64 %fd<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    add.u32 %r2, %r1, 1;
    add.u32 %r3, %r2, %r1;
    cvt.rn.f64.u32 %fd1, %r3;
    add.f64 %fd2, %fd1, %fd1;
    cvt.rzi.u32.f64 %r4, %fd2;
    add.u32 %r5, %r4, %r2;
    st.global.u32 [%rd1], %r5;
    ret;
}

.visible .entry loop(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
    mov.u32 %r3, 1;
    mov.u32 %r4, 2;
    mov.u32 %r5, 3;
LOOP:
    add.u32 %r2, %r2, %r3;
    add.u32 %r6, %r4, %r5;
    add.u32 %r2, %r2, %r6;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra LOOP;
    st.global.u32 [%rd1], %r2;
    ret;
}

.visible .entry empty()
{
    ret;
}
"""


def test_num_regs_is_the_live_register_estimate(ctx):
    mod = check(cu.cuModuleLoadData(REGS_PTX.encode()))
    regs = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS
    # k: rd1 (2 registers) + r2 + fd1 or fd2 (2) = 5 at the f64 instructions
    # loop: rd1 (2) + r1..r5 live across the back edge (5) + r6 = 8 inside the loop
    # empty: nothing live, reported as 1 (at least one register, as ptxas reports)
    expected = {b"k": 5, b"loop": 8, b"empty": 1}
    for name, want in expected.items():
        fn = check(cu.cuModuleGetFunction(mod, name))
        assert check(cu.cuFuncGetAttribute(regs, fn)) == want, name


def test_runtime_num_regs_reads_the_same_estimate():
    from cumetal import runtime as rt

    err, lib = rt.cudaLibraryLoadData(REGS_PTX, None, None, 0, None, None, 0)
    assert err == 0
    err, kern = rt.cudaLibraryGetKernel(lib, b"loop")
    assert err == 0
    err, attrs = rt.cudaFuncGetAttributes(kern)
    assert err == 0 and attrs.numRegs == 8
    assert rt.cudaLibraryUnload(lib)[0] == 0


def test_register_estimate_caps_at_255():
    from cumetal.ir.nodes import Block, Function, Inst, Module
    from cumetal.ir.registers import estimate_registers

    fn = Function("wide", "kernel")
    vs = [fn.new_var("i64") for _ in range(200)]  # 400 registers live at once
    insts = [Inst("mov", (v,), ()) for v in vs] + [Inst("ret", (), tuple(vs))]
    fn.blocks.append(Block("entry", insts))
    mod = Module("m", kernels={"wide": fn})
    assert estimate_registers(fn, mod) == 255


def test_is_managed_pointer_attribute(ctx):
    P = cu.CUpointer_attribute
    mod = check(cu.cuModuleLoadData(REGS_PTX.encode()))
    m = check(cu.cuMemAllocManaged(256, 1))
    d = check(cu.cuMemAlloc(256))
    h = check(cu.cuMemAllocHost(256))
    counter, _ = check(cu.cuModuleGetGlobal(mod, b"counter"))
    table, _ = check(cu.cuModuleGetGlobal(mod, b"table"))
    plain, _ = check(cu.cuModuleGetGlobal(mod, b"plain"))
    truth = {int(m): True, int(m) + 100: True, int(counter): True, int(table) + 32: True,
             int(d): False, int(h): False, int(plain): False}
    for addr, managed in truth.items():
        assert bool(check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_IS_MANAGED, addr))) is managed, hex(addr)
        got = check(cu.cuPointerGetAttributes(2, [P.CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                                  P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE], addr))
        assert bool(got[0]) is managed
    # managed memory is device memory to the pointer query, as in CUDA
    assert check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m)) == cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    # after the free, the address is unknown again; a new cuMemAlloc at it is not managed
    check(cu.cuMemFree(m))
    assert cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_IS_MANAGED, m)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert check(cu.cuPointerGetAttributes(1, [P.CU_POINTER_ATTRIBUTE_IS_MANAGED], m)) == [0]
    d2 = check(cu.cuMemAlloc(256))
    assert not check(cu.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_IS_MANAGED, d2))
    for p in (d, d2):
        check(cu.cuMemFree(p))
    check(cu.cuMemFreeHost(h))


# ------------------------------------------------------------------ tensor maps: im2col-wide, allocation class
def _wide(**kw):
    args = dict(dtype=7, rank=3, address=0x1000, dims=[16, 64, 2], strides=[64, 4096], lower=-1, upper=1,
                channels=16, pixels=32, estrides=[1, 1, 1], interleave=0, mode=0, swizzle=0, l2=0, oob=0)
    args.update(kw)
    return cu.cuTensorMapEncodeIm2colWide(args["dtype"], args["rank"], args["address"], args["dims"], args["strides"],
                                          args["lower"], args["upper"], args["channels"], args["pixels"],
                                          args["estrides"], args["interleave"], args["mode"], args["swizzle"],
                                          args["l2"], args["oob"])


def test_im2col_wide_map_is_encoded_and_validated_as_documented(ctx):
    from cumetal.formats.tensormap import TensorMap

    err, tmap = _wide()
    assert err == R.CUDA_SUCCESS
    tm = TensorMap.unpack(bytes(tmap))
    assert (tm.mode, tm.channels, tm.pixels, tm.lower, tm.upper, tm.dims) == (2, 16, 32, (-1,), (1,), (16, 64, 2))
    err, w128 = _wide(mode=cu.CUtensorMapIm2ColWideMode.CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128, pixels=5000)
    assert err == R.CUDA_SUCCESS  # pixelsPerColumn is ignored in W128 mode
    assert (TensorMap.unpack(bytes(w128)).mode, TensorMap.unpack(bytes(w128)).pixels) == (3, 128)
    assert _wide(rank=5, dims=[16, 8, 4, 4, 2], strides=[64, 512, 2048, 8192], estrides=[1] * 5)[0] == R.CUDA_SUCCESS
    assert _wide(lower=-32768, upper=32767)[0] == R.CUDA_SUCCESS  # the documented corner range
    bad = [dict(rank=2, dims=[16, 64], strides=[64], estrides=[1, 1]),  # rank 3..5
           dict(rank=6), dict(lower=-32769), dict(upper=32768),  # corners in [-32768, 32767]
           dict(lower=10, upper=-60),  # W box [10, 63 - 60] has no area
           dict(channels=0), dict(channels=257),  # 1..256 channels
           dict(pixels=0), dict(pixels=1025),  # 1..1024 pixels in W mode
           dict(mode=2), dict(address=0x1008),  # 16-byte aligned address
           dict(strides=[72, 4096]),  # strides: multiples of 16
           dict(dims=[0, 64, 2]), dict(estrides=[1, 9, 1]), dict(estrides=[1, 0, 1]),
           dict(swizzle=2, channels=32),  # 32 f32 channels = 128 bytes > the 64-byte swizzle span
           dict(dtype=2, oob=1),  # the NaN fill needs a floating-point type
           dict(dtype=99), dict(l2=7), dict(interleave=5)]
    for kw in bad:
        assert _wide(**kw) == (R.CUDA_ERROR_INVALID_VALUE, None), kw
    assert "no area" in (_wide(lower=10, upper=-60), cu.last_error_message())[1]


def test_im2col_wide_map_in_an_im2col_copy_is_refused_clearly(ctx):  # (.im2col::w copies run: tests/async_ops)
    ptx = r"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t)
{
    .reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .b16 %h<2>;
    .shared .align 128 .b8 s[4096];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [t];
    mbarrier.init.shared::cta.b64 [bar], 1;
    mov.u32 %r1, 0; mov.u32 %r2, 0; mov.u32 %r3, 0; mov.u16 %h1, 0;
    cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [s], [%rd1, {%r1, %r2, %r3}], [bar], {%h1};
    ret;
}
"""
    tensor = check(cu.cuMemAlloc(16 * 64 * 2 * 4))
    tmap = check(_wide(address=int(tensor)))
    dmap = check(cu.cuMemAlloc(128))
    check(cu.cuMemcpyHtoD(dmap, bytes(tmap), 128))
    mod = check(cu.cuModuleLoadData(ptx.encode()))
    fn = check(cu.cuModuleGetFunction(mod, b"k"))
    err = cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((dmap,), (None,)), None)[0]
    assert err == R.CUDA_ERROR_ILLEGAL_INSTRUCTION
    # the reason is the CPU engine's (air-sim/msl-sim run the legalized copy, which traps with the code
    # only: the device reruns the launch on the CPU engine for the report)
    assert "a .im2col copy given an im2col-wide map in W mode (cuTensorMapEncodeIm2colWide: im2col::w copies)" in \
        cu.last_error_message()
    cu.cuCtxSynchronize()  # the fault is reported once more by the next synchronizing call
    for p in (tensor, dmap):
        check(cu.cuMemFree(p))


def test_set_allocation_class_has_no_effect_here(ctx):
    C = cu.CUtensorMapAllocClass
    tiled = check(cu.cuTensorMapEncodeTiled(7, 2, 0x1000, [64, 8], [256], [16, 4], [1, 1], 0, 0, 0, 0))
    before = bytes(tiled)
    for cls in (C.CU_TENSOR_MAP_ALLOC_CLASS_AUTO, C.CU_TENSOR_MAP_ALLOC_CLASS_SMALL, C.CU_TENSOR_MAP_ALLOC_CLASS_LARGE):
        # CUDA: where allocation classes have no effect, every request succeeds, the map is unchanged
        # and the class in effect is SMALL (never AUTO)
        assert cu.cuTensorMapSetAllocationClass(tiled, cls) == (R.CUDA_SUCCESS, C.CU_TENSOR_MAP_ALLOC_CLASS_SMALL)
        assert bytes(tiled) == before
    assert cu.cuTensorMapSetAllocationClass(tiled, 3) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuTensorMapSetAllocationClass(cu.CUtensorMap(), 1) == (R.CUDA_ERROR_INVALID_VALUE, None)  # not encoded
    assert cu.cuTensorMapSetAllocationClass(b"x" * 128, 1) == (R.CUDA_ERROR_INVALID_VALUE, None)


# ------------------------------------------------------------------ VMM shareable handles (memMapIPCDrv)
_CHILD = r"""
import ctypes, sys
from cumetal import driver as cu
fd, size = int(sys.argv[1]), int(sys.argv[2])
def ok(r):
    assert r[0] == 0, (r, cu.last_error_message())
    return r[1] if len(r) > 1 else None
ok(cu.cuInit(0)); ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
h = ok(cu.cuMemImportFromShareableHandle(fd, cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
ptr = ok(cu.cuMemAddressReserve(size, 0, 0, 0))
ok(cu.cuMemMap(ptr, size, 0, h, 0))
desc = cu.CUmemAccessDesc()
desc.location.type, desc.location.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
desc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
ok(cu.cuMemSetAccess(ptr, size, [desc], 1))
words = (ctypes.c_uint32 * 4).from_address(int(ptr))
print(list(words))                   # what the parent wrote
ok(cu.cuMemsetD32(int(ptr) + 8, 0xC0FFEE, 2))  # a device fill the parent must see
"""


def test_vmm_memory_is_shared_with_another_process_through_a_posix_descriptor(ctx):
    import os
    import subprocess
    import sys

    P = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    assert check(cu.cuDeviceGetAttribute(
        cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0)) == 1
    prop = cu.CUmemAllocationProp()
    prop.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type, prop.location.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    size = check(cu.cuMemGetAllocationGranularity(
        prop, cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    plain = check(cu.cuMemCreate(size, prop, 0))
    assert cu.cuMemExportToShareableHandle(plain, P, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)  # not requested
    prop.requestedHandleTypes = P
    h = check(cu.cuMemCreate(size, prop, 0))
    fd = check(cu.cuMemExportToShareableHandle(h, P, 0))
    assert isinstance(fd, int) and os.fstat(fd).st_size == size
    ptr = check(cu.cuMemAddressReserve(size, 0, 0, 0))
    check(cu.cuMemMap(ptr, size, 0, h, 0))
    desc = cu.CUmemAccessDesc()
    desc.location.type, desc.location.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    desc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    check(cu.cuMemSetAccess(ptr, size, [desc], 1))
    check(cu.cuMemcpyHtoD(ptr, np.array([11, 22, 33, 44], np.uint32), 16))
    child = subprocess.run([sys.executable, "-c", _CHILD, str(fd), str(size)], capture_output=True, text=True,
                           pass_fds=(fd,), timeout=120, env=dict(os.environ, CUMETAL_BACKEND="cpu"))
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "[11, 22, 33, 44]"
    out = np.zeros(4, np.uint32)
    check(cu.cuMemcpyDtoH(out, ptr, 16))
    np.testing.assert_array_equal(out, [11, 22, 0xC0FFEE, 0xC0FFEE])  # the other process's fill
    # importing in this process aliases the same pages too
    h2 = check(cu.cuMemImportFromShareableHandle(fd, P))
    assert check(cu.cuMemGetAllocationPropertiesFromHandle(h2)).requestedHandleTypes == P
    # bad input: other handle types, flags, descriptors that are no exported memory
    assert cu.cuMemExportToShareableHandle(h, cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_FABRIC, 0) == \
        (R.CUDA_ERROR_NOT_SUPPORTED, None)
    assert cu.cuMemExportToShareableHandle(h, P, 1) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuMemExportToShareableHandle(12345, P, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuMemImportFromShareableHandle(fd, cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_WIN32) == \
        (R.CUDA_ERROR_NOT_SUPPORTED, None)
    r, w = os.pipe()
    try:
        for bad in (r, 987654, -1):
            assert cu.cuMemImportFromShareableHandle(bad, P) == (R.CUDA_ERROR_INVALID_VALUE, None), bad
    finally:
        os.close(r)
        os.close(w)
    os.close(fd)
    check(cu.cuMemUnmap(ptr, size))
    check(cu.cuMemAddressFree(ptr, size))
    for handle in (plain, h, h2):
        check(cu.cuMemRelease(handle))


def test_num_regs_respects_maxnreg_and_the_jit_register_limit(ctx):
    regs = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS
    J = cu.CUjit_option.CU_JIT_MAX_REGISTERS

    def count(mod, name=b"loop"):
        return check(cu.cuFuncGetAttribute(regs, check(cu.cuModuleGetFunction(mod, name))))

    capped = REGS_PTX.replace(".visible .entry loop(.param .u64 p, .param .u32 n)\n",
                              ".visible .entry loop(.param .u64 p, .param .u32 n)\n.maxnreg 6\n")
    assert count(check(cu.cuModuleLoadData(capped.encode()))) == 6  # 8 live, capped by .maxnreg (ptxas spills)
    assert count(check(cu.cuModuleLoadDataEx(REGS_PTX.encode(), 1, [J], [7]))) == 7  # the JIT option caps all
    assert count(check(cu.cuModuleLoadDataEx(REGS_PTX.encode(), 1, [J], [7])), b"k") == 5  # below the cap: as is
    assert cu.cuModuleLoadDataEx(REGS_PTX.encode(), 1, [J], ["many"])[0] == R.CUDA_ERROR_INVALID_VALUE
    # the linker carries its CU_JIT_MAX_REGISTERS into the image it produces (numba-cuda's max_registers)
    link = check(cu.cuLinkCreate(1, [J], [4]))
    data = REGS_PTX.encode()
    check(cu.cuLinkAddData(link, cu.CUjitInputType.CU_JIT_INPUT_PTX, data, len(data), b"regs.ptx", 0, None, None))
    image, size = check(cu.cuLinkComplete(link))
    linked = check(cu.cuModuleLoadData(ctypes.string_at(image, size)))
    assert (count(linked), count(linked, b"k"), count(linked, b"empty")) == (4, 4, 1)
    check(cu.cuLinkDestroy(link))


def test_is_managed_for_runtime_registered_managed_variables():
    """A C++ program's __managed__ variable (clang's PTX has no .attribute(.managed); the registration
    __cudaRegisterManagedVar says it), as NVIDIA's uvmlite sample checks."""
    from cumetal import runtime as rt
    from cumetal.runtime.execution import register_module, register_variable, unregister_module

    ptx = REGS_PTX.replace(".attribute(.managed) ", "")  # no managed marks in the PTX itself
    lib = register_module(ptx, "um.ptx")
    shadows = (ctypes.c_uint32 * 2)()
    register_variable(lib, ctypes.addressof(shadows), "counter", 4, managed=True)
    register_variable(lib, ctypes.addressof(shadows) + 4, "plain", 4)
    try:
        err, counter = rt.cudaGetSymbolAddress(ctypes.addressof(shadows))
        assert err == 0
        err, plain = rt.cudaGetSymbolAddress(ctypes.addressof(shadows) + 4)
        assert err == 0
        P = cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED
        assert bool(check(cu.cuPointerGetAttribute(P, counter))) is True
        assert bool(check(cu.cuPointerGetAttribute(P, plain))) is False
    finally:
        unregister_module(lib)


def test_vmm_calls_need_no_current_context(ctx):
    """memMapIPCDrv creates and exports its allocations after destroying its contexts, and its child
    unmaps after cuCtxDestroy: CUDA's VMM calls take no context."""
    prop = cu.CUmemAllocationProp()
    prop.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type, prop.location.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    popped = [check(cu.cuCtxPopCurrent())]
    while int(check(cu.cuCtxGetCurrent()) or 0):  # an earlier test's runtime may have left its primary context
        popped.append(check(cu.cuCtxPopCurrent()))
    try:
        size = 64 * 1024
        h = check(cu.cuMemCreate(size, prop, 0))
        ptr = check(cu.cuMemAddressReserve(size, 0, 0, 0))
        check(cu.cuMemMap(ptr, size, 0, h, 0))
        desc = cu.CUmemAccessDesc()
        desc.location.type, desc.location.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
        desc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        check(cu.cuMemSetAccess(ptr, size, [desc], 1))
        (ctypes.c_uint32 * 1).from_address(int(ptr))[0] = 0xABCD  # mapped read/write
        check(cu.cuMemRelease(h))
        check(cu.cuMemUnmap(ptr, size))
        check(cu.cuMemAddressFree(ptr, size))
    finally:
        for c in reversed(popped):
            check(cu.cuCtxPushCurrent(c))
