"""Regressions from issue 10: behaviours CuMetal got wrong, each pinned down by an NVIDIA golden.

Cross-family carry chains (the carry flag after sub.cc is NOT borrow), NaN payloads through
cvt.f32/f16.f64, .ftz on cvt.f16.f32, atom.add.f32/f64 with subnormal and NaN words, directed f64
rounding next to -DBL_MAX, f16/bf16 fma over dense random operands, warp operations after a
partial-mask one inside a divergent branch, mad24.hi.sat.s32, fns.b32, register names without '%',
a .func's own .shared variable next to the kernel's dynamic shared array.
"""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Buf, Case
from ..ptxgen import element_address, elementwise, global_index, kernel_text

FAM = "regress"


def _carry() -> list[Case]:
    """Carry chains mixing families: the flag one family writes is read by another."""
    x, y = V.pairs("u32", salt=101)
    z = V.random_bits("u32", len(x), salt=103)
    z[::4] = x[::4]  # equal operands: the borrow/no-borrow boundary
    ins = [("a", "u32", x), ("b", "u32", y), ("c", "u32", z)]
    outs = [("d", "u32"), ("e", "u32")]
    bodies = {
        "add_cc_then_subc": "add.cc.u32 %t0, %a, %b;\n    subc.cc.u32 %d, %a, %c;\n    addc.u32 %e, 0, 0;",
        "sub_cc_then_addc": "sub.cc.u32 %t0, %a, %b;\n    addc.cc.u32 %d, %a, %c;\n    addc.u32 %e, 0, 0;",
        "sub_cc_then_addc_flag": "sub.cc.u32 %t0, %a, %b;\n    addc.u32 %e, 0, 0;\n    mov.u32 %d, %t0;",
        "sub_cc_then_subc_flag": "sub.cc.u32 %t0, %a, %b;\n    subc.cc.u32 %d, %b, %c;\n    addc.u32 %e, 0, 0;",
        "subc_cc_then_addc": "sub.cc.u32 %t0, %c, %b;\n    subc.cc.u32 %d, %a, %b;\n    addc.u32 %e, %a, %c;",
        "mad_cc_then_subc": "mad.lo.cc.u32 %t0, %a, %b, %c;\n    subc.cc.u32 %d, %a, %c;\n    addc.u32 %e, 0, 0;",
        "sub_cc_then_madc": "sub.cc.u32 %t0, %a, %b;\n    madc.lo.cc.u32 %d, %a, %b, %c;\n    addc.u32 %e, 0, 0;",
        "sub_cc_then_madc_hi": "sub.cc.u32 %t0, %b, %a;\n    madc.hi.cc.u32 %d, %a, %c, %b;\n    subc.u32 %e, 0, 0;",
        "add_cc_then_subc_s32": "add.cc.s32 %t0, %a, %b;\n    subc.cc.s32 %d, %c, %a;\n    subc.u32 %e, 5, 0;",
        "madc_then_subc": "add.cc.u32 %t0, %a, %c;\n    madc.hi.cc.u32 %t1, %a, %b, %c;\n"
                          "    subc.cc.u32 %d, %t1, %b;\n    addc.u32 %e, 0, 0;",
    }
    out = [elementwise(f"carry_{n}", FAM, "    " + b, ins, outs) for n, b in bodies.items()]
    a64, b64 = V.pairs("u64", salt=105)
    ins64 = [("a", "u64", a64), ("b", "u64", b64)]
    body = "    add.cc.u64 %w0, %a, %b;\n    subc.cc.u64 %d, %a, %b;\n    addc.u32 %e, 0, 0;"
    out.append(elementwise("carry_add_cc_u64_then_subc_u64", FAM, body, ins64, [("d", "u64"), ("e", "u32")],
                           target="sm_90"))
    body = "    sub.cc.u64 %w0, %a, %b;\n    addc.cc.u64 %d, %a, %b;\n    addc.u32 %e, 0, 0;"
    out.append(elementwise("carry_sub_cc_u64_then_addc_u64", FAM, body, ins64, [("d", "u64"), ("e", "u32")],
                           target="sm_90"))
    return out


