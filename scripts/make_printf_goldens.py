#!/usr/bin/env python3
"""Record the device printf goldens on an NVIDIA GPU (tests/printf).

Compiles tests/printf/printf_cases.cu with nvcc, runs it (one thread prints every case; NVIDIA's
driver formats the records on the host), and writes into --out:
  golden_nvidia.txt   the program's stdout, byte for byte
  printf_cases.ptx    nvcc's PTX of the kernel (the tests run it on every CuMetal backend)
  provenance.json     GPU, driver and nvcc versions, date, git hash

Usage (on a machine with an NVIDIA GPU and nvcc):
    python3 scripts/make_printf_goldens.py [--out DIR] [--arch sm_90]
then copy the three files into tests/printf/.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "printf" / "printf_cases.cu"


def _out(cmd: list[str]) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "printf")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--git-hash", default=None, help="the commit the tree was copied from (no .git there)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp, "printf_cases")
        subprocess.run(["nvcc", f"-arch={args.arch}", "-o", str(exe), str(SOURCE)], check=True)
        subprocess.run(["nvcc", f"-arch={args.arch}", "-ptx", "-o", str(args.out / "printf_cases.ptx"), str(SOURCE)],
                       check=True)
        run = subprocess.run([str(exe)], capture_output=True, check=True)
    (args.out / "golden_nvidia.txt").write_bytes(run.stdout)
    prov = {
        "gpu": _out(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
        "nvcc": _out(["nvcc", "--version"]).splitlines()[-1],
        "arch": args.arch,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),  # noqa: UP017
        "git": args.git_hash or _out(["git", "-C", str(ROOT), "rev-parse", "HEAD"]),
        "source": "tests/printf/printf_cases.cu",
    }
    (args.out / "provenance.json").write_text(json.dumps(prov, indent=2) + "\n")
    print(run.stdout.decode("utf-8", "replace"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
