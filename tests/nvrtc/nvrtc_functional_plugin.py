"""pytest plugin: run tests/functional with every kernel module compiled from its .cu source by
cumetal.nvrtc (instead of the nvcc-made .ptx next to it). Used by test_functional_via_nvrtc.py."""

from __future__ import annotations

import pathlib
import sys

FUNCTIONAL = pathlib.Path(__file__).resolve().parents[1] / "functional"
COMPILED: set[str] = set()


def pytest_configure(config) -> None:  # noqa: ANN001
    sys.path.insert(0, str(FUNCTIONAL))
    import functional_harness as harness

    from cumetal import driver as cu
    from cumetal import nvrtc

    def kernel(self, file: str, name: str):  # noqa: ANN001, ANN202
        if file not in self.modules:
            src = (harness.KERNELS / f"{file}.cu").read_bytes()
            err, prog = nvrtc.nvrtcCreateProgram(src, f"{file}.cu".encode(), 0, None, None)
            opts = [b"--gpu-architecture=sm_80"]  # what make_ptx.sh gives nvcc
            err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
            size = nvrtc.nvrtcGetProgramLogSize(prog)[1]
            log = bytearray(size)
            nvrtc.nvrtcGetProgramLog(prog, log)
            assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, f"{file}.cu: {err!r}\n{log.decode()}"
            ptx = bytearray(nvrtc.nvrtcGetPTXSize(prog)[1])
            nvrtc.nvrtcGetPTX(prog, ptx)
            nvrtc.nvrtcDestroyProgram(prog)
            self.modules[file] = harness.ok(cu.cuModuleLoadData(bytes(ptx)))
            COMPILED.add(file)
        return harness.ok(cu.cuModuleGetFunction(self.modules[file], name.encode()))

    harness.Gpu.kernel = kernel


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    terminalreporter.write_line(f"nvrtc-compiled modules: {','.join(sorted(COMPILED))}")
