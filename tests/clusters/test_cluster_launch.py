"""Cluster and cooperative launches through cumetal.driver on the CPU device (pinned): CUDA's validation
(error codes), distributed-shared-memory faults, grid-wide barriers, exited threads at a cluster
barrier, and the cluster occupancy queries."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("CUMETAL_BACKEND", "cpu")
cu = pytest.importorskip("cumetal.driver")
R = cu.CUresult
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


@pytest.fixture
def ctx(cpu_backend):
    assert cu.cuInit(0)[0] == R.CUDA_SUCCESS
    c = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])[1]
    yield c
    cu.cuCtxDestroy(c)


def _kernel(body: str, directives: str = "", module: str = ""):
    ptx = (f"{HEAD}{module}\n.visible .entry k(.param .u64 out){directives}\n{{\n"
           "    .reg .pred %p<4>;\n    .reg .b32 %r<32>;\n    .reg .b64 %rd<8>;\n"
           "    ld.param.u64 %rd1, [out];\n    cvta.to.global.u64 %rd1, %rd1;\n"
           f"{body}\n    ret;\n}}\n")
    err, mod = cu.cuModuleLoadData(ptx.encode())
    assert err == R.CUDA_SUCCESS, cu.last_error_message()
    return cu.cuModuleGetFunction(mod, b"k")[1]


def _buf(n: int):
    d = cu.cuMemAlloc(4 * n)[1]
    cu.cuMemsetD8(d, 0, 4 * n)
    return d


def _get(d, n: int) -> np.ndarray:
    out = np.empty(n, np.uint32)
    cu.cuMemcpyDtoH(out, d, out.nbytes)
    return out


def _args(d):
    return ((d,), (None,))


def _ex(fn, grid: int, block: int, d, cluster=None, cooperative=False):
    cfg = cu.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid, 1, 1
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = block, 1, 1
    attrs = []
    if cluster is not None:
        a = cu.CUlaunchAttribute()
        a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = cluster
        attrs.append(a)
    if cooperative:
        a = cu.CUlaunchAttribute()
        a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
        a.value.cooperative = 1
        attrs.append(a)
    cfg.attrs, cfg.numAttrs = attrs, len(attrs)
    return cu.cuLaunchKernelEx(cfg, fn, _args(d), 0)[0]


RANK_OUT = "    mov.u32 %r1, %cluster_ctarank;\n    mov.u32 %r2, %ctaid.x;\n    mul.wide.u32 %rd2, %r2, 4;\n" \
           "    add.u64 %rd2, %rd1, %rd2;\n    st.global.u32 [%rd2], %r1;\n"


def test_cluster_shape_validation(ctx) -> None:
    fixed = _kernel(RANK_OUT, "\n.reqnctapercluster 2, 1, 1")
    d = _buf(64)
    assert cu.cuLaunchKernel(fixed, 3, 1, 1, 32, 1, 1, 0, 0, _args(d), 0)[0] == R.CUDA_ERROR_INVALID_CLUSTER_SIZE
    assert _ex(fixed, 8, 32, d, cluster=(4, 1, 1)) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE  # != __cluster_dims__
    assert cu.cuLaunchKernel(fixed, 8, 1, 1, 32, 1, 1, 0, 0, _args(d), 0)[0] == R.CUDA_SUCCESS
    assert cu.cuCtxSynchronize()[0] == R.CUDA_SUCCESS
    np.testing.assert_array_equal(_get(d, 8), np.arange(8) % 2)
    free = _kernel(RANK_OUT)
    assert _ex(free, 16, 32, d, cluster=(16, 1, 1)) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE  # > 8: not portable
    assert _ex(free, 12, 32, d, cluster=(8, 1, 1)) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE  # 12 % 8
    assert _ex(free, 16, 32, d, cluster=(8, 1, 1)) == R.CUDA_SUCCESS
    assert cu.cuCtxSynchronize()[0] == R.CUDA_SUCCESS
    np.testing.assert_array_equal(_get(d, 16), np.arange(16) % 8)


def test_dsmem_rank_outside_the_cluster_faults(ctx) -> None:
    body = ("    mov.u32 %r3, sm;\n    mapa.shared::cluster.u32 %r4, %r3, 5;\n"
            "    ld.shared::cluster.u32 %r5, [%r4];\n    st.global.u32 [%rd1], %r5;\n")
    fn = _kernel(body, "\n.reqnctapercluster 2, 1, 1", "\n.shared .align 4 .b8 sm[64];\n")
    d = _buf(4)
    cu.cuLaunchKernel(fn, 2, 1, 1, 32, 1, 1, 0, 0, _args(d), 0)
    err = cu.cuCtxSynchronize()[0]
    assert err == R.CUDA_ERROR_ILLEGAL_ADDRESS
    assert "no CTA of rank 5 in a cluster of 2" in cu.last_error_message()


def test_exited_threads_count_as_arrived(ctx) -> None:
    """Half of each block exits before the cluster barrier; the rest still pass it, and read the
    other block's word written before the barrier."""
    body = ("    mov.u32 %r1, %tid.x;\n    setp.ge.u32 %p1, %r1, 16;\n    @%p1 bra DONE;\n"
            "    mov.u32 %r2, %cluster_ctarank;\n    mov.u32 %r3, sm;\n    shl.b32 %r6, %r1, 2;\n"
            "    add.u32 %r3, %r3, %r6;\n    add.u32 %r7, %r2, 100;\n    st.shared.u32 [%r3], %r7;\n"
            "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n"
            "    xor.b32 %r8, %r2, 1;\n    mapa.shared::cluster.u32 %r9, %r3, %r8;\n"
            "    ld.shared::cluster.u32 %r10, [%r9];\n"
            "    mov.u32 %r11, %ctaid.x;\n    mad.lo.u32 %r12, %r11, 16, %r1;\n    mul.wide.u32 %rd2, %r12, 4;\n"
            "    add.u64 %rd2, %rd1, %rd2;\n    st.global.u32 [%rd2], %r10;\n"
            "    barrier.cluster.arrive;\n    barrier.cluster.wait;\nDONE:\n")
    fn = _kernel(body, "\n.reqnctapercluster 2, 1, 1", "\n.shared .align 4 .b8 sm[256];\n")
    d = _buf(64)
    assert cu.cuLaunchKernel(fn, 4, 1, 1, 32, 1, 1, 0, 0, _args(d), 0)[0] == R.CUDA_SUCCESS
    assert cu.cuCtxSynchronize()[0] == R.CUDA_SUCCESS
    want = np.repeat(100 + (np.arange(4) % 2 ^ 1), 16)
    np.testing.assert_array_equal(_get(d, 64), want)


