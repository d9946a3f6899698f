"""Record NVIDIA goldens for cuRAND's Poisson draws and the device API's Sobol states (tests/libs/).

Runs on a machine with an NVIDIA GPU, CUDA 13 and cupy (one ``run`` on the project's H100, ~20 s):

    python scripts/make_curand_poisson_sobol.py OUTDIR

writes ``OUTDIR/curand_poisson_sobol_goldens.npz``:

* ``host/<GEN>/poisson<lambda>``: ``curandGeneratePoisson`` on NVIDIA's libcurand (seed 1234) for
  every pseudo-random generator over a grid of lambdas around the switches CuMetal has to find
  (64, the double underflow of exp(-lambda) near 745, 1000, 4000), plus continued calls and an
  offset, and the four Sobol generators (2 dimensions);
* ``sobol/*``: tests/libs/golden/src/curand_sobol_poisson_goldens.cu built with nvcc against NVIDIA's
  curand_kernel.h: the Sobol32/64 device states (plain and scrambled, NVIDIA's own direction vectors
  and scramble constants from ``curandGetDirectionVectors32/64`` and ``curandGetScrambleConstants32/64``),
  12 tests x 8 values per (kind, dimension, offset);
* ``poisson/*``: ``curand_poisson`` in kernels for XORWOW, Philox4_32_10 and MRG32k3a at 12 lambdas.

``--parts=extra`` (written to ``OUTDIR/curand_poisson_extra_goldens.npz``) builds
tests/libs/golden/src/curand_poisson_extra_goldens.cu with nvcc: MTGP32's device ``curand_poisson``,
``curandCreatePoissonDistribution`` + ``curand_discrete``, and NVIDIA's distribution tables.

Reuses the ctypes wrapper of scripts/make_curand_goldens.py. Each part is recorded independently.
"""

from __future__ import annotations

import ctypes
import glob
import importlib.util
import pathlib
import shutil
import subprocess
import sys
import time
import traceback

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "tests" / "libs" / "golden" / "src" / "curand_sobol_poisson_goldens.cu"
EXTRA_SRC = ROOT / "tests" / "libs" / "golden" / "src" / "curand_poisson_extra_goldens.cu"
SOBOL_TESTS, POISSON_LAMBDAS, NVALS = 12, 12, 8
HOST_LAMBDAS = (0.01, 1.0, 10.0, 63.0, 63.99, 64.0, 64.5, 150.0, 500.0, 744.0, 746.0, 800.0, 999.0, 1000.0,
                1001.0, 1500.0, 2000.0, 3999.0, 4000.0, 4001.0, 10000.0, 100000.0)

_spec = importlib.util.spec_from_file_location("make_curand_goldens", ROOT / "scripts" / "make_curand_goldens.py")
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)  # type: ignore[union-attr]


def host_part(out: dict[str, np.ndarray]) -> None:
    inc = base.cuda_include()
    enums = base.parse_enums(inc) if inc is not None else {}
    cu = enums.get("curand.h", {})
    rng = {k: cu.get("CURAND_RNG_PSEUDO_" + k, cu.get("CURAND_RNG_QUASI_" + k, v)) for k, v in base.RNG.items()}
    c = base.Curand()

    def rec(key: str, r: int, n: int, lam: float, **kw: int) -> None:
        try:
            g = c.gen(r, **kw)
            try:
                out[key] = c.run(g, "poisson", n, lam)
            finally:
                c.destroy(g)
        except Exception as e:  # noqa: BLE001
            print(f"host {key}: {e}", flush=True)

    for name in ("XORWOW", "PHILOX4_32_10", "MRG32K3A", "MTGP32", "MT19937"):
        for lam in HOST_LAMBDAS:
            rec(f"host/{name}/poisson{lam:g}", rng[name], 2000, lam, seed=1234)
        for lam in (1000.0, 5000.0):  # many draws, to work out the large-lambda method
            rec(f"host/{name}/poisson{lam:g}_big", rng[name], 20000, lam, seed=1234)
    for name in ("XORWOW", "PHILOX4_32_10", "MRG32K3A"):
        rec(f"host/{name}/poisson4_off4099", rng[name], 2000, 4.0, seed=1234, offset=4099)
        try:  # calls continue the sequence; a second lambda on the same generator
            g = c.gen(rng[name], seed=1234)
            a = c.run(g, "poisson", 1000, 4.0)
            b = c.run(g, "poisson", 1000, 30.0)
            u = c.run(g, "u32", 1000)
            out[f"host/{name}/poisson_cont"] = np.concatenate([a, b, u])
            c.destroy(g)
        except Exception as e:  # noqa: BLE001
            print(f"host {name} cont: {e}", flush=True)
    for name in ("SOBOL32", "SCRAMBLED_SOBOL32", "SOBOL64", "SCRAMBLED_SOBOL64"):
        for lam in (0.5, 30.0, 100.0, 1000.0, 5000.0):
            rec(f"host/{name}/poisson{lam:g}_dims2", rng[name], 2 * 512, lam, dims=2)


