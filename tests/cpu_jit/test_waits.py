"""Warp reconvergence and waits in the compiled backend's runtime (air-sim, cpu-jit) against the
numpy engine: a full-warp vote after a branch with its own warp operation sees every lane (min-PC),
in every iteration of a loop (lanes wait at the latch) and after a call with warp operations;
an mbarrier waiter does not starve the lanes of its warp that must arrive; deadlocks (an mbarrier
phase that cannot complete, a named barrier short of threads, an over-arrived cuda::barrier) are
reported at once, with the numpy engine's message, instead of at the watchdog."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air
from cumetal.backends.air.sim.instrument import wait_points
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

# a watchdog far beyond what these kernels need: before the wait points, each deadlock ran into it
WATCHDOG_S = 20.0

CUDA = r"""
#include <cuda/barrier>
extern "C" __global__ void vote_after_branch(const int *in, unsigned *out) {
  int v = in[threadIdx.x];
  int r;
  if (v > 25) r = __reduce_add_sync(__activemask(), v);
  else r = __shfl_xor_sync(__activemask(), v, 1);
  out[threadIdx.x] = __ballot_sync(0xffffffffu, v > 25);
  out[32 + threadIdx.x] = (unsigned)r;
}
extern "C" __global__ void loop_rejoin(const int *in, unsigned *out) {  // in[32]: the trip count
  int v = in[threadIdx.x], n = in[32];
  unsigned acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += __ballot_sync(0xffffffffu, (v >> i) & 1);
    if (threadIdx.x < 20) acc += __reduce_add_sync(0x000fffffu, v + i);
  }
  out[threadIdx.x] = acc;
}
__device__ __noinline__ unsigned low_sum(unsigned mask, int v) { return __reduce_add_sync(mask, v); }
extern "C" __global__ void call_rejoin(const int *in, unsigned *out) {
  int v = in[threadIdx.x];
  unsigned r = 0;
  if (threadIdx.x < 20) r = low_sum(0x000fffffu, v);
  out[threadIdx.x] = r + __ballot_sync(0xffffffffu, v & 1);
}
extern "C" __global__ void over_arrival(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, 16);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1;
}
extern "C" __global__ void split_arrive_wait(const int *in, int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  int v = in[t];
  if (t & 1) v += __shfl_down_sync(0xaaaaaaaau, v, 2);
  s[t] = v;
  auto token = bar.arrive();
  bar.wait(static_cast<decltype(token) &&>(token));
  out[t] = s[(t + 5) & 63] + __ballot_sync(0xffffffffu, v > 40);
}
"""

_HEAD = ".version 8.3\n.target sm_90\n.address_size 64\n"


def _ptx_kernel(name: str, body: str) -> str:
    return (f".visible .entry {name}(.param .u64 p_out)\n{{\n    .reg .pred %p<4>;\n    .reg .b32 %r<8>;\n"
            f"    .reg .b64 %rd<6>;\n    .shared .align 8 .b64 bar;\n    mov.u32 %r0, %tid.x;\n"
            f"    ld.param.u64 %rd2, [p_out];\n{body}    ret;\n}}\n")


# lane 0 waits on an mbarrier that the other 31 lanes of its warp arrive at after a warp shuffle:
# the waiter must not keep its warp at its wait while they cannot reach the shuffle (in both
# program orders of the two branches)
_STARVE = """    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 31;
    bar.sync 0;
    @{neg}%p0 bra {first};
{second_label}:
{second}    bra DONE;
{first_label}:
{first_body}    bra DONE;
DONE:
    mul.wide.u32 %rd3, %r0, 4;
    add.u64 %rd3, %rd2, %rd3;
    st.global.u32 [%rd3], %r1;
"""
_WAITER = """    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAITER;
    mov.u32 %r1, 1000;
"""
_WORKERS = """    shfl.sync.down.b32 %r1, %r0, 1, 31, 0xfffffffe;
    mbarrier.arrive.shared::cta.b64 %rd1, [bar];
