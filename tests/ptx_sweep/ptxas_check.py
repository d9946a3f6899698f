"""Assemble sweep PTX with NVIDIA's ptxas (no GPU needed) to catch malformed cases early."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .case import Case


def find_ptxas() -> str | None:
    return os.environ.get("PTXAS") or shutil.which("ptxas") or (
        "/usr/local/bin/ptxas" if Path("/usr/local/bin/ptxas").exists() else None)


def _arch(case: Case) -> str:
    m = re.search(r"^\.target\s+(sm_\w+)", case.ptx, re.M)
    return m.group(1) if m else "sm_80"


def check_one(ptxas: str, case: Case, workdir: str) -> str | None:
    """None when ptxas accepts the case's PTX, else its diagnostics."""
    path = Path(workdir) / f"{case.name}.ptx"
    path.write_text(case.ptx)
    proc = subprocess.run([ptxas, f"-arch={_arch(case)}", str(path), "-o", os.devnull],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return f"{case.name}: {proc.stderr.strip() or proc.stdout.strip()}"
    return None


def check_all(ptxas: str, cases: list[Case] | tuple[Case, ...], jobs: int | None = None) -> list[str]:
    """ptxas diagnostics of every case that fails to assemble (parallel)."""
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs or (os.cpu_count() or 2)) as pool:
        return [r for r in pool.map(lambda c: check_one(ptxas, c, tmp), cases) if r]