def sobol_configs() -> np.ndarray:
    dims = [0, 1, 2, 5, 31, 199]
    offsets = [0, 1, 5, 1000, 123456]
    return np.array([(k, d, o) for k in range(4) for d in dims for o in offsets], dtype=np.uint64)


def pseudo_configs() -> np.ndarray:
    return np.array([(s, q, o) for s in (0, 1234, 0xDEADBEEFCAFE) for q in (0, 7, 123456789) for o in (0, 5)],
                    dtype=np.uint64)


def device_part(out: dict[str, np.ndarray], workdir: pathlib.Path) -> None:
    import cupy  # noqa: PLC0415

    inc = base.cuda_include()
    cands = ([str(inc.parent / "bin" / "nvcc")] if inc is not None else []) + \
        [shutil.which("nvcc") or "", "/usr/local/cuda/bin/nvcc", *sorted(glob.glob("/usr/local/cuda-*/bin/nvcc")),
         *sorted(glob.glob(sys.prefix + "/lib/python3*/site-packages/nvidia/*/bin/nvcc"))]
    nvcc = next((c for c in cands if c and pathlib.Path(c).is_file()), "nvcc")
    include = [f"-I{inc}"] if inc is not None else []
    cubin = workdir / "curand_sobol_poisson_goldens.cubin"
    t = time.time()
    proc = subprocess.run([nvcc, *include, "-cubin", "-arch=sm_90", "-O3", "-o", str(cubin), str(SRC)], capture_output=True,
                          text=True, check=False, timeout=300)
    print(f"nvcc: rc={proc.returncode} {time.time() - t:.1f}s {proc.stderr[-3000:]}", flush=True)
    mod = cupy.RawModule(path=str(cubin))
    c = base.Curand()
    tables = {}
    for key, fname, setv, words, ct in (("v32", "curandGetDirectionVectors32", 101, 32, ctypes.c_uint32),
                                        ("v32s", "curandGetDirectionVectors32", 102, 32, ctypes.c_uint32),
                                        ("v64", "curandGetDirectionVectors64", 103, 64, ctypes.c_uint64),
                                        ("v64s", "curandGetDirectionVectors64", 104, 64, ctypes.c_uint64)):
        p = ctypes.c_void_p()
        c.check(getattr(c.lib, fname)(ctypes.byref(p), ctypes.c_int(setv)), key)
        tables[key] = np.ctypeslib.as_array((ct * (200 * words)).from_address(p.value)).copy()
    for key, fname, ct in (("c32", "curandGetScrambleConstants32", ctypes.c_uint32),
                           ("c64", "curandGetScrambleConstants64", ctypes.c_uint64)):
        p = ctypes.c_void_p()
        c.check(getattr(c.lib, fname)(ctypes.byref(p)), key)
        tables[key] = np.ctypeslib.as_array((ct * 200).from_address(p.value)).copy()
    d = {k: cupy.asarray(v) for k, v in tables.items()}
    cfg = sobol_configs()
    n = len(cfg)
    buf = cupy.zeros(n * SOBOL_TESTS * NVALS, dtype=cupy.uint64)
    k = mod.get_function("goldens_sobol")
    k(((n + 31) // 32,), (32,), (cupy.asarray(cfg.reshape(-1)), np.int32(n), d["v32"], d["v32s"], d["c32"],
                                 d["v64"], d["v64s"], d["c64"], buf))
    cupy.cuda.runtime.deviceSynchronize()
    out["sobol/configs"] = cfg
    out["sobol/out"] = buf.get().reshape(n, SOBOL_TESTS, NVALS)
    pc = pseudo_configs()
    out["poisson/configs"] = pc
    for name in ("xorwow", "philox", "mrg"):
        try:
            m = len(pc)
            buf = cupy.zeros(m * POISSON_LAMBDAS * NVALS, dtype=cupy.uint64)
            mod.get_function(f"goldens_poisson_{name}")(((m + 31) // 32,), (32,),
                                                        (cupy.asarray(pc.reshape(-1)), np.int32(m), buf))
            cupy.cuda.runtime.deviceSynchronize()
            out[f"poisson/{name}"] = buf.get().reshape(m, POISSON_LAMBDAS, NVALS)
        except Exception as e:  # noqa: BLE001
            print(f"device poisson {name}: {e}", flush=True)


def _nvcc() -> tuple[str, list[str]]:
    inc = base.cuda_include()
    cands = ([str(inc.parent / "bin" / "nvcc")] if inc is not None else []) + \
        [shutil.which("nvcc") or "", "/usr/local/cuda/bin/nvcc", *sorted(glob.glob("/usr/local/cuda-*/bin/nvcc")),
         *sorted(glob.glob(sys.prefix + "/lib/python3*/site-packages/nvidia/*/bin/nvcc"))]
    return next((c for c in cands if c and pathlib.Path(c).is_file()), "nvcc"), ([f"-I{inc}"] if inc else [])


def extra_part(out: dict[str, np.ndarray], workdir: pathlib.Path) -> None:
    """tests/libs/golden/src/curand_poisson_extra_goldens.cu: MTGP32 device Poisson, device discrete
    distributions, and (-DDUMP_TABLES) NVIDIA's Poisson distribution tables, as raw bytes."""
    nvcc, include = _nvcc()
    so = pathlib.Path(base.load_curand()._name).resolve()
    lib = so.parent
    link = [f"-L{lib}", "-lcurand"] if (lib / "libcurand.so").exists() else [f"-Xlinker={so}"]
    exe = workdir / "curand_poisson_extra"
    cmd = [nvcc, *include, "-DDUMP_TABLES", "-arch=sm_90", "-O3", "-o", str(exe), str(EXTRA_SRC), *link,
           f"-Xlinker=-rpath,{lib}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)
    print(f"nvcc extra: rc={proc.returncode} {proc.stderr[-3000:]}", flush=True)
    raw = workdir / "extra.bin"
    run = subprocess.run([str(exe), str(raw)], capture_output=True, text=True, check=False, timeout=120)
    print(f"extra program: rc={run.returncode} {run.stdout[-200:]} {run.stderr[-2000:]}", flush=True)
    out["extra/raw"] = np.frombuffer(raw.read_bytes(), np.uint8)
    out["extra/tables"] = np.frombuffer(pathlib.Path(str(raw) + ".tables").read_bytes(), np.uint8)


def main() -> int:
    parts = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--parts=")), "device,host,extra")
    sys.argv[1:] = [a for a in sys.argv[1:] if not a.startswith("--parts")]
    outdir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    outdir.mkdir(parents=True, exist_ok=True)
    out: dict[str, np.ndarray] = {}
    for what, fn in (("device", lambda: device_part(out, outdir)), ("host", lambda: host_part(out)),
                     ("extra", lambda: extra_part(out, outdir))):
        if what not in parts.split(","):
            continue
        t = time.time()
        try:
            fn()
            print(f"{what}: done in {time.time() - t:.1f}s", flush=True)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    name = "curand_poisson_sobol_goldens.npz" if parts != "extra" else "curand_poisson_extra_goldens.npz"
    np.savez_compressed(outdir / name, **out)
    print(f"{len(out)} arrays", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