def _f64_nans(n_random: int, salt: int) -> np.ndarray:
    """NaNs of both signs, quiet and signalling, with payloads in every part of the mantissa."""
    g = V.rng(salt)
    payload = g.integers(1, 1 << 52, n_random, dtype=np.uint64)
    payload[::5] &= np.uint64((1 << 29) - 1)  # only low payload bits (lost by f64 -> f32)
    payload[1::5] |= np.uint64(1 << 51)
    sign = g.integers(0, 2, n_random, dtype=np.uint64) << np.uint64(63)
    nans = sign | np.uint64(0x7FF0000000000000) | payload
    return np.concatenate([V.edges("f64"), nans])


def _cvt() -> list[Case]:
    out = []
    vals = _f64_nans(96, 110)
    for rnd in ("rn", "rz", "rm", "rp"):
        for ftz in ("", ".ftz"):
            out.append(elementwise(f"cvt_{rnd}{ftz.replace('.', '_')}_f32_f64_nan", FAM,
                                   f"    cvt.{rnd}{ftz}.f32.f64 %d, %a;", [("a", "f64", vals)], [("d", "f32")]))
        out.append(elementwise(f"cvt_{rnd}_f16_f64_nan", FAM, f"    cvt.{rnd}.f16.f64 %d, %a;",
                               [("a", "f64", vals)], [("d", "f16")], target="sm_90"))
    # f32 values whose f16 result is subnormal (and f32 subnormals): .ftz on cvt.f16.f32.
    g = V.rng(112)
    mags = np.concatenate([g.uniform(2.0 ** -26, 2.0 ** -14, 160), [2.0 ** -25, 2.0 ** -24, 3 * 2.0 ** -25]])
    tiny = (mags * np.where(g.random(len(mags)) < 0.5, -1, 1)).astype(np.float32).view(np.uint32)
    sub32 = V.random_bits("u32", 32, salt=113) & np.uint32(0x807FFFFF)  # f32 subnormals
    x = np.concatenate([V.edges("f32"), tiny, sub32])
    for rnd in ("rn", "rz", "rm", "rp"):
        out.append(elementwise(f"cvt_{rnd}_ftz_f16_f32_subnormal", FAM, f"    cvt.{rnd}.ftz.f16.f32 %d, %a;",
                               [("a", "f32", x)], [("d", "f16")], target="sm_90" if rnd != "rn" else "sm_80"))
    return out


def _atom_private(name: str, ty: str, mem: np.ndarray, opnd: np.ndarray, space: str, instr: str) -> Case:
    """Each thread owns one memory word: old value and new word are fixed (no contention)."""
    rt = f"b{32 if ty == 'f32' else 64}"
    size = 4 if ty == "f32" else 8
    n = len(mem)
    if space == "global":
        body = (element_address("e", size, "%gb") + f"    st.global.{rt} [%gb], %a;\n"
                f"    {instr} %d, [%gb], %b;\n    ld.global.{rt} %e, [%gb];")
        mod = ""
    else:
        body = (f"    mov.u32 %t15, %tid.x;\n    mul.wide.u32 %w7, %t15, {size};\n    mov.u64 %gb, sbuf;\n"
                f"    add.u64 %gb, %gb, %w7;\n    st.shared.{rt} [%gb], %a;\n"
                f"    {instr} %d, [%gb], %b;\n    ld.shared.{rt} %e, [%gb];")
        mod = f".shared .align 8 .b8 sbuf[{128 * size}];\n"
    c = elementwise(name, FAM, body, [("a", ty, mem), ("b", ty, opnd)], [("d", ty), ("e", ty)])
    if mod:
        c = Case(c.name, c.family, c.ptx.replace(".address_size 64\n", ".address_size 64\n" + mod, 1), c.kernel,
                 c.grid, c.block, c.params, note=f"{n} threads")
    return c


