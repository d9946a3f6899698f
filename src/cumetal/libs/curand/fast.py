"""cuRAND's host models and inner loops in C (``libs/csrc/curand_host/``, built once like the other
C code of the libraries: :func:`cumetal.libs.build.curand_host_path`), called through ctypes on numpy
buffers.

Each function here has a numpy twin that stays the fallback (no C compiler, or
``CUMETAL_CURAND_NUMPY=1``) and gives the same bits: ``h100_f64.sincospi/exp/log/fma``,
``h100_erfcinv.erfcinv``, ``h100_erfcinvf.erfcinvf_bits``, the MUFU sine/cosine/lg2/ex2 of
``cumetal.ir.semantics.mufu`` with ``logf`` and ``expf`` of ``cumetal.ir.semantics``, the MRG32k3a
loops of ``streams``, ``mt19937.jump``
(tests/libs/test_curand_fast.py compares the two on a million inputs per model). The C side holds no
constants of its own: :func:`_load` hands it the numpy modules' polynomials and scalars.
"""

from __future__ import annotations

import ctypes
import functools
import os

import numpy as np

_enabled = os.environ.get("CUMETAL_CURAND_NUMPY", "") in ("", "0")
_P = ctypes.c_void_p
_N = ctypes.c_int64


def disable() -> None:
    """Use the numpy twins from now on (tests, benchmarks)."""
    global _enabled
    _enabled = False


def enable() -> None:
    global _enabled
    _enabled = True


@functools.cache
def _load() -> ctypes.CDLL | None:
    from cumetal.capi.library import LibraryBuildError  # noqa: PLC0415
    from cumetal.libs import build  # noqa: PLC0415
    from cumetal.libs.curand import h100_erfcinv, h100_f64  # noqa: PLC0415

    try:
        lib = ctypes.CDLL(str(build.curand_host_path()))
    except (LibraryBuildError, OSError):
        return None  # no C compiler: the numpy twins
    for name in ("cmh_set_f64", "cmh_fma_f64", "cmh_sincospi", "cmh_exp", "cmh_log", "cmh_erfcinv",
                 "cmh_mrg_chain", "cmh_mrg_positions", "cmh_mt_jump", "cmh_mt_outputs", "cmh_mtgp_sequences", "cmh_set_f32", "cmh_sincos_bits",
                 "cmh_logf_bits", "cmh_expf_bits", "cmh_lg2_bits", "cmh_erfcinvf_bits"):
        getattr(lib, name).restype = None
    f = h100_f64

    def arr(vals: tuple[float, ...]) -> np.ndarray:
        return np.ascontiguousarray(vals, dtype=np.float64)

    consts = [arr(f.SIN_P), arr(f.COS_Q), arr(f.EXP_P), arr(f.LOG_P), arr(h100_erfcinv.P_CENTRAL),
              arr(h100_erfcinv.LOG_P),
              arr((f.PI_HI, f.PI_LO, f.LOG_LN2_HI, f.LOG_LN2_LO, f.SQRT_HALF, f.LOG2E, f.LN2_HI, f.LN2_LO,
                   h100_erfcinv.LN2, h100_erfcinv.SPLIT_W, h100_erfcinv.CENTRE))]
    lib.cmh_set_f64(*[c.ctypes.data_as(_P) for c in consts])
    _set_f32(lib)
    return lib


