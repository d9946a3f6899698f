"""Building and running the CCCL test programs (tests/cccl/programs): shared by the test files."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from tests.cccl.cccl_install import cccl_version

PROGRAMS = pathlib.Path(__file__).parent / "programs"


def build(cccl: pathlib.Path, names: tuple[str, ...], out: pathlib.Path, timeout: int = 900) -> dict[str, pathlib.Path]:
    """``cumetalc -I<cccl> programs/<name>.cu -o out/<name>`` for each name, with a private compile cache
    (the diagnostics checked are this front end's): nvcc is quiet on CCCL's headers, so must it be."""
    exes = {}
    env = dict(os.environ, CUMETAL_CUDACXX_CACHE_DIR=str(out / "cache"))
    for name in names:
        exe = out / name
        proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", f"-I{cccl}",
                               str(PROGRAMS / f"{name}.cu"), "-o", str(exe)],
                              capture_output=True, text=True, timeout=timeout, check=False, env=env)
        assert proc.returncode == 0, f"cumetalc failed for {name} (CCCL {cccl_version(cccl)}):\n" + \
            proc.stderr[-6000:]
        noisy = [ln for ln in proc.stderr.splitlines() if "warning" in ln and str(cccl) in ln]
        assert not noisy, "\n".join(noisy[:10])
        exes[name] = exe
    return exes


def run(exe: pathlib.Path, args: list[int], backend: str = "cpu", timeout: int = 600) -> list[str]:
    """The names of the checks the program printed as ``ok NAME`` (it must end with PASSED)."""
    env = dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout,
                          check=False)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[-1:] == ["PASSED"], proc.stdout + proc.stderr[-3000:]
    return [ln.removeprefix("ok ") for ln in lines[:-1]]
