"""The Python half of cuRAND's host API (csrc/curand.c): ints in, a curandStatus_t out, never raises.

Device generators (curandCreateGenerator) write device memory in the order of their stream;
host generators (curandCreateGeneratorHost) write host memory at once."""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from cumetal.libs import devmem, streams
from cumetal.libs.curand import host as H
from cumetal.libs.devmem import LibError, say

_DTYPES = {"u32": np.uint32, "u64": np.uint64, "uniform": np.float32, "uniform_double": np.float64, "normal": np.float32,
           "normal_double": np.float64, "lognormal": np.float32, "lognormal_double": np.float64,
           "poisson": np.uint32}


def entry(name: str) -> Callable[[Callable[..., Any]], Callable[..., int]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., int]:
        @functools.wraps(fn)
        def call(*args: Any) -> int:
            try:
                fn(*args)
                return H.SUCCESS
            except H.CurandError as e:
                say(f"{name}: status {e.status}: {e}")
                return e.status
            except LibError as e:
                say(f"{name}: {e}")
                return H.LAUNCH_FAILURE if e.status == H.LAUNCH_FAILURE else H.OUT_OF_RANGE
            except Exception as e:  # noqa: BLE001 - nothing may escape into C
                say(f"{name}: internal error: {e!r}")
                return H.INTERNAL_ERROR
        return call
    return wrap


def _out(ptr: int, ctype: type, value: Any) -> None:
    if not ptr:
        raise H.CurandError(H.OUT_OF_RANGE, "output pointer is NULL")
    ctype.from_address(ptr).value = value


@entry("curandCreateGenerator")
def create(out: int, rng: int, host: int) -> None:
    if not out:
        raise H.CurandError(H.OUT_OF_RANGE, "generator is NULL")
    if not host:
        from cumetal import runtime as rt  # noqa: PLC0415
        err = rt.cudaFree(0)[0]
        if int(err) != 0:
            raise H.CurandError(203, f"the CUDA runtime could not initialise: {err!r}")
    _out(out, ctypes.c_void_p, H.create(rng, bool(host)))


@entry("curandDestroyGenerator")
def destroy(g: int) -> None:
    H.destroy(g)


@entry("curandGetVersion")
def get_version(out: int) -> None:
    _out(out, ctypes.c_int, H.VERSION)


