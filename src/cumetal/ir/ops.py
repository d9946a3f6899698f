"""The kernel IR's operations: the single source of truth for what each one computes.

Every back end (CPU engine, AIR, MSL) implements exactly these operations; the PTX lowering
(``cumetal.passes``) expresses each PTX instruction's semantics as a sequence of them. Each entry
says how many destinations and arguments it has, which attributes it takes (and their allowed
values), its type rule, its semantics in prose, and - for every op whose result depends only on
its own lane's operands - its executable *reference definition*: a factory in
``cumetal.ir.semantics.elementwise`` returning a numpy function over bit patterns, bit-exact and
vectorized over lanes. ``reference_fn(op, dst_type, arg_types, attrs)`` builds it. The CPU engine
executes these definitions as they are, ``passes/fold_constants.py`` folds constants with them, the
verifier (``verify.py``) checks arity/attributes/types from this table, and the differential tests
(``tests/differential``) compare every backend with them.

How to add an op
1. Add one ``_op(...)`` entry below, in its section:
   ``_op(name, ndst, nargs, required_attrs, doc, types=<rule from typerules>, ref=<factory or None>,
   values={attr: allowed values}, optional=(optional attrs,))``.
   - ``types``: a rule from ``cumetal.ir.typerules`` (``same("int")``, ``compare("float")``, ``SHIFT``,
     ``COUNT``, ``convert("float", "int")``, …; write a new one there if none fits).
   - ``ref``: for a per-lane op, a factory ``ref_<name>(d, a, at) -> f(*args)`` in
     ``ir/semantics/elementwise.py`` (or a new module of ``ir/semantics``), built from numpy on the
     unsigned container arrays of ``ir/semantics/dtypes.UDT``. It must be exact for every input
     (NaN payloads, subnormals, ±0, INT_MIN …): it *is* the definition. Ops with effects (memory,
     warps, control) have ``ref=None``; their meaning is the doc text and the CPU engine.
   - ``values``: the allowed values of attributes the verifier should check; ``optional``: attributes
     an instruction may carry (``ftz``, ``volatile`` …).
   - ``domain``: only for a primitive defined on part of its operands (a legalizer primitive such as
     "divisor != 0"): a factory like ``ref`` whose function returns, per lane, whether the operands
     are inside the domain. Constant folding and the differential tests stay inside it.
   - ``any_nan=True``: a NaN result may be any NaN (the legalizer's ``*_ieee`` primitives); tests then
     accept any NaN where the reference gives one.
   - ``approximate=True``: the reference is one result within the op's documented error bounds, not
     the exact one (``fapprox``): never constant-folded, not compared bit for bit.
2. Backends: an op with a ``ref`` runs on the CPU engine with no further edit. AIR
   (``backends/air/lower_*.py`` ``HANDLERS``) and MSL (``backends/msl/emit.py`` tables) need one
   handler each unless the legalizer (``passes/legalize``) expands the op for that target;
   ``tests/ir/test_backend_coverage.py`` fails when a backend lacks an op it may receive.
3. The differential tester picks the new op up from this table (random operands over its type rule).

Conventions
- ``T`` is the destination type unless an entry says otherwise. Integer ops wrap modulo 2**bits.
- NaN results follow NVIDIA hardware (measured on H100/H200 by the PTX sweep):
  * f32, f16, bf16 arithmetic (fneg and fabs included): the canonical NaN 0x7FFFFFFF / 0x7FFF / 0x7FFF.
  * f64 arithmetic (fadd fsub fmul fdiv fma fsqrt frint fmin fmax fapprox fneg fabs): a NaN operand
    propagates quieted (bit 51 set; sign and payload kept; fneg/fabs do not change a NaN's sign).
    Priority when several operands are NaN: fadd/fsub/fmul/fmin/fmax: a1 then a0; fdiv: a0 then a1;
    fma: a1, then a2, then a0. A NaN made from non-NaN operands (0*inf, inf-inf, 0/0, sqrt(-x)) is
    0xFFF8000000000000.
- Optional attribute ``ftz`` (bool) on fmul (f32 and f16): subnormal operands are read as zero of
  their sign, and a result whose *exact, unrounded* magnitude is below the smallest normal becomes zero
  of its sign (NVIDIA's mul.ftz detects tininess before rounding; its fma.ftz does not, so other ops
  flush with separate ``ftz`` ops after rounding).
- Denormals are kept unless an op's ``ftz`` attribute or an ``ftz`` op says otherwise.
- ``rnd`` is one of 'rn' (nearest even), 'rz' (toward zero), 'rm' (toward -inf), 'rp' (toward +inf).
- Addresses are i64. ``space`` is one of 'global', 'shared', 'local', 'const', 'param', 'generic'.
  global/const/param addresses are real device addresses (a kernel's parameter buffer lives in
  device memory for the launch, so ``SymAddr(p, 'param')`` is its address + p's offset);
  shared addresses are offsets in the block's shared memory; local addresses are offsets in the
  thread's local memory (a stack: ``SymAddr(v, 'local')`` is the current frame's base + v's offset,
  and a call's frame starts after the caller's ``local_size`` bytes); generic addresses are global
  addresses or ``SHARED_WINDOW + offset`` / ``LOCAL_WINDOW + offset``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cumetal.ir import typerules as R
from cumetal.ir.semantics import domains as D
from cumetal.ir.semantics import elementwise as E
from cumetal.ir.semantics import primitives as P
from cumetal.ir.semantics.elementwise import Fn, RefFactory

# Generic-address windows for shared and local memory. Real host/device addresses on 64-bit
# macOS and Linux are below 2**48, so these can never collide with a global address.
SHARED_WINDOW = 0x1000_0000_0000_0000
LOCAL_WINDOW = 0x2000_0000_0000_0000
WINDOW_SIZE = 0x0100_0000_0000_0000
# Device functions have opaque addresses (for indirect calls and function tables):
# FUNC_WINDOW + 16 * index in Module.functions order (see Module.function_address).
FUNC_WINDOW = 0x3000_0000_0000_0000

ROUNDING = ("rn", "rz", "rm", "rp")
SPACES = ("global", "shared", "local", "const", "param", "generic")
TERMINATORS = frozenset({"br", "cbr", "brx", "ret", "exit", "trap", "unreachable"})


ICMP_CONDS = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
FCMP_CONDS = ("oeq", "one", "olt", "ole", "ogt", "oge", "ord", "uno", "ueq", "une", "ult", "ule", "ugt", "uge")
APPROX_FNS = ("ex2", "lg2", "sin", "cos", "rsqrt", "rcp", "sqrt", "tanh", "div", "div_approx")
APPROX_BINARY = ("div", "div_approx")
BOOL = (False, True, 0, 1)


@dataclass(frozen=True, slots=True)
class OpInfo:
    name: str
    ndst: int | None  # None: variable
    nargs: int | None  # None: variable
    attrs: tuple[str, ...]  # attributes the op requires
    doc: str
    types: R.TypeRule | None = None  # operand type rule (None: not checked)
    ref: RefFactory | None = None  # reference definition (per-lane ops); None for ops with effects
    values: Mapping[str, tuple] = field(default_factory=dict)  # allowed values of attributes
    optional: tuple[str, ...] = ()  # attributes an instruction may carry
    # For a primitive defined on part of its operands only (the legalizer's ``*_nz``, ``*_lt`` …):
    # ``domain(d, a, at)`` returns ``f(*args) -> bool array``, the lanes where ``ref`` is the definition.
    # Elsewhere the result is unspecified: tests compare only inside it, folding happens only inside it.
    domain: RefFactory | None = None
    any_nan: bool = False  # a NaN result may be any NaN (sign, payload unspecified): ref gives one of them
    approximate: bool = False  # ref is one allowed result within documented bounds, not the exact one

    @property
    def elementwise(self) -> bool:
        """Per-lane, effect-free and total: defined by ``ref`` (and so constant-foldable)."""
        return self.ref is not None


def _op(name: str, ndst: int | None, nargs: int | None, attrs: tuple[str, ...], doc: str, *,
        types: R.TypeRule | None = None, ref: RefFactory | None = None,
        values: Mapping[str, tuple] | None = None, optional: tuple[str, ...] = (),
        domain: RefFactory | None = None, any_nan: bool = False, approximate: bool = False) -> OpInfo:
    return OpInfo(name, ndst, nargs, attrs, doc, types, ref, dict(values or {}), optional, domain, any_nan,
                  approximate)


_SIGNED = {"signed": BOOL}
_RND = {"rnd": ROUNDING}


_OPS = [
    # ---- data movement
    _op("mov", 1, 1, (), "d = a (bit copy; types have equal width).",
        types=R.EQUAL_WIDTH, ref=E.ref_mov),
    _op("bitcast", 1, 1, (), "Reinterpret the bits of a as type T (equal widths).",
        types=R.EQUAL_WIDTH, ref=E.ref_bitcast),
    _op("select", 1, 3, (), "d = a0 ? a1 : a2 (a0 is i1).",
        types=R.SELECT, ref=E.ref_select),
    # ---- integer arithmetic (wrapping)
    _op("add", 1, 2, (), "Integer add modulo 2**bits.",
        types=R.same("int"), ref=E.ref_add),
    _op("sub", 1, 2, (), "Integer subtract modulo 2**bits.",
        types=R.same("int"), ref=E.ref_sub),
    _op("mul", 1, 2, (), "Low bits of the product.",
        types=R.same("int"), ref=E.ref_mul),
    _op("mulhi", 1, 2, ("signed",), "High half of the double-width product (signed or unsigned).",
        types=R.same("int"), ref=E.ref_mulhi, values=_SIGNED),
    _op("div", 1, 2, ("signed",),
        "Quotient truncated toward zero. x/0 gives all ones (-1 when signed) for every x, as NVIDIA "
        "hardware does. INT_MIN/-1 = INT_MIN.",
        types=R.same("int"), ref=E.ref_div, values=_SIGNED),
    _op("rem", 1, 2, ("signed",), "Remainder with the sign of the dividend. x%0 gives all ones (as NVIDIA hardware). INT_MIN%-1 = 0.",
        types=R.same("int"), ref=E.ref_rem, values=_SIGNED),
    _op("neg", 1, 1, (), "Two's complement negation (wraps).",
        types=R.same("int"), ref=E.ref_neg),
    _op("abs", 1, 1, (), "Signed absolute value; abs(INT_MIN) = INT_MIN.",
        types=R.same("int"), ref=E.ref_abs),
    _op("min", 1, 2, ("signed",), "Integer minimum.",
        types=R.same("int"), ref=E.ref_min, values=_SIGNED),
    _op("max", 1, 2, ("signed",), "Integer maximum.",
        types=R.same("int"), ref=E.ref_max, values=_SIGNED),
    _op("and", 1, 2, (), "Bitwise and (also on i1).",
        types=R.same("bits"), ref=E.ref_and),
    _op("or", 1, 2, (), "Bitwise or (also on i1).",
        types=R.same("bits"), ref=E.ref_or),
    _op("xor", 1, 2, (), "Bitwise xor (also on i1).",
        types=R.same("bits"), ref=E.ref_xor),
    _op("not", 1, 1, (), "Bitwise complement (also on i1).",
        types=R.same("bits"), ref=E.ref_not),
    _op("shl", 1, 2, (), "a0 << a1; a1 is an unsigned i32 amount; amounts >= bits give 0.",
        types=R.SHIFT, ref=E.ref_shl),
    _op("lshr", 1, 2, (), "Logical right shift; a1 unsigned i32; amounts >= bits give 0.",
        types=R.SHIFT, ref=E.ref_lshr),
    _op("ashr", 1, 2, (), "Arithmetic right shift; a1 unsigned i32; amounts >= bits fill with the sign bit.",
        types=R.SHIFT, ref=E.ref_ashr),
    _op("popc", 1, 1, (), "Number of one bits of a (any int type); T = i32.",
        types=R.COUNT, ref=E.ref_popc),
    _op("clz", 1, 1, (), "Leading zero count of a (bits of its type when a = 0); T = i32.",
        types=R.COUNT, ref=E.ref_clz),
    _op("brev", 1, 1, (), "Reverse the bit order.",
        types=R.same("int"), ref=E.ref_brev),
    _op("icmp", 1, 2, ("cond",), "i1 = compare a0, a1 with cond in eq ne slt sle sgt sge ult ule ugt uge.",
        types=R.compare("bits"), ref=E.ref_icmp, values={"cond": ICMP_CONDS}),
    # ---- width changes
    _op("zext", 1, 1, (), "Zero-extend a to the wider T (or copy when equal).",
        types=R.EXTEND, ref=E.ref_zext),
    _op("sext", 1, 1, (), "Sign-extend a to the wider T (or copy when equal).",
        types=R.EXTEND, ref=E.ref_sext),
    _op("trunc", 1, 1, (), "Keep the low bits of a.",
        types=R.TRUNCATE, ref=E.ref_trunc),
    # ---- floating point (NaN results per the module docstring)
    _op("fadd", 1, 2, ("rnd",), "IEEE add rounded per rnd.",
        types=R.same("float"), ref=E.ref_fadd, values=_RND, optional=("ftz",)),
    _op("fsub", 1, 2, ("rnd",), "IEEE subtract rounded per rnd.",
        types=R.same("float"), ref=E.ref_fsub, values=_RND, optional=("ftz",)),
    _op("fmul", 1, 2, ("rnd",), "IEEE multiply rounded per rnd.",
        types=R.same("float"), ref=E.ref_fmul, values=_RND, optional=("ftz",)),
    _op("fdiv", 1, 2, ("rnd",), "IEEE divide rounded per rnd.",
        types=R.same("float"), ref=E.ref_fdiv, values=_RND, optional=("ftz",)),
    _op("fma", 1, 3, ("rnd",), "a0*a1+a2 with a single rounding per rnd.",
        types=R.same("float"), ref=E.ref_fma, values=_RND, optional=("ftz",)),
    _op("fsqrt", 1, 1, ("rnd",), "IEEE square root rounded per rnd.",
        types=R.same("float"), ref=E.ref_fsqrt, values=_RND, optional=("ftz",)),
    _op("fneg", 1, 1, (), "Flip the sign bit; a NaN follows the NaN rules (f32/f16/bf16 canonical, f64 kept).",
        types=R.same("float"), ref=E.ref_fneg),
    _op("fabs", 1, 1, (), "Clear the sign bit; a NaN follows the NaN rules (f32/f16/bf16 canonical, f64 kept).",
        types=R.same("float"), ref=E.ref_fabs),
    _op("fmin", 1, 2, ("nan",),
        "Minimum; -0 < +0. nan='num': a NaN operand is ignored (both NaN -> the NaN rules); "
        "nan='propagate': any NaN operand gives a NaN per the NaN rules.",
        types=R.same("float"), ref=E.ref_fmin, values={"nan": ("num", "propagate")}),
    _op("fmax", 1, 2, ("nan",), "Maximum; +0 > -0; NaN rule as fmin.",
        types=R.same("float"), ref=E.ref_fmax, values={"nan": ("num", "propagate")}),
    _op("ftz", 1, 1, (), "Denormal -> zero of the same sign; every other value (NaN included) unchanged "
        "(a pure bit operation: cvt.rn.ftz.f32.f64 keeps the converted NaN 0x7FC00000).",
        types=R.same("float"), ref=E.ref_ftz),
    _op("fsat", 1, 1, (), "Clamp to [0.0, 1.0]; NaN -> +0.0; -0.0 -> +0.0.",
        types=R.same("float"), ref=E.ref_fsat),
    _op("fcmp", 1, 2, ("cond",),
        "i1 = compare a0, a1 with cond in oeq one olt ole ogt oge ord uno ueq une ult ule ugt uge "
        "(o*: false if either is NaN; u*: true if either is NaN).",
        types=R.compare("float"), ref=E.ref_fcmp, values={"cond": FCMP_CONDS}),
    _op("fapprox", 1, None, ("fn",),
        "Approximate function fn of a: ex2 lg2 sin cos rsqrt rcp sqrt tanh (one arg), or div (div.full: "
        "max 2 ulp) / div_approx (two args). "
        "Accuracy bounds are documented per fn in docs/intrinsic-map.md; back ends use the target's fast forms.",
        types=R.same("float"), ref=E.ref_fapprox, values={"fn": APPROX_FNS}, approximate=True),
    _op("fcvt", 1, 1, ("rnd",),
        "Float -> float of another format, rounded per rnd. NaN: f64->f32/f16 a quiet NaN with the sign and "
        "the payload's top bits (truncated); f32/f16/bf16->f64 payload kept and quieted; bf16->f32 exact bits (payload kept, "
        "not quieted); every other pair the canonical NaN.",
        types=R.convert("float", "float"), ref=E.ref_fcvt, values=_RND),
    _op("f2i", 1, 1, ("signed", "rnd"),
        "Float -> integer T: round to integral per rnd, then saturate to T's range. NaN -> 0 from f32/f16/bf16 "
        "into at most 32 bits; 1 << (bits-1) from f64 or into 64 bits (NVIDIA hardware).",
        types=R.convert("float", "int"), ref=E.ref_f2i, values={**_SIGNED, **_RND}),
    _op("i2f", 1, 1, ("signed", "rnd"), "Integer (signed or unsigned) -> float T rounded per rnd.",
        types=R.convert("bits", "float"), ref=E.ref_i2f, values={**_SIGNED, **_RND}),
    _op("frint", 1, 1, ("rnd",), "Round to an integral value in the same float format.",
        types=R.same("float"), ref=E.ref_frint, values=_RND),
    # ---- primitives of the legalizer (passes/legalize; ir/semantics/primitives.py): defined only on
    # the domain stated, where targets' native instructions are; the rules guarantee it
    _op("div_nz", 1, 2, ("signed",), "Quotient truncated toward zero; domain: a1 != 0 and, when signed, "
        "not a0 = INT_MIN with a1 = -1 (legalized from div).",
        types=R.same("int"), ref=P.ref_div_nz, values=_SIGNED, domain=D.divisor_ok),
    _op("rem_nz", 1, 2, ("signed",), "Remainder with the sign of the dividend; domain as div_nz (legalized from rem).",
        types=R.same("int"), ref=P.ref_rem_nz, values=_SIGNED, domain=D.divisor_ok),
    _op("shl_lt", 1, 2, (), "a0 << a1; domain: a1 (unsigned i32) < bits (legalized from shl).",
        types=R.SHIFT, ref=P.ref_shl_lt, domain=D.shift_in_range),
    _op("lshr_lt", 1, 2, (), "Logical right shift; domain: a1 < bits (legalized from lshr).",
        types=R.SHIFT, ref=P.ref_lshr_lt, domain=D.shift_in_range),
    _op("ashr_lt", 1, 2, (), "Arithmetic right shift; domain: a1 < bits (legalized from ashr).",
        types=R.SHIFT, ref=P.ref_ashr_lt, domain=D.shift_in_range),
    _op("f2i_inrange", 1, 1, ("signed",), "Float -> integer T, exact; domain: a is integral and within T's "
        "range (legalized from f2i).",
        types=R.convert("float", "int"), ref=P.ref_f2i_inrange, values=_SIGNED,
        domain=D.integral_in_range),
    _op("fadd_ieee", 1, 2, ("rnd",), "IEEE add rounded per rnd; a NaN result is some NaN (sign and payload "
        "unspecified; legalized from fadd).",
        types=R.same("float"), ref=P.ref_fadd_ieee, values=_RND, any_nan=True),
    _op("fsub_ieee", 1, 2, ("rnd",), "IEEE subtract per rnd; NaN as fadd_ieee (legalized from fsub).",
        types=R.same("float"), ref=P.ref_fsub_ieee, values=_RND, any_nan=True),
    _op("fmul_ieee", 1, 2, ("rnd",), "IEEE multiply per rnd; NaN as fadd_ieee (legalized from fmul; mul.ftz's "
        "tininess is the legalizer's too).",
        types=R.same("float"), ref=P.ref_fmul_ieee, values=_RND, any_nan=True),
    _op("fdiv_ieee", 1, 2, ("rnd",), "IEEE divide per rnd; NaN as fadd_ieee (legalized from fdiv).",
        types=R.same("float"), ref=P.ref_fdiv_ieee, values=_RND, any_nan=True),
    _op("fma_ieee", 1, 3, ("rnd",), "a0*a1+a2, one rounding per rnd; NaN as fadd_ieee (legalized from fma).",
        types=R.same("float"), ref=P.ref_fma_ieee, values=_RND, any_nan=True),
    _op("fsqrt_ieee", 1, 1, ("rnd",), "IEEE square root per rnd; NaN as fadd_ieee (legalized from fsqrt).",
        types=R.same("float"), ref=P.ref_fsqrt_ieee, values=_RND, any_nan=True),
    _op("frint_ieee", 1, 1, ("rnd",), "Round to integral per rnd; NaN as fadd_ieee (legalized from frint).",
        types=R.same("float"), ref=P.ref_frint_ieee, values=_RND, any_nan=True),
    _op("fapprox_ieee", 1, None, ("fn",), "fapprox's function fn (same accuracy); a NaN result is some NaN "
        "(legalized from fapprox).",
        types=R.same("float"), ref=P.ref_fapprox_ieee, values={"fn": APPROX_FNS}, any_nan=True,
        approximate=True),
    _op("fcvt_ieee", 1, 1, ("rnd",), "Float -> float of another format per rnd; a NaN gives some NaN "
        "(legalized from fcvt).",
        types=R.convert("float", "float"), ref=P.ref_fcvt_ieee, values=_RND, any_nan=True),
    # ---- memory
    _op("load", 1, 1, ("space",), "d = *(T*)a0 in space; attrs: volatile (bool), align (bytes).",
        types=R.address(), optional=("volatile", "align")),
    _op("store", 0, 2, ("space",), "*(typeof a1*)a0 = a1 in space.",
        types=R.address()),
    _op("atomic", 1, 2, ("space", "aop"),
        "d = old *a0; *a0 = aop(old, a1) atomically. aop: add fadd min max umin umax fmin fmax and or xor exch "
        "inc dec (inc: old>=a1 ? 0 : old+1; dec: old==0 || old>a1 ? a1 : old-1). fadd rounds to nearest; "
        "d is the raw old word. As an H100 does: f32 fadd gives the canonical NaN; optional attr ftz (f32 "
        "atom.add) flushes the word, the operand and the result in global memory only (shared keeps "
        "subnormals); f64 fadd in global memory: a NaN operand a1 wins unchanged (not quieted), else a "
        "NaN word unchanged; in shared memory fadd(a1, old) under the f64 NaN rules (old first).",
        types=R.address(), optional=("ftz",)),
    _op("atomic_cas", 1, 3, ("space",), "d = old *a0; if old == a1 then *a0 = a2 (bitwise compare).",
        types=R.address()),
    _op("cvta_to_generic", 1, 1, ("space",), "Generic address of a shared/local/global/const address."),
    _op("cvta_from_generic", 1, 1, ("space",), "Space address of a generic address."),
    _op("isspacep", 1, 1, ("space",), "i1: does generic address a0 point into space?"),
    _op("memcpy", 0, 2, ("dst_space", "src_space", "size"),
        "Copy size bytes from a1 to a0 (cp.async lowered synchronously)."),
    # ---- thread identity and warps (warp = 32 consecutive threads of the linearized block)
    _op("sreg", 1, 0, ("name",),
        "Special register: tid.x tid.y tid.z ntid.x … ctaid.* nctaid.* laneid warpid nwarpid "
        "lanemask_eq/lt/le/gt/ge smid nsmid gridid clock clock64 globaltimer dynamic_smem_size total_smem_size."),
    _op("shfl", 2, 4, ("mode",),
        "(value, in_range) = shuffle a0 among the warp; mode idx up down bfly; a1 lane/delta (its low 5 bits); "
        "a2 the PTX 'c' operand (clamp | segment mask << 8); a3 member mask. Out-of-range, non-member or "
        "not-executing source: own value."),
    _op("vote", 1, 2, ("mode",), "mode all any uni (i1) or ballot (i32) of predicate a0 over member mask a1."),
    _op("match", 2, 2, ("mode",),
        "mode any: d0 = mask of members whose a0 equals mine; mode all: d0 = mask if all members equal else 0, "
        "d1 (i1) = all equal. a1 member mask."),
    _op("redux", 1, 2, ("rop",), "Reduce a0 over member mask a1: add min max umin umax and or xor (i32)."),
    _op("activemask", 1, 0, (), "i32 mask of the currently active lanes of my warp."),
    _op("barrier", 0, None, ("kind",),
        "Block barrier. kind sync (a0 = barrier id, optional a1 thread count), arrive, red (reduction via attr "
        "rop popc/and/or; then dsts/args: see lowering), warp (a0 = member mask; __syncwarp)."),
    _op("barrier_red", 1, None, ("rop",),
        "Barrier then reduction of the last argument (i1 or i32 predicate): popc (i32), and, or (i1). Args: a0 "
        "barrier id, then the predicate (every thread of the block takes part), or a0 id, a1 thread count, a2 "
        "predicate: the first a1 threads of the block to arrive at barrier a0 (PTX bar.red a, b, c)."),
    _op("membar", 0, 0, ("scope",), "Memory fence: scope cta, gpu, sys (AIR: no fence intrinsic has been seen "
        "in Apple's modules, so the AIR path emits none; see docs/air-abi.md)."),
    # ---- asynchronous barriers and copies (PTX mbarrier, cp.async.bulk, TMA): CPU engine only so far
    _op("mbarrier", None, None, ("mop",),
        "mbarrier object: the 64-bit word at a0 (space attr: shared or generic into shared), updated atomically "
        "lane by lane in lane order. CuMetal's encoding: bits 0-20 pending arrivals, 21-41 expected arrivals, "
        "42-62 tx-count (signed 21-bit), 63 phase parity. mop init: a1 = count (i32): phase 0, pending = "
        "expected = count, tx 0. inval: the word becomes 0. expect_tx / complete_tx: tx += / -= a1 (i32). "
        "arrive: tx += a2 (i32, arrive.expect_tx), then pending -= a1 (i32); attr drop: expected -= a1 too "
        "(arrive_drop); optional d (i64) = the word before the update (the state token). After arrive and "
        "complete_tx: when pending = 0 and tx = 0 the phase completes (parity flips, pending = expected).",
        values={"mop": ("init", "inval", "arrive", "expect_tx", "complete_tx")},
        optional=("space", "drop", "nocomplete")),
    _op("mbarrier_wait", 1, 2, ("parity",),
        "i1: has the phase named by a1 completed at the mbarrier at a0 (space attr as mbarrier)? parity: a1 "
        "(i32) is a phase parity, complete when the current parity differs; else a1 (i64) is a state token, "
        "complete when the current parity differs from the token's bit 63. A scheduling point: a lane whose "
        "phase is not complete lets every other runnable thread run first, then answers (try_wait's suspend; "
        "a later answer for test_wait, as a slower GPU would give).",
        values={"parity": BOOL}, optional=("space", "block")),
    _op("bulk_copy", 0, None, ("dst_space", "src_space"),
        "Copy a2 (i32) bytes from a1 to a0 (spaces global or shared; generic allowed), complete at once; with "
        "attr redop (add min max inc dec and or xor) and etype (u32 s32 u64 s64 f32 f64 f16 bf16 b32 b64) "
        "reduce element-wise into a0 instead. Then, if a3 (i64 shared address of an mbarrier) is given, "
        "complete_tx(a2) on it. Bulk-group completion needs nothing more: the copy is already complete. "
        "Attr multicast: a4 (i16) is a ctaMask; the bytes and the complete_tx go to the same CTA-local "
        "offsets in each CTA of the cluster it names (.multicast::cluster). Attr cp_mask (global <- shared, no "
        "mbarrier: a3 is 0): a4 (i16) byteMask; byte i of each 16-byte chunk is written only if bit i is set.",
        optional=("redop", "etype", "multicast", "cp_mask")),
    _op("tensor_copy", 0, None, ("dims", "dir"),
        "Tensor (TMA) copy of one box, complete at once. a0 shared address of the box, a1 generic address of a "
        "128-byte tensor map in CuMetal's format (cumetal.driver.tensormap), a2 i64 shared address of an "
        "mbarrier (dir load) or 0, a3.. the dims i32 start coordinates. dir load: global -> shared, "
        "out-of-bounds elements filled per the map, then complete_tx(box bytes) on a2; dir store: shared -> "
        "global, in-bounds elements only; attr redop reduces into global instead. Swizzle per the map. "
        "Attr multicast (load): an i16 ctaMask follows the coordinates, as for bulk_copy. Attr mode im2col "
        "(load, im2col map): dims-2 i16 im2col offsets follow the coordinates (before any ctaMask); the box is "
        "the map's pixelsPerColumn pixels x channelsPerPixel channels walked through its pixel box "
        "(backends/cpu/tensorcopy.py). Mode im2col on a store (PTX .im2col_no_offs): no offsets follow; the "
        "same walk with offsets zero. Modes gather4/scatter4 (2D tile map, dims 2): five coordinates {c0, r0..r3}, "
        "four one-row boxes as one box of four rows. Modes im2col_w/im2col_w128 (load, im2col-wide map): two i16 "
        "{wHalo, wOffset} follow the coordinates; the pixels walk W only (tensorcopy.py). Attr cta_pair (PTX "
        ".cta_group::2): a multicast's complete_tx goes, per destination CTA, to the CTA of its pair whose rank "
        "parity is that of the mbarrier's CTA.",
        values={"dir": ("load", "store"), "mode": ("tile", "im2col", "gather4", "scatter4", "im2col_w", "im2col_w128")},
        optional=("redop", "multicast", "mode", "cta_pair")),
    # ---- calls and control flow
    _op("call", None, None, ("callee",), "Call device function callee with args; dsts receive its returns."),
    _op("call_indirect", None, None, (), "Call the function whose address is a0 with args a1…."),
    _op("printf", 1, 2, (), "vprintf(format generic address a0, argument buffer generic address a1); d = i32."),
    _op("malloc", 1, 1, (), "Device heap (malloc): d = i64 address of a0 (i64) fresh bytes, 0 when exhausted."),
    _op("free", 0, 1, (), "Device heap (free): release a0, a malloc result or 0."),
    _op("br", 0, 0, ("target",), "Jump to block target."),
    _op("cbr", 0, 1, ("target", "else"), "If a0 then target else else."),
    _op("brx", 0, 1, ("targets",), "Jump to targets[a0]."),
    _op("ret", 0, 0, (), "Return from the function (kernel: the thread finishes)."),
    _op("exit", 0, 0, (), "The thread finishes."),
    _op("trap", 0, 0, (), "Abort the kernel. Optional kind: none (PTX trap: a launch failure), assert "
        "(a failed device-side assert), illegal_instruction or misaligned_address (a legalizer's refusal of "
        "what NVIDIA hardware faults on: the same fault).",
        values={"kind": ("assert", "illegal_instruction", "misaligned_address")}, optional=("kind",)),
    _op("unreachable", 0, 0, (), "Control never reaches here."),
    _op("nop", 0, None, (), "No effect (prefetch, nanosleep, performance hints)."),
]

OPS: dict[str, OpInfo] = {o.name: o for o in _OPS}
assert len(OPS) == len(_OPS), "an op is declared twice in cumetal.ir.ops"

for _o in _OPS:  # cheap consistency checks of the table itself, at import
    assert _o.ref is None or _o.types is not None, f"op {_o.name}: a reference definition needs a type rule"
    assert _o.domain is None or _o.ref is not None, f"op {_o.name}: a domain without a reference definition"
    assert set(_o.values) <= set(_o.attrs) | set(_o.optional), f"op {_o.name}: values for undeclared attributes"

ELEMENTWISE_OPS: frozenset[str] = frozenset(o.name for o in _OPS if o.ref is not None)
"""Ops defined by a reference function (per lane, no effects, never faulting)."""


def reference_fn(op: str, dst_type: str | None, arg_types: tuple[str, ...] | list[str],
                 attrs: Mapping[str, Any] | None = None) -> Fn:
    """The executable definition of one instruction of an elementwise op: ``f(*args) -> result``
    over container arrays/scalars (``cumetal.ir.semantics.dtypes.UDT``), with the modifiers the
    ops share (``ftz`` attribute, f64 NaN rules) applied."""
    info = OPS.get(op)
    if info is None or info.ref is None:
        raise KeyError(f"IR op {op!r} has no reference definition")
    at = attrs or {}
    f = info.ref(dst_type, tuple(arg_types), at)
    return E.with_modifiers(op, f, dst_type, at)
