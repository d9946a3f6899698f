#!/usr/bin/env python3
"""Build and run NVIDIA's CUDALibrarySamples (cuBLAS, cuBLASLt, cuRAND) with cumetalc or nvcc.

CuMetal ships none of the samples' code: point --src at a checkout (or a `git archive`) of
github.com/NVIDIA/CUDALibrarySamples holding cuBLAS/, cuBLASLt/ and cuRAND/. Each sample is built
directly, without its CMake project: one program per source file for cuBLAS (with -I cuBLAS/utils)
and cuRAND (with -I cuRAND/utils), one program per directory for cuBLASLt (its sources plus
Common/helpers.cpp, with -I Common), linked with -lcublas -lcublasLt -lcurand (-lcuda as well for
LtSgemmGreenContext, which uses the driver API). cuBLAS/Emulation/gemm_grading (a grading tool
needing a host BLAS and arguments) is left out.

    git -C CUDALibrarySamples archive HEAD cuBLAS cuBLASLt cuRAND | tar -x -C /tmp/cls
    # CuMetal, cpu device (builds kept and reused under .work/cuda_library_samples/cumetalc)
    python scripts/run_cuda_library_samples.py --src /tmp/cls --json cumetal.json
    # nvcc on an NVIDIA machine (-arch=sm_90 unless --arch)
    python scripts/run_cuda_library_samples.py --compiler nvcc --src /tmp/cls --jobs 16 --json h100.json
    # per sample: built / ran (same exit status as the reference) / identical / close (numbers within
    # --rtol, text equal) / failing with the first cause
    python scripts/run_cuda_library_samples.py --compare cumetal.json \
        tests/libs/golden/cuda_library_samples_h100.json

The H100 reference (tests/libs/golden/cuda_library_samples_h100.json: stdout and exit status per
sample, and the commit of the samples) was made by this script with CUDA 13.0's nvcc on one H100
(--compiler nvcc --jobs 16). What legitimately differs between machines is masked before comparing
(normalise()): pointer values (numbered by first appearance) and timing figures; the samples listing
cuBLASLt's algorithms (ALGO_LISTING) are compared by exit status only.

The H100 reference took cuBLAS/ and cuRAND/ at 34377293 (2026-08-19) and cuBLASLt/ at 64eecf05
(2025-12-02): later cuBLASLt trees need CUDA 13.1's cublasLt.h (CUBLASLT_MATMUL_MATRIX_SCALE_PER_BATCH_
SCALAR_32F, grouped GEMM) and the H100 machine has CUDA 13.0. So:

    git -C CUDALibrarySamples archive 34377293 cuBLAS cuRAND | tar -x -C /tmp/cls
    git -C CUDALibrarySamples archive 64eecf05 cuBLASLt | tar -x -C /tmp/cls
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # scripts/program_runs.py
import program_runs  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parent.parent
LIBS = ["-lcublas", "-lcublasLt", "-lcurand"]
SKIP = {"cuBLAS/Emulation/gemm_grading"}
# Samples that print the algorithms cuBLASLt's heuristics or a search over NVIDIA's algorithm space found
# (ids, tiles, timings of the H100's kernels; CuMetal computes one matmul whatever the algorithm): only the
# exit status is compared.
ALGO_LISTING = {"cuBLASLt/LtSgemmCustomFind", "cuBLASLt/LtFp8CustomFind", "cuBLASLt/LtSgemmSimpleAutoTuning"}
# The searches time up to 100 configurations of NVIDIA's algorithms 10 times each: LtSgemmCustomFind's 1000
# float32 matmuls of 1024 x 512 x 4096 took 132 s on the cpu device, so it runs with at least this timeout.
# LtFp8CustomFind's FP8 ones (exact products, float64 sums) ran past 10 minutes; the H100's run timed out too.
SEARCHES = {"cuBLASLt/LtSgemmCustomFind": 600}
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)"


def samples(src: pathlib.Path) -> list[tuple[str, list[pathlib.Path], list[pathlib.Path], list[str]]]:
    """(name, sources, include dirs, extra libraries) of each sample; the name is its path in the tree."""
    out = []
    for d in sorted(p for p in src.glob("cuBLAS/*/*") if p.is_dir()):
        if str(d.relative_to(src)) in SKIP:
            continue
        out += [(str(f.relative_to(src)), [f], [src / "cuBLAS/utils"], []) for f in sorted(d.glob("*.cu"))]
    common = src / "cuBLASLt/Common"
    for d in sorted(p for p in src.glob("cuBLASLt/*") if p.is_dir() and p != common):
        srcs = sorted([*d.glob("*.cu"), *d.glob("*.cpp")]) + [common / "helpers.cpp"]
        libs = ["-lcuda"] if "GreenContext" in d.name else []
        out.append((str(d.relative_to(src)), srcs, [common, d], libs))
    for d in sorted(p for p in src.glob("cuRAND/*/*") if p.is_dir()):
        out += [(str(f.relative_to(src)), [f], [src / "cuRAND/utils"], [])
                for f in sorted([*d.glob("*.cu"), *d.glob("*.cpp")])]
    return out


def compile_cmd(args, sources, incs, libs, exe: pathlib.Path) -> list[str]:
    flags = ["-std=c++17", "-O2", *[f"-I{d}" for d in incs], *map(str, sources), "-o", str(exe), *LIBS, *libs]
    if args.compiler == "nvcc":
        return ["nvcc", f"-arch={args.arch}", *flags]
    return ["nice", sys.executable, "-m", "cumetal.tools.cumetalc", *flags]


def run_all(args) -> dict:
    build = args.out.resolve()
    build.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CUMETAL_BACKEND=args.backend)  # CuMetal's diagnostics go to stderr (kept, not compared)
    results = {}
    if args.json and args.json.is_file():
        results = json.loads(args.json.read_text()).get("samples", {})
    todo = [s for s in samples(args.src) if not args.only or re.search(args.only, s[0])]

    def job(item) -> program_runs.Job:
        name, sources, incs, libs = item
        exe = build / name.replace("/", "__").rsplit(".", 1)[0]
        return program_runs.Job(name, exe, compile_cmd(args, sources, incs, libs, exe), list(sources), {})

    def settings(run_timeout: float) -> program_runs.Settings:
        return program_runs.Settings(build, env, args.build_timeout, run_timeout, rebuild=args.rebuild,
                                     error_lines=20, stderr_tail=3000, json_path=args.json,
                                     json_head={"compiler": args.compiler}, json_key="samples", jobs=args.jobs)

    slow = [s for s in todo if s[0] in SEARCHES and args.compiler == "cumetalc"]
    results = program_runs.build_and_run(map(job, [s for s in todo if s not in slow]), settings(args.run_timeout),
                                         results)
    for item in slow:
        results = program_runs.build_and_run([job(item)], settings(max(args.run_timeout, SEARCHES[item[0]])), results)
    return results


def normalise(text: str) -> str:
    """The output with what legitimately differs between machines masked: pointers printed become
    P1, P2, ... in order of first appearance; figures on lines about time or speed become #."""
    seen: dict[str, str] = {}
    text = re.sub(r"0x[0-9a-fA-F]{6,}", lambda m: seen.setdefault(m.group(0), f"P{len(seen) + 1}"), text)
    lines = [re.sub(NUM, "#", ln) if re.search(r"(?i)\btime|\bms\b|msec|GFLOP|TFLOP|/s\b", ln) else ln
             for ln in text.splitlines()]
    return "\n".join(lines)


