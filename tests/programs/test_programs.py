"""Real CUDA programs (``tests/programs/src``) built with ``build_program`` — what ``cumetalc … -o``
does — and run as processes on the CPU backend. Each program checks its own results (independent
truth: values computed in the program, CUDA's documented error codes) and prints PASS/FAIL."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cumetal.capi.build import BuildError, build_program
from cumetal.capi.library import library_path
from cumetal.cudacxx.options import CudaOptions

SRC = Path(__file__).resolve().parent / "src"
PROGRAMS = {
    "device_query": ["device_query.cu"],
    "memory": ["memory.cu"],
    "streams_events": ["streams_events.cu"],
    "launch": ["launch.cu"],
    "sticky_error": ["sticky_error.cu"],
    "driver_api": ["driver_api.c"],
    "multi_file": ["multi/main.cpp", "multi/kernels.cu"],
    "graphs_pools": ["graphs_pools.cu"],
    "graph_api": ["graph_api.cu"],
    "nvtx": ["nvtx.cpp"],
    "linker": ["linker.c"],
    "launch_attributes": ["launch_attributes.cu"],
    "nvrtc_api": ["nvrtc_api.cpp"],
    "versions": ["versions.cu"],
    "managed": ["managed.cu"],
    "minmax": ["minmax/host.cpp", "minmax/minmax.cu"],
    "cg_multiwarp": ["cg_multiwarp.cu"],
    "conditional_graphs": ["conditional_graphs.cu"],
    "ipc": ["ipc.cu"],
    "runtime_more": ["runtime_more.cu"],
    "driver_more": ["driver_more.c"],
    "cuda13": ["cuda13.cu"],
    "nvvm_api": ["nvvm_api.c"],
    "driver_exports": ["driver_exports.c"],
    "spin_clock": ["spin_clock.cu"],
    "host_headers": ["host_headers/main.cu", "host_headers/fp16.cpp", "host_headers/plain.c"],
    "std_kernel_names": ["std_kernel_names.cu"],
    "stub_without_config": ["stub_without_config.cu"],
    "shared_nontrivial": ["shared_nontrivial.cu"],
    "old_style": ["old_style/main.cu", "old_style/helpers.c"],
    "nvcc_builtins": ["nvcc_builtins.cu"],
}

EXTRA_LIBRARIES = {"host_headers": ["cublas"]}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["CUMETAL_BACKEND"] = "cpu"
    env["CUMETAL_QUIET"] = "1"
    return env


def _run(exe: Path, cwd: Path, backend: str = "cpu") -> subprocess.CompletedProcess:
    env = _env() | {"CUMETAL_BACKEND": backend}
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, cwd=cwd, env=env, check=False)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program(name: str, programs_dir: Path) -> None:
    if name in ("ipc", "cuda13") and not hasattr(os, "memfd_create"):
        pytest.skip("CUDA IPC on CuMetal needs Linux")
    exe = programs_dir / name
    build_program([SRC / f for f in PROGRAMS[name]], exe, CudaOptions(include_dirs=[str(SRC)]),
                  libraries=["cudart", *EXTRA_LIBRARIES.get(name, [])])
    proc = _run(exe, programs_dir)
    assert proc.returncode == 0 and f"{name}: PASS" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("g++") is None, reason="the simulators need gcc/g++")
@pytest.mark.parametrize("backend", ["air-sim", "msl-sim"])
@pytest.mark.parametrize("name", ["launch", "memory"])
def test_program_on_apple_simulators(name: str, backend: str, programs_dir: Path) -> None:
    """The same executables on the Linux harnesses of the Apple back ends (AIR in a .metallib,
    Metal Shading Language), chosen at run time by CUMETAL_BACKEND."""
    exe = programs_dir / name
    if not exe.exists():
        build_program([SRC / f for f in PROGRAMS[name]], exe, CudaOptions(include_dirs=[str(SRC)]))
    proc = _run(exe, programs_dir, backend)
    assert proc.returncode == 0 and f"{name}: PASS" in proc.stdout, proc.stdout + proc.stderr


def test_device_printf_order(programs_dir: Path) -> None:
    """Kernel printf appears after the program's earlier output and before its later output."""
    exe = programs_dir / "launch_order"
    if not exe.exists():
        build_program([SRC / "launch.cu"], exe, CudaOptions(include_dirs=[str(SRC)]))
    out = _run(exe, programs_dir).stdout
    assert out.count("hello from block") == 2
    assert out.index("hello from block") < out.index("launch: PASS")


