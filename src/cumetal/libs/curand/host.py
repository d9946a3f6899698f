"""cuRAND's host API on numpy: generators, seeds, offsets, orderings and the distributions.

Integer and uniform outputs of XORWOW and Philox4_32_10 are NVIDIA's bits (tests/libs/
test_curand_host.py against H100 recordings). Normal and log-normal values use the same Box-Muller
pairs as cuRAND with the GPU's fast sine and cosine bit for bit (the MUFU model of
``cumetal.ir.semantics.mufu``) and the H100's logf (the black-box model of
``cumetal.ir.semantics.logf``); log-normals take the H100's expf (``cumetal.ir.semantics.expf``). Poisson draws are cuRAND's (square histogram, sequential
inversion or rounded normal per generator and lambda: :mod:`cumetal.libs.curand.poisson`).
"""

from __future__ import annotations

import itertools
import math
import threading
from dataclasses import dataclass

import numpy as np

from cumetal.ir.semantics import expf as expf_model
from cumetal.ir.semantics import logf as logf_model
from cumetal.ir.semantics import mufu
from cumetal.libs.curand import fast, h100_erfcinv, h100_erfcinvf, h100_f64, poisson, sobol, streams

SUCCESS, NOT_INITIALIZED, TYPE_ERROR, OUT_OF_RANGE, LENGTH_NOT_MULTIPLE = 0, 101, 103, 104, 105
LAUNCH_FAILURE, INTERNAL_ERROR = 201, 999
RNG_PSEUDO_DEFAULT, XORWOW, MRG32K3A, MTGP32, MT19937, PHILOX = 100, 101, 121, 141, 142, 161
QUASI_DEFAULT, SOBOL32, SCRAMBLED_SOBOL32, SOBOL64, SCRAMBLED_SOBOL64 = 200, 201, 202, 203, 204
ORDERINGS = {100: "PSEUDO_BEST", 101: "PSEUDO_DEFAULT", 102: "PSEUDO_SEEDED", 103: "PSEUDO_LEGACY",
             104: "PSEUDO_DYNAMIC", 201: "QUASI_DEFAULT"}
SUPPORTED = {XORWOW: "XORWOW", PHILOX: "PHILOX4_32_10", MRG32K3A: "MRG32K3A", MTGP32: "MTGP32", MT19937: "MT19937",
             SOBOL32: "SOBOL32",
             SOBOL64: "SOBOL64", SCRAMBLED_SOBOL32: "SCRAMBLED_SOBOL32", SCRAMBLED_SOBOL64: "SCRAMBLED_SOBOL64"}
QUASI = (SOBOL32, SOBOL64, SCRAMBLED_SOBOL32, SCRAMBLED_SOBOL64)
SCRAMBLED = (SCRAMBLED_SOBOL32, SCRAMBLED_SOBOL64)
KNOWN: dict[int, str] = {}  # generator types CUDA has and CuMetal does not (none now)
VERSION = 10400  # cuRAND 10.4.0 (CUDA 13.0): major * 1000 + minor * 100 + patch
I32 = np.float32(2.3283064e-10)                       # 2^-32 as cuRAND's float constant
I32_2PI = np.float32(2.3283064e-10) * np.float32(6.2831855)


class CurandError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Generator:
    rng: int
    host: bool
    seed: int = 0
    offset: int = 0
    ordering: int = 101
    dims: int = 1
    stream: int = 0


_gens: dict[int, Generator] = {}
_lock = threading.Lock()
_ids = itertools.count(0xC0A4D000, 0x40)


def create(rng: int, host: bool) -> int:
    if rng == RNG_PSEUDO_DEFAULT:
        rng = XORWOW
    if rng == QUASI_DEFAULT:
        rng = SOBOL32
    if rng not in SUPPORTED:
        what = KNOWN.get(rng)
        raise CurandError(TYPE_ERROR, f"generator type {rng} ({what or 'unknown'}) is not implemented by CuMetal "
                                      f"yet (supported: {', '.join(SUPPORTED.values())})" if what else
                          f"{rng} is not a curandRngType_t")
    with _lock:
        h = next(_ids)
        _gens[h] = Generator(rng, host)
    return h


