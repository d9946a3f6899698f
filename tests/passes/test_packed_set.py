"""`set` with packed half sources/results (seen in the corpus, not in the NVIDIA sweep): checked
against numpy's float16 comparisons, run through the driver on the default backend."""

from __future__ import annotations

import numpy as np

from cumetal import driver as cu

PTX = """.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
  .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pd];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4;
  ld.global.b32 %r2, [%rd5]; ld.global.b32 %r3, [%rd6];
  set.gt.u32.f16x2 %r4, %r2, %r3;
  set.eq.f16x2.f16x2 %r5, %r2, %r3;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd7, %rd3, %rd4;
  st.global.v2.b32 [%rd7], {%r4, %r5};
  ret;
}
"""


def check(r):
    assert r[0] == cu.CUresult.CUDA_SUCCESS, r[0]
    return r[1] if len(r) == 2 else r[1:]


def test_set_on_packed_halves():
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 3, 64).astype(np.float16)
    b = rng.integers(-3, 3, 64).astype(np.float16)
    a[5], b[9] = np.nan, np.nan
    check(cu.cuInit(0))
    ctx = check(cu.cuCtxCreate(None, 0, check(cu.cuDeviceGet(0))))
    try:
        fn = check(cu.cuModuleGetFunction(check(cu.cuModuleLoadData(PTX.encode())), b"k"))
        d_a, d_b, d_d = (check(cu.cuMemAlloc(n)) for n in (128, 128, 256))
        check(cu.cuMemcpyHtoD(d_a, a, 128))
        check(cu.cuMemcpyHtoD(d_b, b, 128))
        assert cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, ((d_a, d_b, d_d), (None, None, None)), 0)[0] == 0
        out = np.empty(64, np.uint32)
        check(cu.cuMemcpyDtoH(out, d_d, 256))
    finally:
        cu.cuCtxDestroy(ctx)
    gt = np.where(a > b, 0xFFFF, 0).astype(np.uint32).reshape(32, 2)
    eq = np.where(a == b, 0x3C00, 0).astype(np.uint32).reshape(32, 2)
    got = out.reshape(32, 2)
    assert got[:, 0].tolist() == (gt[:, 0] | gt[:, 1] << 16).tolist()
    assert got[:, 1].tolist() == (eq[:, 0] | eq[:, 1] << 16).tolist()
