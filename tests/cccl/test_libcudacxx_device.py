"""libcu++ (the user's CCCL) device features that needed CuMetal's headers, found by
scripts/run_libcudacxx_tests.py; kernels compiled by CuMetal's front end, run on the CPU backend
through ``cumetal.driver``, checked against numpy."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest
from tests.cccl.cccl_install import SKIP_REASON, cccl_include
from tests.cudacxx.cudacxx_harness import Gpu, ok  # puts the functional harness on sys.path

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

needs_cccl = pytest.mark.skipif(cccl_include() is None, reason=SKIP_REASON)


def _run(source: str, name: str, grid: int, block: int, x: np.ndarray, n_out: int, **options) -> np.ndarray:
    res = compile_to_ptx(source, f"{name}.cu", CudaOptions(**options))
    g = Gpu()
    try:
        m = ok(cu.cuModuleLoadData(res.ptx.encode()))
        g.modules[name] = m
        d_in, d_out = g.to_device(x), g.zeros(n_out, np.int32)
        g.run(ok(cu.cuModuleGetFunction(m, name.encode())), (grid,), (block,),
              [(d_in, None), (d_out, None), (len(x), ctypes.c_int)])
        return g.from_device(d_out, n_out, np.int32)
    finally:
        g.close()

ANNOTATED = r"""
#include <cuda/annotated_ptr>
// cuda::annotated_ptr / associate_access_property reach nvcc's __nv_associate_access_property from sm_80 on
extern "C" __global__ void scaled(const int *in, int *out, int n) {
    cuda::annotated_ptr<const int, cuda::access_property::streaming> src(in);
    int *dst = cuda::associate_access_property(out, cuda::access_property::persisting{});
    cuda::annotated_ptr<int, cuda::access_property> acc(dst, cuda::access_property(cuda::access_property::normal{}));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] = 3 * src[i] + 1;
}
"""


@needs_cccl
def test_annotated_ptr_and_associate_access_property():
    n = 1000
    x = np.random.default_rng(9).integers(-10**6, 10**6, n).astype(np.int32)
    got = _run(ANNOTATED, "scaled", 4, 256, x, n, arch="sm_90", include_dirs=[str(cccl_include())])
    assert np.array_equal(got, 3 * x + 1)


PIPELINE = r"""
#include <cuda_pipeline.h>
// <cuda_pipeline.h>'s C++ form (libcu++'s pipeline_arrive_on test uses it): per block, 64 int4 and a
// 6-int array (first 4 copied, 2 zero-filled) staged through shared memory, then summed per thread
extern "C" __global__ void staged(const int *in, int *out, int n) {
    __shared__ int4 tile[64];
    __shared__ int arr[64][6];
    nvcuda::experimental::pipeline pipe;
    const int4 *src = reinterpret_cast<const int4 *>(in) + blockIdx.x * 64;
    nvcuda::experimental::memcpy_async(tile[threadIdx.x], src[threadIdx.x], pipe);
    const int (*src4)[4] = reinterpret_cast<const int (*)[4]>(in + blockIdx.x * 256 + threadIdx.x * 4);
    nvcuda::experimental::memcpy_async(&arr[threadIdx.x], src4, pipe);
    pipe.commit();
    pipe.wait_prior<0>();
    __syncthreads();
    int4 v = tile[63 - threadIdx.x];
    int s = 0;
    for (int k = 0; k < 6; ++k) s += arr[63 - threadIdx.x][k] * (k + 1);
    out[blockIdx.x * 64 + threadIdx.x] = v.x - v.y + 2 * v.z + 3 * v.w + 1000 * (s % 1000);
}
"""


def test_cuda_pipeline_cxx_api():
    x = np.random.default_rng(4).integers(-1000, 1000, 3 * 256).astype(np.int32)
    got = _run(PIPELINE, "staged", 3, 64, x, 3 * 64)
    q = x.reshape(3, 64, 4)[:, ::-1, :].astype(np.int64)  # the element read by each thread
    s = (q * np.arange(1, 5)).sum(axis=2)
    want = q[..., 0] - q[..., 1] + 2 * q[..., 2] + 3 * q[..., 3] + 1000 * np.fmod(s, 1000)
    assert got.tolist() == want.reshape(-1).tolist()


GOLDEN = Path(__file__).resolve().parents[1] / "passes" / "data" / "createpolicy_h100.txt"


def test_createpolicy_range_matches_the_h100():
    """createpolicy.range's block descriptor (libcu++'s cuda::access_property over a range): the 8
    range policies the H100 returned (recorded by scripts/make_createpolicy_goldens.cu, entries 20-27,
    at the recorded cudaMalloc base; createpolicy does not dereference it)."""
    rows = dict(ln.split() for ln in GOLDEN.read_text().splitlines() if ln.strip())
    base = int(rows["base"], 16)
    sizes = [(4096, 65536), (65536, 65536), (128, 1 << 20), (1 << 20, 1 << 22)]
    body = []
    for i, (prim, total) in enumerate(sizes):
        body += [f"createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd3, [%rd2], {prim}, {total};",
                 f"st.global.u64 [%rd1+{16 * i}], %rd3;",
                 f"add.s64 %rd4, %rd2, {4096 * i};",
                 f"mov.u32 %r1, {prim};", f"mov.u32 %r2, {total};",
                 "createpolicy.range.L2::evict_normal.b64 %rd3, [%rd4], %r1, %r2;",
                 f"st.global.u64 [%rd1+{16 * i + 8}], %rd3;"]
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n"
           ".visible .entry k(.param .u64 out, .param .u64 base)\n{\n.reg .b64 %rd<5>;\n.reg .b32 %r<3>;\n"
           "ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [base];\n" + "\n".join(body) + "\nret;\n}\n")
    g = Gpu()
    try:
        m = ok(cu.cuModuleLoadData(ptx.encode()))
        g.modules["range"] = m
        out = g.zeros(8, np.uint64)
        g.run(ok(cu.cuModuleGetFunction(m, b"k")), (1,), (1,), [(out, None), (base, ctypes.c_uint64)])
        got = g.from_device(out, 8, np.uint64).tolist()
    finally:
        g.close()
    assert [hex(v) for v in got] == [hex(int(rows[str(20 + i)], 16)) for i in range(8)]
