"""PTX kernels with warp operations after divergent control flow, and a generated deeply nested
kernel, shared by tests/msl (msl-sim) and scripts/make_divergence_goldens.py (which records their
results on NVIDIA hardware into tests/msl/golden/divergence_h100.npz). No CuMetal imports: the script
runs on the GPU machine from a plain checkout.

Every warp operation here names only lanes that execute it (PTX's rule), so NVIDIA's result is
defined; the expected values are also computed in Python from the PTX semantics (the tests).
"""

from __future__ import annotations

import numpy as np

HEADER = ".version 7.8\n.target sm_80\n.address_size 64\n"
THREADS = 64
LANES = np.arange(32)
TRIPS = (LANES & 3) + 1


def still_looping_masks() -> np.ndarray:
    """masks[i]: the lanes whose trip count is at least i (they execute trip i)."""
    return np.array([sum(1 << int(j) for j in LANES if TRIPS[j] >= i) for i in range(6)], np.uint32)


# Lane-dependent trip count T = (lane & 3) + 1; the loop's exit block has a single predecessor
# (so a dominator-tree structurizer would nest it in the loop); after the loop, full-mask warp
# operations; inside the loop, a ballot over exactly the lanes still looping (mask from a table).
EARLY_EXIT = r"""
.visible .entry early_exit(.param .u64 out, .param .u64 masks)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd5, [masks];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd1, %rd1, %rd2;
  mov.u32 %r2, %laneid;
  and.b32 %r3, %r2, 3;
  add.u32 %r3, %r3, 1;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
  mov.u32 %r12, 0;
LOOP:
  add.u32 %r4, %r4, 1;
  add.u32 %r5, %r5, %r4;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd5, %rd3;
  ld.global.u32 %r10, [%rd4];
  setp.ne.u32 %p2, %r4, 0;
  vote.sync.ballot.b32 %r11, %p2, %r10;
  xor.b32 %r12, %r12, %r11;
  setp.ge.u32 %p1, %r4, %r3;
  @%p1 bra OUT;
  bra LOOP;
OUT:
  setp.ne.u32 %p3, %r5, 0;
  vote.sync.ballot.b32 %r6, %p3, 0xffffffff;
  add.u32 %r7, %r2, 1;
  shfl.sync.idx.b32 %r8, %r5, %r7, 31, 0xffffffff;
  redux.sync.add.u32 %r9, %r5, 0xffffffff;
  st.global.u32 [%rd1], %r6;
  st.global.u32 [%rd1+4], %r8;
  st.global.u32 [%rd1+8], %r9;
  st.global.u32 [%rd1+12], %r12;
  ret;
}
"""

# Two nested loops with lane-dependent trips and a break out of both (the exit's dominator is in
# the inner loop), then an if/else whose sides rejoin before a full-mask match and shuffle.
NESTED = r"""
.visible .entry nested(.param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd1, %rd1, %rd2;
  mov.u32 %r2, %laneid;
  mov.u32 %r3, 0;
  mov.u32 %r6, 0;
OUTER:
  add.u32 %r3, %r3, 1;
  mov.u32 %r4, 0;
INNER:
  add.u32 %r4, %r4, 1;
  add.u32 %r6, %r6, 1;
  mul.lo.u32 %r5, %r3, %r4;
  setp.gt.u32 %p1, %r5, %r2;
  @%p1 bra DONE;
  setp.lt.u32 %p2, %r4, 3;
  @%p2 bra INNER;
  setp.lt.u32 %p3, %r3, 12;
  @%p3 bra OUTER;
DONE:
  and.b32 %r7, %r2, 1;
  setp.eq.u32 %p4, %r7, 0;
  @%p4 bra EVEN;
  add.u32 %r6, %r6, 1000;
  bra JOIN;
EVEN:
  add.u32 %r6, %r6, 2000;
JOIN:
  match.any.sync.b32 %r8, %r7, 0xffffffff;
  xor.b32 %r9, %r2, 5;
  shfl.sync.idx.b32 %r10, %r6, %r9, 31, 0xffffffff;
  st.global.u32 [%rd1], %r6;
  st.global.u32 [%rd1+4], %r8;
  st.global.u32 [%rd1+8], %r10;
  ret;
}
"""

