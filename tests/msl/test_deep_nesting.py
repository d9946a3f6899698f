"""Big, deeply nested structured control flow (what CUB/Thrust kernels look like after inlining):
the MSL emitter must not depend on Python's recursion limit (it raised "maximum recursion depth
exceeded" on CUB's kernels), and the code it emits must still compute what the PTX says.

The kernels are generated (tests/msl/divergence_kernels.py): a chain of if/else diamonds (each join a
merge block), then if-blocks nested inside each other, then a lane-dependent loop around more nested
ifs with early exits.
"""

from __future__ import annotations

import sys

import numpy as np
from divergence_kernels import DEEP_SHAPE, deep_ptx, deep_reference
from msl_testing import HEADER, compile_module, launch

from cumetal.backends.msl import emit_msl


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
    chain, nest, loop_nest = DEEP_SHAPE  # its H100 result: test_reconvergence.py's golden test
    prog = compile_module(deep_ptx(chain, nest, loop_nest), name="deep_run.ptx")
    out = np.zeros(64, np.uint32)
    launch(prog, "deep", 1, 64, out)
    assert out.tolist() == [deep_reference(t, chain, nest, loop_nest) for t in range(64)]
