"""CUDA lets host code call erfinv/erfcinv/normcdfinv (CCCL's normal_distribution does, from a
__host__ __device__ function): CuMetal's host definitions (cumetal/host_inverse_erf.h) against
Python's NormalDist quantile and against the device's libdevice values on the same inputs."""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path
from statistics import NormalDist

import numpy as np

SRC = Path(__file__).with_name("host_math") / "host_inverse_erf.cu"


def test_host_inverse_erf_functions(tmp_path: Path) -> None:
    from cumetal.capi.build import build_program  # noqa: PLC0415

    exe = tmp_path / "host_inverse_erf"
    build_program([str(SRC)], str(exe))
    c = np.concatenate([10.0 ** -np.arange(1, 300, 7.3), np.linspace(0.001, 1.999, 57), [1e-10, 2e-10, 1.0]])
    proc = subprocess.run([str(exe)], input="\n".join(repr(float(x)) for x in c), capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1"), check=False)
    assert proc.returncode == 0, proc.stderr
    rows = [[float(v) for v in line.split()] for line in proc.stdout.splitlines()]
    assert len(rows) == len(c)
    normal = NormalDist()
    for x, host, dev, erfinv_host, normcdfinv_host, erfcinvf_host in rows:
        ref = -normal.inv_cdf(x / 2) / math.sqrt(2) if x != 1.0 else 0.0
        assert math.isclose(host, ref, rel_tol=2e-15, abs_tol=1e-300), (x, host, ref)
        assert math.isclose(host, dev, rel_tol=2e-15, abs_tol=1e-300), (x, host, dev)
        if x >= 1e-6:  # 1 - x is exact enough for erfinv's check only away from 0
            assert math.isclose(erfinv_host, ref, rel_tol=1e-9, abs_tol=1e-15), (x, erfinv_host, ref)
        assert math.isclose(normcdfinv_host, normal.inv_cdf(x / 2), rel_tol=2e-15, abs_tol=1e-300), x
        xf = float(np.float32(x))
        if xf >= 1e-37 and xf != 1.0:  # float range; the float form rounds its input to float first
            ref_f = -normal.inv_cdf(xf / 2) / math.sqrt(2)
            assert math.isclose(erfcinvf_host, ref_f, rel_tol=1.2e-7), (x, erfcinvf_host, ref_f)
