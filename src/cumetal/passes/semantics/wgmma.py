"""Warpgroup matrix multiply-accumulate (sm_90a): wgmma.mma_async, wgmma.fence, commit_group,
wait_group (PTX ISA §9.7.15).

``wgmma.mma_async`` runs when it is issued: every thread reads the A and B elements its
accumulator registers need straight from shared memory (through the matrix descriptors) or, for A
in registers, from the lanes of its warp that hold them (shuffles), and computes its D registers.
Issuing it synchronously is a valid execution: the ISA forbids touching the operands and
accumulators between the instruction and the ``wait_group`` that retires it, so nothing can observe
the difference; fence/commit/wait then have nothing left to order.

Lowering: one IR loop per instruction, over this thread's N/2 accumulator elements, holding the
arithmetic model once (the straight-line form repeated it per element: 44,770 IR instructions and
minutes of LLVM compile for m64n256k16). Each iteration takes element i's row and column from i,
loads its k B elements (and, for A from a descriptor, its k A elements) from shared memory and
computes one D element. A in registers is shuffled before the loop, for both row halves with their
f32 values and exponents (no warp operation runs inside the loop), and selected by the row half.
The C/D elements rotate through N/2 variables: iteration i reads slot 0 and appends its result, so
after the loop slot j holds D element j. A guarded wgmma branches around the loop (whose counter
must not be guarded). tests/passes/test_wgmma_loop.py bounds the IR per accumulator element.

Layouts (fitted to, and bit-exact on, an H100: sweep family ``wgmma``):
- D: warp w of the warpgroup owns rows 16w..16w+15; register i of lane l holds
  (16w + l/4 + 8*((i/2)%2), 8*(i/4) + 2*(l%4) + i%2) (f16 D: two per register, low half first).
- Descriptors: start address bits 0-13, leading byte offset 16-29, stride byte offset 32-45 (all
  in 16-byte units), swizzle mode 62-63 (0 none, 1 128B, 2 64B, 3 32B). K-major (no transpose):
  no swizzle: element (mn, k) at start + (mn/8)*SBO + (kbytes/16)*LBO + (mn%8)*16 + kbytes%16;
  swizzle W: start + (mn/8)*SBO + (mn%8)*W + kbytes. MN-major (imm-trans 1): no swizzle:
  start + (mnbytes/16)*SBO + (k/8)*LBO + (k%8)*16 + mnbytes%16; swizzle W: start +
  (mn/(W/e))*LBO + (k/8)*SBO + (k%8)*W + (mn%(W/e))*e. Swizzling XORs address bits 4-6 (128B),
  4-5 (64B) or 4 (32B) with bits 7-9 of the absolute shared address.
- Arithmetic: the tensor-core model of ``matrix.py`` (exact products, alignment to the largest
  exponent keeping 25 bits, truncation) with all k products of the instruction in one block;
  f16 D rounds that f32 sum to nearest; integers exactly (s32 wraps, .satfinite clamps).
- fp8 (.e4m3/.e5m2, k = 32) keeps far fewer bits: C and the 32 exact products are aligned to the
  largest of their exponents (a product's is the sum of its operands' exponents, a subnormal
  operand counting as the format's minimum), each truncated toward zero FP8_WINDOW (13) bits below
  it and summed exactly; the sum is then truncated toward zero to FP8_WINDOW bits below its own
  leading bit (an e8m13 result; f16 D: the sum rounded to nearest instead). Measured: bit-identical with an H100 on all 614,400 results of
  scripts/probe_wgmma_fp8.py (e4m3, e5m2 and mixed; uniform, narrow, cancelling, subnormal inputs,
  C zero, small or wide) and on the sweep's fp8 cases.
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.context import Ctx, LoweringError
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32, i64
from cumetal.passes.semantics.matrix import (
    Frag,
    Warp,
    _a1688_tf32,
    _a16816_f16,
    _a16832_i8,
    _aligned_sum,
    _Elements,
    _exponent,
    _fetch,
    _float_dot,
    _int_dot,
    _or_no_exp,
    _pow2_f32,
    _slot_bits,
    _to_f32,
)
from cumetal.ptx import ast

_EBYTES = {"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "u8": 1, "e4m3": 1, "e5m2": 1}
_KDIM = {"f16": 16, "bf16": 16, "tf32": 8, "s8": 32, "u8": 32, "e4m3": 32, "e5m2": 32}
_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8}
_SIGN = {"f16": 0x8000, "bf16": 0x8000, "tf32": 0x80000000, "e4m3": 0x80, "e5m2": 0x80}
_FP8 = ("e4m3", "e5m2")
FP8_WINDOW = 13  # fp8 products keep 13 bits below the largest (approximate fit: module docstring)


@semantics("wgmma.fence", "wgmma.commit_group", "wgmma.wait_group")
def _wgmma_order(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.emit("nop", None)  # wgmma.mma_async completes when issued (module docstring)


class _Descriptor:
    """Runtime fields of a shared-memory matrix descriptor and per-element shared addresses."""

    def __init__(self, ctx: Ctx, desc: Value, ebytes: int, trans: bool):
        self.ctx, self.e, self.trans = ctx, ebytes, trans  # e: element bytes, a power of two
        lo = ctx.emit("trunc", "i32", desc)
        hi = ctx.emit("trunc", "i32", ctx.emit("lshr", "i64", desc, i32(32)))
        self.start = ctx.emit("shl", "i32", ctx.emit("and", "i32", lo, i32(0x3FFF)), i32(4))
        self.lbo = ctx.emit("shl", "i32", ctx.emit("and", "i32", ctx.emit("lshr", "i32", lo, i32(16)),
                                                   i32(0x3FFF)), i32(4))
        self.sbo = ctx.emit("shl", "i32", ctx.emit("and", "i32", hi, i32(0x3FFF)), i32(4))
        mode = ctx.emit("lshr", "i32", hi, i32(30))  # 0 none, 1 128B, 2 64B, 3 32B
        self.none = ctx.emit("icmp", "i1", mode, i32(0), cond="eq")
        # swizzle width W = 256 >> mode (128, 64, 32); XOR mask of bits 4.. = (W/16 - 1) << 4
        self.width = ctx.emit("lshr", "i32", i32(256), mode)
        self.xmask = ctx.emit("select", "i32", self.none, i32(0), ctx.emit("sub", "i32", self.width, i32(16)))
        self._mn: dict[int, Value] = {}
        self._k: dict[int, Value] = {}

    def _sel(self, a: Value, b: Value) -> Value:
        return self.ctx.emit("select", "i32", self.none, a, b)

    def _mul(self, a: Value, b: Value | int) -> Value:
        return self.ctx.emit("mul", "i32", a, i32(b) if isinstance(b, int) else b)

    def mn_base(self, mn: Value, key: int | None = None) -> Value:
        """start + the part of the address that depends on mn (a per-lane i32 row index)."""
        if key is not None and key in self._mn:
            return self._mn[key]
        ctx, e = self.ctx, self.e
        if not self.trans:
            grp = self._mul(ctx.emit("lshr", "i32", mn, i32(3)), self.sbo)
            row = ctx.emit("and", "i32", mn, i32(7))
            part = ctx.emit("add", "i32", grp, self._sel(self._mul(row, 16), self._mul(row, self.width)))
        else:
            mb = self._mul(mn, e)
            none = ctx.emit("add", "i32", self._mul(ctx.emit("lshr", "i32", mb, i32(4)), self.sbo),
                            ctx.emit("and", "i32", mb, i32(15)))
            # swizzled: mn / (W/e) atoms of LBO, mn % (W/e) elements of e bytes
            per_atom = ctx.emit("lshr", "i32", self.width, i32(e.bit_length() - 1))  # W / e
            atom = ctx.emit("div", "i32", mn, per_atom, signed=False)
            inner = ctx.emit("rem", "i32", mn, per_atom, signed=False)
            swz = ctx.emit("add", "i32", self._mul(atom, self.lbo), self._mul(inner, e))
            part = self._sel(none, swz)
        v = ctx.emit("add", "i32", self.start, part)
        if key is not None:
            self._mn[key] = v
        return v

    def k_offset(self, k: int) -> Value:
        if k not in self._k:
            e = self.e
            if not self.trans:
                kb = k * e
                none = self.ctx.emit("add", "i32", self._mul(self.lbo, kb // 16), i32(kb % 16))
                self._k[k] = self._sel(none, i32(kb))
            else:
                none = self.ctx.emit("add", "i32", self._mul(self.lbo, k // 8), i32((k % 8) * 16))
                swz = self.ctx.emit("add", "i32", self._mul(self.sbo, k // 8), self._mul(self.width, k % 8))
                self._k[k] = self._sel(none, swz)
        return self._k[k]

    def address(self, base: Value, k: int) -> Value:
        ctx = self.ctx
        lin = ctx.emit("add", "i32", base, self.k_offset(k))
        x = ctx.emit("and", "i32", ctx.emit("lshr", "i32", lin, i32(3)), self.xmask)
        return ctx.emit("zext", "i64", ctx.emit("xor", "i32", lin, x))


def _imm(op: ast.Operand, what: str) -> int:
    if not isinstance(op, ast.Imm) or op.kind != "int":
        raise LoweringError(f"wgmma {what} must be an integer immediate")
    return int(op.value)


@semantics("wgmma.mma_async")
def _wgmma(ctx: Ctx, ins: ast.Instruction) -> None:
    f = ins.fields
    if "bop" in f:
        raise LoweringError("single-bit wgmma (.b1) is not supported")
    shape, dtype, atype, btype = f["shape"], f["dtype"], f["atype"], f["btype"]
    m, rest = shape[1:].split("n")
    n, k = (int(x) for x in rest.split("k"))
    if int(m) != 64 or atype not in _EBYTES or btype not in _EBYTES or k != _KDIM[atype] or n % 8 or n > 256:
        raise LoweringError(f"wgmma .{shape} .{dtype}.{atype}.{btype} is not supported "
                            "(f16/bf16/tf32/e4m3/e5m2 -> f32/f16 and s8/u8 -> s32, m64nNk16/8/32)")
    integer = atype in ("s8", "u8")
    fp8 = atype in _FP8
    if integer != (btype in ("s8", "u8")) or fp8 != (btype in _FP8) or (not integer and not fp8 and atype != btype):
        raise LoweringError(f"wgmma with .{atype} x .{btype} is not supported")
    if (dtype == "s32") != integer or (dtype == "f16" and atype not in ("f16",) + _FP8):
        raise LoweringError(f"wgmma .{dtype} accumulators with .{atype} inputs are not supported")
    ops = list(ins.operands)
    d_op, a_op, b_op, sd_op, *imms = ops
    a_regs = isinstance(a_op, ast.Vector)
    if integer:
        scale_a = scale_b = 1
        trans_a = trans_b = 0
    elif atype == "tf32" or fp8:
        scale_a, scale_b = (_imm(x, "scale") for x in imms[:2]) if imms else (1, 1)
        trans_a = trans_b = 0
    elif a_regs:
        scale_a, scale_b, trans_b = (_imm(x, "immediate") for x in imms[:3])
        trans_a = 0
    else:
        scale_a, scale_b, trans_a, trans_b = (_imm(x, "immediate") for x in imms[:4])
    if scale_a not in (1, -1) or scale_b not in (1, -1) or trans_a not in (0, 1) or trans_b not in (0, 1):
        raise LoweringError("wgmma imm-scale must be 1 or -1 and imm-trans 0 or 1")
    nregs = n // 4 if dtype == "f16" else n // 2
    d_elems = d_op.elems if isinstance(d_op, ast.Vector) else ()
    if len(d_elems) != nregs:
        raise LoweringError(f"wgmma .{shape}.{dtype} needs {nregs} accumulator registers, got {len(d_elems)}")
    c_regs = [ctx.read(e, "b32") for e in d_elems]
    scale_d = ctx.read(sd_op, "pred")
    # the loop below must run unguarded (a guarded counter would never advance): a guard branches
    # around the whole instruction instead
    guard, negated = ctx.guard, ctx.guard_negated
    skip = None
    if guard is not None:
        skip, body = ctx.fresh_label(), ctx.fresh_label()
        then, other = (skip, body) if negated else (body, skip)
        ctx.append(Inst("cbr", (), (guard,), {"target": then, "else": other}))
        ctx.guard = None
        ctx.start_block(body)

    w = Warp(ctx)
    tid = _linear_tid(ctx)
    row0 = ctx.emit("shl", "i32", ctx.emit("and", "i32", ctx.emit("lshr", "i32", tid, i32(5)), i32(3)), i32(4))
    eb = _EBYTES[atype]
    # rows and columns this lane needs: row g and g + 8 of its warp's block, columns of its slots
    g = ctx.emit("lshr", "i32", w.lane, i32(2))
    t2 = ctx.emit("shl", "i32", ctx.emit("and", "i32", w.lane, i32(3)), i32(1))

    def flip(bits: Value, et: str, scale: int) -> Value:
        if scale == 1:
            return bits
        return ctx.emit("xor", bits.type, bits, Const.int(bits.type, _SIGN[et]))

    # B: read per column in the loop below
    bdesc = _Descriptor(ctx, ctx.read(b_op, "b64"), _BITS[btype] // 8, bool(trans_b))
    a_cache: dict[tuple[int, int], Value] = {}
    if a_regs:
        regs = [ctx.read(e, "b32") for e in a_op.elems]
        coord = {"f16": _a16816_f16, "bf16": _a16816_f16, "tf32": _a1688_tf32}.get(atype, _a16832_i8)
        afrag = Frag("A", 16, k, "s8" if fp8 else atype, 16 * k // 32, coord)  # fp8 packs as s8 does
        if len(regs) != afrag.regs:
            raise LoweringError(f"wgmma A in registers needs {afrag.regs} registers, got {len(regs)}")
        fetched: dict[tuple, Value] = {}

        def a_elem(half: int, kk: int) -> Value:
            if (half, kk) not in a_cache:
                want = tuple(((lane >> 2) + 8 * half, kk) for lane in range(32))
                fe = _fetch(afrag, want)
                key = (fe.slot // afrag.per_reg, fe.lanes)
                if key not in fetched:
                    fetched[key] = w.shfl(regs[fe.slot // afrag.per_reg], w.lanes(fe.lanes))
                bits = _slot_bits(ctx, [fetched[key]] * afrag.regs, afrag, fe.slot)
                a_cache[half, kk] = flip(bits, atype, scale_a)
            return a_cache[half, kk]
    else:  # A from shared memory: loaded in the loop, from the row of the element
        adesc = _Descriptor(ctx, ctx.read(a_op, "b64"), eb, bool(trans_a))
        rows = [ctx.emit("add", "i32", row0, ctx.emit("add", "i32", g, i32(8 * h))) for h in range(2)]

    elems = None if integer or fp8 else _Elements(ctx, atype)
    fp8_elems = _Fp8Elements(ctx) if fp8 else None
    a_bits: list[list[Value]] = []
    if a_regs:  # the k elements of A from the warp's registers, both row halves (g and g + 8), and
        # their f32 values and exponents: before the loop, which only selects between them
        a_bits = [[a_elem(half, kk) for kk in range(k)] for half in range(2)]
        for half in range(2):
            for kk in range(k):
                if elems is not None:
                    elems[a_bits[half][kk]]
                elif fp8_elems is not None:
                    fp8_elems.get(a_bits[half][kk], atype)

    # The accumulator slots (one D element each; f16 D: two per register, low half first) rotate
    # through a loop with one body: slot[0] is the element of iteration i; its result goes to the
    # end, so after n/2 iterations slot[j] holds D element j (module docstring "Lowering").
    nslots = n // 2
    slot_t = "i16" if dtype == "f16" else "i32"
    slots = [ctx.fn.new_var(slot_t) for _ in range(nslots)]
    for j, v in enumerate(slots):
        if dtype == "f16":
            word = c_regs[j // 2]
            bits = ctx.emit("trunc", "i16", ctx.emit("lshr", "i32", word, i32(16)) if j % 2 else word)
        else:
            bits = c_regs[j]
        ctx.emit_into(v, "mov", bits)
    i = ctx.fn.new_var("i32")
    ctx.emit_into(i, "mov", i32(0))
    loop = ctx.fresh_label()
    ctx.start_block(loop)
    # element i: row g + 8*((i/2) % 2), column 8*(i/4) + i%2 + 2*(lane%4) (layout D above)
    upper = ctx.emit("icmp", "i1", ctx.emit("and", "i32", i, i32(2)), i32(0), cond="ne")
    col_off = ctx.emit("or", "i32", ctx.emit("shl", "i32", ctx.emit("lshr", "i32", i, i32(2)), i32(3)),
                       ctx.emit("and", "i32", i, i32(1)))
    col = ctx.emit("add", "i32", t2, col_off)
    bbase = bdesc.mn_base(col)
    abase = None if a_regs else adesc.mn_base(ctx.emit("select", "i32", upper, rows[1], rows[0]))
    pairs = []
    for kk in range(k):
        b = flip(ctx.emit("load", f"i{_BITS[btype]}", bdesc.address(bbase, kk), space="shared",
                          align=_BITS[btype] // 8), btype, scale_b)
        if abase is not None:
            a = flip(ctx.emit("load", f"i{_BITS[atype]}", adesc.address(abase, kk), space="shared", align=eb),
                     atype, scale_a)
        else:
            a1, a0 = a_bits[1][kk], a_bits[0][kk]
            if elems is not None:
                a = elems.select(upper, a1, a0)
            elif fp8_elems is not None:
                a = fp8_elems.select(upper, a1, a0, atype)
            else:
                a = ctx.emit("select", a1.type, upper, a1, a0)
        pairs.append((a, b))
    c_bits = ctx.emit("select", slot_t, scale_d, slots[0], Const.int(slot_t, 0))
    if integer:
        d = _int_dot(ctx, c_bits, pairs, atype == "s8", btype == "s8", "satfinite" in f)
    elif fp8:
        d = _fp8_dot(ctx, c_bits, dtype, [((a, atype), (b, btype)) for a, b in pairs], fp8_elems)
    else:
        d = _float_dot(ctx, c_bits, dtype, dtype, pairs, elems, k)
    for j in range(nslots - 1):
        ctx.emit_into(slots[j], "mov", slots[j + 1])
    ctx.emit_into(slots[-1], "mov", d)
    ctx.emit_into(i, "add", i, i32(1))
    more = ctx.emit("icmp", "i1", i, i32(nslots), cond="ult")
    done = ctx.fresh_label()
    ctx.append(Inst("cbr", (), (more,), {"target": loop, "else": done}))
    ctx.start_block(done)
    out: list[Value] = list(slots)
    if dtype == "f16":
        out = [ctx.emit("or", "i32", ctx.emit("zext", "i32", out[2 * r]),
                        ctx.emit("shl", "i32", ctx.emit("zext", "i32", out[2 * r + 1]), i32(16)))
               for r in range(nregs)]
    for e, v in zip(d_elems, out, strict=True):
        ctx.write(e, v, "b32")
    if skip is not None:
        ctx.start_block(skip)
    ctx.guard, ctx.guard_negated = guard, negated


class _Fp8Elements:
    """fp8 element bits (i8) -> (exact f32 value, alignment exponent: the value's exponent, at least
    the format's minimum, _NO_EXP for zero), cached per instruction."""

    EMIN = {"e4m3": -6, "e5m2": -14}

    def __init__(self, ctx: Ctx):
        self.ctx = ctx
        self._seen: dict[tuple[Value, str], tuple[Value, Value]] = {}

    def get(self, bits: Value, et: str) -> tuple[Value, Value]:
        key = (bits, et)
        if key not in self._seen:
            ctx = self.ctx
            b = ctx.emit("zext", "i32", bits)
            if et == "e5m2":  # the top byte of an f16
                h = ctx.emit("bitcast", "f16", ctx.emit("trunc", "i16", ctx.emit("shl", "i32", b, i32(8))))
                x = ctx.emit("fcvt", "f32", h, rnd="rn")
            else:  # e4m3: no infinities, S.1111.111 is NaN
                e = ctx.emit("and", "i32", ctx.emit("lshr", "i32", b, i32(3)), i32(15))
                m = ctx.emit("and", "i32", b, i32(7))
                sub = ctx.emit("icmp", "i1", e, i32(0), cond="eq")
                mant = ctx.emit("select", "i32", sub, m, ctx.emit("or", "i32", m, i32(8)))
                sh = ctx.emit("select", "i32", sub, i32(-9), ctx.emit("sub", "i32", e, i32(10)))
                mag = ctx.emit("fmul", "f32", ctx.emit("i2f", "f32", mant, signed=False, rnd="rn"), _pow2_f32(ctx, sh),
                               rnd="rn")
                nan = ctx.emit("icmp", "i1", ctx.emit("and", "i32", b, i32(0x7F)), i32(0x7F), cond="eq")
                mag = ctx.emit("select", "f32", nan, Const.float("f32", float("nan")), mag)
                neg = ctx.emit("icmp", "i1", ctx.emit("and", "i32", b, i32(0x80)), i32(0), cond="ne")
                x = ctx.emit("select", "f32", neg, ctx.emit("fneg", "f32", mag), mag)
            ex = ctx.emit("max", "i32", _exponent(ctx, x), i32(self.EMIN[et]), signed=True)
            self._seen[key] = (x, _or_no_exp(ctx, x, ex))
        return self._seen[key]

    def select(self, cond: Value, t: Value, f: Value, et: str) -> Value:
        """Bits cond ? t : f, whose value and exponent are selected from those of t and f."""
        ctx = self.ctx
        bits = ctx.emit("select", t.type, cond, t, f)
        (xt, et_), (xf, ef) = self.get(t, et), self.get(f, et)
        self._seen[bits, et] = (ctx.emit("select", "f32", cond, xt, xf), ctx.emit("select", "i32", cond, et_, ef))
        return bits


def _fp8_dot(ctx: Ctx, c_bits: Value, dtype: str, pairs: list, elems: _Fp8Elements) -> Value:
    """fp8 D element (module docstring): C and the 32 exact products aligned to the largest of
    their exponents and truncated FP8_WINDOW bits below it, summed exactly; f32 D: the sum truncated
    to FP8_WINDOW bits below its own leading bit; f16 D: the sum rounded to nearest."""
    acc = _to_f32(ctx, c_bits, dtype)
    terms = [(acc, _or_no_exp(ctx, acc, _exponent(ctx, acc)))]
    for (a, at), (b, bt) in pairs:
        (x, ea), (y, eb) = elems.get(a, at), elems.get(b, bt)
        terms.append((ctx.emit("fmul", "f32", x, y, rnd="rn"), ctx.emit("add", "i32", ea, eb)))
    acc = _aligned_sum(ctx, terms, FP8_WINDOW)
    if dtype == "f16":  # rounded to nearest from the aligned sum (with the e8m13 step first, 1 of 1,024
        # of the sweep's f16 results is 1 ulp off: a double rounding the H100 does not make)
        return ctx.emit("bitcast", "i16", ctx.emit("fcvt", "f16", acc, rnd="rn"))
    # keep 1 + FP8_WINDOW significant bits: clear the low f32 mantissa bits (toward zero; inf stays inf)
    low = (1 << (23 - FP8_WINDOW)) - 1
    acc = ctx.emit("bitcast", "f32", ctx.emit("and", "i32", ctx.emit("bitcast", "i32", acc), i32(~low & 0xFFFFFFFF)))
    is_nan = ctx.emit("fcmp", "i1", acc, acc, cond="uno")
    return ctx.emit("select", "i32", is_nan, i32(0x7FFFFFFF), ctx.emit("bitcast", "i32", acc))


def _linear_tid(ctx: Ctx) -> Value:
    x = ctx.emit("sreg", "i32", name="tid.x")
    y = ctx.emit("sreg", "i32", name="tid.y")
    z = ctx.emit("sreg", "i32", name="tid.z")
    nx = ctx.emit("sreg", "i32", name="ntid.x")
    ny = ctx.emit("sreg", "i32", name="ntid.y")
    yz = ctx.emit("add", "i32", y, ctx.emit("mul", "i32", z, ny))
    return ctx.emit("add", "i32", x, ctx.emit("mul", "i32", yz, nx))


_ = i64  # the descriptor fields are read through 32-bit halves