def _set_f32(lib: ctypes.CDLL) -> None:
    from cumetal.ir.semantics import expf, logf, mufu  # noqa: PLC0415
    from cumetal.libs.curand import h100_erfcinvf  # noqa: PLC0415

    def table(spec: mufu.Interp) -> tuple[np.ndarray, np.ndarray]:
        if spec.words2:
            raise ValueError("two-word MUFU tables are not used by cuRAND")
        desc = [v for f in (spec.c0, spec.c1, spec.c2) for v in (f.pos, f.bits, f.shift, f.bias)]
        return (np.ascontiguousarray(spec.words, np.uint64),
                np.ascontiguousarray([*desc, spec.c2_sign, spec.xl_bits, len(spec.words)], np.int64))

    keep = [*table(mufu.SIN), *table(mufu.EX2), *table(mufu.LG2)]
    if (mufu.EX2_SCALE, mufu.LG2_SCALE, mufu.SCALE_EXP, mufu.SQ_DROP) != (39, 38, 37, 19):
        raise ValueError("the MUFU scales changed: update curand_host.c")
    terms = np.ascontiguousarray(mufu.truncated_square_terms(), np.int64)
    scalars = np.ascontiguousarray([mufu.TURN, logf.REDUCE, logf.LN2, expf.SPLIT, expf.L2E, expf.L2E_LO, expf.MAGIC,
                                    expf.UNBIAS, h100_erfcinvf.SPLIT], np.uint32)
    lc = np.ascontiguousarray(logf.COEFFS, np.uint32)
    ec = np.ascontiguousarray(h100_erfcinvf.COEFFS, np.uint32)
    keep += [terms, scalars, lc, ec]
    lib.cmh_set_f32(*[_ptr(a) for a in keep[:6]], _ptr(terms), _N(len(terms)), _ptr(scalars), _ptr(lc), _ptr(ec))


def available() -> bool:
    return _load() is not None


def on() -> bool:
    """True when the C path is enabled and built."""
    return _enabled and _load() is not None


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return a.ctypes.data_as(_P)