"""


def _starve(waiter_first: bool) -> str:
    if waiter_first:
        return _STARVE.format(neg="", first="WAITER", second_label="WORKERS", second=_WORKERS,
                              first_label="WAITER", first_body=_WAITER)
    return _STARVE.format(neg="!", first="WORKERS", second_label="WAITER", second=_WAITER,
                          first_label="WORKERS", first_body=_WORKERS)


PTX = _HEAD + "".join([
    _ptx_kernel("starve_waiter_first", _starve(True)),
    _ptx_kernel("starve_workers_first", _starve(False)),
    _ptx_kernel("mbarrier_never", """    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 65;
    bar.sync 0;
    mbarrier.arrive.shared::cta.b64 %rd1, [bar];
WAIT:
    mbarrier.try_wait.shared::cta.b64 %p1, [bar], %rd1;
    @!%p1 bra WAIT;
"""),
    _ptx_kernel("named_short", "    bar.sync 1, 96;\n"),
    _ptx_kernel("named_ok", """    bar.sync 1, 64;
    mul.wide.u32 %rd3, %r0, 4;
    add.u64 %rd3, %rd2, %rd3;
    st.global.u32 [%rd3], %r0;
"""),
])


@pytest.fixture(scope="module")
def cuda_module():
    return compile_ptx(compile_to_ptx(CUDA, "waits.cu", CudaOptions()).ptx, "waits.cu")


@pytest.fixture(scope="module")
def ptx_module():
    return compile_ptx(PTX, "waits.ptx")


def _run(launcher, module, name, block, inputs, nout, **kw):
    mem = DeviceMemory(1 << 26)
    ptrs = []
    for a in [*inputs, np.zeros(nout, np.int32)]:
        p = mem.alloc(max(a.nbytes, 1))
        mem.write(p, a.tobytes())
        ptrs.append(p)
    params = b"".join(struct.pack("<Q", p) for p in ptrs)
    out = launcher(module.kernels[name], module, mem, (1, 1, 1), (block, 1, 1), 0, params, {},
                   watchdog_s=WATCHDOG_S, **kw)
    return out, np.frombuffer(mem.read(ptrs[-1], 4 * nout), np.int32).copy()


def _both(module, name, block, inputs, nout, fibers_too=False, monkeypatch=None):
    """(numpy engine's, compiled backend's) outcome and output, 1 and 2 workers agreeing."""
    want = _run(numpy_launch, module, name, block, inputs, nout)
    got = [_run(launch_air, module, name, block, inputs, nout, workers=w) for w in (1, 2)]
    for out, data in got:
        assert (out.fault is None) == (want[0].fault is None), (out.fault, want[0].fault)
        assert np.array_equal(data, got[0][1])
    return want, got[0]


def test_full_warp_vote_after_a_branch_with_its_own_warp_operation_sees_every_lane(cuda_module):
    vals = np.random.default_rng(23).integers(0, 64, 32, dtype=np.int32)
    (wout, want), (gout, got) = _both(cuda_module, "vote_after_branch", 32, [vals], 64)
    assert wout.fault is None and gout.fault is None, (wout.fault, gout.fault)
    mask = sum(1 << i for i in range(32) if vals[i] > 25)
    assert (got[:32].view(np.uint32) == mask).all()  # CUDA: every lane votes after the branch
    assert np.array_equal(got, want)


def test_lanes_that_skip_a_branch_in_a_loop_wait_at_the_latch(cuda_module):
    vals = np.random.default_rng(11).integers(0, 256, 33, dtype=np.int32)
    vals[32] = 4
    (wout, want), (gout, got) = _both(cuda_module, "loop_rejoin", 32, [vals], 32)
    assert wout.fault is None and gout.fault is None, (wout.fault, gout.fault)
    ballots = [sum(1 << j for j in range(32) if (vals[j] >> i) & 1) for i in range(4)]
    low = [sum(int(vals[j]) + i for j in range(20)) for i in range(4)]
    expect = [(sum(ballots) + (sum(low) if t < 20 else 0)) & 0xFFFFFFFF for t in range(32)]
    assert got.view(np.uint32).tolist() == expect  # every iteration's ballot sees the whole warp
    assert np.array_equal(got, want)


def test_a_call_with_warp_operations_runs_at_its_place_in_program_order(cuda_module):
    vals = np.random.default_rng(13).integers(0, 1000, 32, dtype=np.int32)
    (wout, want), (gout, got) = _both(cuda_module, "call_rejoin", 32, [vals], 32)
    assert wout.fault is None and gout.fault is None, (wout.fault, gout.fault)
    ballot = sum(1 << j for j in range(32) if vals[j] & 1)
    low = int(vals[:20].sum())
    assert got.view(np.uint32).tolist() == [(ballot + (low if t < 20 else 0)) & 0xFFFFFFFF for t in range(32)]
    assert np.array_equal(got, want)


@pytest.mark.parametrize("name", ["starve_waiter_first", "starve_workers_first"])
def test_an_mbarrier_waiter_lets_the_lanes_of_its_warp_arrive(ptx_module, name):
    (wout, want), (gout, got) = _both(ptx_module, name, 32, [], 32)
    assert gout.fault is None, gout.fault
    assert got[0] == 1000 and got[1:31].tolist() == list(range(2, 32)) and got[31] == 31
    assert np.array_equal(got, want)


def test_split_arrive_and_wait_with_warp_operations_matches_the_numpy_engine(cuda_module):
    vals = np.random.default_rng(7).integers(0, 80, 64, dtype=np.int32)
    (wout, want), (gout, got) = _both(cuda_module, "split_arrive_wait", 64, [vals], 64)
    assert wout.fault is None and gout.fault is None, (wout.fault, gout.fault)
    assert np.array_equal(got, want)


def test_named_barrier_with_enough_threads_completes(ptx_module):
    (_, want), (gout, got) = _both(ptx_module, "named_ok", 64, [], 64)
    assert gout.fault is None and got.tolist() == list(range(64)) == want.tolist()


@pytest.mark.parametrize("module_name, kernel, block, words", [
    ("ptx", "mbarrier_never", 64, ("deadlock", "mbarrier")),
    ("ptx", "named_short", 64, ("deadlock: named barrier 1 waits for 96 threads but only 64 arrived",)),
    ("cuda", "over_arrival", 32, ("deadlock", "mbarrier")),
])
def test_a_deadlock_is_reported_at_once_as_the_numpy_engine_reports_it(ptx_module, cuda_module, module_name,
                                                                      kernel, block, words):
    module = ptx_module if module_name == "ptx" else cuda_module
    (wout, _), (gout, _) = _both(module, kernel, block, [], block)
    for out in (wout, gout):
        assert out.fault is not None and out.fault.code == "timeout", out.fault
        assert all(w in out.fault.message for w in words), out.fault.message
    assert gout.fault.message == wout.fault.message  # the same deadlock, thread and kernel named


def test_wait_points_are_found_in_the_legalized_waits(ptx_module):
    ck = sim_compile.compile_kernel(ptx_module.kernels["named_short"], ptx_module)
    assert not ck.direct and not ck.coro  # a wait point parks a fiber
    text = "\n".join([
        "L_lg.nbarrived6:", "  %47 = icmp eq i32 %46, 96", "  br i1 %47, label %L_lg.nbdone8, label %L_lg.nbwait7",
        "L_lg.nbwait7:", "  %50 = shl i32 1, %cm_lane", "  %51 = call i32 @air.simd_sum.u.i32(i32 %50)",
        "  %59 = call i32 @air.atomic.local.or.u.i32(ptr addrspace(3) %58, i32 0, i32 0, i32 1, i1 true)",
        "  br label %L_lg.nbwait7",
        "L_lg.join2:", "  %60 = shl i32 1, %cm_lane", "  %61 = call i32 @air.simd_sum.u.i32(i32 %60)",
        "  %62 = call i32 @air.atomic.local.or.u.i32(ptr addrspace(3) %58, i32 0, i32 0, i32 1, i1 true)"])
    out = wait_points(text.splitlines())
    assert "  call void @sim_wait_point(i32 2, i32 96, ptr addrspace(3) %58)" in out
    assert "  %51 = or i32 %50, 0" in out
    assert "  %61 = call i32 @air.simd_sum.u.i32(i32 %60)" in out  # a user's activemask after the rule's