GRID_SYNC = """.extern .func __cumetal_grid_sync ();
"""


def test_grid_barrier_needs_a_cooperative_launch(ctx) -> None:
    """Block b writes its word, the grid syncs, each block reads the next block's word."""
    body = ("    mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %nctaid.x;\n    mov.u32 %r3, %tid.x;\n"
            "    setp.ne.u32 %p1, %r3, 0;\n    mul.wide.u32 %rd2, %r1, 4;\n    add.u64 %rd3, %rd1, %rd2;\n"
            "    mul.lo.u32 %r4, %r1, 7;\n    @!%p1 st.global.u32 [%rd3], %r4;\n"
            "    call.uni __cumetal_grid_sync, ();\n"
            "    add.u32 %r5, %r1, 1;\n    rem.u32 %r5, %r5, %r2;\n    mul.wide.u32 %rd4, %r5, 4;\n"
            "    add.u64 %rd5, %rd1, %rd4;\n    ld.global.u32 %r6, [%rd5];\n"
            "    call.uni __cumetal_grid_sync, ();\n"
            "    add.u64 %rd6, %rd3, 256;\n    @!%p1 st.global.u32 [%rd6], %r6;\n")
    fn = _kernel(body, module=GRID_SYNC)
    d = _buf(128)
    assert cu.cuLaunchCooperativeKernel(fn, 16, 1, 1, 64, 1, 1, 0, 0, _args(d))[0] == R.CUDA_SUCCESS
    assert cu.cuCtxSynchronize()[0] == R.CUDA_SUCCESS
    np.testing.assert_array_equal(_get(d, 128)[64:80], 7 * ((np.arange(16) + 1) % 16))
    assert _ex(fn, 8, 64, d, cooperative=True) == R.CUDA_SUCCESS  # the launch attribute
    assert cu.cuCtxSynchronize()[0] == R.CUDA_SUCCESS
    per_sm = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(fn, 64, 0)[1]
    sms = cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0)[1]
    too_many = per_sm * sms + 1
    assert cu.cuLaunchCooperativeKernel(fn, too_many, 1, 1, 64, 1, 1, 0, 0, _args(d))[0] == \
        R.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
    # a plain launch: the grid barrier cannot complete, so the launch fails (never hangs)
    cu.cuLaunchKernel(fn, 2, 1, 1, 64, 1, 1, 0, 0, _args(d), 0)
    assert cu.cuCtxSynchronize()[0] == R.CUDA_ERROR_ILLEGAL_INSTRUCTION
    assert "not launched cooperatively" in cu.last_error_message()