@entry("curandGetProperty")
def get_property(prop: int, out: int) -> None:
    values = {0: H.VERSION // 1000, 1: H.VERSION // 100 % 10, 2: H.VERSION % 100}
    if prop not in values:
        raise H.CurandError(H.OUT_OF_RANGE, f"{prop} is not a libraryPropertyType")
    _out(out, ctypes.c_int, values[prop])


@entry("curandSetStream")
def set_stream(g: int, stream: int) -> None:
    H.get(g).stream = stream


@entry("curandSetPseudoRandomGeneratorSeed")
def set_seed(g: int, seed: int) -> None:
    gen = H.get(g)
    gen.seed, gen.offset = seed, 0  # a new seed restarts the sequence


@entry("curandSetGeneratorOffset")
def set_offset(g: int, offset: int) -> None:
    H.set_offset(H.get(g), offset)


@entry("curandSetGeneratorOrdering")
def set_ordering(g: int, ordering: int) -> None:
    H.set_ordering(H.get(g), ordering)


@entry("curandSetQuasiRandomGeneratorDimensions")
def set_dims(g: int, dims: int) -> None:
    H.set_dimensions(H.get(g), dims)


@entry("curandGenerateSeeds")
def generate_seeds(g: int) -> None:
    H.get(g)


_TABLES: dict[tuple[int, int], np.ndarray] = {}  # kept for the life of the process, as cuRAND's are
_SETS = {101: (32, False), 102: (32, True), 103: (64, False), 104: (64, True)}  # curandDirectionVectorSet_t


@entry("curandGetDirectionVectors/ScrambleConstants")
def get_table(out: int, which: int, bits: int) -> None:
    """Host address of a table: direction vectors of all dimensions (which = a curandDirectionVectorSet_t
    of matching width) or the scramble constants (which = 0)."""
    from cumetal.libs.curand import sobol  # noqa: PLC0415

    if not out:
        raise H.CurandError(H.OUT_OF_RANGE, "output pointer is NULL")
    if which and _SETS.get(which, (0, False))[0] != bits:
        raise H.CurandError(H.OUT_OF_RANGE, f"{which} is not a {bits}-bit curandDirectionVectorSet_t")
    key = (which, bits)
    if key not in _TABLES:
        dims = sobol.MAX_DIMENSIONS
        if which == 0:
            table = sobol.scramble_constants(dims, bits)
        elif _SETS[which][1]:
            table = sobol.scrambled_direction_vectors(dims, bits)
        else:
            table = sobol.direction_vectors(dims, bits)
        _TABLES[key] = np.ascontiguousarray(table, dtype=np.uint64 if bits == 64 else np.uint32)
    _out(out, ctypes.c_void_p, _TABLES[key].ctypes.data)


_DISTRIBUTIONS: set[int] = set()


@entry("curandCreatePoissonDistribution")
def create_poisson_distribution(lam: float, out: int) -> None:
    """The square histogram of Poisson(lam) that curandGeneratePoisson uses (cumetal.libs.curand.poisson),
    in one device allocation: the 48-byte header of curand.h's curandDiscreteDistribution_st, V, K."""
    from cumetal import runtime as rt  # noqa: PLC0415
    from cumetal.libs.curand import poisson  # noqa: PLC0415

    if not out:
        raise H.CurandError(H.OUT_OF_RANGE, "discrete_distribution is NULL")
    if not lam > 0 or lam != lam:
        raise H.CurandError(H.OUT_OF_RANGE, f"lambda={lam} must be > 0")
    histogram = not poisson.above_table("default", lam)  # NVIDIA's: a table below 2000, else the rounded normal
    shift, big_k, v = poisson.square_histogram(lam) if histogram else (0, np.zeros(0, np.int64), np.zeros(0))
    n = len(big_k)
    size = 48 + 8 * n + 4 * n
    err, ptr = rt.cudaMalloc(size)
    if int(err) != 0:
        raise H.CurandError(102, f"cannot allocate {size} bytes of device memory: {err!r}")  # ALLOCATION_FAILED
    header = np.zeros(6, np.uint64)
    header[0] = (5 if histogram else 7) | (shift << 32)  # CURAND_M2 / CURAND_DISCRETE_GAUSS, as NVIDIA sets them
    header[1] = n
    header[2] = ptr + 48 if n else 0
    header[3] = ptr + 48 + 8 * n if n else 0
    header[4] = np.float64(math.sqrt(lam)).view(np.uint64)
    header[5] = np.float64(lam).view(np.uint64)
    devmem.write_host(ptr, header)
    if n:
        devmem.write_host(ptr + 48, v.astype(np.float64))
        devmem.write_host(ptr + 48 + 8 * n, big_k.astype(np.uint32))
    _DISTRIBUTIONS.add(ptr)
    _out(out, ctypes.c_void_p, ptr)


@entry("curandDestroyDistribution")
def destroy_distribution(dist: int) -> None:
    from cumetal import runtime as rt  # noqa: PLC0415

    if dist not in _DISTRIBUTIONS:
        raise H.CurandError(H.OUT_OF_RANGE, f"0x{dist:x} is not a live curandDiscreteDistribution_t")
    _DISTRIBUTIONS.discard(dist)
    rt.cudaFree(dist)


@entry("curandGenerate*")
def generate(g: int, kind: str, ptr: int, n: int, p1: float, p2: float) -> None:
    gen = H.get(g)
    dt = np.dtype(_DTYPES[kind])
    if not ptr and n:
        raise H.CurandError(H.OUT_OF_RANGE, "output pointer is NULL")
    if gen.rng not in H.QUASI and kind in ("normal", "lognormal", "normal_double", "lognormal_double") and n % 2:
        raise H.CurandError(H.LENGTH_NOT_MULTIPLE, f"n={n}: normal outputs come in pairs (n must be even)")
    if kind in ("normal", "lognormal", "normal_double", "lognormal_double") and not p2 > 0:
        raise H.CurandError(H.OUT_OF_RANGE, f"stddev={p2} must be > 0")
    if kind == "poisson" and not p1 > 0:
        raise H.CurandError(H.OUT_OF_RANGE, f"lambda={p1} must be > 0")
    if n == 0:
        return
    if gen.host:
        devmem.write_host(ptr, H.values(gen, kind, n, p1, p2))
        return
    devmem.check_range(ptr, n * dt.itemsize, "outputPtr", H.LAUNCH_FAILURE)
    snapshot = H.Generator(gen.rng, gen.host, gen.seed, gen.offset, gen.ordering, gen.dims, gen.stream)
    if gen.rng in H.QUASI:
        H.quasi_values(H.Generator(gen.rng, True, dims=gen.dims), kind, 0, p1, p2)  # argument checks now
        if n % gen.dims:
            raise H.CurandError(H.LENGTH_NOT_MULTIPLE, f"n={n} is not a multiple of the {gen.dims} dimensions")
        gen.offset += n // gen.dims
    else:
        if kind == "u64":
            raise H.CurandError(H.TYPE_ERROR, "64-bit integers come from SOBOL64 generators only")
        gen.offset += n  # the generator moves on now; the values are written in stream order

    def go() -> None:
        devmem.write_host(ptr, H.values(snapshot, kind, n, p1, p2).astype(dt))
    streams.submit(gen.stream, go, f"curandGenerate ({kind})", H.LAUNCH_FAILURE)