def _atomics() -> list[Case]:
    out = []
    a, b = V.pairs("f32", salt=120)
    sub = V.random_bits("u32", 64, salt=121) & np.uint32(0x807FFFFF)
    a = np.concatenate([a, sub, sub])
    b = np.concatenate([b, V.random_bits("u32", 64, salt=122), sub[::-1]])
    for sp in ("global", "shared"):
        out.append(_atom_private(f"atom_{sp}_add_f32_private", "f32", a, b, sp, f"atom.{sp}.add.f32"))
    a, b = V.pairs("f64", salt=123)
    na, nb = _f64_nans(40, 124), _f64_nans(40, 125)[::-1]
    a, b = np.concatenate([a, na, na]), np.concatenate([b, nb[: len(na)], V.random_bits("u64", len(na), 126)])
    for sp in ("global", "shared"):
        out.append(_atom_private(f"atom_{sp}_add_f64_private", "f64", a, b, sp, f"atom.{sp}.add.f64"))
    return out


def _f64_near_max() -> list[Case]:
    """add/sub f64 with every rounding next to +-DBL_MAX: half-ulp ties and just-off ties."""
    big = np.array([0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFE, 0xFFEFFFFFFFFFFFFE,
                    0x7FE0000000000000, 0xFFE0000000000000], dtype=np.uint64)
    ulp = 2.0 ** 971  # ulp of DBL_MAX
    small = []
    for k in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 0.5 * (1 + 2 ** -20), 0.5 * (1 - 2 ** -20)):
        for s in (1.0, -1.0):
            small.append(np.float64(s * k * ulp).view(np.uint64))
    small = np.array(small, dtype=np.uint64)
    a = np.repeat(big, len(small))
    b = np.tile(small, len(big))
    out = []
    for op in ("add", "sub"):
        for rnd in ("rn", "rz", "rm", "rp"):
            out.append(elementwise(f"{op}_{rnd}_f64_near_max", FAM, f"    {op}.{rnd}.f64 %d, %a, %b;",
                                   [("a", "f64", a), ("b", "f64", b)], [("d", "f64")]))
    return out


def _half_fma() -> list[Case]:
    """fma on f16/bf16 with dense random operands of moderate exponent (double rounding shows)."""
    out = []
    n = 1024
    g = V.rng(130)

    def rand16(kind: str) -> np.ndarray:
        e = g.integers(-12, 12, n) if kind == "f16" else g.integers(-30, 30, n)
        m = g.uniform(1, 2, n) * np.where(g.random(n) < 0.5, -1, 1) * np.exp2(e)
        if kind == "f16":
            return m.astype(np.float16).view(np.uint16)
        return (m.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)

    for kind, target in (("f16", "sm_80"), ("bf16", "sm_80")):
        a, b, c = rand16(kind), rand16(kind), rand16(kind)
        for relu in ("", ".relu"):
            out.append(elementwise(f"fma_rn{relu.replace('.', '_')}_{kind}_dense", FAM,
                                   f"    fma.rn{relu}.{kind} %d, %a, %b, %c;",
                                   [("a", kind, a), ("b", kind, b), ("c", kind, c)], [("d", kind)], target=target))
        pk = lambda lo, hi: lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))  # noqa: E731
        a2, b2, c2 = pk(a, a[::-1]), pk(b, c), pk(c, b[::-1])
        for relu in ("", ".relu"):
            out.append(elementwise(f"fma_rn{relu.replace('.', '_')}_{kind}x2_dense", FAM,
                                   f"    fma.rn{relu}.{kind}x2 %d, %a, %b, %c;",
                                   [("a", f"{kind}x2", a2), ("b", f"{kind}x2", b2), ("c", f"{kind}x2", c2)],
                                   [("d", f"{kind}x2")], target=target))
    return out


