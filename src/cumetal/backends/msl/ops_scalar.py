"""MSL for the IR's integer, float and conversion operations (semantics: cumetal/ir/ops.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cumetal.backends.common.codes import FloatCompare
from cumetal.backends.msl.values import FORMATS, ROUND, EmitError, signed_type
from cumetal.ir import types as T
from cumetal.ir.nodes import Inst

if TYPE_CHECKING:
    from cumetal.backends.msl.emit import FnEmitter

_ICMP = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=", "ult": "<", "ule": "<=",
         "ugt": ">", "uge": ">="}
FCMP_CODES = {m.name.lower(): int(m) for m in FloatCompare}  # cm_fcmp conditions (backends/common/codes.py)
_BOOL_OP = {"and": "&&", "or": "||", "xor": "!="}


def integer(em: FnEmitter, i: Inst) -> str:
    d = i.dsts[0]
    t = d.type
    ty = em.ty(t)
    a = [em.v(x) for x in i.args]
    op = i.op
    if t == "i1":
        if op == "not":
            return f"!{a[0]}"
        if op in ("and", "or", "xor"):
            return f"({a[0]} {_BOOL_OP[op]} {a[1]})"
        raise EmitError(f"{op} on predicates")
    bits = T.bits(t)
    if op in ("add", "sub", "mul", "and", "or", "xor"):
        sym = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^"}[op]
        return f"{ty}({a[0]} {sym} {a[1]})"
    if op == "not":
        return f"{ty}(~{a[0]})"
    if op == "neg":
        return f"{ty}(0 - {a[0]})"
    if op == "abs":
        return f"{ty}({signed_type(t)}({a[0]}) < 0 ? 0 - {a[0]} : {a[0]})"
    if op in ("min", "max"):
        cmp = "<" if op == "min" else ">"
        if i.attrs["signed"]:
            s = signed_type(t)
            return f"({s}({a[0]}) {cmp} {s}({a[1]}) ? {a[0]} : {a[1]})"
        return f"({a[0]} {cmp} {a[1]} ? {a[0]} : {a[1]})"
    if op == "mulhi":
        if bits == 8:
            if i.attrs["signed"]:
                return f"uchar((int(char({a[0]})) * int(char({a[1]}))) >> 8)"
            return f"uchar((uint({a[0]}) * uint({a[1]})) >> 8)"
        return f"cm_mulhi_{'s' if i.attrs['signed'] else 'u'}{bits}({a[0]}, {a[1]})"
    if op in ("div_nz", "rem_nz"):  # legalized: nonzero divisor, no signed overflow
        sym = "/" if op == "div_nz" else "%"
        if i.attrs["signed"]:
            s = signed_type(t)
            return f"{ty}({s}({a[0]}) {sym} {s}({a[1]}))"
        return f"{ty}({a[0]} {sym} {a[1]})"
    if op in ("shl_lt", "lshr_lt"):  # legalized: amount < bits
        return f"{ty}({a[0]} {'<<' if op == 'shl_lt' else '>>'} {a[1]})"
    if op == "ashr_lt":
        return f"{ty}({signed_type(t)}({a[0]}) >> {a[1]})"
    raise EmitError(f"integer op {op}")


def bitcount(em: FnEmitter, i: Inst) -> str:
    x = i.args[0]
    a = em.v(x)
    n = T.bits(x.type)
    if i.op == "popc":
        return f"uint(popcount({'ulong' if n == 64 else 'uint'}({a})))"
    if i.op == "clz":
        if n == 64:
            return f"cm_clz64({a})"
        return f"(uint(clz(uint({a}))) - {32 - n}u)"
    # brev
    ty = em.ty(x.type)
    if n == 64:
        return f"cm_brev64({a})"
    return f"{ty}(reverse_bits(uint({a})) >> {32 - n}u)"


def icmp(em: FnEmitter, i: Inst) -> str:
    c = i.attrs["cond"]
    a, b = (em.v(x) for x in i.args)
    t = i.args[0].type
    if c[0] == "s" and t == "i1":
        # a signed i1 is 0 or -1 (true): true <s false, the unsigned order of bool reversed
        a, b = b, a
    elif c[0] == "s":
        s = signed_type(t)
        a, b = f"{s}({a})", f"{s}({b})"
    return f"({a} {_ICMP[c]} {b})"


def width(em: FnEmitter, i: Inst) -> str:
    d = i.dsts[0].type
    x = i.args[0]
    a = em.v(x)
    ty = em.ty(d)
    if i.op == "trunc":
        return f"(({a} & 1) != 0)" if d == "i1" else f"{ty}({a})"
    if x.type == "i1":
        return f"({a} ? {ty}(~{ty}(0)) : {ty}(0))" if i.op == "sext" else f"{ty}({a} ? 1 : 0)"
    if i.op == "sext" and x.type != d:
        return f"{ty}({signed_type(d)}({signed_type(x.type)}({a})))"
    return f"{ty}({a})"


# ---------------------------------------------------------------------------- floats
def bits_of(em: FnEmitter, t: str, text: str) -> str:
    """Raw bits (ulong-convertible) of a float value expression of type t."""
    if t in ("f16", "bf16"):
        return text
    if t == "f32":
        return f"as_type<uint>({text})"
    return f"as_type<ulong>({text})"  # (--fp64=emulate leaves no f64: passes/legalize/fp64)


def from_bits(em: FnEmitter, t: str, text: str) -> str:
    if t in ("f16", "bf16"):
        return f"ushort({text})"
    if t == "f32":
        return f"as_type<float>(uint({text}))"
    return f"as_type<double>(ulong({text}))"


def _to_f32(t: str, text: str) -> str:
    return f"cm_h2f({text})" if t == "f16" else f"cm_b2f({text})"


def _from_f32(t: str, text: str, mode: str) -> str:
    return f"cm_f2h({text}, {mode})" if t == "f16" else f"cm_f2b({text}, {mode})"


def float_arith(em: FnEmitter, i: Inst) -> str:
    """fadd_ieee … fsqrt_ieee rounded to nearest; a NaN result is any NaN. Directed rounding and the
    single rounding of f16/bf16 fma are the legalizer's (rounding.*), as are mul.ftz's tininess and
    NVIDIA's NaN rules (fmul.ftz_tininess, nan.canonical, nan.f64_priority). f16/bf16 are computed in
    f32 and rounded once more: exact for add/sub/mul/div/sqrt (24 >= 2 * 11 + 2 bits)."""
    return _float_arith(em, i, i.dsts[0].type)


def _rn(op: str, a: list[str]) -> str:
    if op in ("fadd", "fsub", "fmul"):
        return f"({a[0]} {({'fadd': '+', 'fsub': '-', 'fmul': '*'})[op]} {a[1]})"
    if op == "fdiv":
        return f"cm_fdiv({a[0]}, {a[1]})"
    if op == "fma":
        return f"fma({a[0]}, {a[1]}, {a[2]})"
    return f"cm_fsqrt({a[0]})"


def _float_arith(em: FnEmitter, i: Inst, t: str) -> str:
    op = i.op.removesuffix("_ieee")
    a = [em.v(x) for x in i.args]
    rnd = i.attrs.get("rnd", "rn")
    if rnd != "rn":
        raise EmitError(f"{i.op} .{rnd}: directed rounding arrives legalized (passes/legalize/rules/rounding_*.py)")
    if t in ("f16", "bf16"):
        if op == "fma":
            raise EmitError(f"{t} fma arrives legalized (rounding.directed: f32 rounded to odd)")
        return _from_f32(t, _rn(op, [_to_f32(t, x) for x in a]), "CM_RN")
    return _rn(op, a)


def float_unary(em: FnEmitter, i: Inst) -> str:
    t = i.dsts[0].type
    op = i.op
    a = em.v(i.args[0])
    if op == "ftz":
        if t in ("f16", "bf16"):
            e = "0x7C00u" if t == "f16" else "0x7F80u"
            return f"(({a} & {e}) == 0 ? ushort({a} & 0x8000u) : {a})"
        return f"cm_ftz({a})"
    if op == "fsat":
        if t in ("f16", "bf16"):
            return _from_f32(t, f"cm_fsat({_to_f32(t, a)})", "CM_RN")
        return f"cm_fsat({a})"
    if op == "frint_ieee":  # NaN results are the legalizer's
        mode = ROUND[i.attrs["rnd"]]
        if t in ("f16", "bf16"):
            return _from_f32(t, f"cm_frint({_to_f32(t, a)}, {mode})", "CM_RN")
        return f"cm_frint({a}, {mode})"
    raise EmitError(f"float op {op}")


def fcmp(em: FnEmitter, i: Inst) -> str:
    t = i.args[0].type
    a, b = (em.v(x) for x in i.args)
    code = FCMP_CODES[i.attrs["cond"]]
    if t in ("f16", "bf16"):
        a, b = _to_f32(t, a), _to_f32(t, b)
    return f"cm_fcmp({a}, {b}, {code})"


def fapprox(em: FnEmitter, i: Inst) -> str:
    """fapprox_ieee: the target's approximation; NaN results are the legalizer's (nan.canonical,
    nan.f64_priority)."""
    t = i.dsts[0].type
    fn = i.attrs["fn"]
    a = [em.v(x) for x in i.args]
    if t == "f64":
        table = {"rcp": f"(1.0 / {a[0]})", "sqrt": f"sqrt({a[0]})", "rsqrt": f"rsqrt({a[0]})"}
        if fn in ("div", "div_approx"):
            return f"cm_fdiv({a[0]}, {a[1]})"
        if fn not in table:
            raise EmitError(f"{fn}.approx on f64 is not supported")
        return table[fn]
    f = a if t == "f32" else [_to_f32(t, x) for x in a]
    table = {"ex2": f"exp2({f[0]})", "lg2": f"log2({f[0]})", "sin": f"sin({f[0]})", "cos": f"cos({f[0]})",
             "rsqrt": f"rsqrt({f[0]})", "rcp": f"(1.0f / {f[0]})", "sqrt": f"sqrt({f[0]})", "tanh": f"tanh({f[0]})"}
    if fn == "div":
        expr = f"cm_fdiv({f[0]}, {f[1]})"
    elif fn == "div_approx":
        expr = f"({f[0]} / {f[1]})"
    elif fn in table:
        expr = table[fn]
    else:
        raise EmitError(f"approximate function {fn} is not supported")
    return expr if t == "f32" else _from_f32(t, expr, "CM_RN")


# ---------------------------------------------------------------------------- conversions
def fcvt(em: FnEmitter, i: Inst) -> str:
    """fcvt_ieee: the conversion per rnd (exact software rounding on the bits); a NaN gives some
    NaN (NVIDIA's per-pair NaN is the legalizer's nan.convert rule)."""
    dt = i.dsts[0].type
    x = i.args[0]
    st = x.type
    a = em.v(x)
    mode = ROUND[i.attrs["rnd"]]
    if st == dt:  # fcvt_ieee: NaN results are the legalizer's (nan.convert)
        return a
    if dt == "f32" and st == "f16":
        return f"cm_h2f({a})"
    if dt == "f32" and st == "bf16":
        return f"cm_b2f({a})"
    if dt == "f64" and st == "f32":
        return f"double({a})"
    sm, se = FORMATS[st]
    dm, de = FORMATS[dt]
    return from_bits(em, dt, f"cm_fcvt_bits({bits_of(em, st, a)}, {sm}, {se}, {dm}, {de}, {mode})")


def f2i(em: FnEmitter, i: Inst) -> str:
    """f2i_inrange (legalized): an integral float value within the destination's range, so the
    language's conversion is exact."""
    dt = i.dsts[0].type
    x = i.args[0]
    a = em.v(x)
    signed = bool(i.attrs["signed"])
    if x.type in ("f16", "bf16"):  # exact in f32
        a = _to_f32(x.type, a)
    if T.bits(dt) == 64:
        wide = f"ulong({'long' if signed else 'ulong'}({a}))"
    else:
        wide = f"uint({'int' if signed else 'uint'}({a}))"
    return f"(({wide}) != 0)" if dt == "i1" else f"{em.ty(dt)}({wide})"