def close(a: str, b: str, rtol: float) -> bool:
    """Same text around the numbers, and each number within rtol (relative, or absolute below 1)."""
    if re.split(NUM, a) != re.split(NUM, b):
        return False
    xs, ys = re.findall(NUM, a), re.findall(NUM, b)
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys, strict=True):
        fx, fy = float(x), float(y)
        if fx != fy and not (abs(fx - fy) <= rtol * max(1.0, abs(fx), abs(fy))):
            return False
    return True


def compare(ours: pathlib.Path, ref: pathlib.Path, rtol: float = 1e-3, verbose: bool = False) -> int:
    a = json.loads(ours.read_text())["samples"]
    b = json.loads(ref.read_text())["samples"]
    counts = {"samples": 0, "built": 0, "ran": 0, "identical": 0, "close": 0, "algo listing": 0}
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name, {}), b.get(name, {})
        if not x:
            continue  # not run here (--only)
        counts["samples"] += 1
        built = x.get("build_rc") == 0
        ran = built and x.get("run_rc") == y.get("run_rc")
        if name in ALGO_LISTING and built:
            # it finished (the H100's run finished or timed out), or both timed out (LtFp8CustomFind)
            ok = (x.get("run_rc") == 0 and y.get("run_rc") in (0, "timeout")) or \
                x.get("run_rc") == y.get("run_rc") == "timeout"
            counts["ran"] += ok
            counts["algo listing"] += ok
            print(("ALGO " if ok else "FAIL ") + f"{name}: run rc {x.get('run_rc')} (reference {y.get('run_rc')}); "
                  "its algorithm listing is not compared")
            counts["built"] += 1
            continue
        sx, sy = normalise(x.get("stdout", "")), normalise(y.get("stdout", ""))
        same = ran and sx == sy
        near = ran and not same and close(sx, sy, rtol)
        counts["built"] += built
        counts["ran"] += ran
        counts["identical"] += same
        counts["close"] += near
        if near:
            print(f"CLOSE {name}")
        elif not same:
            why = ("build failed: " + next((ln for ln in x.get("build_err", "").splitlines() if "error" in ln), "?")
                   if not built else f"run rc {x.get('run_rc')} (reference {y.get('run_rc')}): "
                   + (x.get("stderr", "") + x.get("stdout", "")).strip()[-300:].replace("\n", " | ")
                   if not ran else "output differs")
            print(f"FAIL {name}: {why}")
            if verbose and ran:
                import difflib
                print("\n".join(difflib.unified_diff(sy.splitlines(), sx.splitlines(), "H100", "ours",
                                                     lineterm="", n=1)))
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 0 if counts["identical"] + counts["close"] + counts["algo listing"] == counts["samples"] else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=pathlib.Path, help="CUDALibrarySamples tree (cuBLAS/, cuBLASLt/, cuRAND/)")
    ap.add_argument("--compiler", choices=("cumetalc", "nvcc"), default="cumetalc")
    ap.add_argument("--arch", default="sm_90", help="nvcc's -arch")
    ap.add_argument("--backend", default="cpu", help="CUMETAL_BACKEND for the runs")
    ap.add_argument("--out", type=pathlib.Path, help="build dir (default .work/cuda_library_samples/<compiler>)")
    ap.add_argument("--only", help="regular expression on the sample names")
    ap.add_argument("--json", type=pathlib.Path, help="results file (updated after every sample)")
    ap.add_argument("--jobs", type=int, default=1, help="parallel builds (the runs stay sequential)")
    ap.add_argument("--rebuild", action="store_true", help="build again even where a build is up to date")
    ap.add_argument("--build-timeout", type=int, default=600)
    ap.add_argument("--run-timeout", type=int, default=120)
    ap.add_argument("--compare", nargs=2, type=pathlib.Path, metavar=("OURS", "REFERENCE"))
    ap.add_argument("--rtol", type=float, default=1e-3, help="--compare: what counts as close")
    ap.add_argument("-v", "--verbose", action="store_true", help="--compare: diff differing outputs")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare, rtol=args.rtol, verbose=args.verbose)
    if not args.src or not (args.src / "cuBLAS").is_dir():
        ap.error("--src must name a CUDALibrarySamples tree holding cuBLAS/, cuBLASLt/ and cuRAND/")
    args.src = args.src.resolve()
    if args.compiler == "nvcc" and not shutil.which("nvcc"):
        ap.error("nvcc is not on PATH")
    args.out = args.out or REPO / ".work/cuda_library_samples" / args.compiler
    run_all(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
