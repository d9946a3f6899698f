"""MSL for memory operations: loads, stores, atomics, address-space conversions, copies, printf."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cumetal.backends.common.codes import AtomicOp, MemSpace
from cumetal.backends.msl.ops_scalar import bits_of, from_bits
from cumetal.backends.msl.values import EmitError
from cumetal.ir import types as T
from cumetal.ir.nodes import Inst, SymAddr

if TYPE_CHECKING:
    from cumetal.backends.msl.emit import FnEmitter

_ACCESS = {"global": "global", "const": "global", "param": "global", "shared": "shared", "local": "local",
           "generic": "generic"}
# space and atomic op codes of the prelude's atomic helpers: the one table in backends/common/codes.py
SPACE_CODE = {s: int(MemSpace.GLOBAL) for s in ("global", "const", "param")} | {
    "shared": int(MemSpace.SHARED), "local": int(MemSpace.LOCAL), "generic": int(MemSpace.GENERIC)}
# (inc/dec arrive as a compare-and-swap loop: the legalizer's atomic.inc_dec rule; their codes are unused)
AOP_CODE = {m.name.lower(): int(m) for m in AtomicOp if m <= AtomicOp.FMAX and m not in (AtomicOp.INC, AtomicOp.DEC)}
AOP_CODE_FTZ_FADD = int(AtomicOp.FADD_FTZ)  # f32 fadd with attr ftz


def _mem_type(em: FnEmitter, t: str) -> str:
    """Type of the memory word moved for a register of IR type t."""
    if t == "i1":
        return "uchar"
    return em.ty(t)


def _vector_align(i: Inst, t: str) -> int:
    """The whole access's size when this is the first element of a .v2/.v4/.b128 access (the
    lowering's ``align`` attribute; NVIDIA faults unless the address is a multiple of it), else 0."""
    align = i.attrs.get("align") or 0
    return align if align > (1 if t == "i1" else T.bytes_of(t)) else 0


def load(em: FnEmitter, i: Inst) -> str:
    d = i.dsts[0].type
    mt = _mem_type(em, d)
    addr = i.args[0]
    space = i.attrs["space"]
    if space == "param" and isinstance(addr, SymAddr) and addr.space == "param":
        p = next(p for p in em.fn.params if p.name == addr.name)
        expr = f"*(device {mt}*)(cm.params + {p.offset + addr.offset})"
    else:
        kind = "ldv" if i.attrs.get("volatile") else "ld"
        a = em.v(addr)
        expr = f"cm_{kind}_{_ACCESS[space]}<{mt}>(cm, {a})"
        if align := _vector_align(i, d):
            expr = f"(CM_CHECK_ALIGN(cm, {a}, {align}), {expr})"
    if d == "i1":
        return f"({expr} != 0)"
    return expr


def store(em: FnEmitter, i: Inst) -> list[str]:
    addr, val = i.args
    mt = _mem_type(em, val.type)
    v = em.v(val)
    if val.type == "i1":
        v = f"uchar({v} ? 1 : 0)"
    kind = "stv" if i.attrs.get("volatile") else "st"
    a = em.v(addr)
    check = [f"CM_CHECK_ALIGN(cm, {a}, {align});"] if (align := _vector_align(i, val.type)) else []
    return [*check, f"cm_{kind}_{_ACCESS[i.attrs['space']]}<{mt}>(cm, {a}, {v});"]


def atomic(em: FnEmitter, i: Inst) -> str:
    d = i.dsts[0].type
    addr, val = i.args
    space = SPACE_CODE[i.attrs["space"]]
    aop = i.attrs["aop"]
    if aop not in AOP_CODE:
        raise EmitError(f"atomic operation {aop}")
    n = T.bits(d)
    v = em.v(val)
    a = em.v(addr)
    if aop in ("fadd", "fmin", "fmax"):  # the legalizer's atomic.float rule makes them a CAS loop
        raise EmitError(f"atomic {aop} on {d} (internal: float atomics arrive legalized)")
    if n == 32:
        arg = f"as_type<uint>({v})" if d == "f32" else v
        r = f"cm_atomic32(cm, {a}, {space}u, {AOP_CODE[aop]}, {arg})"
        return f"as_type<float>({r})" if d == "f32" else r  # the raw old word (NVIDIA)
    if n == 64:
        arg = bits_of(em, d, v) if d == "f64" else v
        r = f"cm_atomic64(cm, {a}, {space}u, {AOP_CODE[aop]}, {arg}, 0ul)"
        return from_bits(em, d, r) if d == "f64" else r
    if n == 16:
        code = {"add": int(AtomicOp.ADD), "exch": int(AtomicOp.EXCH)}.get(aop)
        if code is None:
            raise EmitError(f"16-bit atomic {aop}")
        return f"cm_atomic16(cm, {a}, {space}u, {code}, uint({v}))"
    raise EmitError(f"atomic on {d}")


def atomic_cas(em: FnEmitter, i: Inst) -> str:
    d = i.dsts[0].type
    addr, cmp, new = i.args
    space = SPACE_CODE[i.attrs["space"]]
    a = em.v(addr)
    c, v = em.v(cmp), em.v(new)
    n = T.bits(d)
    if T.is_float(d):
        c, v = bits_of(em, d, c), bits_of(em, d, v)
    if n == 32:
        r = f"cm_atomic_cas32(cm, {a}, {space}u, {c}, {v})"
    elif n == 64:
        r = f"cm_atomic64(cm, {a}, {space}u, {int(AtomicOp.CAS)}, {c}, {v})"
    elif n == 16:
        r = f"cm_atomic16(cm, {a}, {space}u, {int(AtomicOp.CAS)}, uint({c}) | (uint({v}) << 16))"
    else:
        raise EmitError(f"compare-and-swap on {d}")
    return from_bits(em, d, r) if T.is_float(d) else r


def cvta(em: FnEmitter, i: Inst) -> str:
    code = {"shared": 1, "local": 2}.get(i.attrs["space"], 0)
    fn = "cm_to_generic" if i.op == "cvta_to_generic" else "cm_from_generic"
    return f"{fn}({em.v(i.args[0])}, {code}u)"


def isspacep(em: FnEmitter, i: Inst) -> str:
    code = {"shared": 1, "local": 2}.get(i.attrs["space"], 0)
    return f"cm_isspace({em.v(i.args[0])}, {code}u)"


def memcpy(em: FnEmitter, i: Inst) -> list[str]:
    dst, src = (em.v(x) for x in i.args)
    size = int(i.attrs["size"])
    ds, ss = _ACCESS[i.attrs["dst_space"]], _ACCESS[i.attrs["src_space"]]
    return [f"for (uint cm_k = 0; cm_k < {size}u; ++cm_k) "
            f"cm_st_{ds}<uchar>(cm, {dst} + cm_k, cm_ld_{ss}<uchar>(cm, {src} + cm_k));"]


def printf(em: FnEmitter, i: Inst) -> str:
    fmt_id, nbytes, nargs = em.printf_site(i)
    return f"cm_printf(cm, {fmt_id}u, {em.v(i.args[1])}, {nbytes}u, {nargs}u)"