def _warp_divergent() -> list[Case]:
    """Inside a branch taken by lanes 0..19 of each warp: a partial-mask shuffle (two groups, each
    naming only its own lanes), then warp operations over all 20 lanes."""
    n = 128
    vals = V.random_bits("u32", n, salt=140)
    body = (
        "    mov.u32 %t9, %laneid;\n    mov.u32 %d, 0;\n    mov.u32 %e, 0;\n"
        "    setp.ge.u32 %q1, %t9, 20;\n    @%q1 bra $Lskip;\n"
        "    setp.lt.u32 %q2, %t9, 16;\n    selp.b32 %t1, 0xffff, 0xf0000, %q2;\n"
        "    shfl.sync.bfly.b32 %t2, %a, 1, 0x1f, %t1;\n"
        "    and.b32 %t3, %a, 1;\n    setp.ne.u32 %q3, %t3, 0;\n"
        "    vote.sync.ballot.b32 %t4, %q3, 0xfffff;\n"
        "    sub.u32 %t5, 19, %t9;\n    shfl.sync.idx.b32 %t6, %t2, %t5, 0x1f, 0xfffff;\n"
        "    redux.sync.add.u32 %t7, %t2, 0xfffff;\n"
        "    xor.b32 %d, %t6, %t4;\n    add.u32 %e, %t7, %t2;\n"
        "$Lskip:"
    )
    c1 = elementwise("warp_after_partial_mask_in_branch", FAM, body, [("a", "u32", vals)],
                     [("d", "u32"), ("e", "u32")])
    body2 = (
        "    mov.u32 %t9, %laneid;\n    mov.u32 %d, 0;\n    mov.u32 %e, 0;\n"
        "    and.b32 %t8, %t9, 1;\n    setp.ne.u32 %q1, %t8, 0;\n    @%q1 bra $Lodd;\n"
        "    and.b32 %t3, %t9, 7;\n    setp.lt.u32 %q2, %t3, 4;\n    selp.b32 %t1, 0x05050505, 0x50505050, %q2;\n"
        "    shfl.sync.bfly.b32 %t2, %a, 2, 0x1f, %t1;\n"
        "    shfl.sync.up.b32 %t6, %t2, 4, 0, 0x55555555;\n"
        "    vote.sync.ballot.b32 %t4, %q2, 0x55555555;\n"
        "    xor.b32 %d, %t6, %t4;\n    mov.u32 %e, %t2;\n"
        "$Lodd:"
    )
    c2 = elementwise("warp_after_partial_mask_even_lanes", FAM, body2, [("a", "u32", vals)],
                     [("d", "u32"), ("e", "u32")])
    return [c1, c2]


def _misc_int() -> list[Case]:
    out = []
    a, b = V.pairs("u32", salt=150)
    c = V.random_bits("u32", len(a), salt=151)
    c[::3] = 0x7FFFFFFF
    c[1::3] = 0x80000000
    out.append(elementwise("mad24_hi_sat_s32", FAM, "    mad24.hi.sat.s32 %d, %a, %b, %c;",
                           [("a", "s32", a), ("b", "s32", b), ("c", "s32", c)], [("d", "s32")]))
    g = V.rng(152)
    n = 512
    mask = V.random_bits("u32", n, salt=153)
    mask[::7] = 0
    mask[1::7] = 0xFFFFFFFF
    mask[2::7] &= V.random_bits("u32", len(mask[2::7]), salt=154)
    base = g.integers(0, 32, n).astype(np.uint32)
    off = g.integers(-40, 41, n).astype(np.int32)
    off[::11] = 0
    out.append(elementwise("fns_b32", FAM, "    fns.b32 %d, %a, %b, %c;",
                           [("a", "b32", mask), ("b", "u32", base), ("c", "s32", off)], [("d", "u32")],
                           target="sm_80"))
    return out


