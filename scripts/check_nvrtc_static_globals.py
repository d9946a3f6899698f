#!/usr/bin/env python3
"""Which device globals can the host look up after NVRTC compiles a program?  (issue #8)

NVIDIA's binomialOptions_nvrtc sample declares ``static __constant__`` data that device code only
reads and the host fills through cuModuleGetGlobal.  This script compiles such a program with the
NVRTC of the given bindings (cuda.bindings on an NVIDIA machine, cumetal to compare), looks every
global up, fills the constant from the host and checks the kernel reads it back.

Usage:  python3 scripts/check_nvrtc_static_globals.py [cuda|cumetal]
"""

from __future__ import annotations

import json
import sys

import numpy as np

SOURCE = rb"""
static __constant__ float d_OptionData[4];
static __device__ int d_staticUnused;
__constant__ int c_externUnused[3];
__device__ float g_externUnused;
extern "C" __global__ void readConst(float *out) {
    int i = threadIdx.x;
    if (i < 4) out[i] = d_OptionData[i] * 2.0f;
}
"""
NAMES = ("d_OptionData", "d_staticUnused", "c_externUnused", "g_externUnused", "_ZL12d_OptionData",
         "_ZL14d_staticUnused")


def _check(err) -> None:
    if int(err) != 0:
        raise RuntimeError(f"call failed: {err}")


def main(which: str) -> dict:
    if which == "cuda":
        from cuda.bindings import driver as cu
        from cuda.bindings import nvrtc
    else:
        from cumetal import driver as cu
        from cumetal import nvrtc
    _check(cu.cuInit(0)[0])
    err, dev = cu.cuDeviceGet(0)
    err, ctx = cu.cuDevicePrimaryCtxRetain(dev)
    _check(err)
    _check(cu.cuCtxSetCurrent(ctx)[0])
    err, prog = nvrtc.nvrtcCreateProgram(SOURCE, b"static_globals.cu", 0, [], [])
    _check(err)
    opts = [b"--gpu-architecture=compute_90"] if which == "cuda" else []
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if int(err) != 0:
        size = nvrtc.nvrtcGetProgramLogSize(prog)[1]
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(log.decode())
    size = nvrtc.nvrtcGetPTXSize(prog)[1]
    ptx = b" " * size
    _check(nvrtc.nvrtcGetPTX(prog, ptx)[0])
    err, mod = cu.cuModuleLoadData(ptx)
    _check(err)
    found = {}
    for name in NAMES:
        err, ptr, nbytes = cu.cuModuleGetGlobal(mod, name.encode())
        found[name] = {"result": str(err).split(".")[-1].rstrip(">").split(":")[0], "bytes": int(nbytes or 0)}
    decls = [ln.strip() for ln in ptx.decode(errors="replace").splitlines() if (".const " in ln or ".global " in ln) and "ld." not in ln and "st." not in ln]
    err, ptr, _ = cu.cuModuleGetGlobal(mod, b"d_OptionData")
    if int(err) != 0:
        return {"which": which, "globals": found, "decls": decls}
    _check(err)
    host = np.array([1.5, -2.0, 3.25, 8.0], dtype=np.float32)
    _check(cu.cuMemcpyHtoD(ptr, host.ctypes.data, host.nbytes)[0])
    err, out = cu.cuMemAlloc(16)
    _check(err)
    err, fn = cu.cuModuleGetFunction(mod, b"readConst")
    _check(err)
    arg = np.array([int(out)], dtype=np.uint64)
    args = np.array([arg.ctypes.data], dtype=np.uint64)
    _check(cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, args.ctypes.data, 0)[0])
    _check(cu.cuCtxSynchronize()[0])
    got = np.zeros(4, dtype=np.float32)
    _check(cu.cuMemcpyDtoH(got.ctypes.data, out, 16)[0])
    return {"which": which, "globals": found, "kernel_read": got.tolist(), "decls": decls,
            "ptx_mentions": {n: (n.encode() in ptx) for n in NAMES}}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1] if len(sys.argv) > 1 else "cuda"), indent=1))
