"""Record NVIDIA goldens for CuMetal's cuRAND and cuBLAS (tests/libs/).

Runs on a machine with an NVIDIA GPU, CUDA 13 and cupy (cupy only allocates memory and launches):

    python scripts/make_curand_goldens.py OUTDIR

writes ``OUTDIR/curand_host_goldens.npz`` (host API through ctypes on NVIDIA's libcurand: every
generator type, seeds, offsets, orderings, every distribution, the Sobol direction vectors and
scramble constants), ``OUTDIR/curand_device_goldens.npz`` (device API: the kernels of
tests/libs/golden/src/curand_device_goldens.cu compiled against NVIDIA's curand_kernel.h, one thread per
(seed, subsequence, offset) configuration) and ``OUTDIR/cuda_lib_enums.json`` (the numeric values of
the enumerators and macros of curand.h, cublas_api.h, cublasLt.h and library_types.h: the ABI
CuMetal's clean-room headers must agree with; only names and numbers are kept).
``OUTDIR/curand_mtgp32_goldens.npz`` holds the MTGP32 device API (the output file of
tests/libs/golden/src/curand_mtgp32_goldens.cu built with nvcc, as raw bytes), MTGP32 host outputs
for a 64-bit seed, and the statuses NVIDIA's library returns for requests CuMetal refuses or must
mirror (offsets on MTGP32/MT19937). ``--parts device,host,mtgp32`` records only some parts.
Each part is recorded independently: a failure is printed and the others still run.
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import traceback

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEVICE_SRC = ROOT / "tests" / "libs" / "golden" / "src" / "curand_device_goldens.cu"
MTGP32_SRC = ROOT / "tests" / "libs" / "golden" / "src" / "curand_mtgp32_goldens.cu"
NTESTS, NVALS = 23, 8

# fallbacks, replaced by the values parsed from NVIDIA's curand.h when it is found
RNG = {"XORWOW": 101, "MRG32K3A": 121, "MTGP32": 141, "MT19937": 142, "PHILOX4_32_10": 161,
       "SOBOL32": 201, "SCRAMBLED_SOBOL32": 202, "SOBOL64": 203, "SCRAMBLED_SOBOL64": 204}
ORDERING = {"PSEUDO_BEST": 100, "PSEUDO_DEFAULT": 101, "PSEUDO_SEEDED": 102, "PSEUDO_LEGACY": 103,
            "PSEUDO_DYNAMIC": 104, "QUASI_DEFAULT": 201}
DIRSET = {"32_JOEKUO6": 101, "SCRAMBLED_32_JOEKUO6": 102, "64_JOEKUO6": 103, "SCRAMBLED_64_JOEKUO6": 104}


def cuda_include() -> pathlib.Path | None:
    cands = [os.environ.get("CUDA_PATH", ""), os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]
    try:
        import cupy  # noqa: PLC0415
        cands.insert(0, cupy.cuda.get_cuda_path() or "")
    except Exception:  # noqa: BLE001
        pass
    cands += sorted(glob.glob("/usr/local/cuda-*"))
    for c in cands:
        if c and (pathlib.Path(c) / "include" / "curand.h").is_file():
            return pathlib.Path(c) / "include"
    for p in glob.glob(sys.prefix + "/lib/python3*/site-packages/nvidia/*/include/curand.h"):
        return pathlib.Path(p).parent
    return None


def parse_enums(inc: pathlib.Path) -> dict[str, dict[str, int]]:
    """name -> value for the enumerators and integer macros of the library headers."""
    out: dict[str, dict[str, int]] = {}
    for name in ("curand.h", "cublas_api.h", "cublasLt.h", "library_types.h", "cublas_v2.h"):
        p = inc / name
        if not p.is_file():
            continue
        text = re.sub(r"/\*.*?\*/", "", p.read_text(errors="replace"), flags=re.S)
        text = re.sub(r"//[^\n]*", "", text)
        vals: dict[str, int] = {}
        for body in re.findall(r"enum[^{;]*\{(.*?)\}", text, flags=re.S):
            nxt = 0
            for item in body.split(","):
                item = item.strip()
                if not item:
                    continue
                m = re.match(r"([A-Za-z_]\w*)\s*(?:=\s*(.+))?$", item, flags=re.S)
                if not m:
                    continue
                if m.group(2) is not None:
                    expr = m.group(2).strip()
                    try:
                        nxt = int(eval(re.sub(r"(?<=\d)[uUlL]+", "", expr), {"__builtins__": {}}, dict(vals)))  # noqa: S307
                    except Exception:  # noqa: BLE001
                        continue
                vals[m.group(1)] = nxt
                nxt += 1
        for m in re.finditer(r"#define\s+([A-Z_][A-Z0-9_]*)\s+\(?(-?(?:0x[0-9a-fA-F]+|\d+))[uUlL]*\)?\s*$", text,
                             flags=re.M):
            vals[m.group(1)] = int(m.group(2), 0)
        out[name] = vals
    return out


def load_curand() -> ctypes.CDLL:
    names = ["libcurand.so", "libcurand.so.10", "libcurand.so.11"]
    inc = cuda_include()
    if inc is not None:
        names = [str(p) for p in sorted(glob.glob(str(inc.parent / "lib64" / "libcurand.so*")))] + \
                [str(p) for p in sorted(glob.glob(str(inc.parent / "lib" / "libcurand.so*")))] + names
    names += sorted(glob.glob(sys.prefix + "/lib/python3*/site-packages/nvidia/*/lib/libcurand.so*"))
    for n in names:
        try:
            return ctypes.CDLL(n)
        except OSError:
            continue
    raise OSError("libcurand not found")


class Curand:
    def __init__(self) -> None:
        import cupy  # noqa: PLC0415
        self.cp = cupy
        self.lib = load_curand()

    def check(self, st: int, what: str) -> None:
        if st != 0:
            raise RuntimeError(f"{what}: curandStatus {st}")

    def gen(self, rng: int, *, seed: int | None = None, offset: int | None = None, ordering: int | None = None,
            dims: int | None = None) -> ctypes.c_void_p:
        g = ctypes.c_void_p()
        self.check(self.lib.curandCreateGenerator(ctypes.byref(g), ctypes.c_int(rng)), "create")
        if seed is not None:
            self.check(self.lib.curandSetPseudoRandomGeneratorSeed(g, ctypes.c_ulonglong(seed)), "seed")
        if ordering is not None:
            self.check(self.lib.curandSetGeneratorOrdering(g, ctypes.c_int(ordering)), "ordering")
        if offset is not None:
            self.check(self.lib.curandSetGeneratorOffset(g, ctypes.c_ulonglong(offset)), "offset")
        if dims is not None:
            self.check(self.lib.curandSetQuasiRandomGeneratorDimensions(g, ctypes.c_uint(dims)), "dims")
        return g

    def run(self, g: ctypes.c_void_p, kind: str, n: int, *args: float) -> np.ndarray:
        dt = {"u32": np.uint32, "u64": np.uint64, "f32": np.float32, "f64": np.float64, "poisson": np.uint32}
        fn = {"u32": "curandGenerate", "u64": "curandGenerateLongLong", "f32": "curandGenerateUniform",
              "f64": "curandGenerateUniformDouble", "normal": "curandGenerateNormal",
              "normal64": "curandGenerateNormalDouble", "lognormal": "curandGenerateLogNormal",
              "lognormal64": "curandGenerateLogNormalDouble", "poisson": "curandGeneratePoisson"}[kind]
        dtype = dt.get(kind, np.float64 if kind.endswith("64") else np.float32)
        buf = self.cp.empty(n, dtype=dtype)
        cargs: list = [g, ctypes.c_void_p(buf.data.ptr), ctypes.c_size_t(n)]
        if kind in ("normal", "lognormal"):
            cargs += [ctypes.c_float(args[0]), ctypes.c_float(args[1])]
        elif kind in ("normal64", "lognormal64"):
            cargs += [ctypes.c_double(args[0]), ctypes.c_double(args[1])]
        elif kind == "poisson":
            cargs += [ctypes.c_double(args[0])]
        self.check(getattr(self.lib, fn)(*cargs), fn)
        self.cp.cuda.runtime.deviceSynchronize()
        return buf.get()

    def destroy(self, g: ctypes.c_void_p) -> None:
        self.lib.curandDestroyGenerator(g)


def host_goldens(enums: dict[str, dict[str, int]]) -> dict[str, np.ndarray]:
    cu = enums.get("curand.h", {})
    for k in RNG:
        RNG[k] = cu.get("CURAND_RNG_PSEUDO_" + k, cu.get("CURAND_RNG_QUASI_" + k, RNG[k]))
    for k in ORDERING:
        ORDERING[k] = cu.get("CURAND_ORDERING_" + k, ORDERING[k])
    for k in DIRSET:
        DIRSET[k] = cu.get("CURAND_DIRECTION_VECTORS_" + k, cu.get("CURAND_" + k, DIRSET[k]))
    c = Curand()
    out: dict[str, np.ndarray] = {}
    v = ctypes.c_int()
    c.lib.curandGetVersion(ctypes.byref(v))
    out["version"] = np.array([v.value])

    def rec(key: str, rng: int, kind: str, n: int, *args: float, **kw: int) -> None:
        try:
            g = c.gen(rng, **kw)
            try:
                out[key] = c.run(g, kind, n, *args)
            finally:
                c.destroy(g)
        except Exception as e:  # noqa: BLE001
            print(f"host {key}: {e}", flush=True)

    big = {"XORWOW": 135168, "MRG32K3A": 70000, "PHILOX4_32_10": 70000, "MTGP32": 20000, "MT19937": 20000}
    for name, n in big.items():
        r = RNG[name]
        rec(f"{name}/u32/seed1234", r, "u32", n, seed=1234)
        rec(f"{name}/u32/seed0", r, "u32", 5000, seed=0)
        rec(f"{name}/u32/seedbig_off1000", r, "u32", 5000, seed=0x123456789ABCDEF, offset=1000)
        rec(f"{name}/u32/seed1234_off4099", r, "u32", 5000, seed=1234, offset=4099)
        for o in ("PSEUDO_BEST", "PSEUDO_SEEDED", "PSEUDO_LEGACY", "PSEUDO_DYNAMIC"):
            rec(f"{name}/u32/seed1234_{o}", r, "u32", 8192, seed=1234, ordering=ORDERING[o])
        rec(f"{name}/f32/seed1234", r, "f32", 4096, seed=1234)
        rec(f"{name}/f64/seed1234", r, "f64", 4096, seed=1234)
        rec(f"{name}/normal/seed1234", r, "normal", 4096, 0.0, 1.0, seed=1234)
        rec(f"{name}/normal/seed1234_m2s3_off10", r, "normal", 4096, 2.0, 3.0, seed=1234, offset=10)
        rec(f"{name}/normal64/seed1234", r, "normal64", 4096, 0.0, 1.0, seed=1234)
        rec(f"{name}/lognormal/seed1234", r, "lognormal", 2048, 0.5, 0.75, seed=1234)
        rec(f"{name}/lognormal64/seed1234", r, "lognormal64", 2048, 0.5, 0.75, seed=1234)
        for lam in (0.5, 4.0, 30.0, 100.0, 5000.0):
            rec(f"{name}/poisson{lam:g}/seed1234", r, "poisson", 2000, lam, seed=1234)
        # two calls on one generator continue the sequence
        try:
            g = c.gen(r, seed=1234)
            a = c.run(g, "u32", 1000)
            b = c.run(g, "u32", 3000)
            cc = c.run(g, "f32", 1000)
            out[f"{name}/u32/seed1234_cont"] = np.concatenate([a, b, cc.view(np.uint32)])
            c.destroy(g)
        except Exception as e:  # noqa: BLE001
            print(f"host {name} cont: {e}", flush=True)
    for name in ("SOBOL32", "SCRAMBLED_SOBOL32", "SOBOL64", "SCRAMBLED_SOBOL64"):
        r = RNG[name]
        kind = "u64" if "64" in name else "u32"
        for dims in (1, 3, 50):
            rec(f"{name}/{kind}/dims{dims}", r, kind, dims * 1024, dims=dims)
            rec(f"{name}/{kind}/dims{dims}_off5", r, kind, dims * 64, dims=dims, offset=5)
        rec(f"{name}/f32/dims3", r, "f32", 3 * 512, dims=3)
        rec(f"{name}/f64/dims3", r, "f64", 3 * 512, dims=3)
        rec(f"{name}/normal/dims3", r, "normal", 3 * 512, 0.0, 1.0, dims=3)
        rec(f"{name}/normal64/dims3", r, "normal64", 3 * 512, 0.0, 1.0, dims=3)
        rec(f"{name}/lognormal/dims2", r, "lognormal", 2 * 256, 0.5, 0.75, dims=2)
        rec(f"{name}/poisson4/dims2", r, "poisson", 2 * 256, 4.0, dims=2)
    # the published tables cuRAND uses, to check CuMetal's copies
    for key, setname, words, dt in (("dirvec32", "32_JOEKUO6", 32, np.uint32), ("dirvec32s", "SCRAMBLED_32_JOEKUO6", 32, np.uint32),
                                    ("dirvec64", "64_JOEKUO6", 64, np.uint64), ("dirvec64s", "SCRAMBLED_64_JOEKUO6", 64, np.uint64)):
        try:
            fn = c.lib.curandGetDirectionVectors64 if "64" in setname else c.lib.curandGetDirectionVectors32
            p = ctypes.c_void_p()
            c.check(fn(ctypes.byref(p), ctypes.c_int(DIRSET[setname])), key)
            ct = ctypes.c_uint64 if dt is np.uint64 else ctypes.c_uint32
            out[key] = np.ctypeslib.as_array((ct * (200 * words)).from_address(p.value)).copy().reshape(200, words)
        except Exception as e:  # noqa: BLE001
            print(f"host {key}: {e}", flush=True)
    for key, fname, ct in (("scramble32", "curandGetScrambleConstants32", ctypes.c_uint32),
                           ("scramble64", "curandGetScrambleConstants64", ctypes.c_uint64)):
        try:
            p = ctypes.c_void_p()
            c.check(getattr(c.lib, fname)(ctypes.byref(p)), key)
            out[key] = np.ctypeslib.as_array((ct * 20000).from_address(p.value)).copy()
        except Exception as e:  # noqa: BLE001
            print(f"host {key}: {e}", flush=True)
    return out


def device_configs() -> np.ndarray:
    seeds = [0, 1, 1234, 0xDEADBEEFCAFE]
    subseqs = [0, 1, 7, 1000, 123456789]
    offsets = [0, 1, 5, 4097]
    return np.array([(s, q, o) for s in seeds for q in subseqs for o in offsets], dtype=np.uint64)


def device_goldens(inc: pathlib.Path | None, workdir: pathlib.Path) -> dict[str, np.ndarray]:
    import cupy  # noqa: PLC0415
    mod = None
    nvcc = None
    if inc is not None and (inc.parent / "bin" / "nvcc").is_file():
        nvcc = str(inc.parent / "bin" / "nvcc")
    if nvcc:
        cubin = workdir / "curand_device_goldens.cubin"
        cmd = [nvcc, "-cubin", "-arch=sm_90", "-O3", "-o", str(cubin), str(DEVICE_SRC)]
        t = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        print(f"nvcc: rc={proc.returncode} {time.time() - t:.1f}s {proc.stderr[-2000:]}", flush=True)
        if proc.returncode == 0:
            mod = cupy.RawModule(path=str(cubin))
    if mod is None:
        mod = cupy.RawModule(code=DEVICE_SRC.read_text(), options=(f"-I{inc}", "--std=c++17"))
    cfg = device_configs()
    d_cfg = cupy.asarray(cfg.reshape(-1))
    n = cfg.shape[0]
    out = {"configs": cfg}
    for name in ("xorwow", "philox", "mrg"):
        try:
            buf = cupy.zeros(n * NTESTS * NVALS, dtype=cupy.uint64)
            k = mod.get_function(f"goldens_{name}")
            k(((n + 31) // 32,), (32,), (d_cfg, np.int32(n), buf))
            cupy.cuda.runtime.deviceSynchronize()
            out[name] = buf.get().reshape(n, NTESTS, NVALS)
        except Exception as e:  # noqa: BLE001
            print(f"device {name}: {e}", flush=True)
    return out


def mtgp32_goldens(inc: pathlib.Path | None, workdir: pathlib.Path, enums: dict[str, dict[str, int]]) -> dict:
    """The MTGP32 device-API program's output, host outputs for a 64-bit seed, and statuses."""
    out: dict[str, np.ndarray] = {}
    cands = ([str(inc.parent / "bin" / "nvcc")] if inc is not None else []) + \
        [shutil.which("nvcc") or "", "/usr/local/cuda/bin/nvcc", *sorted(glob.glob("/usr/local/cuda-*/bin/nvcc")),
         *sorted(glob.glob(sys.prefix + "/lib/python3*/site-packages/nvidia/*/bin/nvcc"))]
    nvcc = next((c for c in cands if c and pathlib.Path(c).is_file()), "nvcc")
    lib = pathlib.Path(load_curand()._name).resolve().parent  # the libcurand the host part uses
    exe = workdir / "curand_mtgp32_goldens"
    t = time.time()
    so = pathlib.Path(load_curand()._name).resolve()
    link = [f"-L{lib}", "-lcurand"] if (lib / "libcurand.so").exists() else [f"-Xlinker={so}"]
    cmd = [nvcc, "-arch=sm_90", "-O3", "-o", str(exe), str(MTGP32_SRC), *link, f"-Xlinker=-rpath,{lib}"]
    if inc is not None:
        cmd.insert(1, f"-I{inc}")
    print(" ".join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    print(f"nvcc mtgp32: rc={proc.returncode} {time.time() - t:.1f}s {proc.stderr[-2000:]}", flush=True)
    if proc.returncode == 0:
        binf = workdir / "mtgp32_device.bin"
        run = subprocess.run([str(exe), str(binf)], capture_output=True, text=True, check=False)
        print(f"mtgp32 program: rc={run.returncode} {run.stdout[-200:]} {run.stderr[-2000:]}", flush=True)
        if run.returncode == 0:
            out["device_raw"] = np.frombuffer(binf.read_bytes(), dtype=np.uint8)
    cu = enums.get("curand.h", {})
    for k in RNG:
        RNG[k] = cu.get("CURAND_RNG_PSEUDO_" + k, cu.get("CURAND_RNG_QUASI_" + k, RNG[k]))
    c = Curand()
    for name in ("MTGP32", "MT19937"):
        try:
            g = c.gen(RNG[name], seed=0x123456789ABCDEF)
            out[f"{name}/u32/seedbig"] = c.run(g, "u32", 5000)
            out[f"status/{name}/set_offset"] = np.array([c.lib.curandSetGeneratorOffset(g, ctypes.c_ulonglong(1000))])
            out[f"status/{name}/ordering_seeded"] = np.array(
                [c.lib.curandSetGeneratorOrdering(g, ctypes.c_int(ORDERING["PSEUDO_SEEDED"]))])
            c.destroy(g)
        except Exception as e:  # noqa: BLE001
            print(f"mtgp32 host {name}: {e}", flush=True)
    return out


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--parts")]
    parts_arg = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--parts=")), "device,host,mtgp32")
    parts = set(parts_arg.split(","))
    sys.argv[1:] = args
    outdir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    outdir.mkdir(parents=True, exist_ok=True)
    inc = cuda_include()
    print(f"CUDA include: {inc}", flush=True)
    enums: dict[str, dict[str, int]] = {}
    if inc is not None:
        try:
            enums = parse_enums(inc)
            (outdir / "cuda_lib_enums.json").write_text(json.dumps(enums, indent=0, sort_keys=True))
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    for what, fn in (("device", lambda: device_goldens(inc, outdir)), ("host", lambda: host_goldens(enums)),
                     ("mtgp32", lambda: mtgp32_goldens(inc, outdir, enums))):
        if what not in parts:
            continue
        t = time.time()
        try:
            data = fn()
            np.savez_compressed(outdir / f"curand_{what}_goldens.npz", **data)
            print(f"{what}: {len(data)} arrays in {time.time() - t:.1f}s", flush=True)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    return 0


if __name__ == "__main__":
    sys.exit(main())
