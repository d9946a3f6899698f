"""Record NVIDIA goldens for CuMetal's textures and surfaces (tests/textures/golden/).

Runs on a machine with an NVIDIA GPU, CUDA 13, cuda-python (``cuda.bindings``: CUDA arrays,
texture and surface objects) and cupy (device buffers, NVRTC-compiled fetch kernels):

    python scripts/make_texture_goldens.py OUTDIR

writes ``OUTDIR/texture_goldens.npz`` and ``OUTDIR/surface_goldens.npz``; ``--extra OUTDIR`` writes
``OUTDIR/texture_weights.npz`` (see ``extra``). Each holds ``meta`` (JSON:
one record per configuration) and, per configuration ``i``, the texel bytes it was created from
(``c{i}_data``), the float32 coordinates given to the fetch kernel (``c{i}_coords``, N x 4: x, y, z,
layer/component) and the four 32-bit result words of each fetch (``c{i}_out``, N x 4).
Texture configurations: geometry (1D, 2D, 3D, 1D/2D layered, cube, 1D fetch from linear memory,
2D from pitched memory, 2D gather) x channel format (uint8, int8, uint16, int16, f16, f32; 1, 2, 4
channels) x filter (point, linear) x address mode (wrap, clamp, mirror, border) x normalized
coordinates x read mode (element type, normalized float). A configuration CUDA refuses is recorded
with its error code. Surfaces: reads at in- and out-of-range byte coordinates with the clamp and
zero boundary modes (1D, 2D, 3D, 2D layered) and the array after out-of-range writes.
"""

from __future__ import annotations

import json
import pathlib
import sys
import zlib

import numpy as np

SEED = 20261124

KERNELS = r"""
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; const float *q = c + 4 * i;
#define GEN(T, S) \
extern "C" __global__ void t1d_##S(cudaTextureObject_t t, const float *c, T *out, int n) { IDX out[i] = tex1D<T>(t, q[0]); } \
extern "C" __global__ void t2d_##S(cudaTextureObject_t t, const float *c, T *out, int n) { IDX out[i] = tex2D<T>(t, q[0], q[1]); } \
extern "C" __global__ void t3d_##S(cudaTextureObject_t t, const float *c, T *out, int n) { IDX out[i] = tex3D<T>(t, q[0], q[1], q[2]); } \
extern "C" __global__ void t1dl_##S(cudaTextureObject_t t, const float *c, T *out, int n) { IDX out[i] = tex1DLayered<T>(t, q[0], (int)q[3]); } \
extern "C" __global__ void t2dl_##S(cudaTextureObject_t t, const float *c, T *out, int n) { IDX out[i] = tex2DLayered<T>(t, q[0], q[1], (int)q[3]); } \
extern "C" __global__ void tcube_##S(cudaTextureObject_t t, const float *c, T *out, int n) { IDX out[i] = texCubemap<T>(t, q[0], q[1], q[2]); } \
extern "C" __global__ void tfetch_##S(cudaTextureObject_t t, const float *c, T *out, int n) { IDX out[i] = tex1Dfetch<T>(t, (int)q[0]); } \
extern "C" __global__ void tgather_##S(cudaTextureObject_t t, const float *c, T *out, int n) { IDX \
    int comp = (int)q[3]; \
    out[i] = comp == 0 ? tex2Dgather<T>(t, q[0], q[1], 0) : comp == 1 ? tex2Dgather<T>(t, q[0], q[1], 1) \
           : comp == 2 ? tex2Dgather<T>(t, q[0], q[1], 2) : tex2Dgather<T>(t, q[0], q[1], 3); }

#define SGEN(T, S) \
extern "C" __global__ void s1d_##S(cudaSurfaceObject_t s, const int *c, T *out, int n, int zero) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; T v; memset(&v, 0xAB, sizeof v); \
    if (zero) surf1Dread(&v, s, c[4 * i], cudaBoundaryModeZero); else surf1Dread(&v, s, c[4 * i], cudaBoundaryModeClamp); \
    out[i] = v; } \
extern "C" __global__ void s2d_##S(cudaSurfaceObject_t s, const int *c, T *out, int n, int zero) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; T v; memset(&v, 0xAB, sizeof v); \
    if (zero) surf2Dread(&v, s, c[4 * i], c[4 * i + 1], cudaBoundaryModeZero); \
    else surf2Dread(&v, s, c[4 * i], c[4 * i + 1], cudaBoundaryModeClamp); \
    out[i] = v; } \
extern "C" __global__ void s3d_##S(cudaSurfaceObject_t s, const int *c, T *out, int n, int zero) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; T v; memset(&v, 0xAB, sizeof v); \
    if (zero) surf3Dread(&v, s, c[4 * i], c[4 * i + 1], c[4 * i + 2], cudaBoundaryModeZero); \
    else surf3Dread(&v, s, c[4 * i], c[4 * i + 1], c[4 * i + 2], cudaBoundaryModeClamp); \
    out[i] = v; } \
extern "C" __global__ void s2dl_##S(cudaSurfaceObject_t s, const int *c, T *out, int n, int zero) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; T v; memset(&v, 0xAB, sizeof v); \
    if (zero) surf2DLayeredread(&v, s, c[4 * i], c[4 * i + 1], c[4 * i + 3], cudaBoundaryModeZero); \
    else surf2DLayeredread(&v, s, c[4 * i], c[4 * i + 1], c[4 * i + 3], cudaBoundaryModeClamp); \
    out[i] = v; } \
extern "C" __global__ void w2d_##S(cudaSurfaceObject_t s, const int *c, const T *vals, int n, int zero) { \
    for (int i = 0; i < n; ++i) { \
        if (zero) surf2Dwrite(vals[i], s, c[4 * i], c[4 * i + 1], cudaBoundaryModeZero); \
        else surf2Dwrite(vals[i], s, c[4 * i], c[4 * i + 1], cudaBoundaryModeClamp); } }
"""

