"""Big, deeply nested structured control flow (what CUB/Thrust kernels look like after inlining):
the MSL emitter must not depend on Python's recursion limit (it raised "maximum recursion depth
exceeded" on CUB's kernels), and the code it emits must still compute what the PTX says.

The kernels are generated: a chain of if/else diamonds (each join a merge block), then if-blocks
nested inside each other, then a lane-dependent loop around more nested ifs with early exits.
"""

from __future__ import annotations

import sys

import numpy as np
from msl_testing import HEADER, compile_module, launch

from cumetal.backends.msl import emit_msl

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


def test_deep_kernel_emits_without_python_recursion():
    """Far deeper than the recursion limit allows for a recursive structurizer (each diamond or
    nested if was several Python frames): 3000 diamonds, 400 nested ifs, 300 inside a loop."""
    from cumetal.passes import compile_ptx

    module = compile_ptx(HEADER + deep_ptx(3000, 400, 300), "deep.ptx")
    assert not module.failed
    limit = sys.getrecursionlimit()
    depth, f = 0, sys._getframe()
    while f is not None:
        depth, f = depth + 1, f.f_back
    sys.setrecursionlimit(depth + 150)  # the emitter's own calls nest a few frames, not per block
    try:
        text = emit_msl(module)
    finally:
        sys.setrecursionlimit(limit)
    kernel = text[text.index("kernel void deep("):]
    assert kernel.count("while (true) {") == 1 and "CM_LOOP_EXIT(cm);" in kernel
    assert kernel.count("} while (false);") >= 3000  # a region per diamond join and per nested if


def test_deep_kernel_runs_as_the_ptx_says():
    chain, nest, loop_nest = 300, 60, 40
    prog = compile_module(deep_ptx(chain, nest, loop_nest), name="deep_run.ptx")
    out = np.zeros(64, np.uint32)
    launch(prog, "deep", 1, 64, out)
    assert out.tolist() == [deep_reference(t, chain, nest, loop_nest) for t in range(64)]