def _syntax() -> list[Case]:
    """Legal PTX spellings: registers without '%', .reg parameters of a .func, a .func's own .shared
    variable next to the kernel's dynamic shared array."""
    out = []
    n = 128
    x, y = V.random_bits("u32", n, salt=160), V.random_bits("u32", n, salt=161)
    body = ("    add.u32 temp0, %a, %b;\n    mul.lo.u32 temp1, temp0, 3;\n    xor.b32 temp2, temp1, %a;\n"
            "    call (r_out), f_mix, (temp2, %b);\n    mov.u32 %d, r_out;")
    c = elementwise("reg_names_without_percent", FAM, body, [("a", "u32", x), ("b", "u32", y)], [("d", "u32")])
    func = (".func (.reg .u32 res) f_mix(.reg .u32 p, .reg .u32 q)\n{\n    .reg .u32 loc<2>;\n"
            "    shl.b32 loc0, p, 3;\n    sub.u32 loc1, loc0, q;\n    xor.b32 res, loc1, 0x5a5a5a5a;\n    ret;\n}\n")
    ptx = c.ptx.replace(".visible .entry", func + ".visible .entry", 1)
    ptx = ptx.replace("    .reg .b32 %d;", "    .reg .b32 %d;\n    .reg .u32 temp<3>;\n    .reg .u32 r_out;", 1)
    out.append(Case(c.name, FAM, ptx, "k", c.grid, c.block, c.params))

    # Dynamic shared: thread i writes a[i] to dyn[i]; f_stash keeps a value in its own .shared
    # array (which must not overlap dyn) and reads dyn back from another thread.
    vals = V.random_bits("u32", n, salt=162)
    s = Buf("src", "uint32", n, init=vals)
    d = Buf("dst", "uint32", n, output=True)
    e = Buf("dst2", "uint32", n, output=True)
    func = (".func (.reg .u32 r) f_stash(.reg .u32 tid, .reg .u32 v)\n{\n"
            "    .shared .align 4 .b32 fsh[128];\n    .reg .u64 %fa, %fb;\n    .reg .u32 %fx;\n"
            "    mul.wide.u32 %fa, tid, 4;\n    mov.u64 %fb, fsh;\n    add.u64 %fb, %fb, %fa;\n"
            "    not.b32 %fx, v;\n    st.shared.u32 [%fb], %fx;\n    bar.sync 0;\n"
            "    xor.b32 %fx, tid, 127;\n    mul.wide.u32 %fa, %fx, 4;\n    mov.u64 %fb, fsh;\n"
            "    add.u64 %fb, %fb, %fa;\n    ld.shared.u32 r, [%fb];\n    ret;\n}\n")
    body = (global_index()
            + "    ld.param.u64 %ga, [p_src];\n    cvta.to.global.u64 %ga, %ga;\n    mad.lo.u64 %ga, %gl, 4, %ga;\n"
            "    ld.global.u32 %t0, [%ga];\n    mov.u64 %w0, dyn;\n    mad.lo.u64 %w1, %gl, 4, %w0;\n"
            "    st.shared.u32 [%w1], %t0;\n    bar.sync 0;\n"
            "    call (%t1), f_stash, (%gi, %t0);\n    bar.sync 0;\n"
            "    sub.u32 %t2, 127, %gi;\n    mul.wide.u32 %w2, %t2, 4;\n    add.u64 %w2, %w0, %w2;\n"
            "    ld.shared.u32 %t3, [%w2];\n"
            + element_address("dst", 4) + "    st.global.u32 [%ga], %t3;\n"
            + element_address("dst2", 4) + "    st.global.u32 [%ga], %t1;\n    ret;")
    ptx = kernel_text((s, d, e), body, module_decls=".extern .shared .align 16 .b8 dyn[];\n" + func)
    out.append(Case("func_shared_vs_dynamic_shared", FAM, ptx, "k", (1, 1, 1), (n, 1, 1), (s, d, e),
                    shared_bytes=4 * n, note="dst: dyn reversed (untouched by f_stash); dst2: ~src reversed"))
    return out


def cases() -> list[Case]:
    return _carry() + _cvt() + _atomics() + _f64_near_max() + _half_fma() + _warp_divergent() + _misc_int() + \
        _syntax()