# channel formats: name -> (bits per channel, channels, kind, numpy dtype)
FORMATS = {
    "u8x1": (8, 1, "unsigned", np.uint8), "u8x4": (8, 4, "unsigned", np.uint8),
    "s8x2": (8, 2, "signed", np.int8), "u16x1": (16, 1, "unsigned", np.uint16),
    "s16x1": (16, 1, "signed", np.int16), "f16x1": (16, 1, "float", np.float16),
    "f16x4": (16, 4, "float", np.float16), "f32x1": (32, 1, "float", np.float32),
    "f32x4": (32, 4, "float", np.float32),
}
SUBSET = ("u8x1", "s8x2", "u16x1", "f16x4", "f32x1")
ADDR = ("wrap", "clamp", "mirror", "border")
FILTERS = ("point", "linear")
SIZES = {"1d": (7, 1, 1), "2d": (6, 5, 1), "3d": (5, 4, 3), "1dl": (6, 1, 3), "2dl": (5, 4, 3), "cube": (4, 4, 6),
         "fetch": (37, 1, 1), "pitch2d": (6, 5, 1), "gather": (6, 5, 1)}


def texel_data(rng: np.random.Generator, fmt: str, count: int) -> np.ndarray:
    bits, nch, kind, dt = FORMATS[fmt]
    n = count * nch
    if kind == "float":
        return (rng.standard_normal(n) * 8).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, endpoint=True).astype(dt)


