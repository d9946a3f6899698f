"""cvt in its combinations: int<->int (.sat), float->int (.rni/.rzi/.rmi/.rpi), int->float (rounding),
f32<->f64, f16/bf16/tf32 conversions, packed f16x2/bf16x2 conversions, round-to-integral, .ftz, .sat."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Case
from ..ptxgen import elementwise

FAM = "cvt"
INTS = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")
_WIDTH = {t: int(t[1:]) for t in INTS}
_RNDI = ("rni", "rzi", "rmi", "rpi")
_RNDF = ("rn", "rz", "rm", "rp")


def _n(instr: str) -> str:
    return instr.replace(".", "_")


def _reg_ty(t: str) -> str:
    """Value type used for loading/storing a register of PTX type t (8-bit values use 16-bit registers)."""
    return {"u8": "u16", "s8": "s16"}.get(t, t)


def _int_inputs(src: str, salt: int) -> np.ndarray:
    """Edge values of every width (so narrowing and extension both matter), in src's storage type."""
    allv = np.concatenate([V.edges(t).astype(np.uint64) for t in ("u8", "u16", "u32", "u64")])
    vals = np.concatenate([allv, V.random_bits("u64", 32, salt)])
    dt = {8: np.uint16, 16: np.uint16, 32: np.uint32, 64: np.uint64}[_WIDTH[src]]
    return np.unique(vals.astype(dt))


def _cvt(name: str, instr: str, src: str, dst: str, vals: np.ndarray, **kw) -> Case:
    return elementwise(name, FAM, f"    {instr} %d, %a;", [("a", _reg_ty(src), vals)], [("d", _reg_ty(dst))], **kw)


def _f32_to_int_values() -> np.ndarray:
    near = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 1e-30, -1e-30, 127.5, 128.5, 255.5, 256.0,
                     32767.5, 32768.0, 65535.5, 65536.0, 2147483520.0, 2147483648.0, -2147483904.0,
                     4294967040.0, 4294967296.0, 9.223372e18, 9.2233725e18, -9.2233725e18, 1.8446743e19,
                     1.8446745e19, -129.0, -128.5, -32768.5, -65536.0], dtype=np.float32)
    return np.concatenate([V.edges("f32"), near.view(np.uint32), V.random_floats("f32", 64, -1e6, 1e6, 61),
                           V.random_floats("f32", 32, -4, 4, 62)])


def _f64_to_int_values() -> np.ndarray:
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten in the cast; any NaN will do here
        f = _f32_to_int_values().view(np.float32).astype(np.float64)
    extra = np.array([2147483647.5, -2147483648.5, 4294967295.5, 9223372036854774784.0, 18446744073709549568.0,
                      0.5000000000000001, 2.5000000000000004], dtype=np.float64)
    return np.concatenate([V.edges("f64"), f.view(np.uint64), extra.view(np.uint64)])


def _int_to_float_values(src: str) -> np.ndarray:
    base = _int_inputs(src, 63)
    w = _WIDTH[src]
    if w >= 32:  # values around float precision limits, so every rounding mode matters
        extra = [(1 << 24) + k for k in range(-3, 4)] + [(1 << 25) + k for k in range(-3, 4)]
        extra += [(1 << 53) + k for k in range(-3, 4)] + [(1 << 54) + 3, (1 << 62) + 1, (1 << 63) - 1] if w == 64 else []
        extra = np.array(extra, dtype=np.uint64).astype(base.dtype)
        if src.startswith("s"):
            extra = np.concatenate([extra, (-extra.astype(np.int64)).astype(base.dtype)])
        base = np.concatenate([base, extra])
    return base


def cases() -> list[Case]:
    out: list[Case] = []
    for src in INTS:
        vals = _int_inputs(src, 60)
        for dst in INTS:
            if src == dst:
                continue
            out.append(_cvt(f"cvt_{dst}_{src}", f"cvt.{dst}.{src}", src, dst, vals))
            # ptxas rejects .sat where no value can be out of range (widening from unsigned or same sign)
            if not (_WIDTH[dst] > _WIDTH[src] and (src[0] == dst[0] or src[0] == "u")):
                out.append(_cvt(f"cvt_sat_{dst}_{src}", f"cvt.sat.{dst}.{src}", src, dst, vals))
    f32v, f64v = _f32_to_int_values(), _f64_to_int_values()
    f16v = np.concatenate([V.edges("f16"), V.random_floats("f16", 64, -70000, 70000, 64)])
    for dst in ("s32", "u32", "s64", "u64"):
        for r in _RNDI:
            out.append(_cvt(f"cvt_{r}_{dst}_f32", f"cvt.{r}.{dst}.f32", "f32", dst, f32v))
            out.append(_cvt(f"cvt_{r}_{dst}_f64", f"cvt.{r}.{dst}.f64", "f64", dst, f64v))
        out.append(_cvt(f"cvt_rni_{dst}_f16", f"cvt.rni.{dst}.f16", "f16", dst, f16v))
        out.append(_cvt(f"cvt_rzi_{dst}_f16", f"cvt.rzi.{dst}.f16", "f16", dst, f16v))
    for dst in ("s16", "u16", "s8", "u8"):
        out.append(_cvt(f"cvt_rzi_{dst}_f32", f"cvt.rzi.{dst}.f32", "f32", dst, f32v))
        out.append(_cvt(f"cvt_rni_{dst}_f64", f"cvt.rni.{dst}.f64", "f64", dst, f64v))
    out.append(_cvt("cvt_rzi_sat_s32_f32", "cvt.rzi.sat.s32.f32", "f32", "s32", f32v))
    out.append(_cvt("cvt_rzi_ftz_s32_f32", "cvt.rzi.ftz.s32.f32", "f32", "s32", f32v))
    for src in ("s32", "u32", "s64", "u64"):
        vals = _int_to_float_values(src)
        for r in _RNDF:
            out.append(_cvt(f"cvt_{r}_f32_{src}", f"cvt.{r}.f32.{src}", src, "f32", vals))
            if src.endswith("64"):
                out.append(_cvt(f"cvt_{r}_f64_{src}", f"cvt.{r}.f64.{src}", src, "f64", vals))
        if src.endswith("32"):
            out.append(_cvt(f"cvt_rn_f64_{src}", f"cvt.rn.f64.{src}", src, "f64", vals))
        out.append(_cvt(f"cvt_rn_f16_{src}", f"cvt.rn.f16.{src}", src, "f16", vals))
    for src in ("s16", "u16", "s8", "u8"):
        vals = _int_to_float_values(src)
        out.append(_cvt(f"cvt_rn_f32_{src}", f"cvt.rn.f32.{src}", src, "f32", vals))
        out.append(_cvt(f"cvt_rz_f16_{src}", f"cvt.rz.f16.{src}", src, "f16", vals))
    out += _float_float()
    return out


