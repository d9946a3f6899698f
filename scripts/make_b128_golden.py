"""Run tests/passes/data/b128_registers.ptx (one thread) on an NVIDIA GPU and print the 6 u64 words it
stores (the golden of tests/passes/test_issue10_syntax.py::test_b128_registers_*).
Usage on the device machine: python scripts/make_b128_golden.py tests/passes/data/b128_registers.ptx"""

import sys

import numpy as np
from cuda.bindings import driver as cu


def ok(r):
    assert int(r[0]) == 0, r
    return r[1] if len(r) == 2 else r[1:]


ok((cu.cuInit(0)[0], None))
ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
mod = ok(cu.cuModuleLoadData(open(sys.argv[1], "rb").read() + b"\0"))
fn = ok(cu.cuModuleGetFunction(mod, b"k"))
p = ok(cu.cuMemAlloc(64))
ok((cu.cuMemsetD8(p, 0, 64)[0], None))
arg = np.array([int(p)], np.uint64)
params = np.array([arg.ctypes.data], np.uint64)
ok((cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, params.ctypes.data, 0)[0], None))
ok((cu.cuCtxSynchronize()[0], None))
out = np.zeros(6, np.uint64)
ok((cu.cuMemcpyDtoH(out.ctypes.data, p, 48)[0], None))
print(" ".join(f"{v:016x}" for v in out.tolist()))
