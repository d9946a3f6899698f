"""Calls of non-inlined device functions that take or return a struct of a uint4 and a 64-bit value
through .param: every call's { .param ... } block redeclares param0/retval0 with its own size and
alignment, and each must get its own frame slot (a misaligned st.param.b64 on air-sim before).
Runs on the selected backend (this suite also runs on air-sim and msl-sim: tests/air, tests/msl)."""

from __future__ import annotations

import pathlib

import numpy as np
from functional_harness import ok

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = pathlib.Path(__file__).with_name("kernels") / "noinline_struct_params.cu"


def test_struct_params_of_noinline_calls(gpu):
    ptx = compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx
    slots = {name: off for name, off in compile_ptx(ptx).kernels["k"].local_vars.items()
             if name.split(".")[0] in ("param0", "retval0")}
    assert len(slots) == 6, slots  # three calls, each with its own param0 and retval0
    assert slots["param0.1"] % 16 == 0  # take(S)'s by-value argument is declared .align 16 [32]

    fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(ptx.encode())), b"k"))
    n = 32
    d_int, d_dbl = gpu.zeros(n, np.uint64), gpu.zeros(n, np.float64)
    gpu.run(fn, (1,), (n,), [(d_int, None), (d_dbl, None)])
    t = range(n)
    assert gpu.from_device(d_int, n, np.uint64).tolist() == [4 * i + 6 + (i << 32) + 7 for i in t]
    assert gpu.from_device(d_dbl, n, np.float64).tolist() == [i * 0.5 for i in t]
