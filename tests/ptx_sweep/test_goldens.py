"""The stored NVIDIA goldens: complete, current, and consistent with independent numpy references.

These tests need no GPU and no CuMetal. They (1) catch goldens that are missing or stale after a
case changed, and (2) pin down what the hardware did against references computed here, so the
semantics documented in docs/ptx-sweep.md (division by zero, NaN results, float->int of NaN,
shift clamping, ...) are checked facts, and the .approx bounds in approx.py hold on the data.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from .approx import BOUNDS
from .case import Case
from .cases import FAMILIES, all_cases, by_name
from .compare import element_ok, is_nan, to_float
from .golden import GoldenStore, family_path

STORE = GoldenStore()
CASES = by_name()


def io(name: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    c = CASES[name]
    return {b.name: b.init for b in c.inputs}, STORE.get(c)


def test_every_case_has_a_current_golden() -> None:
    problems = []
    for c in all_cases():
        try:
            STORE.get(c)
        except LookupError as e:
            problems.append(str(e))
    assert not problems, "\n".join(problems[:20]) + f"\n({len(problems)} cases)"


def test_goldens_hold_no_unknown_cases() -> None:
    names = {c.name for c in all_cases()}
    extra = []
    for fam in FAMILIES:
        with np.load(family_path(fam)) as z:
            extra += [k.split("@")[0] for k in z.files if k.split("@")[0] not in names]
    assert not extra, f"goldens for cases that no longer exist: {sorted(set(extra))[:20]}"


# ---- integer arithmetic -------------------------------------------------------------------------

def _wrap(vals: list[int], dtype: np.dtype) -> np.ndarray:
    bits = np.dtype(dtype).itemsize * 8
    return np.array([v & ((1 << bits) - 1) for v in vals], dtype=f"u{bits // 8}").view(dtype)


def _ints(arr: np.ndarray) -> list[int]:
    return [int(x) for x in arr]


@pytest.mark.parametrize("ty", ["u16", "s16", "u32", "s32", "u64", "s64"])
def test_int_add_sub_mul_min_max(ty: str) -> None:
    bits = int(ty[1:])
    refs = {
        "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul_lo": lambda x, y: x * y,
        "mul_hi": lambda x, y: (x * y) >> bits, "min": min, "max": max,
    }
    for op, f in refs.items():
        i, o = io(f"{op}_{ty}")
        ref = [f(x, y) for x, y in zip(_ints(i["a"]), _ints(i["b"]), strict=True)]
        np.testing.assert_array_equal(o["d"], _wrap(ref, i["a"].dtype), err_msg=f"{op}_{ty}")


@pytest.mark.parametrize("ty", ["u16", "s16", "u32", "s32", "u64", "s64"])
def test_int_div_rem_including_zero_and_overflow(ty: str) -> None:
    """Hardware: x/0 and x%0 give all ones (-1 signed); INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0."""
    i, od = io(f"div_{ty}")
    _, orem = io(f"rem_{ty}")
    dt = i["a"].dtype
    bits = dt.itemsize * 8
    q, r = [], []
    for x, y in zip(_ints(i["a"]), _ints(i["b"]), strict=True):
        if y == 0:
            q.append(-1)
            r.append(-1)
        else:
            qq = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # C semantics: truncate toward zero
            q.append(qq)
            r.append(x - qq * y)
    np.testing.assert_array_equal(od["d"], _wrap(q, dt))
    np.testing.assert_array_equal(orem["d"], _wrap(r, dt))
    if ty[0] == "s":
        m = (i["a"] == np.iinfo(dt).min) & (i["b"] == -1)
        assert m.any() and (od["d"][m] == np.iinfo(dt).min).all() and (orem["d"][m] == 0).all()
    del bits


@pytest.mark.parametrize("ty", ["u32", "s32"])
def test_add_sub_sat_and_mul_wide(ty: str) -> None:
    i, o = io(f"mul_wide_{ty}")
    ref = [x * y for x, y in zip(_ints(i["a"]), _ints(i["b"]), strict=True)]
    np.testing.assert_array_equal(o["d"], _wrap(ref, np.dtype("i8" if ty[0] == "s" else "u8")))
    if ty == "s32":
        for op, f in (("add_sat", lambda x, y: x + y), ("sub_sat", lambda x, y: x - y)):
            i, o = io(f"{op}_s32")
            ref = [min(max(f(x, y), -(1 << 31)), (1 << 31) - 1) for x, y in zip(_ints(i["a"]), _ints(i["b"]), strict=True)]
            np.testing.assert_array_equal(o["d"], np.array(ref, dtype=np.int32))


def test_carry_chain_add64_matches_u64_add() -> None:
    i, o = io("carry_add64_via_u32")
    s = [x + y for x, y in zip(_ints(i["a"]), _ints(i["b"]), strict=True)]
    np.testing.assert_array_equal(o["d"], _wrap(s, np.dtype("u8")))
    np.testing.assert_array_equal(o["e"], np.array([v >> 64 for v in s], dtype=np.uint32))


# ---- bits -------------------------------------------------------------------------------------

@pytest.mark.parametrize("w", [16, 32, 64])
def test_shifts_clamp_at_width(w: int) -> None:
    """Shift amounts >= width give 0 (shl, shr.u) or the sign fill (shr.s); amounts are unsigned."""
    i, o = io(f"shl_b{w}")
    a, s = _ints(i["a"]), _ints(i["b"])
    mask = (1 << w) - 1
    np.testing.assert_array_equal(o["d"], _wrap([(x << n) & mask if n < w else 0 for x, n in zip(a, s, strict=True)],
                                                o["d"].dtype))
    _, o = io(f"shr_u{w}")
    np.testing.assert_array_equal(o["d"].view(f"u{w // 8}"),
                                  _wrap([x >> n if n < w else 0 for x, n in zip(a, s, strict=True)], np.dtype(f"u{w // 8}")))
    _, o = io(f"shr_s{w}")
    signed = [x - (1 << w) if x >> (w - 1) else x for x in a]
    np.testing.assert_array_equal(o["d"].view(f"u{w // 8}"),
                                  _wrap([x >> min(n, w - 1) for x, n in zip(signed, s, strict=True)], np.dtype(f"u{w // 8}")))


@pytest.mark.parametrize("w", [32, 64])
def test_popc_clz_brev(w: int) -> None:
    i, o = io(f"popc_b{w}")
    np.testing.assert_array_equal(o["d"], np.array([bin(x).count("1") for x in _ints(i["a"])], dtype=np.uint32))
    i, o = io(f"clz_b{w}")
    np.testing.assert_array_equal(o["d"], np.array([w - x.bit_length() for x in _ints(i["a"])], dtype=np.uint32))
    i, o = io(f"brev_b{w}")
    a = _ints(i["a"])
    np.testing.assert_array_equal(o["d"], _wrap([int(f"{x:0{w}b}"[::-1], 2) for x in a], np.dtype(f"u{w // 8}")))


def test_bfe_u32_reference() -> None:
    i, o = io("bfe_u32")
    ref = []
    for x, p, ln in zip(_ints(i["a"]), _ints(i["b"]), _ints(i["c"]), strict=True):
        p, ln = p & 0xFF, ln & 0xFF
        ref.append(0 if ln == 0 or p >= 32 else (x >> p) & ((1 << min(ln, 32 - p)) - 1))
    np.testing.assert_array_equal(o["d"], np.array(ref, dtype=np.uint32))


def test_bfe_s32_sign_fills_from_last_extracted_bit() -> None:
    i, o = io("bfe_s32")
    ref = []
    for x, p, ln in zip(_ints(i["a"]), _ints(i["b"]), _ints(i["c"]), strict=True):
        ux = x & 0xFFFFFFFF
        p, ln = p & 0xFF, ln & 0xFF
        if ln == 0:
            ref.append(0)
            continue
        sbit = (ux >> min(p + ln - 1, 31)) & 1
        field = [(ux >> min(p + k, 31)) & 1 if p + k < 32 else sbit for k in range(32)]
        v = sum(bit << k for k, bit in enumerate(field[:ln])) | ((-sbit << ln) & 0xFFFFFFFF if ln < 32 else 0)
        ref.append(v)
    np.testing.assert_array_equal(o["d"].view(np.uint32), np.array(ref, dtype=np.uint64).astype(np.uint32))


# ---- floating point ---------------------------------------------------------------------------

_NP_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("ty", ["f32", "f64"])
def test_round_to_nearest_matches_ieee(op: str, ty: str) -> None:
    """.rn results equal numpy's IEEE results (denormals kept); NaN results are NaN."""
    i, o = io(f"{op}_rn_{ty}")
    ft = np.float32 if ty == "f32" else np.float64
    with np.errstate(all="ignore"):
        ref = _NP_OPS[op](i["a"].view(ft), i["b"].view(ft))
    got = o["d"]
    nan = np.isnan(ref)
    np.testing.assert_array_equal(got[~nan], ref[~nan].view(got.dtype))
    assert is_nan(got[nan], ty).all()