def test_separate_compile_and_link(programs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """-c objects (nvcc's naming: <stem>.o in the working directory) link in a later call."""
    monkeypatch.chdir(programs_dir)
    objs = build_program([SRC / "multi/kernels.cu"], None, CudaOptions(), compile_only=True)
    assert objs == [programs_dir / "kernels.o"] and objs[0].is_file()
    exe = programs_dir / "multi_separate"
    build_program([SRC / "multi/main.cpp", objs[0]], exe, CudaOptions(), libraries=["cudart", "m"])
    assert "multi_file: PASS" in _run(exe, programs_dir).stdout


def test_relocatable_device_code(programs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """-rdc=true: device code linked across translation units, in one call and from -dc objects."""
    opts = CudaOptions(include_dirs=[str(SRC)], rdc=True)
    exe = programs_dir / "rdc_one_step"
    build_program([SRC / "rdc/main.cu", SRC / "rdc/lib.cu"], exe, opts)
    assert "rdc: PASS" in _run(exe, programs_dir).stdout
    monkeypatch.chdir(programs_dir)
    objs = build_program([SRC / "rdc/main.cu", SRC / "rdc/lib.cu"], None, opts, compile_only=True)
    exe2 = programs_dir / "rdc_two_steps"
    build_program(objs, exe2, CudaOptions())
    proc = _run(exe2, programs_dir)
    assert proc.returncode == 0 and "rdc: PASS" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_plain_c_compiler_links_libcumetal(programs_dir: Path) -> None:
    """A C program built by the system compiler with `python -m cumetal.capi.library --cflags --libs`."""
    flags = subprocess.run([sys.executable, "-m", "cumetal.capi.library", "--cflags", "--libs"], capture_output=True,
                           text=True, check=True).stdout.split()
    exe = programs_dir / "driver_api_cc"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-I", str(SRC), str(SRC / "driver_api.c"), "-o", str(exe),
                    *flags], check=True, capture_output=True)
    proc = _run(exe, programs_dir)
    assert proc.returncode == 0 and "driver_api: PASS" in proc.stdout, proc.stdout + proc.stderr


def test_program_keeps_its_signal_handlers(programs_dir: Path) -> None:
    """Python must not take over SIGINT: the program's own handler runs during a CUDA call."""
    import signal
    import time

    exe = programs_dir / "signals"
    build_program([SRC / "signals.cu"], exe)
    env = _env() | {"CUMETAL_WATCHDOG_SECONDS": "120"}
    proc = subprocess.Popen([str(exe)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "signals: ready"
    time.sleep(1.0)  # the kernel is running; the main thread waits in cudaDeviceSynchronize
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3 and "caught SIGINT" in out, out + err


def test_runs_from_any_shell(programs_dir: Path) -> None:
    """./app finds libcumetal (rpath) and CuMetal (baked sys.path) with an empty environment."""
    exe = programs_dir / "device_query_env"
    build_program([SRC / "device_query.cu"], exe, CudaOptions(include_dirs=[str(SRC)]))
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, cwd="/",
                          env={"PYTHONPATH": "/nonexistent", "PYTHONHOME": "/nonexistent"}, check=False)
    assert proc.returncode == 0 and "device_query: PASS" in proc.stdout, proc.stdout + proc.stderr


def test_build_errors_are_reported(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k() { undeclared_thing(); }\nint main() { return 0; }\n")
    with pytest.raises(BuildError) as info:
        build_program([bad], tmp_path / "bad")
    assert "bad.cu:1:" in info.value.log and "undeclared_thing" in info.value.log
    with pytest.raises(BuildError, match="no such file"):
        build_program([tmp_path / "missing.cu"], tmp_path / "x")
    with pytest.raises(BuildError, match="cannot build a program from"):
        build_program([tmp_path / "notes.txt"], tmp_path / "x")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA toolkit) not installed")
def test_nvcc_built_program_runs_on_libcumetal(programs_dir: Path) -> None:
    """A program compiled by NVIDIA's nvcc 13 (-cudart=none, PTX in its fatbinary) links against
    libcumetal and runs: nvcc's registration, __cudaGetKernel/__cudaLaunchKernel, __managed__."""
    src = programs_dir / "nvcc_prog.cu"
    src.write_text(NVCC_PROGRAM)
    exe = programs_dir / "nvcc_prog"
    libdir = library_path().parent
    subprocess.run(["nvcc", "-gencode", "arch=compute_80,code=compute_80", "-cudart=none", "-o", str(exe), str(src),
                    f"-L{libdir}", "-lcumetal", "-Xlinker", f"-rpath,{libdir}"], check=True, capture_output=True,
                   timeout=300)
    proc = _run(exe, programs_dir)
    assert proc.returncode == 0 and "nvcc_prog: PASS" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA toolkit) not installed")