def coords(rng: np.random.Generator, geom: str, fine: bool) -> np.ndarray:
    """Unnormalized coordinates (x, y, z, layer) for a geometry, every value exact in float32."""
    w, h, d = SIZES[geom]
    def rnd(lo: float, hi: float, k: int) -> np.ndarray:
        return np.round(rng.uniform(lo, hi, k) * 512) / 512
    if geom == "fetch":
        x = np.arange(-3, w + 4, dtype=np.float64)
        return np.stack([x, 0 * x, 0 * x, 0 * x], 1).astype(np.float32)
    if geom == "cube":
        v = rng.standard_normal((100, 3))
        axes = np.concatenate([np.eye(3), -np.eye(3), [[1, 1, 0.5], [-1, 0.999, 0.2], [0.3, -1, -1]]])
        v = np.concatenate([v, axes])
        return np.concatenate([v, np.zeros((len(v), 1))], 1).astype(np.float32)
    k = {"1d": 64, "2d": 120, "3d": 100, "1dl": 80, "2dl": 80, "pitch2d": 120, "gather": 100}[geom]
    pts = np.zeros((k, 4))
    pts[:, 0] = rnd(-3, w + 3, k)
    pts[:, 1] = rnd(-3, h + 3, k) if geom in ("2d", "3d", "2dl", "pitch2d", "gather") else 0
    pts[:, 2] = rnd(-3, d + 3, k) if geom == "3d" else 0
    if geom in ("1dl", "2dl"):
        pts[:, 3] = rng.integers(-1, d + 1, k)
    if geom == "gather":
        pts[:, 3] = rng.integers(0, 4, k)
    far = np.zeros((10, 4))
    far[:, 0] = rnd(-3 * w, 4 * w, 10)
    far[:, 1] = rnd(-3 * h, 4 * h, 10) if pts[:, 1].any() else 0
    far[:, 2] = rnd(-3 * d, 4 * d, 10) if geom == "3d" else 0
    centers = np.zeros((w, 4))
    centers[:, 0] = np.arange(w) + 0.5
    centers[:, 1] = 0.5 if pts[:, 1].any() else 0
    centers[:, 2] = 0.5 if geom == "3d" else 0
    parts = [pts, far, centers]
    if geom == "1d":
        parts.append(np.stack([np.arange(-3, w + 3, 0.25)] + [np.zeros(4 * (w + 6))] * 3, 1))
    if fine:  # the fractional sweep that shows how filter weights are quantized
        s = np.zeros((512, 4))
        s[:, 0] = 2.5 + np.arange(512) / 2048
        s[:, 1] = 1.5 if pts[:, 1].any() else 0
        s[:, 2] = 1.5 if geom == "3d" else 0
        parts.append(s)
    out = np.concatenate(parts).astype(np.float32)
    special = np.zeros((3, 4), np.float32)
    special[:, 0] = [np.nan, np.inf, -np.inf]
    return np.concatenate([out, special])