def test_nan_results_f32_are_canonical_but_f64_keep_an_input_payload() -> None:
    """Hardware: f32 arithmetic returns 0x7fffffff for any NaN result; f64 returns an input NaN,
    quietened, with its payload (and the default NaN 0xfff8000000000000 for invalid operations)."""
    i, o = io("add_f32")
    nan = is_nan(o["d"], "f32")
    assert nan.any() and (o["d"][nan] == 0x7FFFFFFF).all()
    i, o = io("add_f64")
    a, b, d = i["a"], i["b"], o["d"]
    a_nan, b_nan = is_nan(a, "f64"), is_nan(b, "f64")
    quiet = np.uint64(1 << 51)
    only_a = a_nan & ~b_nan
    assert only_a.any() and (d[only_a] == (a[only_a] | quiet)).all()
    inv = (a == 0x7FF0000000000000) & (b == 0xFFF0000000000000)
    assert inv.any() and (d[inv] == 0xFFF8000000000000).all()


@pytest.mark.parametrize("ty", ["f32", "f64"])
def test_sqrt_rn(ty: str) -> None:
    i, o = io(f"sqrt_rn_{ty}")
    ft = np.float32 if ty == "f32" else np.float64
    with np.errstate(invalid="ignore"):
        ref = np.sqrt(i["a"].view(ft))
    nan = np.isnan(ref)
    np.testing.assert_array_equal(o["d"][~nan], ref[~nan].view(o["d"].dtype))
    assert is_nan(o["d"][nan], ty).all()


