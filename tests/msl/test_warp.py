"""SIMD-group (warp) operations with full and partial masks, under divergence."""

from __future__ import annotations

import numpy as np
import pytest
from msl_testing import compile_module, launch

WARP = r"""
.visible .entry warp(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 64;
  add.s64 %rd1, %rd1, %rd2;
  mad.lo.u32 %r2, %r1, 10, 1;
  and.b32 %r3, %r1, 31;
  // full-mask shuffles
  add.u32 %r4, %r3, 3;
  shfl.sync.idx.b32 %r5, %r2, %r4, 31, 0xffffffff;
  st.global.u32 [%rd1], %r5;
  shfl.sync.bfly.b32 %r6, %r2, 1, 31, 0xffffffff;
  st.global.u32 [%rd1+4], %r6;
  shfl.sync.up.b32 %r7|%p1, %r2, 1, 0, 0xffffffff;
  st.global.u32 [%rd1+8], %r7;
  selp.u32 %r8, 1, 0, %p1;
  st.global.u32 [%rd1+12], %r8;
  // ballot / any / all over the full warp
  rem.u32 %r9, %r1, 3;
  setp.eq.u32 %p2, %r9, 0;
  vote.sync.ballot.b32 %r10, %p2, 0xffffffff;
  st.global.u32 [%rd1+16], %r10;
  // divergent region: only lanes < 16 (mask 0xffff) take part
  setp.ge.u32 %p3, %r3, 16;
  @%p3 bra SKIP;
  shfl.sync.down.b32 %r11|%p4, %r2, 4, 31, 0xffff;
  st.global.u32 [%rd1+20], %r11;
  selp.u32 %r12, 1, 0, %p4;
  st.global.u32 [%rd1+24], %r12;
  redux.sync.add.u32 %r13, %r2, 0xffff;
  st.global.u32 [%rd1+28], %r13;
  redux.sync.max.s32 %r14, %r2, 0x00ff;
  st.global.u32 [%rd1+32], %r14;
  vote.sync.ballot.b32 %r15, %p2, 0xffff;
  st.global.u32 [%rd1+36], %r15;
  activemask.b32 %r16;
  st.global.u32 [%rd1+40], %r16;
  vote.sync.all.pred %p5, %p2, 0x9;
  selp.u32 %r17, 1, 0, %p5;
  st.global.u32 [%rd1+44], %r17;
SKIP:
  shr.u32 %r18, %r3, 2;
  match.any.sync.b32 %r19, %r18, 0xffffffff;
  st.global.u32 [%rd1+48], %r19;
  bar.warp.sync 0xffffffff;
  ret;
}
"""


@pytest.fixture(scope="module")
def prog():
    return compile_module(WARP, name="warp.ptx")


def test_warp_ops_full_and_partial_masks(prog):
    nthreads = 64
    out = np.zeros(nthreads * 16, np.uint32)
    launch(prog, "warp", 1, nthreads, out)
    rows = out.reshape(nthreads, 16)
    for t in range(nthreads):
        lane, base = t & 31, t - (t & 31)
        val = [10 * (base + i) + 1 for i in range(32)]
        r = rows[t]
        assert r[0] == val[(lane + 3) & 31], "shfl.idx"
        assert r[1] == val[lane ^ 1], "shfl.bfly"
        assert r[2] == (val[lane - 1] if lane >= 1 else val[lane]) and r[3] == (lane >= 1), "shfl.up"
        full_ballot = sum(1 << i for i in range(32) if (base + i) % 3 == 0)
        assert r[4] == full_ballot
        if lane < 16:
            src = lane + 4
            assert r[5] == (val[src] if src < 16 else val[lane]), "non-member source gives own value"
            assert r[6] == 1, "in range (maxLane 31) even when the source is not a member"
            assert r[7] == sum(val[:16]) & 0xFFFFFFFF, "redux over the 16 members"
            assert r[8] == max(val[:8])
            assert r[9] == full_ballot & 0xFFFF, "ballot restricted to the mask"
            assert r[10] == 0xFFFF, "activemask inside the branch"
            assert r[11] == int(all((base + i) % 3 == 0 for i in (0, 3))), "vote.all over mask 0x9"
        else:
            assert not r[5:12].any()
        group = lane >> 2
        assert r[12] == sum(1 << i for i in range(32) if i >> 2 == group), "match.any"