def get(h: int) -> Generator:
    g = _gens.get(h)
    if g is None:
        raise CurandError(NOT_INITIALIZED, f"0x{h:x} is not a live cuRAND generator")
    return g


def destroy(h: int) -> None:
    get(h)
    with _lock:
        del _gens[h]


def set_offset(g: Generator, offset: int) -> None:
    if g.rng in (MTGP32, MT19937):  # NVIDIA's library refuses it too (recorded: CURAND_STATUS_TYPE_ERROR)
        raise CurandError(TYPE_ERROR, f"{SUPPORTED[g.rng]} generators have no offset (cuRAND does not support one)")
    g.offset = offset


def set_ordering(g: Generator, ordering: int) -> None:
    if g.rng in QUASI:
        if ordering != 201:
            raise CurandError(OUT_OF_RANGE, f"ordering {ordering} is not CURAND_ORDERING_QUASI_DEFAULT")
        return
    if ordering not in ORDERINGS or ordering == 201:
        raise CurandError(OUT_OF_RANGE, f"ordering {ordering} is not a pseudo-random curandOrdering_t")
    if ordering == 102:
        raise CurandError(OUT_OF_RANGE, "CURAND_ORDERING_PSEUDO_SEEDED is not implemented by CuMetal")
    if ordering == 104 and g.rng == MT19937:  # NVIDIA's library refuses it too (recorded)
        raise CurandError(OUT_OF_RANGE, "MT19937 has no CURAND_ORDERING_PSEUDO_DYNAMIC ordering")
    g.ordering = ordering


def _u32(g: Generator, start: int, n: int) -> np.ndarray:
    return streams.xorwow_u32(g.seed, start, n) if g.rng == XORWOW else streams.philox_u32(g.seed, start, n)


def _items(g: Generator, start: int, n: int, width: int, double: bool) -> np.ndarray:
    """(n, width) words: two-word items (doubles, float normal pairs) or four-word double normal pairs."""
    if g.rng == XORWOW:
        return streams.xorwow_items(g.seed, start, n, width)
    if double:
        return streams.philox_double_items(g.seed, start, n, width)
    return streams.philox_words_pairs(g.seed, start, n)


def uniform_f32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32) * I32 + I32 / np.float32(2)


def uniform_f64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """53 random bits from two words (the low word plus the high word shifted by 21), centred."""
    z = a.astype(np.uint64) ^ (b.astype(np.uint64) << np.uint64(21))
    return z.astype(np.float64) * 2.0 ** -53 + 2.0 ** -54


def box_muller_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    u = uniform_f32(a)
    # the angle as NVIDIA's device code computes it: one fma (recorded on the H100 for 4096 angles by
    # scripts/make_curand_normal_probe.py; the unfused product and sum differ in 0.5 % of them). The
    # product of two floats is exact in double; the sum is rounded twice only in rare halfway cases.
    v = (b.astype(np.float32).astype(np.float64) * np.float64(I32_2PI) + np.float64(I32_2PI / np.float32(2))
         ).astype(np.float32)
    s = np.sqrt(np.float32(-2.0) * logf(u))
    sn, cs = fast_sincos(v)
    return np.stack([sn * s, cs * s], axis=1).reshape(-1).astype(np.float32)


def scale_f32(z: np.ndarray, mean: float, stddev: float) -> np.ndarray:
    """fmaf(z, stddev, mean) as NVIDIA's library computes mean + stddev z (one rounding: 94.6 % of the
    recorded XORWOW normals with mean 2, stddev 3 equal NVIDIA's this way, 75.8 % with two). The
    product is exact in double; the sum is rounded twice only in rare halfway cases."""
    z64 = np.asarray(z, dtype=np.float32).astype(np.float64)
    return (z64 * np.float64(np.float32(stddev)) + np.float64(np.float32(mean))).astype(np.float32)


