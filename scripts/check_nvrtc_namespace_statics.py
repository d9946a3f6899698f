#!/usr/bin/env python3
"""How NVRTC names device variables inside namespaces, static or not  (issue #8).

Compiles one program with the NVRTC of the given bindings (cuda.bindings on an NVIDIA machine,
cumetal to compare) holding ``static``/non-static ``__device__``/``__constant__`` variables in a
named namespace, a nested namespace and an anonymous namespace; records what
nvrtcGetLoweredName answers for each ``&ns::x`` name expression, which candidate symbols
cuModuleGetGlobal finds, the PTX declarations, and that the host can fill each variable through
its lowered name and a kernel reads the value back.

Usage:  python3 scripts/check_nvrtc_namespace_statics.py [cuda|cumetal]
"""

from __future__ import annotations

import json
import sys

import numpy as np

SOURCE = rb"""
namespace ns {
static __constant__ int cA[4];
static __device__ int dB;
__device__ int dC;
namespace inner { static __device__ int dD; }
}
namespace { __device__ int anonE; static __constant__ int anonF; }
static __device__ int fileG;
extern "C" __global__ void readAll(int *out) {
    if (threadIdx.x == 0) {
        out[0] = ns::cA[0] + ns::cA[3];
        out[1] = ns::dB;
        out[2] = ns::dC;
        out[3] = ns::inner::dD;
        out[4] = anonE;
        out[5] = anonF;
        out[6] = fileG;
    }
}
"""
EXPRESSIONS = ("&ns::cA", "&ns::dB", "&ns::dC", "&ns::inner::dD", "&anonE", "&anonF", "&fileG")
CANDIDATES = ("cA", "dB", "dC", "dD", "anonE", "anonF", "fileG", "ns::cA", "_ZN2nsL2cAE", "_ZN2ns2cAE",
              "_ZN2nsL2dBE", "_ZN2ns2dBE", "_ZN2ns2dCE", "_ZN2ns5innerL2dDE", "_ZN2ns5inner2dDE",
              "_ZN12_GLOBAL__N_15anonEE", "_ZN12_GLOBAL__N_1L5anonFE", "_ZL5fileG")
# value written through each expression's lowered name, and where readAll puts it
FILL = {"&ns::cA": (np.array([5, 0, 0, 7], np.int32), 0, 12), "&ns::dB": (np.array([21], np.int32), 1, 21),
        "&ns::dC": (np.array([22], np.int32), 2, 22), "&ns::inner::dD": (np.array([23], np.int32), 3, 23),
        "&anonE": (np.array([24], np.int32), 4, 24), "&anonF": (np.array([25], np.int32), 5, 25),
        "&fileG": (np.array([26], np.int32), 6, 26)}


def _check(err) -> None:
    if int(err) != 0:
        raise RuntimeError(f"call failed: {err}")


def _text(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


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
    err, prog = nvrtc.nvrtcCreateProgram(SOURCE, b"ns_statics.cu", 0, [], [])
    _check(err)
    for e in EXPRESSIONS:
        _check(nvrtc.nvrtcAddNameExpression(prog, e.encode())[0])
    opts = [b"--gpu-architecture=compute_90"] if which == "cuda" else []
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if int(err) != 0:
        size = nvrtc.nvrtcGetProgramLogSize(prog)[1]
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(log.decode())
    lowered = {}
    for e in EXPRESSIONS:
        err, name = nvrtc.nvrtcGetLoweredName(prog, e.encode())
        lowered[e] = _text(name) if int(err) == 0 else f"error {err}"
    size = nvrtc.nvrtcGetPTXSize(prog)[1]
    ptx = b" " * size
    _check(nvrtc.nvrtcGetPTX(prog, ptx)[0])
    err, mod = cu.cuModuleLoadData(ptx)
    _check(err)
    found = {}
    for name in CANDIDATES + tuple(v for v in lowered.values() if not v.startswith("error")):
        err, ptr, nbytes = cu.cuModuleGetGlobal(mod, name.encode())
        found[name] = int(nbytes) if int(err) == 0 else None
    decls = [ln.strip() for ln in ptx.decode(errors="replace").splitlines()
             if (".const " in ln or ".global " in ln) and "ld." not in ln and "st." not in ln]
    for e, (data, _, _) in FILL.items():
        err, ptr, _ = cu.cuModuleGetGlobal(mod, lowered[e].encode())
        if int(err) == 0:
            _check(cu.cuMemcpyHtoD(ptr, data.ctypes.data, data.nbytes)[0])
    err, out = cu.cuMemAlloc(7 * 4)
    _check(err)
    _check(cu.cuMemsetD8(out, 0xFF, 7 * 4)[0])
    err, fn = cu.cuModuleGetFunction(mod, b"readAll")
    _check(err)
    arg = np.array([int(out)], dtype=np.uint64)
    args = np.array([arg.ctypes.data], dtype=np.uint64)
    _check(cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, args.ctypes.data, 0)[0])
    _check(cu.cuCtxSynchronize()[0])
    got = np.zeros(7, dtype=np.int32)
    _check(cu.cuMemcpyDtoH(got.ctypes.data, out, 7 * 4)[0])
    return {"which": which, "lowered": lowered, "globals": found, "kernel_read": got.tolist(), "decls": decls}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1] if len(sys.argv) > 1 else "cuda"), indent=1))
