"""Where cuRAND switches Poisson methods, against NVIDIA's library bisected on an H100
(tests/libs/golden/curand_switch_goldens.npz, scripts/make_curand_switches.py), and the Philox
four-wide device calls of tests/libs/golden/src/curand_switch_goldens.cu built by cumetalc vs nvcc.

The bisection classified NVIDIA's draws at each lambda with CuMetal's model of the method below the
switch; here CuMetal's host generators reproduce NVIDIA's draws on *both* sides of the final bracket
(so the method above the switch is checked too), and CuMetal's switch agrees with every lambda the
H100 classified (grid and bisection steps)."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np
import pytest

from cumetal.libs.curand import host as H
from cumetal.libs.curand import poisson

GOLDEN = pathlib.Path(__file__).parent / "golden"
SW = np.load(GOLDEN / "curand_switch_goldens.npz")
RNG = {"XORWOW": H.XORWOW, "PHILOX4_32_10": H.PHILOX, "MRG32K3A": H.MRG32K3A, "MTGP32": H.MTGP32,
       "MT19937": H.MT19937, "SOBOL32": H.SOBOL32, "SCRAMBLED_SOBOL32": H.SCRAMBLED_SOBOL32, "SOBOL64": H.SOBOL64}
FAMILY = {"XORWOW": "default", "PHILOX4_32_10": "default", "MRG32K3A": "default", "MT19937": "default",
          "MTGP32": "MTGP32", "SOBOL32": "SOBOL32", "SCRAMBLED_SOBOL32": "SOBOL32"}
SWITCHES = sorted({tuple(k.split("/")[1:3]) for k in SW.files if k.startswith("host/")})


def _generator(name: str) -> H.Generator:
    if "SOBOL" in name:
        return H.Generator(RNG[name], False, dims=1)
    return H.Generator(RNG[name], False, seed=1234)


def _cumetal_below(name: str, switch: str, lam: float) -> bool:
    """Whether CuMetal uses the method below the switch at lam."""
    if switch == "table":
        return not poisson.above_table(FAMILY[name], lam)
    if name == "SOBOL64":
        return lam < poisson.NORMAL_FROM_SOBOL64
    return not lam > poisson.NORMAL_ABOVE[name]


@pytest.mark.parametrize(("name", "switch"), SWITCHES)
def test_switch_agrees_with_every_classified_lambda(name: str, switch: str) -> None:
    key = f"host/{name}/{switch}"
    lams = np.concatenate([SW[key + "/grid_lams"], SW[key + "/lams"]])
    below = np.concatenate([SW[key + "/grid_below"], SW[key + "/below"]])
    assert below.any() and not below.all()  # both methods were seen
    for lam, b in zip(lams, below, strict=True):
        assert _cumetal_below(name, switch, float(lam)) == bool(b), (name, switch, lam)


@pytest.mark.parametrize(("name", "switch"), SWITCHES)
def test_draws_on_both_sides_of_the_switch(name: str, switch: str) -> None:
    key = f"host/{name}/{switch}"
    lo, hi = (float(x) for x in SW[key + "/bracket"])
    assert hi - lo <= 1e-6 * hi
    for lam, side in ((lo, "lo"), (hi, "hi")):
        ref = SW[f"{key}/{side}"]
        got = H.values(_generator(name), "poisson", len(ref), lam)
        # above the table switch the discrete Gauss rounds the float normals: NVIDIA's bits since the
        # MUFU sine/cosine, logf and expf are modelled
        np.testing.assert_array_equal(got, ref, err_msg=f"{name} lambda={lam!r}")


def test_poisson_distribution_method_switches_at_2000() -> None:
    """curandCreatePoissonDistribution: NVIDIA's method field (CURAND_M2 = 5, CURAND_DISCRETE_GAUSS = 7; CuMetal writes the same) over 1000 ... 3000 and two
    refinements down to 2e-6 around the change; shift and length of the histograms it made."""
    for level in range(3):
        lams, rec = SW[f"methods/lams{level}"], SW[f"methods/rec{level}"]
        gauss = np.array([poisson.above_table("default", float(x)) for x in lams])
        np.testing.assert_array_equal(rec[:, 0], np.where(gauss, 7, 5), err_msg=f"level {level}")  # GAUSS / M2
    lams, rec = SW["methods/lams0"], SW["methods/rec0"]
    for i in (0, 137, 499):  # lambda 1000, 1274, 1998
        shift, big_k, _ = poisson.square_histogram(float(lams[i]))
        assert (rec[i, 1], rec[i, 2]) == (shift, len(big_k)), lams[i]


@pytest.fixture(scope="module")
def device_run(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    from cumetal.capi.build import build_program  # noqa: PLC0415

    out = tmp_path_factory.mktemp("curand_switch")
    exe = out / "curand_switch"
    build_program([str(GOLDEN / "src" / "curand_switch_goldens.cu")], str(exe), libraries=["curand"])
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe), str(out / "raw.bin")], capture_output=True, text=True, env=env, timeout=600,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return np.fromfile(out / "raw.bin", np.uint32)


N_DISC, N_POIS, THREADS = 6, 4, 256


def _parts(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, b = N_DISC * THREADS * 9, (N_DISC + N_POIS) * THREADS * 9
    return raw[:a].reshape(N_DISC, THREADS, 9), raw[a:b].reshape(N_POIS, THREADS, 9), raw[b:].reshape(THREADS, 12)


def test_device_discrete4_and_poisson4(device_run: np.ndarray) -> None:
    """Philox curand_discrete4 (x2) + curand_discrete per thread at lambda 4, 1500 (histograms), 2000,
    5000, 100000 (the Gauss branch: four curand_normal_double draws), 0.5: bit for bit; curand_poisson4
    (x2) + curand_poisson at lambda 4 (Knuth), 100 and 3000 (rejection: decided with the GPU's approximate
    ex2/lg2/rsqrt/rcp, modelled), 5000 (rounded normal): bit for bit."""
    got, ref = _parts(device_run), _parts(SW["device/raw"])
    np.testing.assert_array_equal(got[0], ref[0])
    for k, lam in enumerate((4, 100, 3000, 5000)):
        np.testing.assert_array_equal(got[1][k], ref[1][k], err_msg=f"curand_poisson4 lambda={lam}")


def test_device_normal4_and_log_normal4(device_run: np.ndarray) -> None:
    """curand_normal4, curand_log_normal4, curand_normal2, curand_log_normal2: bit for bit (the MUFU
    sine/cosine and the H100's logf and expf are modelled: ir/semantics/mufu.py, logf.py, expf.py)."""
    np.testing.assert_array_equal(_parts(device_run)[2], _parts(SW["device/raw"])[2])
