"""The functional suite (tests/functional, spec §10.3) with its kernels compiled from their CUDA C++
sources by cumetal.nvrtc, on the CPU backend, checked by that suite's own numpy references."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def test_functional_suite_passes_with_nvrtc_compiled_kernels():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
               CUMETAL_BACKEND="cpu")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "nvrtc_functional_plugin",
                           "-p", "no:cacheprovider", str(HERE.parent / "functional")],
                          capture_output=True, text=True, env=env, cwd=HERE.parents[1], timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    # the modules the suite's harness loads: the .cu files that also have nvcc's PTX beside them (the
    # suite's other .cu files are compiled by their own tests with cumetal.cudacxx)
    kernels = HERE.parent / "functional" / "kernels"
    sources = sorted(p.stem for p in kernels.glob("*.cu") if p.with_suffix(".ptx").exists())
    assert f"nvrtc-compiled modules: {','.join(sources)}" in proc.stdout