def i2f(em: FnEmitter, i: Inst) -> str:
    dt = i.dsts[0].type
    x = i.args[0]
    a = em.v(x)
    m, e = FORMATS[dt]
    mode = ROUND[i.attrs["rnd"]]
    if x.type == "i1":
        a = f"({a} ? 1u : 0u)"
        src = "i32"
    else:
        src = x.type
    if i.attrs["signed"] and x.type != "i1":
        bits = f"cm_s2f_bits(long({signed_type(src)}({a})), {m}, {e}, {mode})"
    else:
        bits = f"cm_i2f_bits(ulong({a}), false, {m}, {e}, {mode})"
    return from_bits(em, dt, bits)


def move(em: FnEmitter, i: Inst) -> str:
    d = i.dsts[0].type
    x = i.args[0]
    a = em.v(x)
    if i.op == "select":
        return f"({a} ? {em.v(i.args[1])} : {em.v(i.args[2])})"
    if x.type == d or {x.type, d} <= {"i16", "f16", "bf16"}:
        return a
    if d == "i1":
        return f"({a} != 0)"
    if x.type == "i1":
        return f"{em.ty(d)}({a} ? 1 : 0)"
    if T.is_float(x.type) and T.is_float(d):
        return from_bits(em, d, bits_of(em, x.type, a))
    if T.is_float(x.type):
        return f"{em.ty(d)}({bits_of(em, x.type, a)})"
    if T.is_float(d):
        return from_bits(em, d, a)
    return f"{em.ty(d)}({a})"