def test_cluster_occupancy_queries(ctx) -> None:
    fn = _kernel(RANK_OUT)
    assert cu.cuOccupancyMaxPotentialClusterSize(fn, None)[1] == 8
    cfg = cu.CUlaunchConfig()
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = 128, 1, 1
    a = cu.CUlaunchAttribute()
    a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = 4, 1, 1
    cfg.attrs, cfg.numAttrs = [a], 1
    clusters = cu.cuOccupancyMaxActiveClusters(fn, cfg)[1]
    blocks = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(fn, 128, 0)[1]
    sms = cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0)[1]
    assert clusters == blocks * sms // 4 > 0




def test_runtime_launch_kernel_ex_with_cluster_attribute(cpu_backend) -> None:
    """cudaLaunchKernelExC (cuda.bindings' name) / cudaLaunchKernelEx with
    cudaLaunchAttributeClusterDimension, through the Runtime API mirror."""
    import cumetal.runtime as rt

    ptx = (f"{HEAD}.visible .entry k(.param .u64 out)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n"
           "    ld.param.u64 %rd1, [out];\n    cvta.to.global.u64 %rd1, %rd1;\n" + RANK_OUT + "    ret;\n}\n")
    try:
        _launch_clusters_through_runtime(rt, ptx)
    finally:
        rt.cudaDeviceReset()  # the runtime retained the primary context; later driver tests expect it released


def _launch_clusters_through_runtime(rt, ptx: str) -> None:
    from types import SimpleNamespace as NS

    err, lib = rt.cudaLibraryLoadData(ptx.encode() + b"\0", None, None, 0, None, None, 0)
    assert err == rt.cudaError_t.cudaSuccess
    k = rt.cudaLibraryGetKernel(lib, b"k")[1]
    d = rt.cudaMalloc(64)[1]
    cluster = NS(id=int(rt.cudaLaunchAttributeID.cudaLaunchAttributeClusterDimension),
                 val=NS(clusterDim=NS(x=4, y=1, z=1)))
    cfg = NS(gridDim=(8, 1, 1), blockDim=(32, 1, 1), dynamicSmemBytes=0, stream=0, attrs=[cluster], numAttrs=1)
    assert rt.cudaLaunchKernelExC(cfg, k, ((d,), (None,))) == (rt.cudaError_t.cudaSuccess,)
    assert rt.cudaDeviceSynchronize() == (rt.cudaError_t.cudaSuccess,)
    out = np.empty(8, np.uint32)
    rt.cudaMemcpy(out, d, 32, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost)
    np.testing.assert_array_equal(out, np.arange(8) % 4)
    cfg.gridDim = (6, 1, 1)
    assert rt.cudaLaunchKernelEx(cfg, k, ((d,), (None,))) == (rt.cudaError_t.cudaErrorInvalidClusterSize,)
    rt.cudaFree(d)
