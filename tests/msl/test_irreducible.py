"""Warp operations in irreducible control flow on msl-sim: the MSL back end emits a cycle with two
entries as a dispatch loop (structurize.dispatch_loop), which must reconverge as the cpu engine
does (its min-PC rule: the warp runs the lanes at its smallest pending block in program order).

The kernel (PTX written by hand): even lanes enter the cycle at A, odd lanes at B; A falls into B,
B jumps back to A; each lane leaves after in[t] >> 1 blocks. A and B each take the active mask and
shuffle under it, so their results depend on which lanes run each block together. Expected values
come from a small model of the min-PC rule written here, and equal the cpu engine's (and air-sim's,
whose runtime schedules SIMD-groups by min-PC too). Before the dispatch loop reconverged, msl-sim
ran the lanes apart (a probe of this kernel with other inputs: 51 of 64 results differed)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from msl_testing import HEADER, compile_module, launch

from cumetal.backends.air.sim import launch_air
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.passes import compile_ptx

PTX = r"""
.visible .entry irreducible(.param .u64 p_out, .param .u64 p_in)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<7>;
    mov.u32 %r0, %tid.x;
    ld.param.u64 %rd1, [p_in];
    ld.param.u64 %rd2, [p_out];
    mul.wide.u32 %rd3, %r0, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r1, [%rd4];
    shr.u32 %r8, %r1, 1;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
    and.b32 %r4, %r1, 1;
    setp.eq.u32 %p0, %r4, 0;
    @%p0 bra A;
    bra B;
A:
    activemask.b32 %r5;
    shfl.sync.idx.b32 %r7, %r0, 0, 31, %r5;
    add.u32 %r2, %r2, %r5;
    add.u32 %r2, %r2, %r7;
    add.u32 %r3, %r3, 1;
    setp.ge.u32 %p1, %r3, %r8;
    @%p1 bra DONE;
B:
    activemask.b32 %r6;
    shfl.sync.bfly.b32 %r9, %r2, 1, 31, %r6;
    mul.lo.u32 %r2, %r2, 3;
    xor.b32 %r2, %r2, %r6;
    add.u32 %r2, %r2, %r9;
    add.u32 %r3, %r3, 1;
    setp.ge.u32 %p2, %r3, %r8;
    @%p2 bra DONE;
    bra A;
DONE:
    activemask.b32 %r10;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r2;
    st.global.u32 [%rd5+256], %r10;
    ret;
}
"""
THREADS = 64
M32 = 0xFFFFFFFF


def _min_pc_model(vals: np.ndarray) -> np.ndarray:
    """The kernel under the min-PC rule, per warp: blocks A=0, B=1, DONE=2 in program order."""
    out = np.zeros(2 * THREADS, np.uint64)
    for w in range(0, THREADS, 32):
        at = {t: (0 if vals[t] % 2 == 0 else 1) for t in range(w, w + 32)}
        acc, trips = dict.fromkeys(at, 0), dict.fromkeys(at, 0)
        while (low := min(at.values())) < 2:
            lanes = sorted(t for t in at if at[t] == low)
            mask = sum(1 << (t - w) for t in lanes)
            if low == 0:  # A: acc += mask + (shfl.idx of tid from lane 0: own tid when lane 0 is absent)
                for t in lanes:
                    acc[t] = (acc[t] + mask + (w if mask & 1 else t)) & M32
            else:  # B: acc = acc * 3 ^ mask + (shfl.bfly 1 of acc: own acc when the partner is absent)
                before = dict(acc)
                for t in lanes:
                    partner = before[t ^ 1] if mask >> ((t ^ 1) - w) & 1 else before[t]
                    acc[t] = (((acc[t] * 3) & M32) ^ mask) + partner & M32
            for t in lanes:
                trips[t] += 1
                at[t] = 2 if trips[t] >= vals[t] >> 1 else 1 - low
        for t in at:
            out[t], out[THREADS + t] = acc[t], M32  # DONE is the last block: the whole warp meets there
    return out.astype(np.uint32)


def _engine(launcher, module, vals: np.ndarray) -> np.ndarray:
    mem = DeviceMemory(1 << 20)
    po, pi = mem.alloc(8 * THREADS), mem.alloc(4 * THREADS)
    mem.write(po, bytes(8 * THREADS))
    mem.write(pi, vals.tobytes())
    res = launcher(module.kernels["irreducible"], module, mem, (1, 1, 1), (THREADS, 1, 1), 0,
                   struct.pack("<QQ", po, pi), {}, watchdog_s=60.0)
    assert res.fault is None, res.fault
    return np.frombuffer(mem.read(po, 8 * THREADS), np.uint32).copy()


@pytest.mark.parametrize("seed", [5, 9])
def test_irreducible_cycle_reconverges_as_the_min_pc_rule(seed):
    # in[t] >> 1 blocks per lane (1..7), the low bit picks the entry; lanes of both parities everywhere
    vals = np.random.default_rng(seed).integers(2, 16, THREADS).astype(np.uint32)
    want = _min_pc_model(vals)
    prog = compile_module(PTX, name="irreducible.ptx")
    assert "simd_min(cm_b)" in prog.source  # emitted as the (reconverging) dispatch loop
    out = np.zeros(2 * THREADS, np.uint32)
    launch(prog, "irreducible", 1, THREADS, out, vals)
    assert out.tolist() == want.tolist()
    module = compile_ptx(HEADER + PTX, "irreducible.ptx")
    assert _engine(numpy_launch, module, vals).tolist() == want.tolist()  # the reference engine agrees
    assert _engine(launch_air, module, vals).tolist() == want.tolist()
