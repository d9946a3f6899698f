"""cuRAND's host Poisson draws (``curandGeneratePoisson``), as read off NVIDIA's library on an H100.

Every output takes one 32-bit word of the generator's stream (the word ``curandGenerate`` would
give at that position), so offsets and continued calls behave as for integers. What NVIDIA does
with the word depends on the generator and on lambda (tests/libs/test_curand_poisson.py checks
each against the recordings of scripts/make_curand_goldens.py and
scripts/make_curand_poisson_sobol.py):

* **square histogram** (Marsaglia, Tsang and Wang, "Fast generation of discrete random variables",
  J. Stat. Softw. 11, 2004): the probabilities P(k) = exp(k ln lambda - lambda - ln k!) of every k
  whose P(k) is not 0 in double precision form a table of n columns; a word x gives
  u = (x + 1) 2^-32, column j = floor(n u), and the draw is ``shift + j`` when u < V[j], else
  ``shift + K[j]``. The table is filled Robin-Hood fashion: the poor columns (P < 1/n) in index
  order, each topped up by the richest-by-position donor still above 1/n (the last one in index
  order); a donor that falls below 1/n is served in a later pass, again in index order.
  Used below ``TABLE_BELOW[family]`` (a value of lambda, not a table size: bisected on NVIDIA's
  library by scripts/make_curand_switches.py).
* **sequential inversion** (Fishman's ITR, in double): smallest k with u <= P(0) + ... + P(k),
  the terms made by P(k) = P(k-1) lambda / k in chunks of 500 to stay clear of underflow
  (MTGP32 and the Sobol generators above their table limit; SOBOL64 always).
* **rounded normal**: floor(lambda + sqrt(lambda) z + 1/2) with z the normal quantile of the
  word's uniform (MT19937, MTGP32 and SOBOL64 for large lambda).

* **discrete Gauss** (XORWOW, Philox4_32_10, MRG32k3a above their table): not one word but the float
  normal of the draw's thread (``host.gauss_poisson``), rounded in double.

The switch points are round values of lambda, bisected on an H100 to within 1e-7 relative
(tests/libs/golden/curand_switch_goldens.npz): the histogram below 2000 (XORWOW, Philox4_32_10,
MRG32k3a, MT19937; curandCreatePoissonDistribution too), below 32 (MTGP32) and below 10 (Sobol32);
the rounded normal above 8000 (MTGP32, Sobol32) and from 2000 (SOBOL64). Whether 32, 10 and the
Sobol32 8000 themselves fall below or above was not recorded (CuMetal: above, above, below).
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

# the square histogram is used while lambda < TABLE_BELOW[family] (bisected on an H100: the switch lies
# within 1e-7 of these values, 2000 itself is above; 32 and 10 themselves were not recorded)
TABLE_BELOW = {"default": 2000.0, "MTGP32": 32.0, "SOBOL32": 10.0}
ITR_CHUNK = 500.0          # ITR rescales its running terms every 500 units of lambda
# ITR until the rounded normal takes over (bisected: MTGP32 ITR at 8000, the normal just above it;
# Sobol32 within 1e-7 of 8000, 8000 itself not recorded; SOBOL64 the normal from 2000)
NORMAL_ABOVE = {"MTGP32": 8000.0, "SOBOL32": 8000.0}
NORMAL_FROM_SOBOL64 = 2000.0


@functools.lru_cache(maxsize=32)
def square_histogram(lam: float) -> tuple[int, np.ndarray, np.ndarray]:
    """(shift, K, V) of the square histogram of Poisson(lam), built as cuRAND builds it."""
    top = int(lam + 40.0 * math.sqrt(lam) + 800.0)
    ks = np.arange(top + 1, dtype=np.float64)
    logp = ks * math.log(lam) - lam - np.array([math.lgamma(k + 1.0) for k in range(top + 1)])
    p = np.exp(logp)
    nonzero = np.flatnonzero(p > 0.0)
    shift = int(nonzero[0])
    p = p[shift:int(nonzero[-1]) + 1].copy()
    n = len(p)
    a = 1.0 / n
    cols = np.arange(n)
    big_k = cols.copy()
    v = (cols + 1) * a
    rich = [int(i) for i in np.flatnonzero(p >= a)]
    is_rich = np.zeros(n, bool)
    is_rich[rich] = True
    done = np.zeros(n, bool)
    progress = True
    while rich and progress:
        progress = False
        for col in range(n):  # one pass in index order; donors that become poor wait for the next
            if not rich:
                break
            if done[col] or is_rich[col]:
                continue
            donor = rich[-1]
            big_k[col] = donor
            v[col] = col * a + p[col]
            done[col] = True
            progress = True
            p[donor] -= a - p[col]
            p[col] = a
            if p[donor] < a:
                rich.pop()
                is_rich[donor] = False
    return shift, big_k.astype(np.int64), v


def table_columns(lam: float) -> int:
    """How many columns the square histogram of lam has (cheap: no table is built)."""
    top = int(lam + 40.0 * math.sqrt(lam) + 800.0)
    ks = np.arange(top + 1, dtype=np.float64)
    logp = ks * math.log(lam) - lam - np.array([math.lgamma(k + 1.0) for k in range(top + 1)])
    return int(np.count_nonzero(np.exp(logp) > 0.0))


def centred_uniform(x: np.ndarray) -> np.ndarray:
    """(x + 1/2) 2^-32 in double: in (0, 1), never 1."""
    return x.astype(np.float64) * 2.0 ** -32 + 2.0 ** -33


def histogram_draws(x: np.ndarray, lam: float) -> np.ndarray:
    """u is cuRAND's double uniform of a word, (x + 1) 2^-32 (the recordings cannot tell it from
    (x + 1/2) 2^-32: only draws within 2^-33 of a column's threshold would differ)."""
    shift, big_k, v = square_histogram(lam)
    u = (x.astype(np.float64) + 1.0) * 2.0 ** -32
    j = np.minimum((u * len(big_k)).astype(np.int64), len(big_k) - 1)
    return (shift + np.where(u < v[j], j, big_k[j])).astype(np.uint32)


