"""CUDA C++ with thread-block clusters (cooperative-groups cluster APIs, distributed shared
memory; device code compiled by cumetalc, and by nvcc with NVIDIA's headers where nvcc is installed,
launched with cuLaunchKernelEx's cluster attribute) and a
whole program with a cooperative launch and ``grid_group::sync()`` built like ``cumetalc … -o``;
both run on the CPU device and are checked against numpy."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cumetal.capi.build import build_program
from cumetal.cudacxx.options import CudaOptions

SRC = Path(__file__).resolve().parent / "src"


def _run(name: str, tmp: Path) -> dict[str, list]:
    exe = tmp / name
    build_program([SRC / f"{name}.cu"], exe, CudaOptions(include_dirs=[str(SRC)]), libraries=["cudart"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")} | {"CUMETAL_BACKEND": "cpu",
                                                                                  "CUMETAL_QUIET": "1"}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out: dict[str, list] = {}
    for line in proc.stdout.splitlines():
        key, *vals = line.split()
        out.setdefault(key, []).append(vals)
    return out


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("clusters")


def _cluster_launch(blocks: int, cluster: int, bufs: list[int], ptx: bytes):
    import cumetal.driver as cu

    _, mod = cu.cuModuleLoadData(ptx)
    _, fn = cu.cuModuleGetFunction(mod, b"neighbour_sum")
    cfg = cu.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = blocks, 1, 1
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = 128, 1, 1
    attr = cu.CUlaunchAttribute()
    attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster, 1, 1
    cfg.attrs, cfg.numAttrs = [attr], 1
    err = cu.cuLaunchKernelEx(cfg, fn, (tuple(bufs), (None,) * 4), 0)[0]
    return err, cu.cuCtxSynchronize()[0]


def _device_ptx(compiler: str, tmp: Path) -> bytes:
    src = SRC / "cluster_cg.cu"
    if compiler == "nvcc":  # NVIDIA's own cooperative_groups headers (validation only; nothing is kept)
        nvcc = shutil.which("nvcc")
        if nvcc is None:
            pytest.skip("nvcc is not installed")
        out = tmp / "cluster_cg_nvcc.ptx"
        subprocess.run([nvcc, "-arch=sm_90", "-ptx", "-o", str(out), str(src)], check=True, capture_output=True)
        return out.read_bytes()
    from cumetal.cudacxx.compile import compile_to_ptx
    from cumetal.cudacxx.options import CudaOptions as Opts

    ptx = compile_to_ptx(src.read_text(), "cluster_cg.cu", Opts(arch="sm_90")).ptx
    return ptx.encode() if isinstance(ptx, str) else ptx


@pytest.mark.parametrize("compiler", ["cumetalc", "nvcc"])
def test_cluster_cooperative_groups_program(compiler: str, tmp: Path, cpu_backend) -> None:
    import cumetal.driver as cu

    os.environ.setdefault("CUMETAL_BACKEND", "cpu")
    ptx = _device_ptx(compiler, tmp)
    blocks, n = 16, 128
    i = np.arange(blocks * n, dtype=np.uint64)
    x = (((i * 2654435761) % 2**32 >> 7) % 1000).astype(np.int32)
    cu.cuInit(0)
    _, dev = cu.cuDeviceGet(0)
    _, ctx = cu.cuCtxCreate(None, 0, dev)
    try:
        sizes = (x.nbytes, x.nbytes, 4 * 8 * blocks // 4, 4 * 5 * blocks)
        bufs = [cu.cuMemAlloc(s)[1] for s in sizes]
        cu.cuMemcpyHtoD(bufs[0], x, x.nbytes)
        assert _cluster_launch(blocks, 4, bufs, ptx) == (cu.CUresult.CUDA_SUCCESS,) * 2
        # a grid that is not a whole number of clusters, and a cluster beyond the portable 8 blocks
        assert _cluster_launch(18, 4, bufs, ptx)[0] == cu.CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE
        assert _cluster_launch(32, 16, bufs, ptx)[0] == cu.CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE
        out = [np.empty(s // 4, dtype=np.int32) for s in sizes]
        for h, b, s in zip(out, bufs, sizes, strict=True):
            cu.cuMemcpyDtoH(h, b, s)
    finally:
        cu.cuCtxDestroy(ctx)
    tiles = x.reshape(blocks // 4, 4, n).astype(np.int64)
    rank = np.arange(blocks) % 4
    want = (tiles.sum(axis=1, keepdims=True) * 10 + rank.reshape(blocks // 4, 4, 1)).reshape(-1)
    np.testing.assert_array_equal(out[1], want)
    hist = np.stack([np.bincount(t.reshape(-1) & 7, minlength=8) for t in tiles]).reshape(-1)
    np.testing.assert_array_equal(out[2], hist)
    facts = out[3].reshape(blocks, 5)
    np.testing.assert_array_equal(facts[:, 0], rank)
    np.testing.assert_array_equal(facts[:, 1], 4)
    np.testing.assert_array_equal(facts[:, 2], 411)
    np.testing.assert_array_equal(facts[:, 3], rank)
    np.testing.assert_array_equal(facts[:, 4], 4 * n)


def test_grid_sync_program(tmp: Path) -> None:
    res = _run("grid_sync", tmp)
    assert res["launch"] == [["0", "0"]]
    assert res["too"] == [["large", "720"]]  # cudaErrorCooperativeLaunchTooLarge
    assert res["valid"] == [["8"]]  # grid.is_valid() in a cooperative launch; num_blocks()
    n = 64 * 8
    a = ((np.arange(n) * 37) % 101).astype(np.float32)
    for _ in range(3):
        a = (np.float32(0.25) * np.roll(a, 1) + np.float32(0.5) * a) + np.float32(0.25) * np.roll(a, -1)
    got = np.array([float(v) for _, v in res["out"]], dtype=np.float32)
    np.testing.assert_allclose(got, a, rtol=1e-6)


def test_grid_sync_compiled_by_nvcc(tmp: Path, cpu_backend) -> None:
    """The same kernel through nvcc with NVIDIA's cooperative_groups: its grid_group::sync() is an
    atomic counter and a spin on the launch's grid workspace (%envreg1:%envreg2), which a
    cooperative launch provides; a plain launch traps, as on CUDA."""
    import ctypes

    import cumetal.driver as cu

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed")
    ptx = tmp / "grid_sync_nvcc.ptx"
    subprocess.run([nvcc, "-arch=sm_80", "-ptx", "-o", str(ptx), str(SRC / "grid_sync.cu")], check=True,
                   capture_output=True)
    os.environ.setdefault("CUMETAL_BACKEND", "cpu")
    cu.cuInit(0)
    ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])[1]
    try:
        err, mod = cu.cuModuleLoadData(ptx.read_bytes())
        assert err == cu.CUresult.CUDA_SUCCESS
        fn = cu.cuModuleGetFunction(mod, b"_Z6sweepsPfS_ii")[1]
        n = 512
        a = ((np.arange(n) * 37) % 101).astype(np.float32)
        da, db = cu.cuMemAlloc(n * 4)[1], cu.cuMemAlloc(n * 4)[1]
        cu.cuMemcpyHtoD(da, a, n * 4)
        args = ((da, db, n, 3), (None, None, ctypes.c_int, ctypes.c_int))
        assert cu.cuLaunchCooperativeKernel(fn, 8, 1, 1, 64, 1, 1, 0, 0, args)[0] == cu.CUresult.CUDA_SUCCESS
        assert cu.cuCtxSynchronize()[0] == cu.CUresult.CUDA_SUCCESS
        out = np.empty(n, np.float32)
        cu.cuMemcpyDtoH(out, db, n * 4)
        cu.cuLaunchKernel(fn, 8, 1, 1, 64, 1, 1, 0, 0, args, 0)
        assert cu.cuCtxSynchronize()[0] == cu.CUresult.CUDA_ERROR_LAUNCH_FAILED  # trap: no grid workspace
    finally:
        cu.cuCtxDestroy(ctx)
    for _ in range(3):
        a = (np.float32(0.25) * np.roll(a, 1) + np.float32(0.5) * a) + np.float32(0.25) * np.roll(a, -1)
    np.testing.assert_allclose(out, a, rtol=1e-6)