def test_min_max_f32_nan_rules() -> None:
    """min/max return the non-NaN operand; .NaN variants return canonical NaN; -0 < +0."""
    i, o = io("min_f32")
    a, b = i["a"].view(np.float32), i["b"].view(np.float32)
    ref = np.fmin(a, b)
    both_zero = (a == 0) & (b == 0)
    ok = ~np.isnan(ref) & ~both_zero
    np.testing.assert_array_equal(o["d"][ok], ref[ok].view(np.uint32))
    assert (o["d"][both_zero & ((i["a"] | i["b"]) == 0x80000000)] == 0x80000000).all()
    i, o = io("max_NaN_f32")
    anynan = np.isnan(i["a"].view(np.float32)) | np.isnan(i["b"].view(np.float32))
    assert anynan.any() and (o["d"][anynan] == 0x7FFFFFFF).all()


@pytest.mark.parametrize("op", sorted(BOUNDS))
def test_approx_bounds_hold_on_hardware(op: str) -> None:
    """Each documented 'truth' bound holds between the hardware result and a float64 reference."""
    name = op.replace(".", "_")
    if name.endswith("_wide"):  # sin.approx.f32.wide -> case sin_approx_f32_wide
        name = name.replace("_wide", "") + "_wide"
    c: Case = CASES[name]
    i, o = io(name)
    fmt = c.outputs[0].fmt or ""
    base = fmt[:-2] if fmt.endswith("x2") else fmt
    x = to_float(i["a"], base)
    y = to_float(i["b"], base) if "b" in i else None
    fn = op.split(".")[0]
    with np.errstate(all="ignore"):
        ref = {
            "rcp": lambda: 1.0 / x, "sqrt": lambda: np.sqrt(x), "rsqrt": lambda: 1.0 / np.sqrt(x),
            "div": lambda: x / y, "ex2": lambda: np.exp2(x), "lg2": lambda: np.log2(x),
            "sin": lambda: np.sin(x), "cos": lambda: np.cos(x), "tanh": lambda: np.tanh(x),
        }[fn]()
    ftz = ".ftz" in op
    # Compare where the reference is a normal, finite value of the format (flushing and overflow
    # behaviour of the approximations is covered by the exact special-value goldens instead).
    tiny = {"f16": 2.0 ** -14, "bf16": 2.0 ** -126, "f32": 2.0 ** -126, "f64": 2.0 ** -1022}[base]
    huge = {"f16": 65504.0, "bf16": 3.3e38, "f32": 3.4e38, "f64": 1.7e308}[base]
    with np.errstate(invalid="ignore"):
        ok_in = np.isfinite(ref) & np.isfinite(x) & (np.abs(x) >= (tiny if ftz else 0)) & (np.abs(ref) < huge)
        if base != "f16":
            ok_in &= (np.abs(ref) >= tiny) | (ref == 0)
    got = to_float(o["d"], base)
    with np.errstate(over="ignore"):
        if base == "bf16":  # round to bf16 by truncating a float32 (only used by ulp rules, none for bf16)
            ref_bits = (ref.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        else:
            ref_bits = ref.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[base])
            ref_bits = ref_bits.view({"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}[base])
    truth = BOUNDS[op].truth
    within = element_ok(truth, ref_bits, o["d"], base) | _close_to_exact(truth, ref, got)
    bad = np.nonzero(ok_in & ~within)[0]
    assert ok_in.sum() > 20, "too few in-range inputs to check the bound"
    assert not len(bad), f"{op}: hardware outside '{truth}' for inputs {x[bad][:5]} -> {got[bad][:5]} vs {ref[bad][:5]}"


def _close_to_exact(rule: str, ref: np.ndarray, got: np.ndarray) -> np.ndarray:
    """abs/rel rules evaluated against the unrounded float64 reference (ulp rules use the rounded one)."""
    ok = np.zeros(ref.shape, dtype=bool)
    with np.errstate(all="ignore"):
        for alt in rule.split("|"):
            kind, _, arg = alt.partition(":")
            if kind == "abs":
                ok |= np.abs(got - ref) <= float(arg)
            elif kind == "rel":
                ok |= np.abs(got - ref) <= float(arg) * np.abs(ref)
    return ok


# ---- conversions ------------------------------------------------------------------------------

def test_float_to_int_nan_results() -> None:
    """Hardware: NaN converts to 0 from f16/f32 into <=32-bit ints, but to the 0x80.. pattern from
    f64 (any width) and into 64-bit ints from any float."""
    for name, expect in (("cvt_rni_s32_f32", 0), ("cvt_rzi_u32_f32", 0), ("cvt_rni_s32_f64", 0x80000000),
                         ("cvt_rni_u32_f64", 0x80000000), ("cvt_rni_s64_f32", 1 << 63), ("cvt_rni_u64_f64", 1 << 63)):
        c = CASES[name]
        i, o = io(name)
        fmt = c.inputs[0].fmt
        nan = is_nan(i["a"], fmt)
        d = o["d"].view(f"u{o['d'].itemsize}")
        assert nan.any() and (d[nan] == expect).all(), name


@pytest.mark.parametrize("mode,fn", [("rni", np.rint), ("rzi", np.trunc), ("rmi", np.floor), ("rpi", np.ceil)])
def test_f32_to_s32_rounding_and_saturation(mode: str, fn) -> None:
    i, o = io(f"cvt_{mode}_s32_f32")
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten in the cast
        x = i["a"].view(np.float32).astype(np.float64)
    ok = ~np.isnan(x)
    ref = np.clip(fn(x[ok]), -(2.0 ** 31), 2.0 ** 31 - 1).astype(np.int64)
    np.testing.assert_array_equal(o["d"][ok].astype(np.int64), ref)


@pytest.mark.parametrize("src", ["s32", "u32", "s64", "u64"])
def test_int_to_f32_round_to_nearest(src: str) -> None:
    i, o = io(f"cvt_rn_f32_{src}")
    ref = np.array([np.float32(float(v)) if abs(int(v)) < 2 ** 53 else np.float32(np.float64(int(v)))
                    for v in i["a"]], dtype=np.float32)
    exact = np.array([abs(int(v)) < 2 ** 53 for v in i["a"]])
    np.testing.assert_array_equal(o["d"][exact], ref[exact].view(np.uint32))


def _narrow(v: int, dst: str, reg_bits: int) -> int:
    """cvt to dst keeps the low bits; a signed narrow result is sign-extended into the register."""
    w = int(dst[1:])
    v &= (1 << w) - 1
    if dst[0] == "s" and v >> (w - 1):
        v -= 1 << w
    return v & ((1 << reg_bits) - 1)


def test_int_to_int_cvt_truncates_and_saturates() -> None:
    for src in ("u32", "s32", "u64", "s64"):
        for dst in ("u8", "s8", "u16", "s16", "u32", "s32"):
            if src == dst:
                continue
            i, o = io(f"cvt_{dst}_{src}")
            w = int(dst[1:])
            lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if dst[0] == "s" else (0, (1 << w) - 1)
            vals = _ints(i["a"])
            reg_bits = o["d"].dtype.itemsize * 8
            d = o["d"].view(f"u{reg_bits // 8}")
            ref = [_narrow(v, dst, reg_bits) for v in vals]
            np.testing.assert_array_equal(d, np.array(ref, dtype=d.dtype), err_msg=f"{dst}<-{src}")
            if f"cvt_sat_{dst}_{src}" in CASES:
                _, o = io(f"cvt_sat_{dst}_{src}")
                d = o["d"].view(f"u{reg_bits // 8}")
                ref = [_narrow(min(max(v, lo), hi), dst, reg_bits) for v in vals]
                np.testing.assert_array_equal(d, np.array(ref, dtype=d.dtype), err_msg=f"sat {dst}<-{src}")


# ---- compare / select -------------------------------------------------------------------------

_CMP = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: (a != b) & ~np.isnan(a) & ~np.isnan(b),
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "num": lambda a, b: ~np.isnan(a) & ~np.isnan(b), "nan": lambda a, b: np.isnan(a) | np.isnan(b),
}


@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"])
def test_setp_float_ordered_and_unordered(op: str, ty: str) -> None:
    i, o = io(f"setp_{op}_{ty}")
    ft = np.float32 if ty == "f32" else np.float64
    a, b = i["a"].view(ft), i["b"].view(ft)
    with np.errstate(invalid="ignore"):
        if op.endswith("u") and op not in ("num",):
            ref = _CMP[op[:-1]](a, b) | np.isnan(a) | np.isnan(b)
        else:
            ref = _CMP[op](a, b)
    np.testing.assert_array_equal(o["d"], ref.astype(np.uint32))


# ---- atomics, warps, special registers --------------------------------------------------------

def test_atomic_final_memory_matches_sequential_reference() -> None:
    i, o = io("atom_global_add_u32_vals")
    ref = np.zeros(4, dtype=np.uint64)
    for t, v in enumerate(i["vals"]):
        ref[t % 4] += int(v)
    np.testing.assert_array_equal(o["mem"], (ref & 0xFFFFFFFF).astype(np.uint32))
    i, o = io("atom_global_inc_u32")
    counts = np.bincount(np.arange(256) % 4, minlength=4)
    for k, start in enumerate(i["mem"]):
        v = int(start)
        for _ in range(counts[k]):
            v = 0 if v >= 9 else v + 1
        assert o["mem"][k] == v
    _, o = io("atom_global_cas_b32_loop")
    np.testing.assert_array_equal(o["mem"], np.full(4, 64, np.uint32))
    np.testing.assert_array_equal(np.sort(o["olds"]), np.sort(np.tile(np.arange(64, dtype=np.uint32), 4)))
    i, o = io("atom_global_exch_b32")
    np.testing.assert_array_equal(np.sort(o["olds"]), np.sort(np.concatenate([i["mem"], i["vals"]])))


def test_vote_ballot_redux_reference() -> None:
    i, o = io("vote_sync_ballot")
    p = i["a"].reshape(4, 32)
    ballots = [sum(int(bit) << k for k, bit in enumerate(w)) for w in p]
    np.testing.assert_array_equal(o["d"], np.repeat(np.array(ballots, dtype=np.uint32), 32))
    i, o = io("redux_sync_add_u32")
    sums = i["a"].reshape(4, 32).astype(np.uint64).sum(axis=1) & 0xFFFFFFFF
    np.testing.assert_array_equal(o["d"], np.repeat(sums.astype(np.uint32), 32))
    i, o = io("redux_sync_min_s32")
    np.testing.assert_array_equal(o["d"], np.repeat(i["a"].view(np.int32).reshape(4, 32).min(axis=1), 32))


def test_shfl_idx_reference() -> None:
    i, o = io("shfl_sync_idx_w32")
    a, lane = i["a"].reshape(4, 32), i["b"].reshape(4, 32)
    ref = np.array([[w[s & 31] for s in ls] for w, ls in zip(a, lane, strict=True)]).reshape(-1)
    np.testing.assert_array_equal(o["d"], ref)
    np.testing.assert_array_equal(o["e"], np.ones(128, np.uint32))


def test_special_registers_reference() -> None:
    c = CASES["sreg_3d_partial_warps"]
    (gx, gy, gz), (bx, by, bz) = c.grid, c.block
    _, o = io(c.name)
    out = o["out"].reshape(-1, 19)
    rows = []
    for cz in range(gz):
        for cy in range(gy):
            for cx in range(gx):
                for tz in range(bz):
                    for ty in range(by):
                        for tx in range(bx):
                            lin = (tz * by + ty) * bx + tx
                            lane = lin % 32
                            rows.append([tx, ty, tz, bx, by, bz, cx, cy, cz, gx, gy, gz, lane, 1 << lane,
                                         (1 << lane) - 1, (1 << (lane + 1)) - 1,
                                         (0xFFFFFFFF << (lane + 1)) & 0xFFFFFFFF, (0xFFFFFFFF << lane) & 0xFFFFFFFF, 32])
    np.testing.assert_array_equal(out, np.array(rows, dtype=np.uint32))
    _, o = io("sreg_warpid_invariants")
    assert (o["out"] == 1).all()


def test_math_sanity_of_helpers() -> None:
    """The float helpers used above decode the formats correctly."""
    assert to_float(np.array([0x3C00], np.uint16), "f16")[0] == 1.0
    assert to_float(np.array([0x3F80], np.uint16), "bf16")[0] == 1.0
    assert math.isnan(to_float(np.array([0x7FC00000], np.uint32), "f32")[0])