# Host generators (curandCreateGeneratorHost) run NVIDIA's library on the CPU, with the CPU's math: the
# Box-Muller generators' (XORWOW, Philox4_32_10, MRG32k3a) float normals and log-normals take log, exp,
# sin and cos correctly rounded to float, not the GPU's approximations. Seen on an H100 machine in
# NVIDIA's CUDALibrarySamples (cuRAND/Host, tests/libs/golden/cuda_library_samples_h100.json): their
# host sections differ from the device sections in the last printed digit, and all 60 host values
# match this. The inverse-CDF generators' host normals keep the GPU model (their CPU quantile is not
# known: 12 of 100 printed host values differ in the last digit).
_cpu_math = threading.local()


def _precise() -> bool:
    return getattr(_cpu_math, "on", False)


def logf(x: np.ndarray) -> np.ndarray:
    """The H100's logf (cumetal.ir.semantics.logf) of float32 values: its C twin when built (a host
    generator's: log correctly rounded to float)."""
    if _precise():
        return np.log(np.asarray(x, dtype=np.float32).astype(np.float64)).astype(np.float32)
    if fast.on():
        return fast.logf_bits(np.asarray(x, dtype=np.float32).view(np.uint32)).view(np.float32)
    return logf_model.logf(x)


def expf(x: np.ndarray) -> np.ndarray:
    """The H100's expf (cumetal.ir.semantics.expf) of float32 values: its C twin when built (a host
    generator's: exp correctly rounded to float)."""
    if _precise():
        return np.exp(np.asarray(x, dtype=np.float32).astype(np.float64)).astype(np.float32)
    if fast.on():
        return fast.expf_bits(np.asarray(x, dtype=np.float32).view(np.uint32)).view(np.float32)
    return expf_model.expf(x)


