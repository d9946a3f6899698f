"""Helpers for the msl tests: PTX -> IR (the real lowering) -> MSL -> msl-sim, parameters from numpy."""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from cumetal.backends.msl.sim import MslProgram, SimResult, build_program
from cumetal.ir import nodes as N

HEADER = ".version 7.8\n.target sm_80\n.address_size 64\n"
_PACK = {"u8": "B", "s8": "b", "u16": "H", "s16": "h", "u32": "I", "s32": "i", "b32": "I", "u64": "Q", "s64": "q",
         "b64": "Q", "f32": "f", "f64": "d"}


def compile_module(ptx: str, fp64: str = "native", name: str = "test.ptx") -> MslProgram:
    from cumetal.passes import compile_ptx

    module = compile_ptx(HEADER + ptx, name)
    assert not module.failed, module.failed
    return build_program(module, fp64=fp64)


def pack_params(fn: N.Function, args: Sequence[object]) -> bytes:
    buf = bytearray(fn.param_size)
    if len(args) != len(fn.params):
        raise TypeError(f"{fn.name} takes {len(fn.params)} arguments")
    for p, a in zip(fn.params, args, strict=True):
        if isinstance(a, np.ndarray):
            struct.pack_into("<Q", buf, p.offset, a.ctypes.data)
        else:
            struct.pack_into("<" + _PACK[p.type], buf, p.offset, a)
    return bytes(buf)


def launch(prog: MslProgram, kernel: str, grid: int | tuple, block: int | tuple, *args: object,
           dynamic_shared: int = 0, expect_fault: bool = False, **kw) -> SimResult:
    fn = prog.module.kernels[kernel]
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    grid3 = (grid, 1, 1) if isinstance(grid, int) else grid
    block3 = (block, 1, 1) if isinstance(block, int) else block
    res = prog.run(kernel, grid3, block3, pack_params(fn, args), dynamic_shared,
                   allocations=[(a.ctypes.data, a.nbytes) for a in arrays], **kw)
    if not expect_fault:
        assert res.fault is None, f"{kernel}: {res.fault} at 0x{res.fault_address:x}"
    return res

