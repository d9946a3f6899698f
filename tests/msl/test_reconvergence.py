"""Warp operations after divergent control flow: the emitted MSL must reconverge where NVIDIA does,
and msl-sim must run SIMD-group functions as Apple's lockstep SIMD-groups do.

Apple GPUs run a SIMD-group in lockstep and reconverge at the end of structured if/else and loops;
a SIMD-group function sees the lanes that reach the same dynamic point together. NVIDIA's `.sync`
warp operations see every lane of their member mask. The two agree only if the MSL puts each warp
operation where every member lane reaches it in the same trip of every enclosing loop: code after a
loop (even a loop exit with a single predecessor) must follow the loop, not sit in it.

Expected values are computed here from the PTX semantics (every lane named in a member mask executes
the operation) or, for the simulator's own model, from Apple's lockstep rule; the PTX kernels
(tests/msl/divergence_kernels.py) also have results recorded on an H100
(scripts/make_divergence_goldens.py -> golden/divergence_h100.npz), which msl-sim must reproduce word
for word.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from divergence_kernels import CALLS, EARLY_EXIT, KERNELS, LANES, NESTED, THREADS, TRIPS, still_looping_masks
from msl_irbuild import FnBuilder, c32, module
from msl_testing import compile_module, launch

from cumetal.backends.msl.sim import build_program


def test_loop_exit_reconverges_before_full_mask_warp_ops():
    prog = compile_module(EARLY_EXIT, name="early_exit.ptx")
    nthreads = 64
    out = np.zeros(nthreads * 8, np.uint32)
    masks = still_looping_masks()
    launch(prog, "early_exit", 1, nthreads, out, masks)
    rows = out.reshape(nthreads, 8)
    acc = TRIPS * (TRIPS + 1) // 2
    for t in range(nthreads):
        lane = t & 31
        assert rows[t, 0] == 0xFFFFFFFF, f"thread {t}: ballot after the loop saw {rows[t, 0]:#x}"
        assert rows[t, 1] == acc[(lane + 1) & 31], f"thread {t}: shfl after the loop"
        assert rows[t, 2] == acc.sum(), f"thread {t}: redux after the loop"
        want = 0
        for i in range(1, TRIPS[lane] + 1):
            want ^= int(masks[i])
        assert rows[t, 3] == want, f"thread {t}: ballots inside the loop"


def _nested_reference(lane: int) -> int:
    count = 0
    for i in range(1, 13):
        for j in range(1, 4):
            count += 1
            if i * j > lane:
                return count + (1000 if lane & 1 else 2000)
    return count + (1000 if lane & 1 else 2000)


def test_break_out_of_nested_loops_then_if_else_reconverges():
    prog = compile_module(NESTED, name="nested.ptx")
    nthreads = 64
    out = np.zeros(nthreads * 4, np.uint32)
    launch(prog, "nested", 1, nthreads, out)
    rows = out.reshape(nthreads, 4)
    vals = [_nested_reference(lane) for lane in range(32)]
    odd = sum(1 << i for i in range(1, 32, 2))
    for t in range(nthreads):
        lane = t & 31
        assert rows[t, 0] == vals[lane], f"thread {t}: loop count"
        assert rows[t, 1] == (odd if lane & 1 else ~odd & 0xFFFFFFFF), f"thread {t}: match after the join"
        assert rows[t, 2] == vals[lane ^ 5], f"thread {t}: shfl after the join"


def test_warp_ops_in_a_device_function_called_after_divergence_and_in_a_loop():
    prog = compile_module(CALLS, name="calls.ptx")
    nthreads = 64
    out = np.zeros(nthreads * 4, np.uint32)
    masks = still_looping_masks()
    launch(prog, "calls", 1, nthreads, out, masks)
    rows = out.reshape(nthreads, 4)
    v = np.where(LANES < 11, LANES + 100, LANES * 3)
    for t in range(nthreads):
        lane = t & 31
        assert rows[t, 0] == v.sum(), f"thread {t}: call after the if/else"
        assert rows[t, 2] == (sum(range(11)) if lane < 11 else 0), f"thread {t}: redux in the branch"
        want = sum(i * bin(int(masks[i])).count("1") for i in range(1, TRIPS[lane] + 1))
        assert rows[t, 1] == want, f"thread {t}: calls in the loop"


# ---- msl-sim's model itself: lockstep, not "every lane at the same call site"
def _activemask_per_trip_kernel() -> object:
    """IR kernel: trip count (lane % 5) + 1; each trip records activemask into out[tid*8 + trip],
    and after the loop into out[tid*8 + 7]."""
    b = FnBuilder("trips", [("out", 8)])
    i = b.var("i32", "i")
    b.block("entry")
    out = b.param_ptr("out")
    tid = b.op("sreg", "i32", name="tid.x")
    lane = b.op("sreg", "i32", name="laneid")
    n = b.op("add", "i32", b.op("rem_nz", "i32", lane, c32(5), signed=False), c32(1))
    b.set(i, "mov", c32(0))
    b.term("br", target="LOOP")
    b.block("LOOP")
    m = b.op("activemask", "i32")
    slot = b.op("add", "i32", b.op("mul", "i32", tid, c32(8)), i)
    b.op("store", None, b.elem_addr(out, slot, 4), m, space="global", align=4)
    b.set(i, "add", i, c32(1))
    more = b.op("icmp", "i1", i, n, cond="ult")
    b.term("cbr", more, target="LOOP", **{"else": "END"})
    b.block("END")
    after = b.op("activemask", "i32")
    slot = b.op("add", "i32", b.op("mul", "i32", tid, c32(8)), c32(7))
    b.op("store", None, b.elem_addr(out, slot, 4), after, space="global", align=4)
    b.term("ret")
    return b.fn


def test_msl_sim_groups_lanes_by_loop_trip_as_apple_lockstep():
    """Inside a loop with lane-dependent trip counts, a SIMD-group function at trip k sees exactly
    the lanes still looping at trip k (Apple's lockstep loop), never lanes of another trip that
    wait at the same source line; the lanes that left wait after the loop for the others."""
    fn = _activemask_per_trip_kernel()
    prog = build_program(module(fn, name="trips.ir"))
    out = np.zeros(64 * 8, np.uint32)
    launch(prog, "trips", 1, 64, out)
    rows = out.reshape(64, 8)
    trips = LANES % 5 + 1
    for t in range(64):
        lane = t & 31
        for k in range(trips[lane]):
            want = sum(1 << int(j) for j in LANES if trips[j] > k)
            assert rows[t, k] == want, f"thread {t}, trip {k}: {rows[t, k]:#x} != {want:#x}"
        assert not rows[t, trips[lane]:7].any()
        assert rows[t, 7] == 0xFFFFFFFF, f"thread {t}, after the loop: {rows[t, 7]:#x}"


@pytest.mark.parametrize("nthreads", [32, 48])
def test_msl_sim_code_after_a_divergent_loop_runs_with_every_lane(nthreads):
    """The lanes that leave the loop early wait after it; activemask there is every live lane."""
    b = FnBuilder("after", [("out", 8)])
    i = b.var("i32", "i")
    b.block("entry")
    out = b.param_ptr("out")
    tid = b.op("sreg", "i32", name="tid.x")
    lane = b.op("sreg", "i32", name="laneid")
    b.set(i, "mov", c32(0))
    b.term("br", target="LOOP")
    b.block("LOOP")
    b.set(i, "add", i, c32(1))
    more = b.op("icmp", "i1", i, lane, cond="ule")
    b.term("cbr", more, target="LOOP", **{"else": "END"})
    b.block("END")
    m = b.op("activemask", "i32")
    b.op("store", None, b.elem_addr(out, tid, 4), m, space="global", align=4)
    b.term("ret")
    prog = build_program(module(b.fn, name="after.ir"))
    o = np.zeros(nthreads, np.uint32)
    launch(prog, "after", 1, nthreads, o)
    full = [0xFFFFFFFF, (1 << (nthreads - 32)) - 1 if nthreads > 32 else 0xFFFFFFFF]
    assert [int(x) for x in o] == [full[t // 32] for t in range(nthreads)]


GOLDEN = Path(__file__).parent / "golden" / "divergence_h100.npz"


@pytest.mark.parametrize("name", list(KERNELS))
def test_divergence_kernels_match_the_h100(name):
    """Every output word (0xCD-filled, as on the GPU: unwritten words must stay so) equals the H100's."""
    ptx, kernel, words, with_masks = KERNELS[name]
    golden = np.load(GOLDEN)
    prog = compile_module(ptx, name=f"{name}_h100.ptx")
    out = np.full(THREADS * words, 0xCDCDCDCD, np.uint32)
    args = (out, still_looping_masks()) if with_masks else (out,)
    launch(prog, kernel, 1, THREADS, *args)
    want = golden[name]
    bad = np.nonzero(out != want)[0]
    assert not len(bad), f"{name}: {len(bad)} words differ from the H100, first at {bad[0]}: " \
                         f"{int(out[bad[0]]):#x} != {int(want[bad[0]]):#x}"