def fast_sincos(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """__sincosf(v) as NVIDIA's GPU returns it (sin.approx/cos.approx: the MUFU, bit for bit; the C
    twin of cumetal.ir.semantics.mufu when built; a host generator's: sin/cos correctly rounded to float)."""
    if _precise():
        w = np.asarray(v, dtype=np.float32).astype(np.float64)
        return np.sin(w).astype(np.float32), np.cos(w).astype(np.float32)
    bits = np.asarray(v, dtype=np.float32).view(np.uint32)
    if fast.on():
        s, c = fast.sincos_bits(bits)
        return s.view(np.float32), c.view(np.float32)
    return mufu.sincos_bits("sin", bits).view(np.float32), mufu.sincos_bits("cos", bits).view(np.float32)


def box_muller_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """(s sin(pi v), s cos(pi v)) with v = 2 (uniform) and s = sqrt(-2 log u), the H100's sincospi
    and exp/log (:mod:`cumetal.libs.curand.h100_f64`; the GPU checked this form on 65,536 draws)."""
    return box_muller_f64_uv(uniform_f64(a, b), 2.0 * uniform_f64(c, d))


def box_muller_f64_uv(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    sn, cs = h100_f64.sincospi(v)
    s = np.sqrt(-2.0 * h100_f64.log(u))
    return np.stack([sn * s, cs * s], axis=1).reshape(-1)


def scale_f64(z: np.ndarray, mean: float, stddev: float, log_normal: bool) -> np.ndarray:
    """fma(z, stddev, mean) (one rounding, as the float path and NVIDIA's device log-normals), and
    the H100's exp of it for log-normals."""
    z = h100_f64.fma(z, np.full_like(z, stddev), np.full_like(z, mean))
    return h100_f64.exp(z) if log_normal else z


def float_normal_pairs(g: Generator, first: int, count: int) -> np.ndarray:
    """(count, 2) float Box-Muller pairs (sin, cos) of items first .. first + count - 1, as
    curandGenerateNormal makes them (XORWOW, Philox4_32_10, MRG32k3a)."""
    if g.rng == MRG32K3A:
        from cumetal.libs.curand import mrg32k3a  # noqa: PLC0415

        t = streams.MRG_LEGACY_SUBSEQUENCES if g.ordering == 103 else streams.MRG_DEFAULT_SUBSEQUENCES
        w = streams.mrg_items(g.seed, first, count, 2, t) * (1.0 / mrg32k3a.M1)
        u, v = w[:, 0].astype(np.float32), w[:, 1].astype(np.float32) * np.float32(6.2831855)
        s = np.sqrt(np.float32(-2.0) * logf(u))
        sn, cs = fast_sincos(v)
        return np.stack([sn * s, cs * s], axis=1).astype(np.float32)
    w = _items(g, first, count, 2, False)
    return box_muller_f32(w[:, 0], w[:, 1]).reshape(-1, 2)


def gauss_poisson(g: Generator, start: int, n: int, lam: float) -> np.ndarray:
    """Poisson draws above the square histogram's limit for XORWOW, Philox4_32_10 and MRG32k3a, as
    recorded on NVIDIA's: (unsigned)(sqrt(lam) z + lam + 0.5) in double, z the float normal of
    curand_normal called once per draw by the thread of draw i's subsequence. Philox: z is normal
    output i; XORWOW and MRG32k3a: draw i is call c = i // T of subsequence t = i % T (T subsequences),
    i.e. the sine (c even) or cosine (c odd) of item (c // 2) T + t."""
    i = np.arange(start, start + n, dtype=np.int64)
    if g.rng == PHILOX:
        pairs = float_normal_pairs(g, start // 2, (start + n + 1) // 2 - start // 2)
        z = pairs.reshape(-1)[i - 2 * (start // 2)]
    else:
        if g.rng == XORWOW:
            t = streams.XORWOW_SUBSEQUENCES
        else:
            t = streams.MRG_LEGACY_SUBSEQUENCES if g.ordering == 103 else streams.MRG_DEFAULT_SUBSEQUENCES
        c = i // t
        q = (c // 2) * t + i % t
        q0 = int(q.min())
        pairs = float_normal_pairs(g, q0, int(q.max()) - q0 + 1)
        z = pairs[q - q0, c % 2]
    x = np.floor(math.sqrt(lam) * z.astype(np.float64) + lam + 0.5)
    return np.clip(x, 0, 2.0 ** 32 - 1).astype(np.uint32)


def set_dimensions(g: Generator, dims: int) -> None:
    if g.rng not in QUASI:
        raise CurandError(TYPE_ERROR, "dimensions apply to quasi-random generators (Sobol)")
    if not 1 <= dims <= sobol.MAX_DIMENSIONS:
        raise CurandError(OUT_OF_RANGE, f"{dims} dimensions: 1 to {sobol.MAX_DIMENSIONS} are available")
    g.dims = dims


def inverse_normal(u: np.ndarray) -> np.ndarray:
    """The standard normal quantile (quasi-random normals are the inverse CDF of the points)."""
    from statistics import NormalDist  # noqa: PLC0415

    return np.frompyfunc(NormalDist().inv_cdf, 1, 1)(u.astype(np.float64)).astype(np.float64)


def icdf_f32(x: np.ndarray) -> np.ndarray:
    """The float normal of a 32-bit word as cuRAND's inverse-CDF generators (MT19937, MTGP32, the
    Sobol family) compute it on the H100: the upper half of the words reflected, p = (j + 1/2) 2^-32
    in float with j = x or ~x, z = -/+ f32(sqrt2) * erfcinvf(2p) with the H100's erfcinvf
    (h100_erfcinvf: its central range, 2p >= 0.0034; the correctly rounded quantile in the tail)."""
    upper = x >= np.uint32(0x80000000)
    j = np.where(upper, ~x, x).astype(np.uint32)
    p = (j.astype(np.float32).astype(np.float64) * 2.0 ** -32 + 2.0 ** -33).astype(np.float32)
    e, central = h100_erfcinvf.erfcinvf_bits((p + p).astype(np.float32).view(np.uint32))
    q = np.where(central, -(np.float32(1.41421356) * e.view(np.float32)).astype(np.float32), np.float32(0))
    tail = ~central  # the quantile per value (Python) only where the model does not reach
    q[tail] = inverse_normal(p[tail].astype(np.float64)).astype(np.float32)
    return np.where(upper, -q, q).astype(np.float32)


def icdf_f64(x: np.ndarray, bits: int = 32) -> np.ndarray:
    """The double normal of a 32- or 64-bit word as cuRAND's inverse-CDF generators (MT19937, MTGP32,
    the Sobol family) compute it on the H100: the upper half of the words reflected (j = x or ~x),
    u = (j + 1/2) 2^-32 (64-bit: (j >> 11) 2^-53 + 2^-54), z = -/+ sqrt2 * erfcinv(2u) with the H100's
    double erfcinv (h100_erfcinv: its central range, 2u above ~9.7e-4; the quantile of the word's own
    uniform in the tails)."""
    if bits == 64:
        x = np.asarray(x, dtype=np.uint64)
        upper = x >= np.uint64(1 << 63)
        j = np.where(upper, ~x, x)
        u = (j >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 + 2.0 ** -54
        plain = (x >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 + 2.0 ** -54
    else:
        x = np.asarray(x, dtype=np.uint32)
        upper = x >= np.uint32(0x80000000)
        j = np.where(upper, ~x, x)
        u = j.astype(np.float64) * 2.0 ** -32 + 2.0 ** -33
        plain = x.astype(np.float64) * 2.0 ** -32 + 2.0 ** -33
    z, central = h100_erfcinv.icdf_f64(u, upper)
    if central.all():
        return z
    tail = ~central
    z[tail] = inverse_normal(plain[tail])
    return z


def quasi_values(g: Generator, kind: str, n: int, p1: float, p2: float) -> np.ndarray:
    """Sobol points: dimension-major (n / dims points of dimension 0, then of dimension 1, ...)."""
    if n % g.dims:
        raise CurandError(LENGTH_NOT_MULTIPLE, f"n={n} is not a multiple of the {g.dims} dimensions")
    bits = 64 if g.rng in (SOBOL64, SCRAMBLED_SOBOL64) else 32
    if kind == "u32" and bits == 64 or kind == "u64" and bits == 32:
        raise CurandError(TYPE_ERROR, f"{SUPPORTED[g.rng]} generates {bits}-bit integers "
                                      f"({'curandGenerateLongLong' if bits == 64 else 'curandGenerate'})")
    per = n // g.dims
    if g.rng in SCRAMBLED:  # scrambled direction numbers, then every point XOR the dimension's constant
        vecs = sobol.scrambled_direction_vectors(g.dims, bits)
        shift = sobol.scramble_constants(g.dims, bits)
    else:
        vecs = sobol.direction_vectors(g.dims, bits)
        shift = np.zeros(g.dims, vecs.dtype)
    x = (sobol.points(vecs, g.offset, per) ^ shift[:, None]).reshape(-1) if per else np.zeros(0, vecs.dtype)
    g.offset += per
    if kind in ("u32", "u64"):
        return x
    if bits == 64:
        single = (x >> np.uint64(32)).astype(np.uint32)
        double = (x >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 + 2.0 ** -54
    else:
        single = x
        double = (x.astype(np.float64) + 1.0) * 2.0 ** -32
    if kind == "uniform":
        return uniform_f32(single)
    if kind == "uniform_double":
        return double
    if kind in ("normal", "lognormal"):
        # the H100's form (icdf_f32): 1527 of the 1536 recorded normals of each Sobol variant
        z = scale_f32(icdf_f32(single.astype(np.uint32)), p1, p2)
        return expf(z) if kind == "lognormal" else z
    if kind in ("normal_double", "lognormal_double"):
        # the H100's form (icdf_f64): 1512-1521 of the 1536 recorded normals of each Sobol variant
        return scale_f64(icdf_f64(x, bits), p1, p2, kind == "lognormal_double")
    if bits == 64:
        return poisson.draws("SOBOL64", single, p1, x64=x)
    return poisson.draws("SOBOL32", x, p1)


def mrg_values(g: Generator, kind: str, n: int, p1: float, p2: float) -> np.ndarray:
    """MRG32k3a: values x in (0, m1]; integers x * 2^32/m1 truncated, uniforms x / m1, normal pairs
    from two positions of one subsequence (see :mod:`cumetal.libs.curand.streams`)."""
    from cumetal.libs.curand import mrg32k3a  # noqa: PLC0415

    t = streams.MRG_LEGACY_SUBSEQUENCES if g.ordering == 103 else streams.MRG_DEFAULT_SUBSEQUENCES
    inv = 1.0 / mrg32k3a.M1
    start = g.offset
    if kind in ("normal", "lognormal", "normal_double", "lognormal_double"):
        if n % 2:
            raise CurandError(LENGTH_NOT_MULTIPLE, f"n={n}: normal outputs come in pairs (n must be even)")
        w = streams.mrg_items(g.seed, start, n // 2, 2, t) * inv
        if kind in ("normal", "lognormal"):
            u, v = w[:, 0].astype(np.float32), w[:, 1].astype(np.float32) * np.float32(6.2831855)
            s = np.sqrt(np.float32(-2.0) * logf(u))
            sn, cs = fast_sincos(v)
            z = scale_f32(np.stack([sn * s, cs * s], axis=1).reshape(-1), p1, p2)
            out = (expf(z) if kind == "lognormal" else z).astype(np.float32)
        else:
            out = scale_f64(box_muller_f64_uv(w[:, 0], w[:, 1] * 2.0), p1, p2, kind == "lognormal_double")
    else:
        x = streams.mrg_values(g.seed, start, n, t)
        if kind == "u32":
            out = mrg32k3a.to_u32(x)
        elif kind == "uniform":
            out = (x * inv).astype(np.float32)
        elif kind == "uniform_double":
            out = x * inv
        else:
            if not p1 > 0:
                raise CurandError(OUT_OF_RANGE, f"lambda={p1} must be > 0")
            out = gauss_poisson(g, start, n, p1) if poisson.above_table("MRG32K3A", p1) else \
                poisson.draws("MRG32K3A", mrg32k3a.to_u32(x), p1)
    g.offset += n
    return out


def mtgp_values(g: Generator, kind: str, n: int, p1: float, p2: float) -> np.ndarray:
    """MTGP32 (:mod:`cumetal.libs.curand.mtgp32`) and MT19937 (:mod:`cumetal.libs.curand.mt19937`):
    one 32-bit word per value of every distribution; MTGP32's doubles are (x + 1) 2^-32, MT19937's
    uniforms (x + 1/2) 2^-32; normals are the inverse normal CDF, not Box-Muller pairs (as recorded on
    NVIDIA's library): float ones -/+f32(sqrt2) erfcinvf(2p) of the reflected word (the H100's
    erfcinvf, h100_erfcinvf), double ones the quantile of the double uniform rounded once."""
    from cumetal.libs.curand import mtgp32  # noqa: PLC0415

    if kind in ("normal", "lognormal", "normal_double", "lognormal_double") and n % 2:
        raise CurandError(LENGTH_NOT_MULTIPLE, f"n={n}: pseudo-random normal outputs need an even n")
    if kind == "poisson" and not p1 > 0:
        raise CurandError(OUT_OF_RANGE, f"lambda={p1} must be > 0")
    if g.rng == MT19937:
        from cumetal.libs.curand import mt19937  # noqa: PLC0415

        x = mt19937.host_u32(g.seed, g.offset, n)
    else:
        x = mtgp32.host_u32(g.seed, g.offset, n)
    # MT19937 takes every distribution from the double (x + 1/2) 2^-32, rounded once for floats
    centred = x.astype(np.float64) * 2.0 ** -32 + 2.0 ** -33
    if kind == "u32":
        out = x
    elif kind == "uniform":
        out = centred.astype(np.float32) if g.rng == MT19937 else uniform_f32(x)
    elif kind == "uniform_double":
        out = centred if g.rng == MT19937 else (x.astype(np.float64) + 1.0) * 2.0 ** -32
    elif kind in ("normal", "lognormal"):
        # as the H100 showed for MT19937 (65,536 of 65,536 draws; MTGP32's recorded normals agree):
        # the lower half of the words reflected,
        # p = (j + 1/2) 2^-32 in float with j = x or ~x, z = -/+ f32(sqrt2) * erfcinvf(2p) with the
        # H100's erfcinvf (h100_erfcinvf: its central range, 2p >= 0.0034; the correctly rounded
        # quantile in the tail), log-normals expf(fmaf(z, stddev, mean))
        z = scale_f32(icdf_f32(x), p1, p2)
        out = expf(z) if kind == "lognormal" else z
    elif kind in ("normal_double", "lognormal_double"):
        # -/+sqrt(2) erfcinv(2u) of the reflected word on the H100 (all 65,536 recorded MT19937 draws;
        # MTGP32's recorded doubles agree), the H100's erfcinv modelled in its central range (icdf_f64)
        out = scale_f64(icdf_f64(x), p1, p2, kind == "lognormal_double")
    else:
        out = poisson.draws("MT19937" if g.rng == MT19937 else "MTGP32", x, p1)
    g.offset += n
    return out


def values(g: Generator, kind: str, n: int, p1: float = 0.0, p2: float = 1.0) -> np.ndarray:
    """The next ``n`` outputs of a distribution; advances the generator's offset as cuRAND does (a host
    generator's float normals and log-normals with the CPU's math, see ``_cpu_math``)."""
    _cpu_math.on = g.host and kind in ("normal", "lognormal") and g.rng in (XORWOW, PHILOX, MRG32K3A)
    try:
        return _values(g, kind, n, p1, p2)
    finally:
        _cpu_math.on = False


def _values(g: Generator, kind: str, n: int, p1: float, p2: float) -> np.ndarray:
    if g.rng in QUASI:
        return quasi_values(g, kind, n, p1, p2)
    if kind == "u64":
        raise CurandError(TYPE_ERROR, "64-bit integers come from SOBOL64 generators only")
    if g.rng == MRG32K3A:
        return mrg_values(g, kind, n, p1, p2)
    if g.rng in (MTGP32, MT19937):
        return mtgp_values(g, kind, n, p1, p2)
    start = g.offset
    if kind == "u32":
        out = _u32(g, start, n)
    elif kind == "uniform":
        out = uniform_f32(_u32(g, start, n))
    elif kind == "uniform_double":
        w = _items(g, start, n, 2, True)
        out = uniform_f64(w[:, 0], w[:, 1])
    elif kind in ("normal", "lognormal"):
        if n % 2:
            raise CurandError(LENGTH_NOT_MULTIPLE, f"n={n}: normal outputs come in pairs (n must be even)")
        # XORWOW counts the offset in pairs, Philox in 32-bit words (as recorded on NVIDIA's library)
        w = _items(g, start if g.rng == XORWOW else start // 2, n // 2, 2, False)
        z = scale_f32(box_muller_f32(w[:, 0], w[:, 1]), p1, p2)
        out = expf(z) if kind == "lognormal" else z
    elif kind in ("normal_double", "lognormal_double"):
        if n % 2:
            raise CurandError(LENGTH_NOT_MULTIPLE, f"n={n}: normal outputs come in pairs (n must be even)")
        w = _items(g, start, n // 2, 4, True)
        out = scale_f64(box_muller_f64(w[:, 0], w[:, 1], w[:, 2], w[:, 3]), p1, p2, kind == "lognormal_double")
    elif kind == "poisson":
        if not p1 > 0:
            raise CurandError(OUT_OF_RANGE, f"lambda={p1} must be > 0")
        family = "XORWOW" if g.rng == XORWOW else "PHILOX"
        out = gauss_poisson(g, start, n, p1) if poisson.above_table(family, p1) else \
            poisson.draws(family, _u32(g, start, n), p1)
    else:
        raise CurandError(INTERNAL_ERROR, kind)
    g.offset += n
    return out
