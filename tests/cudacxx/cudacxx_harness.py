"""The CUDA C++ front-end tests' harness: a ``Gpu`` whose modules come from ``.cu`` sources compiled
by CuMetal's front end (clang 22 -> PTX), run through ``cumetal.driver``. (Kept out of conftest.py:
test modules of several directories import "conftest" by name, and only one can be that module.)"""

from __future__ import annotations

import io
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUNCTIONAL = ROOT / "tests" / "functional"
if str(FUNCTIONAL) not in sys.path:  # the functional suite's harness and test bodies are reused
    sys.path.insert(0, str(FUNCTIONAL))

from functional_harness import KERNELS, Gpu, ok  # noqa: E402

from cumetal import driver as cu  # noqa: E402
from cumetal.cudacxx.compile import compile_to_ptx  # noqa: E402
from cumetal.cudacxx.options import CudaOptions  # noqa: E402


def ptx_of(source: str, filename: str = "test.cu", **options) -> str:
    return compile_to_ptx(source, filename, CudaOptions(**options)).ptx


def cumetalc_ptx(path: pathlib.Path) -> str:
    """``cumetalc <path> -ptx -o -``, in-process: the PTX a user of the command line gets."""
    from cumetal.tools.cumetalc import main

    out, err = io.StringIO(), io.StringIO()
    code = main([str(path), "-ptx", "-o", "-"], out=out, err=err)
    assert code == 0, err.getvalue()
    return out.getvalue()


class CuGpu(Gpu):
    """The functional harness, but ``kernel(file, name)`` loads ``kernels/<file>.cu`` compiled by
    ``cumetalc -ptx`` (CuMetal's CUDA C++ front end) instead of the nvcc-made ``kernels/<file>.ptx``."""

    def kernel(self, file: str, name: str):
        if file not in self.modules:
            self.modules[file] = ok(cu.cuModuleLoadData(cumetalc_ptx(KERNELS / f"{file}.cu").encode()))
        return ok(cu.cuModuleGetFunction(self.modules[file], name.encode()))

    def load(self, source: str, filename: str = "test.cu", **options):
        """Compile ``source`` and load it as a module."""
        m = ok(cu.cuModuleLoadData(ptx_of(source, filename, **options).encode()))
        self.modules[f"<{len(self.modules)}>"] = m
        return m

    def function(self, module, name: str):
        return ok(cu.cuModuleGetFunction(module, name.encode()))
