"""cuComplex.h's cuCabs/cuCdiv/cuCfma (float and double) and the float<->double conversions, on the
host and in a kernel on the CPU backend, against Python's complex arithmetic in double precision:
the scaled forms stay finite (and near the exact value) where the plain formulas over/underflow float."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np

from cumetal.capi.build import build_program

PROGRAM = pathlib.Path(__file__).parent / "programs" / "cucomplex_ops.cu"
CASES = [(3.0, 4.0, 1.0, 2.0, 0.5, -0.25), (-1.5, 0.0, 0.0, -2.0, 1.0, 1.0), (3e30, -4e30, 2e30, 1e30, 0.0, 0.0),
         (3e-30, 4e-30, -1e-30, 5e-31, 0.0, 0.0), (0.0, 0.0, 7.0, -1.0, -3.0, 2.0)]


def test_cucomplex_helpers(tmp_path: pathlib.Path) -> None:
    exe = tmp_path / "cucomplex_ops"
    build_program([str(PROGRAM)], str(exe))
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "done 1", proc.stdout + proc.stderr
    rows = {tuple(ln.split()[:2]): [float.fromhex(v) if "0x" in v else float(v) for v in ln.split()[2:]]
            for ln in proc.stdout.splitlines()[:-1]}
    for i, (ar, ai, br, bi, dr, di) in enumerate(CASES):
        f = [float(np.float32(v)) for v in (ar, ai, br, bi, dr, di)]
        a, b, d = complex(f[0], f[1]), complex(f[2], f[3]), complex(f[4], f[5])
        q, m = a / b, a * b + d
        for where in ("host", "dev"):
            r = rows[(where, str(i))]
            # float results: within a few float ulps of the double-precision truth (finite for the big/small cases)
            fma = [m.real, m.imag] if 1e-30 < abs(m) < 1e38 else []  # else the float products over/underflow
            for got, want in zip(r[:3 + len(fma)], [abs(a), q.real, q.imag, *fma], strict=True):
                assert np.isfinite(got) and abs(got - want) <= 4 * np.spacing(np.float32(abs(want))) + 1e-45, \
                    (where, i, got, want)
            # double results from the same (float-exact) inputs
            for got, want in zip(r[5:8], [abs(a), q.real, q.imag], strict=True):
                assert abs(got - want) <= 4 * np.spacing(abs(want)) + 1e-300, (where, i, got, want)
        h = rows[("host", str(i))]
        assert h[8:] == [float(np.float32(q.real)), float(np.float32(q.imag))]  # cuComplexDoubleToFloat rounds
        dv = rows[("dev", str(i))]
        assert dv[8:] == [m.real, m.imag]  # cuCfma on doubles made from floats: products and sum exact here