def main(outdir: pathlib.Path) -> None:
    import cupy as cp
    from cuda.bindings import runtime as rt

    outdir.mkdir(parents=True, exist_ok=True)
    R = rt.cudaError_t
    modules: dict[str, object] = {}

    def kernel(name: str) -> object:
        """One small module per instantiation: a template CUDA lacks fails only its configurations."""
        if name not in modules:
            fam, suffix = name.split("_", 1)
            is_surface = fam.startswith(("s", "w"))
            ctype = ({"u8": "unsigned char", "u16": "unsigned short", "u32": "unsigned int", "f32x2": "float2",
                      "f32x4": "float4"} if is_surface else {"f": "float4", "i": "int4", "u": "uint4"})[suffix]
            src = KERNELS + f"\n{'SGEN' if is_surface else 'GEN'}({ctype}, {suffix})\n"
            modules[name] = cp.RawModule(code=src, options=("-std=c++17",))
        return modules[name].get_function(name)

    def ok(res: tuple) -> tuple:
        if res[0] != R.cudaSuccess:
            raise RuntimeError(f"CUDA error {res[0]!r}")
        return res[1:]

    kinds = {"unsigned": rt.cudaChannelFormatKind.cudaChannelFormatKindUnsigned,
             "signed": rt.cudaChannelFormatKind.cudaChannelFormatKindSigned,
             "float": rt.cudaChannelFormatKind.cudaChannelFormatKindFloat}

    def chdesc(bits: int, nch: int, kind: str) -> object:
        d = rt.cudaChannelFormatDesc()
        d.x, d.y, d.z, d.w = [bits if i < nch else 0 for i in range(4)]
        d.f = kinds[kind]
        return d

    def make_array(desc: object, w: int, h: int, d: int, flags: int, host: np.ndarray, elem: int) -> object:
        (arr,) = ok(rt.cudaMalloc3DArray(desc, rt.make_cudaExtent(w, h, d), flags))
        p = rt.cudaMemcpy3DParms()
        p.srcPtr = rt.make_cudaPitchedPtr(host.ctypes.data, w * elem, w, max(h, 1))
        p.dstArray = arr
        p.extent = rt.make_cudaExtent(w, max(h, 1), max(d, 1))
        p.kind = rt.cudaMemcpyKind.cudaMemcpyHostToDevice
        ok(rt.cudaMemcpy3D(p))
        return arr

    def read_array(arr: object, w: int, h: int, d: int, elem: int) -> np.ndarray:
        host = np.zeros(w * max(h, 1) * max(d, 1) * elem, np.uint8)
        p = rt.cudaMemcpy3DParms()
        p.srcArray = arr
        p.dstPtr = rt.make_cudaPitchedPtr(host.ctypes.data, w * elem, w, max(h, 1))
        p.extent = rt.make_cudaExtent(w, max(h, 1), max(d, 1))
        p.kind = rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
        ok(rt.cudaMemcpy3D(p))
        return host

    rng = np.random.default_rng(SEED)
    modes = {"wrap": rt.cudaTextureAddressMode.cudaAddressModeWrap,
             "clamp": rt.cudaTextureAddressMode.cudaAddressModeClamp,
             "mirror": rt.cudaTextureAddressMode.cudaAddressModeMirror,
             "border": rt.cudaTextureAddressMode.cudaAddressModeBorder}
    filt = {"point": rt.cudaTextureFilterMode.cudaFilterModePoint,
            "linear": rt.cudaTextureFilterMode.cudaFilterModeLinear}
    border = [0.125, -0.25, 0.375, 2.5]

    # ---------------------------------------------------------------- textures
    meta: list[dict] = []
    arrays: dict[str, np.ndarray] = {}
    plans = []
    for geom in ("1d", "2d", "3d", "1dl", "2dl", "pitch2d", "fetch", "cube", "gather"):
        fmts = {"2d": list(FORMATS), "1d": list(FORMATS), "fetch": ["u8x1", "s16x1", "f16x1", "f32x4", "u8x4"],
                "pitch2d": ["u8x1", "f32x1", "s16x1"], "cube": ["f32x1", "u8x4"],
                "gather": ["f32x4", "u8x4", "s8x2"]}.get(geom, list(SUBSET))
        for fmt in fmts:
            kind = FORMATS[fmt][2]
            reads = ("element",) if kind == "float" else ("element", "normalized")
            for read in reads:
                for f in (("point",) if geom == "fetch" else FILTERS):
                    for addr in (("clamp",) if geom == "fetch" else ADDR):
                        for norm in ((0,) if geom == "fetch" else (0, 1)):
                            if geom == "cube" and norm == 0:
                                continue
                            plans.append((geom, fmt, read, f, addr, norm))
    data_cache: dict[tuple[str, str], np.ndarray] = {}
    for geom, fmt, read, f, addr, norm in plans:
        bits, nch, kind, dt = FORMATS[fmt]
        w, h, d = SIZES[geom]
        key = (geom, fmt)
        if key not in data_cache:
            data_cache[key] = texel_data(rng, fmt, w * h * d)
        data = data_cache[key]
        fine = geom == "1d" and f == "linear" and addr == "clamp" and norm == 0
        c = coords(np.random.default_rng(zlib.crc32(f"{geom}{fine}".encode())), geom, fine)
        if norm:
            c[:, 0] /= np.float32(w)
            if geom in ("2d", "3d", "2dl", "pitch2d", "gather"):
                c[:, 1] /= np.float32(h)
            if geom == "3d":
                c[:, 2] /= np.float32(d)
        rec = {"geom": geom, "fmt": fmt, "read": read, "filter": f, "addr": addr, "norm": norm,
               "size": [w, h, d], "border": border}
        i = len(meta)
        meta.append(rec)
        arrays[f"c{i}_data"] = data.view(np.uint8)
        arrays[f"c{i}_coords"] = c
        elem = bits // 8 * nch
        desc = chdesc(bits, nch, kind)
        keep = []
        try:
            res = rt.cudaResourceDesc()
            if geom == "fetch":
                buf = cp.asarray(data.view(np.uint8))
                keep.append(buf)
                res.resType = rt.cudaResourceType.cudaResourceTypeLinear
                res.res.linear.devPtr = buf.data.ptr
                res.res.linear.desc = desc
                res.res.linear.sizeInBytes = data.nbytes
            elif geom == "pitch2d":
                pitch = 64
                host = np.zeros((h, pitch), np.uint8)
                host[:, :w * elem] = data.view(np.uint8).reshape(h, w * elem)
                buf = cp.asarray(host)
                keep.append(buf)
                res.resType = rt.cudaResourceType.cudaResourceTypePitch2D
                res.res.pitch2D.devPtr = buf.data.ptr
                res.res.pitch2D.desc = desc
                res.res.pitch2D.width, res.res.pitch2D.height, res.res.pitch2D.pitchInBytes = w, h, pitch
            else:
                alloc = {"1d": (w, 0, 0, 0), "2d": (w, h, 0, 0), "gather": (w, h, 0, rt.cudaArrayTextureGather),
                         "3d": (w, h, d, 0), "1dl": (w, 0, d, rt.cudaArrayLayered),
                         "2dl": (w, h, d, rt.cudaArrayLayered), "cube": (w, h, d, rt.cudaArrayCubemap)}[geom]
                arr = make_array(desc, alloc[0], alloc[1], alloc[2], alloc[3], data.view(np.uint8), elem)
                keep.append(arr)
                res.resType = rt.cudaResourceType.cudaResourceTypeArray
                res.res.array.array = arr
            td = rt.cudaTextureDesc()
            td.addressMode = [modes[addr]] * 3
            td.filterMode = filt[f]
            td.readMode = (rt.cudaTextureReadMode.cudaReadModeElementType if read == "element"
                           else rt.cudaTextureReadMode.cudaReadModeNormalizedFloat)
            td.normalizedCoords = norm
            td.borderColor = border
            err, tex = rt.cudaCreateTextureObject(res, td, None)
            rec["status"] = int(err)
            if err != R.cudaSuccess:
                continue
            suffix = "f" if (read == "normalized" or kind == "float") else ("i" if kind == "signed" else "u")
            kname = {"pitch2d": "t2d"}.get(geom, "t" + geom)
            fn = kernel(f"{kname}_{suffix}")
            cd = cp.asarray(c)
            out = cp.zeros((len(c), 4), cp.uint32)
            fn(((len(c) + 127) // 128,), (128,), (np.uint64(int(tex)), cd, out, np.int32(len(c))))
            cp.cuda.Device().synchronize()
            arrays[f"c{i}_out"] = cp.asnumpy(out)
            ok(rt.cudaDestroyTextureObject(tex))
        except Exception as e:  # noqa: BLE001 - record and go on
            rec["error"] = f"{type(e).__name__}: {e}"
        finally:
            for k in keep:
                if not isinstance(k, cp.ndarray):
                    rt.cudaFreeArray(k)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez_compressed(outdir / "texture_goldens.npz", **arrays)
    print(f"textures: {len(meta)} configurations, {sum('error' in m for m in meta)} errors, "
          f"{sum(m.get('status', 0) != 0 for m in meta)} refused")

    # ---------------------------------------------------------------- surfaces
    smeta: list[dict] = []
    sarr: dict[str, np.ndarray] = {}
    stypes = {"u8": (8, 1, "unsigned", 1), "u16": (16, 1, "unsigned", 2), "u32": (32, 1, "unsigned", 4),
              "f32x2": (32, 2, "float", 8), "f32x4": (32, 4, "float", 16)}
    for geom, (w, h, d) in (("1d", (8, 1, 1)), ("2d", (7, 5, 1)), ("3d", (4, 3, 2)), ("2dl", (4, 3, 3))):
        for st, (bits, nch, kind, elem) in stypes.items():
            for zero in (0, 1):
                data = rng.integers(0, 256, w * h * d * elem, dtype=np.uint8)
                alloc = {"1d": (w, 0, 0, 0), "2d": (w, h, 0, 0), "3d": (w, h, d, 0),
                         "2dl": (w, h, d, rt.cudaArrayLayered)}[geom]
                pts = []
                for xi in range(-2, w + 2):
                    for yi in ((0,) if geom == "1d" else range(-1, h + 1)):
                        for zi in ((0,) if geom != "3d" else (-1, 0, d - 1, d)):
                            li = 0 if geom != "2dl" else (xi * 7 + yi) % (d + 2) - 1
                            pts.append((xi * elem, yi, zi, li))
                c = np.array(pts, np.int32)
                rec = {"kind": "read", "geom": geom, "type": st, "zero": zero, "size": [w, h, d], "elem": elem}
                i = len(smeta)
                smeta.append(rec)
                sarr[f"s{i}_data"] = data
                sarr[f"s{i}_coords"] = c
                arr = None
                try:
                    desc = chdesc(bits, nch, kind)
                    arr = make_array(desc, alloc[0], alloc[1], alloc[2], alloc[3] | rt.cudaArraySurfaceLoadStore,
                                     data, elem)
                    res = rt.cudaResourceDesc()
                    res.resType = rt.cudaResourceType.cudaResourceTypeArray
                    res.res.array.array = arr
                    (surf,) = ok(rt.cudaCreateSurfaceObject(res))
                    n_al = len(c)
                    fn = kernel(f"s{geom}_{st}")
                    out = cp.zeros(len(c) * elem, cp.uint8)
                    cd = cp.asarray(c)
                    fn(((n_al + 127) // 128,), (128,), (np.uint64(int(surf)), cd, out, np.int32(n_al), np.int32(zero)))
                    cp.cuda.Device().synchronize()
                    sarr[f"s{i}_out"] = cp.asnumpy(out)
                    if geom == "2d":  # writes, out-of-range ones included, by one thread in order
                        wpts = np.array([(x * elem, y, 0, 0) for x, y in
                                         ((-1, 0), (0, -1), (w, 1), (2, h), (w + 3, h + 2), (-5, -3), (1, 1), (w - 1, h - 1))],
                                        np.int32)
                        vals = rng.integers(0, 256, len(wpts) * elem, dtype=np.uint8)
                        wrec = {"kind": "write", "geom": geom, "type": st, "zero": zero, "size": [w, h, d], "elem": elem}
                        j = len(smeta)
                        smeta.append(wrec)
                        arr2 = make_array(desc, w, h, 0, rt.cudaArraySurfaceLoadStore, data, elem)
                        res2 = rt.cudaResourceDesc()
                        res2.resType = rt.cudaResourceType.cudaResourceTypeArray
                        res2.res.array.array = arr2
                        (surf2,) = ok(rt.cudaCreateSurfaceObject(res2))
                        wf = kernel(f"w2d_{st}")
                        wf((1,), (1,), (np.uint64(int(surf2)), cp.asarray(wpts), cp.asarray(vals), np.int32(len(wpts)),
                                        np.int32(zero)))
                        cp.cuda.Device().synchronize()
                        sarr[f"s{j}_data"] = data
                        sarr[f"s{j}_coords"] = wpts
                        sarr[f"s{j}_vals"] = vals
                        sarr[f"s{j}_out"] = read_array(arr2, w, h, 1, elem)
                        ok(rt.cudaDestroySurfaceObject(surf2))
                        rt.cudaFreeArray(arr2)
                    ok(rt.cudaDestroySurfaceObject(surf))
                except Exception as e:  # noqa: BLE001
                    rec["error"] = f"{type(e).__name__}: {e}"
                finally:
                    if arr is not None:
                        rt.cudaFreeArray(arr)
    sarr["meta"] = np.frombuffer(json.dumps(smeta).encode(), np.uint8)
    np.savez_compressed(outdir / "surface_goldens.npz", **sarr)
    print(f"surfaces: {len(smeta)} configurations, {sum('error' in m for m in smeta)} errors")
    props = cp.cuda.runtime.getDeviceProperties(0)
    (outdir / "device.json").write_text(json.dumps({"name": props["name"].decode(),
                                                    "driver": cp.cuda.runtime.driverGetVersion()}))


def extra(outdir: pathlib.Path) -> None:
    """Second recording (``--extra``): ``texture_weights.npz`` — linear-filter weights read directly,
    by fetching f32 textures that are 1.0 at one texel and 0 elsewhere (one texture per corner of a
    2D and a 3D footprint) on a grid of exact 1/256 fractions; and large 1D textures (1000 and 4096
    texels) with normalized coordinates, to see how many fraction bits a normalized coordinate keeps."""
    import cupy as cp
    from cuda.bindings import runtime as rt

    outdir.mkdir(parents=True, exist_ok=True)
    R = rt.cudaError_t
    mods: dict[str, object] = {}

    def fn(name: str) -> object:
        suffix = name.split("_", 1)[1]
        if name not in mods:
            mods[name] = cp.RawModule(code=KERNELS + f"\nGEN(float4, {suffix})\n", options=("-std=c++17",))
        return mods[name].get_function(name)

    def ok(res: tuple) -> tuple:
        if res[0] != R.cudaSuccess:
            raise RuntimeError(f"CUDA error {res[0]!r}")
        return res[1:]

    def texture(data: np.ndarray, w: int, h: int, d: int, linear: bool, norm: int) -> tuple:
        desc = rt.cudaChannelFormatDesc()
        desc.x, desc.f = 32, rt.cudaChannelFormatKind.cudaChannelFormatKindFloat
        (arr,) = ok(rt.cudaMalloc3DArray(desc, rt.make_cudaExtent(w, h, d), 0))
        p = rt.cudaMemcpy3DParms()
        host = np.ascontiguousarray(data, np.float32)
        p.srcPtr = rt.make_cudaPitchedPtr(host.ctypes.data, w * 4, w, max(h, 1))
        p.dstArray = arr
        p.extent = rt.make_cudaExtent(w, max(h, 1), max(d, 1))
        p.kind = rt.cudaMemcpyKind.cudaMemcpyHostToDevice
        ok(rt.cudaMemcpy3D(p))
        res = rt.cudaResourceDesc()
        res.resType = rt.cudaResourceType.cudaResourceTypeArray
        res.res.array.array = arr
        td = rt.cudaTextureDesc()
        td.addressMode = [rt.cudaTextureAddressMode.cudaAddressModeClamp] * 3
        td.filterMode = rt.cudaTextureFilterMode.cudaFilterModeLinear if linear else rt.cudaTextureFilterMode.cudaFilterModePoint
        td.readMode = rt.cudaTextureReadMode.cudaReadModeElementType
        td.normalizedCoords = norm
        (tex,) = ok(rt.cudaCreateTextureObject(res, td, None))
        return tex, arr

    def run(kernel: str, tex: int, coords: np.ndarray) -> np.ndarray:
        cd = cp.asarray(np.ascontiguousarray(coords, np.float32))
        out = cp.zeros((len(coords), 4), cp.uint32)
        fn(kernel)(((len(coords) + 127) // 128,), (128,), (np.uint64(int(tex)), cd, out, np.int32(len(coords))))
        cp.cuda.Device().synchronize()
        return cp.asnumpy(out)

    arrays: dict[str, np.ndarray] = {}
    # 2D weights: footprint corners (1|2, 1|2) of a 6x5 texture, fractions a, b on a grid
    a2 = np.arange(0, 256, 5)
    b2 = np.arange(0, 256, 7)
    aa, bb = np.meshgrid(a2, b2, indexing="ij")
    c2 = np.zeros((aa.size, 4), np.float32)
    c2[:, 0] = 1.5 + aa.reshape(-1) / 256
    c2[:, 1] = 1.5 + bb.reshape(-1) / 256
    arrays["w2d_coords"] = c2
    for ci in (1, 2):
        for cj in (1, 2):
            data = np.zeros((5, 6), np.float32)
            data[cj, ci] = 1.0
            tex, arr = texture(data, 6, 5, 0, True, 0)
            arrays[f"w2d_{ci}{cj}"] = run("t2d_f", tex, c2)
            rt.cudaDestroyTextureObject(tex)
            rt.cudaFreeArray(arr)
    # 3D weights: corners (1|2)^3 of a 5x4x4 texture
    a3 = np.arange(0, 256, 15)
    b3 = np.arange(0, 256, 29)
    g3 = np.arange(0, 256, 37)
    A, B, G = np.meshgrid(a3, b3, g3, indexing="ij")
    c3 = np.zeros((A.size, 4), np.float32)
    c3[:, 0], c3[:, 1], c3[:, 2] = 1.5 + A.reshape(-1) / 256, 1.5 + B.reshape(-1) / 256, 1.5 + G.reshape(-1) / 256
    arrays["w3d_coords"] = c3
    for ci in (1, 2):
        for cj in (1, 2):
            for ck in (1, 2):
                data = np.zeros((4, 4, 5), np.float32)
                data[ck, cj, ci] = 1.0
                tex, arr = texture(data, 5, 4, 4, True, 0)
                arrays[f"w3d_{ci}{cj}{ck}"] = run("t3d_f", tex, c3)
                rt.cudaDestroyTextureObject(tex)
                rt.cudaFreeArray(arr)
    # large 1D textures, normalized coordinates: the texel index is the texel's value
    rng = np.random.default_rng(SEED + 1)
    for w in (1000, 4096):
        data = np.arange(w, dtype=np.float32)
        fine = (100 + np.arange(512) / 128) / w
        xs = np.concatenate([rng.uniform(0, 1, 1500), fine]).astype(np.float32)
        c = np.zeros((len(xs), 4), np.float32)
        c[:, 0] = xs
        arrays[f"big{w}_coords"] = c
        for linear in (0, 1):
            tex, arr = texture(data, w, 0, 0, bool(linear), 1)
            arrays[f"big{w}_{'linear' if linear else 'point'}"] = run("t1d_f", tex, c)
            rt.cudaDestroyTextureObject(tex)
            rt.cudaFreeArray(arr)
    np.savez_compressed(outdir / "texture_weights.npz", **arrays)
    print("extra:", sorted(arrays))


if __name__ == "__main__":
    if "--extra" in sys.argv:
        extra(pathlib.Path(sys.argv[-1]))
    else:
        main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "."))
