#!/usr/bin/env python3
"""Record what NVIDIA's driver writes for cuGraphDebugDotPrint under each CUgraphDebugDot_flags
value, for one graph holding every node kind CuMetal records (kernel, memcpy, memset, host, event
record/wait, child graph, empty, memory alloc/free), plus two tensor-map probes for
tests/async_ops (rank-1 cuTensorMapEncodeTiled with and without a globalStrides pointer, and
cuTensorMapEncodeIm2colWide on a compute-capability-9.0 device).

Output (a directory): dot/flags_<value>.dot for each flag alone, 0, and all flags together;
probes.json with the tensor-map results. The DOT files are the reference for CuMetal's DOT
writer (cumetal.driver.graph_dot); addresses and ids differ from run to run.

Usage (on a machine with an NVIDIA GPU and cuda-python >= 13):
    python3 scripts/make_graph_dot_goldens.py OUTDIR
"""

from __future__ import annotations

import ctypes
import json
import sys
import traceback
from pathlib import Path

PTX = b"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 x, .param .f32 a, .param .u32 n)
{
  .reg .pred %p; .reg .b32 %r<4>; .reg .f32 %f<3>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [x]; ld.param.f32 %f1, [a]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x; setp.ge.u32 %p, %r2, %r1; @%p bra DONE;
  cvta.to.global.u64 %rd2, %rd1; mul.wide.u32 %rd3, %r2, 4; add.s64 %rd2, %rd2, %rd3;
  ld.global.f32 %f2, [%rd2]; mul.f32 %f2, %f2, %f1; st.global.f32 [%rd2], %f2;
DONE:
  ret;
}
"""


def ok(r):
    err = r[0] if isinstance(r, tuple) else r
    if int(getattr(err, "value", err)) != 0:
        raise RuntimeError(f"CUDA error {err}")
    return r[1] if isinstance(r, tuple) and len(r) == 2 else r[1:] if isinstance(r, tuple) else None


def build_graph(cu, ctx):
    """One graph with every node kind; returns (graph, keep-alive objects)."""
    keep: list = []
    graph = ok(cu.cuGraphCreate(0))
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"scale"))
    dptr = ok(cu.cuMemAlloc(4096))
    host = (ctypes.c_float * 256)()
    keep += [mod, host]

    ms = cu.CUDA_MEMSET_NODE_PARAMS()
    ms.dst, ms.value, ms.elementSize, ms.width, ms.height, ms.pitch = dptr, 0, 4, 256, 1, 0
    memset = ok(cu.cuGraphAddMemsetNode(graph, None, 0, ms, ctx))

    cp = cu.CUDA_MEMCPY3D()
    cp.srcMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_HOST
    cp.srcHost = ctypes.addressof(host)
    cp.dstMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    cp.dstDevice = dptr
    cp.WidthInBytes, cp.Height, cp.Depth = 1024, 1, 1
    memcpy = ok(cu.cuGraphAddMemcpyNode(graph, [memset], 1, cp, ctx))

    kp = cu.CUDA_KERNEL_NODE_PARAMS()
    kp.func = fn
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1
    kp.blockDimX, kp.blockDimY, kp.blockDimZ = 256, 1, 1
    kp.sharedMemBytes = 0
    kp.kernelParams = ((dptr, 2.0, 256), (ctypes.c_void_p, ctypes.c_float, ctypes.c_uint))
    kernel = ok(cu.cuGraphAddKernelNode(graph, [memcpy], 1, kp))

    nodes = {"memset": memset, "memcpy": memcpy, "kernel": kernel}
    try:
        cb_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        cb = cb_type(lambda _p: None)
        keep.append(cb)
        hp = cu.CUDA_HOST_NODE_PARAMS()
        hp.fn = cu.CUhostFn(ctypes.cast(cb, ctypes.c_void_p).value)
        hp.userData = 0
        nodes["host"] = ok(cu.cuGraphAddHostNode(graph, [kernel], 1, hp))
    except Exception:
        traceback.print_exc()
    ev = ok(cu.cuEventCreate(0))
    keep.append(ev)
    nodes["event_record"] = ok(cu.cuGraphAddEventRecordNode(graph, [kernel], 1, ev))
    nodes["event_wait"] = ok(cu.cuGraphAddEventWaitNode(graph, [nodes["event_record"]], 1, ev))
    child = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(child, None, 0))
    keep.append(child)
    nodes["child"] = ok(cu.cuGraphAddChildGraphNode(graph, [kernel], 1, child))
    nodes["empty"] = ok(cu.cuGraphAddEmptyNode(graph, [nodes["child"], nodes["event_wait"]], 2))
    try:
        ap = cu.CUDA_MEM_ALLOC_NODE_PARAMS()
        ap.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
        ap.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        ap.poolProps.location.id = 0
        ap.bytesize = 1 << 20
        nodes["mem_alloc"] = ok(cu.cuGraphAddMemAllocNode(graph, [nodes["empty"]], 1, ap))
        nodes["mem_free"] = ok(cu.cuGraphAddMemFreeNode(graph, [nodes["mem_alloc"]], 1, ap.dptr))
    except Exception:
        traceback.print_exc()
    return graph, nodes, keep


def tensormap_probes(cu, base: int) -> dict:
    """Rank-1 cuTensorMapEncodeTiled through the C entry point, globalStrides NULL or not."""
    lib = ctypes.CDLL("libcuda.so.1")
    f = lib.cuTensorMapEncodeTiled
    f.restype = ctypes.c_int
    u64a, u32a = ctypes.c_uint64 * 5, ctypes.c_uint32 * 5
    out: dict = {}
    cases = {  # name: (dtype, dims, box)
        "u8_200": (0, [200], [64]), "u8_256": (0, [256], [64]), "u8_208": (0, [208], [16]),
        "u8_199": (0, [199], [16]), "f32_50": (7, [50], [8]), "f32_64": (7, [64], [32]),
        "f32_3": (7, [3], [4]), "u16_8": (1, [8], [8]),
    }
    for name, (dtype, dims, box) in cases.items():
        for strides_kind in ("null", "ptr"):
            tmap = (ctypes.c_uint64 * 16)()
            strides = u64a(1 << 12) if strides_kind == "ptr" else None
            r = f(ctypes.byref(tmap), dtype, 1, ctypes.c_void_p(base), u64a(*dims), strides, u32a(*box),
                  u32a(1, 1, 1, 1, 1), 0, 0, 0, 0)
            out[f"rank1_{name}_{strides_kind}"] = r
    # rank 2 with a row that is not a multiple of 16 bytes (dims[0] * esize = 200)
    for name, dims, strides in (("rank2_u8_200", [200, 4], [256]), ("rank2_f32_50", [50, 4], [256])):
        tmap = (ctypes.c_uint64 * 16)()
        r = f(ctypes.byref(tmap), 0 if "u8" in name else 7, 2, ctypes.c_void_p(base), u64a(*dims), u64a(*strides),
              u32a(16, 2), u32a(1, 1), 0, 0, 0, 0)
        out[name] = r
    # im2col-wide maps on this device (CUDA documents them for compute capability 10.0 and later)
    try:
        u64, u32 = cu.cuuint64_t, cu.cuuint32_t
        err, _ = cu.cuTensorMapEncodeIm2colWide(
            cu.CUtensorMapDataType(7), 4, base, [u64(x) for x in (64, 16, 8, 2)], [u64(x) for x in (256, 4096, 32768)],
            0, 0, 32, 16, [u32(1)] * 4, cu.CUtensorMapInterleave(0), cu.CUtensorMapIm2ColWideMode(0),
            cu.CUtensorMapSwizzle(3), cu.CUtensorMapL2promotion(0), cu.CUtensorMapFloatOOBfill(0))
        out["im2col_wide_valid_on_this_device"] = int(err)
    except Exception as e:
        out["im2col_wide_valid_on_this_device"] = f"{type(e).__name__}: {e}"
    return out


def main() -> int:
    outdir = Path(sys.argv[1])
    (outdir / "dot").mkdir(parents=True, exist_ok=True)
    from cuda.bindings import driver as cu

    ok(cu.cuInit(0))
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
    ok(cu.cuCtxSetCurrent(ctx))
    result: dict = {"gpu": cu.cuDeviceGetName(128, dev)[1].split(b"\0")[0].decode()}
    graph, nodes, _keep = build_graph(cu, ctx)
    result["nodes"] = sorted(nodes)
    values = [int(m) for m in cu.CUgraphDebugDot_flags]
    for v in [0, *values, sum(values)]:
        err = cu.cuGraphDebugDotPrint(graph, str(outdir / "dot" / f"flags_{v}.dot").encode(), v)[0]
        result[f"dot_{v}"] = int(err)
    base = ok(cu.cuMemAlloc(1 << 20))
    result["tensormap"] = tensormap_probes(cu, int(base))
    (outdir / "probes.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
