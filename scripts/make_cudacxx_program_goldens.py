#!/usr/bin/env python3
"""Record what NVIDIA's toolchain prints for the CUDA C++ programs of tests/cudacxx/programs.

Each ``<name>.cu`` is built with ``nvcc -arch=sm_90`` (``-rdc=true -lcudadevrt`` for the ones
calling the device runtime API) and run; its stdout and exit status go to ``<out>/<name>.txt``
(first line ``# rc=<status> nvcc <version>``). tests/cudacxx/test_realistic_programs.py compares CuMetal's
output of the same program with these files.

Usage (on a machine with an NVIDIA GPU and nvcc):
    python3 scripts/make_cudacxx_program_goldens.py [--out tests/cudacxx/programs/h100] [names...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "cudacxx" / "programs"
NEEDS_RDC = {"device_runtime"}


def _record(src: Path, out: Path, work: Path, version: str) -> str:
    exe = work / src.stem
    flags = ["-rdc=true", "-lcudadevrt"] if src.stem in NEEDS_RDC else []
    build = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "--extended-lambda", "--expt-relaxed-constexpr", *flags, str(src), "-o",
                            str(exe)], capture_output=True, text=True, timeout=300)
    if build.returncode != 0:
        text = f"# build failed rc={build.returncode} nvcc {version}\n{build.stderr}"
    else:
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
        text = f"# rc={run.returncode} nvcc {version}\n{run.stdout}"
    (out / f"{src.stem}.txt").write_text(text)
    return f"{src.stem}: {text.splitlines()[0]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=PROGRAMS / "h100")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    srcs = sorted(p for p in PROGRAMS.glob("*.cu") if not args.names or p.stem in args.names)
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(8) as pool:
        for line in pool.map(lambda s: _record(s, args.out, Path(tmp), version), srcs):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
