"""A CUDA C++ program built with cumetalc (the clean-room <cuda/barrier> and <cuda/pipeline> over
mbarrier): split arrive/wait, memcpy_async with barriers and pipelines (unified and partitioned
producer/consumer), memcpy_async_tx; run on the cpu device, air-sim and msl-sim, every output checked
against numpy."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cumetal.capi.build import build_program
from cumetal.cudacxx.options import CudaOptions

SRC = Path(__file__).resolve().parent / "src"
TILE, CONSUMERS, BLOCKS, NTILES = 128, 96, 3, 5


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("async") / "pipeline_barrier"
    build_program([SRC / "pipeline_barrier.cu"], exe, CudaOptions(include_dirs=[str(SRC)]), libraries=["cudart"])
    return exe


# the same executable on the cpu engine and on the Apple paths (the legalizer's async rules)
@pytest.fixture(scope="module", params=["cpu", "air-sim", "msl-sim"])
def outputs(program: Path, request: pytest.FixtureRequest) -> dict[str, np.ndarray]:
    exe = program
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")} | {"CUMETAL_BACKEND": request.param,
                                                                                  "CUMETAL_QUIET": "1"}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out: dict[str, list[float]] = {}
    for line in proc.stdout.splitlines():
        name, *rest = line.split()
        if name != "status":
            out.setdefault(name, []).append(float(rest[1]))
    return {k: np.array(v, dtype=np.float32) for k, v in out.items()}


def _input() -> np.ndarray:
    i = np.arange(BLOCKS * NTILES * TILE)
    return ((i % 97) * 0.5 - 7.0).astype(np.float32)


def test_barrier_split_arrive_wait_tiles(outputs) -> None:
    x = _input().astype(np.float64).reshape(BLOCKS, NTILES, TILE)
    idx = (np.arange(TILE) * 5) % TILE
    want = sum(x[:, t, idx] * (t + 1) for t in range(NTILES))
    np.testing.assert_array_equal(outputs["barrier_tiles"], want.reshape(-1).astype(np.float32))


def test_pipeline_partitioned_producer_consumer(outputs) -> None:
    x = _input()[: BLOCKS * NTILES * CONSUMERS].astype(np.float64).reshape(BLOCKS, NTILES, CONSUMERS)
    acc = np.zeros((BLOCKS, CONSUMERS))
    for t in range(NTILES):
        acc = acc * 0.75 + x[:, t, :]
    np.testing.assert_array_equal(outputs["pipeline_partitioned"], acc.reshape(-1).astype(np.float32))


def test_pipeline_unified(outputs) -> None:
    x = _input().astype(np.float64).reshape(BLOCKS, NTILES, TILE)
    want = -x[:, :, ::-1].sum(axis=1)
    np.testing.assert_array_equal(outputs["pipeline_unified"], want.reshape(-1).astype(np.float32))


def test_memcpy_async_tx(outputs) -> None:
    x = _input()[: BLOCKS * TILE].reshape(BLOCKS, TILE)
    want = x[:, (np.arange(TILE) + 3) % TILE] * 2
    np.testing.assert_array_equal(outputs["memcpy_tx"], want.reshape(-1))
