"""libcu++ (the user's CCCL) device features that needed CuMetal's headers, found by
scripts/run_libcudacxx_tests.py; kernels compiled by CuMetal's front end, run on the CPU backend
through ``cumetal.driver``, checked against numpy."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.cccl.cccl_install import SKIP_REASON, cccl_include
from tests.cudacxx.cudacxx_harness import Gpu, ok  # puts the functional harness on sys.path

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

pytestmark = pytest.mark.skipif(cccl_include() is None, reason=SKIP_REASON)

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


def test_annotated_ptr_and_associate_access_property():
    res = compile_to_ptx(ANNOTATED, "annotated.cu", CudaOptions(arch="sm_90", include_dirs=[str(cccl_include())]))
    g = Gpu()
    try:
        m = ok(cu.cuModuleLoadData(res.ptx.encode()))
        g.modules["annotated"] = m
        n = 1000
        x = np.random.default_rng(9).integers(-10**6, 10**6, n).astype(np.int32)
        d_in, d_out = g.to_device(x), g.zeros(n, np.int32)
        g.run(ok(cu.cuModuleGetFunction(m, b"scaled")), (4,), (256,),
              [(d_in, None), (d_out, None), (n, ctypes.c_int)])
        assert np.array_equal(g.from_device(d_out, n, np.int32), 3 * x + 1)
    finally:
        g.close()