def test_opt_in_binary_shim(programs_dir: Path) -> None:
    """The opt-in shim: a program linked by nvcc against NVIDIA's shared libcudart.so.13 loads
    libcumetal through the shim's link; without CUMETAL_ENABLE_BINARY_SHIM=1 it is refused."""
    from cumetal.capi import shim

    src = programs_dir / "nvcc_shared.cu"
    src.write_text(NVCC_PROGRAM.replace("nvcc_prog", "nvcc_shared"))
    exe = programs_dir / "nvcc_shared"
    subprocess.run(["nvcc", "-gencode", "arch=compute_80,code=compute_80", "-cudart=shared", "-o", str(exe), str(src)],
                   check=True, capture_output=True, timeout=300)
    shim_dir = programs_dir / "shim"
    assert subprocess.run([sys.executable, "-m", "cumetal.capi.shim", str(shim_dir)], capture_output=True,
                          env=_env(), check=False).returncode == 1 and not shim_dir.exists()
    shim.install(shim_dir)
    env = _env() | {"LD_LIBRARY_PATH": str(shim_dir)}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0 and "nvcc_shared: PASS" in proc.stdout, proc.stdout + proc.stderr


NVCC_PROGRAM = r"""
#include <cstdio>
__constant__ float coeffs[4];
__device__ int counter;
__managed__ int flag;
__global__ void scale(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { a[i] *= coeffs[0]; atomicAdd(&counter, 1); if (i == 0) flag += 41; }
}
int main() {
    float h[64]; for (int i = 0; i < 64; i++) h[i] = i;
    float c[4] = {3, 0, 0, 0};
    float *d; cudaMalloc(&d, sizeof h); cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(coeffs, c, sizeof c);
    flag = 1;
    scale<<<2, 32>>>(d, 64);
    cudaDeviceSynchronize();
    int cnt = 0; cudaMemcpyFromSymbol(&cnt, counter, sizeof cnt);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int ok = cnt == 64 && h[5] == 15 && h[63] == 189 && flag == 42;
    printf("nvcc_prog: %s\n", ok ? "PASS" : "FAIL");
    return !ok;
}
"""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


@pytest.mark.parametrize("flags", [[], ["--default-stream", "per-thread"]])
def test_default_stream_flag(flags: list[str], programs_dir: Path) -> None:
    """``cumetalc --default-stream per-thread`` as nvcc's: stream 0 is each host thread's own stream;
    without the flag it is the legacy stream (the program checks the stream ids both ways)."""
    exe = programs_dir / f"per_thread_stream{len(flags)}"
    built = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", "-I", str(SRC), *flags,
                            str(SRC / "per_thread_stream.cu"), "-o", str(exe)],
                           capture_output=True, text=True, timeout=600, env=_env())
    assert built.returncode == 0, built.stdout + built.stderr
    proc = _run(exe, programs_dir)
    mode = "per-thread" if flags else "legacy"
    assert proc.returncode == 0 and f"per_thread_stream ({mode}): PASS" in proc.stdout, proc.stdout + proc.stderr