def _f64(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def fma_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    a, b, c = (_f64(v) for v in np.broadcast_arrays(a, b, c))
    out = np.empty(a.shape, np.float64)
    _load().cmh_fma_f64(_ptr(a), _ptr(b), _ptr(c), _N(a.size), _ptr(out))
    return out


def sincospi(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = _f64(v)
    s, c = np.empty(v.shape), np.empty(v.shape)
    _load().cmh_sincospi(_ptr(v), _N(v.size), _ptr(s), _ptr(c))
    return s, c


def exp(x: np.ndarray) -> np.ndarray:
    """The model for |x| <= 708, numpy's exp beyond (as h100_f64.exp)."""
    x = _f64(x)
    out = np.empty(x.shape)
    _load().cmh_exp(_ptr(x), _N(x.size), _ptr(out))
    outside = ~(np.abs(x) <= 708.0)
    if outside.any():
        with np.errstate(over="ignore", under="ignore"):
            out[outside] = np.exp(x[outside])
    return out


def log(u: np.ndarray) -> np.ndarray:
    """The model for finite u > 0, numpy's log otherwise (as h100_f64.log)."""
    u = _f64(u)
    out = np.empty(u.shape)
    _load().cmh_log(_ptr(u), _N(u.size), _ptr(out))
    bad = ~(np.isfinite(u) & (u > 0))
    if bad.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            out[bad] = np.log(u[bad])
    return out


def erfcinv(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _f64(c).reshape(-1)
    out, central = np.empty(c.shape), np.empty(c.shape, np.uint8)
    _load().cmh_erfcinv(_ptr(c), _N(c.size), _ptr(out), _ptr(central))
    return out, central.view(bool)


def mrg_chain(s0: list[int], j1: tuple, j2: tuple, count: int) -> np.ndarray:
    """(count, 6) states: s0 advanced s times by the jump matrices j1 / j2 (streams._mrg_base_states)."""
    s = np.ascontiguousarray(s0, np.int64)
    a, b = np.ascontiguousarray(j1, np.int64), np.ascontiguousarray(j2, np.int64)
    out = np.empty((count, 6), np.int64)
    _load().cmh_mrg_chain(_ptr(s), _ptr(a), _ptr(b), _N(count), _ptr(out))
    return out


def mrg_positions(states: np.ndarray, a1: tuple | None, a2: tuple | None, count: int) -> np.ndarray:
    """(count, T) values in (0, m1] of T subsequences, their states first advanced by a1 / a2."""
    st = np.ascontiguousarray(states, np.int64)
    t = st.shape[0]
    out = np.empty((count, t), np.float64)
    if a1 is None:
        _load().cmh_mrg_positions(_ptr(st), _N(t), None, None, _N(count), _ptr(out))
    else:
        m1, m2 = np.ascontiguousarray(a1, np.int64), np.ascontiguousarray(a2, np.int64)
        _load().cmh_mrg_positions(_ptr(st), _N(t), _ptr(m1), _ptr(m2), _N(count), _ptr(out))
    return out


def mt_jump(states: np.ndarray, schedule: list[tuple[int, int]], tail: int) -> np.ndarray:
    """Every row of ``states`` (ptr 0) jumped by the polynomial whose Horner schedule is given
    (mt19937.jump_schedule); result ptr 0."""
    st = np.ascontiguousarray(states, np.uint32)
    steps = np.ascontiguousarray([k for k, _ in schedule], np.int64)
    digits = np.ascontiguousarray([d for _, d in schedule], np.int64)
    out = np.empty_like(st)
    _load().cmh_mt_jump(_ptr(st), _N(st.shape[0]), _ptr(steps), _ptr(digits), _N(len(schedule)), _N(tail),
                        _ptr(out))
    return out


def mt_outputs(states: np.ndarray, length: int) -> np.ndarray:
    """(count, length): the first ``length`` outputs of MT19937 from each initial state (as numpy's
    MT19937 with the state as key and pos 624)."""
    st = np.ascontiguousarray(states, np.uint32)
    out = np.empty((st.shape[0], length), np.uint32)
    _load().cmh_mt_outputs(_ptr(st), _N(st.shape[0]), _N(length), _ptr(out))
    return out


def mtgp_sequences(states: np.ndarray, pos: np.ndarray, sh1: np.ndarray, sh2: np.ndarray, tbl: np.ndarray,
                   tmp: np.ndarray, mask: int, length: int) -> np.ndarray:
    """(count, length) MTGP32 outputs of each state with its parameter rows (mtgp32.sequences)."""
    st = np.ascontiguousarray(states, np.uint32)
    args = [np.ascontiguousarray(pos, np.int64), np.ascontiguousarray(sh1, np.uint32),
            np.ascontiguousarray(sh2, np.uint32), np.ascontiguousarray(tbl, np.uint32),
            np.ascontiguousarray(tmp, np.uint32)]
    out = np.empty((st.shape[0], length), np.uint32)
    _load().cmh_mtgp_sequences(_ptr(st), _N(st.shape[0]), *[_ptr(a) for a in args], ctypes.c_uint32(int(mask)),
                               _N(length), _ptr(out))
    return out


def _u32(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.uint32)


def sincos_bits(x_bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sin.approx, cos.approx) bits of f32 bit patterns (mufu.sincos_bits)."""
    x = _u32(x_bits)
    s, c = np.empty(x.shape, np.uint32), np.empty(x.shape, np.uint32)
    _load().cmh_sincos_bits(_ptr(x), _N(x.size), _ptr(s), _ptr(c))
    return s, c


def _unary(name: str, x_bits: np.ndarray) -> np.ndarray:
    x = _u32(x_bits)
    out = np.empty(x.shape, np.uint32)
    getattr(_load(), name)(_ptr(x), _N(x.size), _ptr(out))
    return out


def logf_bits(x_bits: np.ndarray) -> np.ndarray:
    return _unary("cmh_logf_bits", x_bits)


def expf_bits(x_bits: np.ndarray) -> np.ndarray:
    return _unary("cmh_expf_bits", x_bits)


def lg2_bits(x_bits: np.ndarray) -> np.ndarray:
    return _unary("cmh_lg2_bits", x_bits)


def erfcinvf_bits(c_bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _u32(c_bits)
    out, central = np.empty(c.shape, np.uint32), np.empty(c.shape, np.uint8)
    _load().cmh_erfcinvf_bits(_ptr(c), _N(c.size), _ptr(out), _ptr(central))
    from cumetal.libs.curand import h100_erfcinvf  # noqa: PLC0415

    return h100_erfcinvf.with_tail(c, out, central.view(bool))  # the tail (MUFU rsqrt) in numpy