def _float_float() -> list[Case]:
    out: list[Case] = []
    f32 = np.concatenate([V.edges("f32"), V.random_bits("f32", 96, 70),
                          V.random_floats("f32", 64, -70000, 70000, 71)])
    f64 = np.concatenate([V.edges("f64"), V.random_bits("f64", 96, 72),
                          np.ldexp(V.rng(73).uniform(1, 2, 96), V.rng(74).integers(-160, 140, 96)).view(np.uint64)])
    f16 = np.concatenate([V.edges("f16"), V.random_bits("f16", 64, 75)])
    bf16 = np.concatenate([V.edges("bf16"), V.random_bits("bf16", 64, 76)])
    out.append(_cvt("cvt_f64_f32", "cvt.f64.f32", "f32", "f64", f32))
    out.append(_cvt("cvt_ftz_f64_f32", "cvt.ftz.f64.f32", "f32", "f64", f32))
    for r in _RNDF:
        out.append(_cvt(f"cvt_{r}_f32_f64", f"cvt.{r}.f32.f64", "f64", "f32", f64))
        out.append(_cvt(f"cvt_{r}_f16_f32", f"cvt.{r}.f16.f32", "f32", "f16", f32))
    out.append(_cvt("cvt_rn_ftz_f32_f64", "cvt.rn.ftz.f32.f64", "f64", "f32", f64))
    out.append(_cvt("cvt_rn_sat_f32_f64", "cvt.rn.sat.f32.f64", "f64", "f32", f64))
    out.append(_cvt("cvt_rn_f16_f64", "cvt.rn.f16.f64", "f64", "f16", f64))
    out.append(_cvt("cvt_rz_f16_f64", "cvt.rz.f16.f64", "f64", "f16", f64))
    out.append(_cvt("cvt_rn_relu_f16_f32", "cvt.rn.relu.f16.f32", "f32", "f16", f32))
    out.append(_cvt("cvt_f32_f16", "cvt.f32.f16", "f16", "f32", f16))
    out.append(_cvt("cvt_ftz_f32_f16", "cvt.ftz.f32.f16", "f16", "f32", f16))
    out.append(_cvt("cvt_f64_f16", "cvt.f64.f16", "f16", "f64", f16))
    out.append(_cvt("cvt_rn_bf16_f32", "cvt.rn.bf16.f32", "f32", "bf16", f32))
    out.append(_cvt("cvt_rz_bf16_f32", "cvt.rz.bf16.f32", "f32", "bf16", f32))
    out.append(_cvt("cvt_rn_relu_bf16_f32", "cvt.rn.relu.bf16.f32", "f32", "bf16", f32))
    out.append(_cvt("cvt_f32_bf16", "cvt.f32.bf16", "bf16", "f32", bf16, target="sm_90"))
    out.append(_cvt("cvt_rn_bf16_f16", "cvt.rn.bf16.f16", "f16", "bf16", f16, target="sm_90"))
    out.append(_cvt("cvt_rna_tf32_f32", "cvt.rna.tf32.f32", "f32", "b32", f32))
    out.append(_cvt("cvt_rn_tf32_f32", "cvt.rn.tf32.f32", "f32", "b32", f32, target="sm_90"))
    for r in _RNDI:
        out.append(_cvt(f"cvt_{r}_f32_f32", f"cvt.{r}.f32.f32", "f32", "f32", f32))
        out.append(_cvt(f"cvt_{r}_f64_f64", f"cvt.{r}.f64.f64", "f64", "f64", f64))
        out.append(_cvt(f"cvt_{r}_f16_f16", f"cvt.{r}.f16.f16", "f16", "f16", f16))
    out.append(_cvt("cvt_rni_ftz_f32_f32", "cvt.rni.ftz.f32.f32", "f32", "f32", f32))
    out.append(_cvt("cvt_sat_f32_f32", "cvt.sat.f32.f32", "f32", "f32", f32))
    out.append(_cvt("cvt_ftz_sat_f32_f32", "cvt.ftz.sat.f32.f32", "f32", "f32", f32))
    out.append(_cvt("cvt_sat_f64_f64", "cvt.sat.f64.f64", "f64", "f64", f64))
    a, b = V.pairs("f32", n_random=64, salt=77)
    for instr in ("cvt.rn.f16x2.f32", "cvt.rn.relu.f16x2.f32", "cvt.rn.bf16x2.f32", "cvt.rz.bf16x2.f32"):
        out.append(elementwise(_n(instr), FAM, f"    {instr} %d, %a, %b;", [("a", "f32", a), ("b", "f32", b)],
                               [("d", "b32")], note="d = pack(hi=cvt(a), lo=cvt(b))"))
    return out