def itr_draws(u: np.ndarray, lam: float) -> np.ndarray:
    """Sequential inversion on uniforms u in (0, 1), all draws advanced together."""
    n = len(u)
    k = np.zeros(n, np.int64)
    p = np.ones(n)
    q = np.ones(n)
    done_pow = 0.0
    cap = lam + 60.0 * math.sqrt(lam) + 1000.0  # a bound only rounding at u ~ 1 could reach
    while True:
        scale = math.exp(-ITR_CHUNK) if lam > done_pow + ITR_CHUNK else math.exp(done_pow - lam)
        p *= scale
        q *= scale
        done_pow += ITR_CHUNK
        active = u > q
        while active.any():
            idx = np.flatnonzero(active)
            k[idx] += 1
            p[idx] *= lam / k[idx]
            q[idx] += p[idx]
            active[idx] = (u[idx] > q[idx]) & (k[idx] < cap)
        if not done_pow < lam:
            break
    return k.astype(np.uint32)


def rounded_normal_draws(u: np.ndarray, lam: float, single: bool = False) -> np.ndarray:
    """floor(lam + sqrt(lam) z + 1/2); ``single``: the sum in float arithmetic (MT19937's: at
    lambda = 100000 a float's ulp, 1/128, shows in the rounding)."""
    nd = NormalDist()
    z = np.array([nd.inv_cdf(float(min(max(v, 1e-300), 1.0 - 2.0 ** -53))) for v in u])
    if single:
        f32 = np.float32
        x = (f32(math.sqrt(lam)) * z.astype(f32) + f32(lam) + f32(0.5)).astype(np.float64)
    else:
        x = lam + math.sqrt(lam) * z + 0.5
    return np.maximum(np.floor(x), 0.0).astype(np.uint32)


def float_uniform(x: np.ndarray) -> np.ndarray:
    """cuRAND's float uniform x 2^-32 + 2^-33 (rounded to float), as a double."""
    i32 = np.float32(2.3283064e-10)
    return (x.astype(np.float32) * i32 + i32 / np.float32(2)).astype(np.float64)


def above_table(family: str, lam: float) -> bool:
    """Whether NVIDIA's generator family uses another method than the square histogram at lam."""
    return not lam < TABLE_BELOW.get(family, TABLE_BELOW["default"])


def draws(family: str, x: np.ndarray, lam: float, x64: np.ndarray | None = None) -> np.ndarray:
    """Poisson(lam) draws from 32-bit words ``x`` (``x64``: SOBOL64's 64-bit points; ``x`` is then
    their top halves) as cuRAND's generator ``family`` makes them ("XORWOW", "PHILOX", "MRG32K3A",
    "MTGP32", "MT19937", "SOBOL32", "SOBOL64"). ITR takes the generator's own double uniform:
    (x + 1) 2^-32 for 32-bit words, (x >> 11) 2^-53 + 2^-54 for SOBOL64 (the point 0 shows it)."""
    if family == "SOBOL64":
        assert x64 is not None
        if lam >= NORMAL_FROM_SOBOL64:
            return rounded_normal_draws(centred_uniform(x), lam)
        return itr_draws((x64 >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 + 2.0 ** -54, lam)
    if not above_table(family, lam):
        return histogram_draws(x, lam)
    if family == "MT19937":
        return rounded_normal_draws(float_uniform(x), lam, single=True)
    if family in ("MTGP32", "SOBOL32"):
        if lam > NORMAL_ABOVE[family]:
            return rounded_normal_draws(float_uniform(x), lam)
        return itr_draws((x.astype(np.float64) + 1.0) * 2.0 ** -32, lam)
    # XORWOW, Philox4_32_10, MRG32k3a above the table take float normals (host.gauss_poisson), not words
    raise ValueError(f"{family}: lambda={lam} is above the square histogram; use host.gauss_poisson")
