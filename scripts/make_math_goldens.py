"""Record NVIDIA's outputs of every device math function on the inputs of tests/math/math_cases.py.

On the NVIDIA machine (cupy + NVRTC):
    python scripts/make_math_goldens.py --out $OUT
writes math_goldens_f4.npz / math_goldens_f8.npz (one array per case output, key "<case>:<i>",
plus "<case>:inputs_crc" — a CRC32 of the generated inputs, so a reader can tell that its numpy
generates the same inputs) and math_goldens_meta.json (GPU, CUDA and driver versions).
Copy them to tests/math/golden/. With --backend cumetal the same program runs through CuMetal
instead (handy to check the script; the output has the same format).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "math"))
import math_cases as mc  # noqa: E402

SIZES = {"f4": 8192, "f8": 4096}


def inputs_crc(arrays: list[np.ndarray]) -> int:
    crc = 0
    for a in arrays:
        crc = zlib.crc32(np.ascontiguousarray(a).tobytes(), crc)
    return crc


DEFAULT_OPTIONS = "-std=c++17 -ftz=false -prec-div=true -prec-sqrt=true -fmad=true"


def nvrtc_ptx(src: str, options: tuple[str, ...], arch: str) -> bytes:
    """Compile with NVRTC through cuda-python: cupy's own compile path appends -ftz=true to
    every option list (cupy/cuda/compiler.py), which would flush float denormals."""
    from cuda.bindings import nvrtc  # noqa: PLC0415

    err, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"math_eval.cu", 0, [], [])
    opts = [o.encode() for o in options] + [f"-arch={arch}".encode()]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(log.decode(errors="replace"))
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * size
    nvrtc.nvrtcGetPTX(prog, ptx)
    return ptx


def run_cupy(cases: list[mc.Case], options: str = DEFAULT_OPTIONS) -> tuple[dict[str, np.ndarray], dict]:
    import tempfile  # noqa: PLC0415

    import cupy as cp  # noqa: PLC0415

    opts = tuple(options.split())
    props = cp.cuda.runtime.getDeviceProperties(0)
    arch = f"compute_{props['major']}{props['minor']}"
    tmp = Path(tempfile.mkdtemp())

    def load(cs: list[mc.Case], tag: str):
        path = tmp / f"{tag}.ptx"
        path.write_bytes(nvrtc_ptx(mc.kernel_source(cs), opts, arch).rstrip(b"\0 "))
        return cp.RawModule(path=str(path))

    t0 = time.time()
    try:
        mod = load(cases, "all")
        modules = {c.name: mod for c in cases}
    except Exception as exc:  # noqa: BLE001 - fall back to one module per case, skip the failures
        print("whole-module compile failed, per case:", str(exc)[:2000], flush=True)
        modules = {}
        for c in cases:
            try:
                modules[c.name] = load([c], c.name)
            except Exception as e2:  # noqa: BLE001
                print("SKIP", c.name, str(e2)[:300], flush=True)
    print(f"compiled in {time.time() - t0:.1f}s", flush=True)
    out: dict[str, np.ndarray] = {}
    for c in cases:
        if c.name not in modules:
            continue
        n = SIZES[c.dtype]
        ins = mc.make_inputs(c, n)
        dins = [cp.asarray(a) for a in ins]
        while len(dins) < 4:
            dins.append(dins[0])
        douts = [cp.zeros(n, dt) for dt in mc.output_dtypes(c)]
        d2 = douts + [douts[0]] * (2 - len(douts))
        fn = modules[c.name].get_function("k_" + c.name)
        fn(((n + 127) // 128,), (128,), (*dins, d2[0], d2[1], np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        for i, d in enumerate(douts):
            out[f"{c.name}:{i}"] = cp.asnumpy(d)
        out[f"{c.name}:inputs_crc"] = np.array([inputs_crc(ins)], np.uint32)
    from cuda.bindings import nvrtc  # noqa: PLC0415

    meta = {"gpu": props["name"].decode(), "cc": f"{props['major']}.{props['minor']}",
            "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(), "driver": cp.cuda.runtime.driverGetVersion(),
            "nvrtc": list(nvrtc.nvrtcVersion()[1:]), "options": [*opts, f"-arch={arch}"],
            "compiler": "NVRTC via cuda-python, PTX loaded by cupy", "sizes": SIZES}
    return out, meta


def run_cumetal(cases: list[mc.Case], options: str = "") -> tuple[dict[str, np.ndarray], dict]:
    import runner  # noqa: PLC0415

    r = runner.Runner()
    mod = r.load(runner.compile_cases(cases))
    out: dict[str, np.ndarray] = {}
    for c in cases:
        ins = mc.make_inputs(c, SIZES[c.dtype])
        try:
            res = r.run(mod, c, ins)
        except RuntimeError as exc:
            print("SKIP", c.name, exc)
            continue
        for i, a in enumerate(res):
            out[f"{c.name}:{i}"] = a
        out[f"{c.name}:inputs_crc"] = np.array([inputs_crc(ins)], np.uint32)
    return out, {"backend": "cumetal"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--backend", choices=("cupy", "cumetal"), default="cupy")
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--dtype", choices=("f4", "f8", "both"), default="both")
    ap.add_argument("--tag", default="", help="file name suffix, e.g. 'ftz' -> math_goldens_f4_ftz.npz")
    ap.add_argument("--nvrtc-options", default=DEFAULT_OPTIONS,
                    help="NVRTC options (cupy's defaults flush denormals: say -ftz=false explicitly)")
    args = ap.parse_args(argv)
    cases = mc.all_cases()
    if args.only:
        keep = set(args.only.split(","))
        cases = [c for c in cases if c.name in keep]
    if args.dtype != "both":
        cases = [c for c in cases if c.dtype == args.dtype]
    out, meta = (run_cupy if args.backend == "cupy" else run_cumetal)(cases, args.nvrtc_options)
    args.out.mkdir(parents=True, exist_ok=True)
    sfx = f"_{args.tag}" if args.tag else ""
    for dt in ("f4", "f8") if args.dtype == "both" else (args.dtype,):
        names = {c.name for c in cases if c.dtype == dt}
        part = {k: v for k, v in out.items() if k.split(":")[0] in names}
        np.savez_compressed(args.out / f"math_goldens_{dt}{sfx}.npz", **part)
    meta["cases"] = len({k.split(":")[0] for k in out})
    (args.out / f"math_goldens_meta{sfx}.json").write_text(json.dumps(meta, indent=1))
    print(json.dumps(meta), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