# A device function with a full-mask warp operation, called after divergent code (one side of which
# has its own warp operation: its lanes must not be overtaken by lanes already in the callee, whose
# code comes first in the source) and from a lane-dependent loop (mask: the lanes still looping).
CALLS = r"""
.func (.reg .b32 res) wsum(.reg .b32 v, .reg .b32 m)
{
  redux.sync.add.u32 res, v, m;
  ret;
}

.visible .entry calls(.param .u64 out, .param .u64 masks)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd5, [masks];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd1, %rd1, %rd2;
  mov.u32 %r2, %laneid;
  setp.lt.u32 %p1, %r2, 11;
  @%p1 bra LOW;
  mul.lo.u32 %r3, %r2, 3;
  bra J;
LOW:
  add.u32 %r3, %r2, 100;
  redux.sync.add.u32 %r11, %r2, 0x7ff;
  st.global.u32 [%rd1+8], %r11;
J:
  call (%r4), wsum, (%r3, 0xffffffff);
  and.b32 %r5, %r2, 3;
  add.u32 %r5, %r5, 1;
  mov.u32 %r6, 0;
  mov.u32 %r8, 0;
L:
  add.u32 %r6, %r6, 1;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd5, %rd3;
  ld.global.u32 %r10, [%rd4];
  call (%r7), wsum, (%r6, %r10);
  add.u32 %r8, %r8, %r7;
  setp.lt.u32 %p2, %r6, %r5;
  @%p2 bra L;
  st.global.u32 [%rd1], %r4;
  st.global.u32 [%rd1+4], %r8;
  ret;
}
"""

M32 = 0xFFFFFFFF


def deep_ptx(chain: int, nest: int, loop_nest: int) -> str:
    """x = tid * 2654435761; chain diamonds; nest nested ifs; a loop of (tid & 3) + 1 trips whose body
    nests loop_nest ifs, any of which may leave the loop early; out[tid] = x."""
    lines = [".visible .entry deep(.param .u64 out)", "{", "  .reg .pred %p<4>;", "  .reg .b32 %r<8>;",
             "  .reg .b64 %rd<4>;", "  mov.u32 %r1, %tid.x;", "  mul.lo.u32 %r2, %r1, 0x9E3779B1;"]
    for i in range(chain):
        lines += [f"  and.b32 %r3, %r2, {1 << (i % 32)};", "  setp.ne.u32 %p1, %r3, 0;", f"  @%p1 bra T{i};",
                  f"  xor.b32 %r2, %r2, {(i * 7919 + 13) & M32};", f"  bra J{i};", f"T{i}:",
                  "  mul.lo.u32 %r2, %r2, 3;", f"  add.u32 %r2, %r2, {i + 1};", f"J{i}:"]
    for i in range(nest):
        lines += [f"  and.b32 %r3, %r2, {1 << ((i * 5) % 32)};", "  setp.eq.u32 %p1, %r3, 0;", f"  @%p1 bra N{i};",
                  f"  add.u32 %r2, %r2, {(i * 104729) & M32};", "  shf.l.wrap.b32 %r2, %r2, %r2, 7;"]
    lines += [f"N{i}:" for i in reversed(range(nest))]
    lines += ["  and.b32 %r4, %r1, 3;", "  add.u32 %r4, %r4, 1;", "LOOP:"]
    for i in range(loop_nest):
        lines += [f"  and.b32 %r3, %r2, {1 << ((i * 3 + 1) % 32)};", "  setp.eq.u32 %p1, %r3, 0;",
                  f"  @%p1 bra L{i};", f"  xor.b32 %r2, %r2, {(i * 2246822519) & M32};",
                  "  mul.lo.u32 %r2, %r2, 5;", f"  setp.eq.u32 %p2, %r2, {(i * 31 + 7) & 63};",
                  "  @%p2 bra DONE;"]
    lines += [f"L{i}:" for i in reversed(range(loop_nest))]
    lines += ["  add.u32 %r2, %r2, 17;", "  sub.u32 %r4, %r4, 1;", "  setp.ne.u32 %p3, %r4, 0;", "  @%p3 bra LOOP;",
              "DONE:", "  ld.param.u64 %rd1, [out];", "  mul.wide.u32 %rd2, %r1, 4;", "  add.s64 %rd1, %rd1, %rd2;",
              "  st.global.u32 [%rd1], %r2;", "  ret;", "}"]
    return "\n".join(lines) + "\n"


def deep_reference(tid: int, chain: int, nest: int, loop_nest: int) -> int:
    x = (tid * 2654435761) & M32
    for i in range(chain):
        x = ((x * 3 + i + 1) & M32) if x & (1 << (i % 32)) else x ^ ((i * 7919 + 13) & M32)
    for i in range(nest):
        if not x & (1 << ((i * 5) % 32)):
            break
        x = (x + ((i * 104729) & M32)) & M32
        x = ((x << 7) | (x >> 25)) & M32
    for _trip in range((tid & 3) + 1):
        for i in range(loop_nest):
            if not x & (1 << ((i * 3 + 1) % 32)):
                break
            x = ((x ^ ((i * 2246822519) & M32)) * 5) & M32
            if x == (i * 31 + 7) & 63:
                return x
        x = (x + 17) & M32
    return x


DEEP_SHAPE = (300, 60, 40)  # chain, nest, loop_nest of the kernel that runs (and has an H100 golden)

# name -> (PTX without HEADER, kernel, words per thread in `out`, takes the masks table)
KERNELS: dict[str, tuple[str, str, int, bool]] = {
    "early_exit": (EARLY_EXIT, "early_exit", 8, True),
    "nested": (NESTED, "nested", 4, False),
    "calls": (CALLS, "calls", 4, True),
    "deep": (deep_ptx(*DEEP_SHAPE), "deep", 1, False),
}
