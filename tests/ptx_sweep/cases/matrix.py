"""Warp matrix instructions: mma.sync (f16/bf16/tf32/f64/s8/u8 shapes of sm_80–sm_90), ldmatrix,
stmatrix (sm_90), movmatrix, and wmma load -> mma -> store sequences.

mma cases feed every lane's fragment registers from buffers (register r of global thread i at
index i*regs + r) and store the result registers the same way, so the hardware's fragment layout
is what the golden records. wmma fragments are opaque: those cases are checked only through the
memory that wmma.store writes (sentinel bytes between rows catch stray writes).
Float inputs come in families: small integers (every sum exact, so any summation order gives the
same bits), uniform in [-1, 1], and 'wide' (exponents spread over ~16 binades, to expose how the
tensor cores align and truncate), plus special values.
"""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Buf, Case
from ..ptxgen import kernel_text

FAM = "matrix"
WARPS = 16  # warps per mma case: 4 blocks of 128 threads
THREADS = 32 * WARPS


# ----------------------------------------------------------------------------- value generators
def _f16_bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    b = np.asarray(x, dtype=np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint32)  # round to nearest even


def _f32_bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def _floats(kind: str, n: int, salt: int) -> np.ndarray:
    r = V.rng(salt)
    if kind == "ints":
        return r.integers(-4, 5, n).astype(np.float32)
    if kind in ("uniform", "specials"):
        return r.uniform(-1, 1, n).astype(np.float32)
    if kind == "wide":
        return (r.choice([-1.0, 1.0], n) * np.exp2(r.integers(-12, 5, n)) * r.uniform(1, 2, n)).astype(np.float32)
    raise ValueError(kind)


def _elements(etype: str, kind: str, n: int, salt: int) -> np.ndarray:
    """n element bit patterns (uint32 for <= 32 bits, uint64 for f64)."""
    if etype in ("s8", "u8"):
        return V.rng(salt).integers(0, 256, n).astype(np.uint32)
    if etype == "s32":
        if kind == "sat":
            r = V.rng(salt)
            return (r.choice([0x7FFFFF00, 0x80000100], n) + r.integers(-0x8000, 0x8000, n)).astype(np.uint32)
        return V.rng(salt).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    if etype == "f64":
        x = _floats(kind, n, salt).astype(np.float64) * (1 + V.rng(salt + 1).uniform(0, 2**-20, n))
        return x.view(np.uint64)
    x = _floats(kind, n, salt)
    if kind == "specials":  # a few NaN / inf / huge / subnormal values among uniform ones
        r = V.rng(salt + 7)
        pick = r.random(n)
        x = np.where(pick < 0.01, np.float32("inf"), x)
        x = np.where((pick >= 0.01) & (pick < 0.02), np.float32("-inf"), x)
        x = np.where((pick >= 0.02) & (pick < 0.025), np.float32("nan"), x)
        x = np.where((pick >= 0.025) & (pick < 0.05), np.float32(2**-20), x)  # f16 subnormal
        x = np.where((pick >= 0.05) & (pick < 0.07), np.float32(60000.0), x)
    if etype == "f16":
        return _f16_bits(x)
    if etype == "bf16":
        return _bf16_bits(x)
    if etype == "tf32":  # full f32 patterns: the low 13 bits show how the hardware reads tf32
        return _f32_bits(x) ^ V.rng(salt + 3).integers(0, 1 << 13, n).astype(np.uint32)
    if etype == "f32":
        return _f32_bits(x)
    raise ValueError(etype)


def _pack(elems: np.ndarray, per_reg: int, width: int) -> np.ndarray:
    e = elems.reshape(-1, per_reg).astype(np.uint64)
    out = np.zeros(e.shape[0], dtype=np.uint64)
    for i in range(per_reg):
        out |= (e[:, i] & ((1 << width) - 1)) << np.uint64(i * width)
    return out.astype(np.uint32)


_WIDTH = {"f16": 16, "bf16": 16, "s8": 8, "u8": 8, "tf32": 32, "f32": 32, "s32": 32, "f64": 64}


def _regs(etype: str, kind: str, nregs: int, salt: int, threads: int = THREADS) -> tuple[np.ndarray, str]:
    """Register contents for every thread: (array, numpy dtype)."""
    w = _WIDTH[etype]
    per = 32 // w if w < 32 else 1
    e = _elements(etype, kind, threads * nregs * per, salt)
    if w == 64:
        return e, "uint64"
    return (_pack(e, per, w) if per > 1 else e.astype(np.uint32)), "uint32"


# ----------------------------------------------------------------------------- mma cases
# (shape, dtype, atype, btype, ctype) -> registers of a, b, c, d
def _nregs(shape: str, dtype: str, atype: str, ctype: str) -> tuple[int, int, int, int]:
    m, rest = shape[1:].split("n")
    n, k = (int(x) for x in rest.split("k"))
    m = int(m)
    w = _WIDTH[atype]
    per = 32 // w if w < 32 else 1
    cw = 2 if ctype == "f16" else 1
    dw = 2 if dtype == "f16" else 1
    return m * k // 32 // per, k * n // 32 // per, m * n // 32 // cw, m * n // 32 // dw


def _mma_case(name: str, shape: str, dtype: str, atype: str, btype: str, ctype: str, kind: str, salt: int,
              sat: bool = False, ckind: str | None = None, target: str = "sm_80") -> Case:
    na, nb, nc, nd = _nregs(shape, dtype, atype, ctype)
    a, adt = _regs(atype, kind, na, salt)
    b, bdt = _regs(btype, kind, nb, salt + 100)
    c, cdt = _regs(ctype, ckind or kind, nc, salt + 200)
    ddt = "uint64" if dtype == "f64" else "uint32"
    bufs = [Buf("a", adt, a.size, init=a), Buf("b", bdt, b.size, init=b), Buf("c", cdt, c.size, init=c),
            Buf("d", ddt, THREADS * nd, output=True, fmt=None)]
    rb = 64 if atype == "f64" else 32
    cb = 64 if ctype == "f64" else 32
    decls = (f"    .reg .b{rb} %xa<{na}>, %xb<{nb}>;\n    .reg .b{cb} %xc<{nc}>, %xd<{nd}>;")
    code = ["    mov.u32 %t0, %tid.x;\n    mov.u32 %t1, %ctaid.x;\n    mov.u32 %t2, %ntid.x;\n",
            "    mad.lo.u32 %t3, %t1, %t2, %t0;\n    cvt.u64.u32 %gl, %t3;\n"]
    for reg, buf, cnt, bits in (("xa", "a", na, rb), ("xb", "b", nb, rb), ("xc", "c", nc, cb)):
        code.append(f"    ld.param.u64 %ga, [p_{buf}];\n    cvta.to.global.u64 %ga, %ga;\n"
                    f"    mad.lo.u64 %ga, %gl, {cnt * bits // 8}, %ga;\n")
        code += [f"    ld.global.b{bits} %{reg}{i}, [%ga+{i * bits // 8}];\n" for i in range(cnt)]
    lay = "" if shape == "m8n8k4" and atype == "f64" else ""
    mods = f"mma.sync.aligned.{shape}.row.col{lay}{'.satfinite' if sat else ''}.{dtype}.{atype}.{btype}.{ctype}"
    v = lambda r, n: "{" + ", ".join(f"%{r}{i}" for i in range(n)) + "}"  # noqa: E731
    code.append(f"    {mods} {v('xd', nd)}, {v('xa', na)}, {v('xb', nb)}, {v('xc', nc)};\n")
    db = 64 if dtype == "f64" else 32
    code.append(f"    ld.param.u64 %ga, [p_d];\n    cvta.to.global.u64 %ga, %ga;\n    mad.lo.u64 %ga, %gl, {nd * db // 8}, %ga;\n")
    code += [f"    st.global.b{db} [%ga+{i * db // 8}], %xd{i};\n" for i in range(nd)]
    code.append("    ret;")
    ptx = kernel_text(bufs, "".join(code), target=target, decls=decls)
    return Case(name, FAM, ptx, "k", (WARPS // 4, 1, 1), (128, 1, 1), tuple(bufs),
                note=f"{mods}: {kind} inputs; registers of thread i at [i*regs + r]")


def _mma_cases() -> list[Case]:
    out = []
    s = 500
    specs = [
        ("m16n8k16", "f32", "f16", "f16", "f32", ("ints", "uniform", "wide", "specials")),
        ("m16n8k16", "f16", "f16", "f16", "f16", ("ints", "uniform", "wide")),
        ("m16n8k16", "f32", "bf16", "bf16", "f32", ("ints", "uniform", "wide")),
        ("m16n8k8", "f32", "f16", "f16", "f32", ("uniform", "wide")),
        ("m16n8k8", "f16", "f16", "f16", "f16", ("uniform",)),
        ("m16n8k8", "f32", "bf16", "bf16", "f32", ("uniform",)),
        ("m16n8k8", "f32", "tf32", "tf32", "f32", ("ints", "uniform", "wide")),
        ("m16n8k4", "f32", "tf32", "tf32", "f32", ("uniform",)),
        ("m8n8k4", "f64", "f64", "f64", "f64", ("ints", "uniform", "wide")),
    ]
    for shape, d, a, b, c, kinds in specs:
        for kind in kinds:
            s += 10
            out.append(_mma_case(f"mma_{shape}_{d}_{a}_{c}_{kind}", shape, d, a, b, c, kind, s))
    for shape, a, b, sat in (("m16n8k16", "s8", "s8", False), ("m16n8k16", "u8", "u8", False),
                             ("m16n8k16", "s8", "u8", False), ("m16n8k32", "s8", "s8", False),
                             ("m16n8k32", "u8", "s8", False), ("m16n8k32", "s8", "s8", True),
                             ("m16n8k16", "u8", "u8", True), ("m8n8k16", "s8", "s8", False)):
        s += 10
        out.append(_mma_case(f"mma_{shape}_s32_{a}_{b}{'_satfinite' if sat else ''}", shape, "s32", a, b, "s32",
                             "rand", s, sat=sat, ckind="sat" if sat else "rand"))
    return out


# ----------------------------------------------------------------------------- ldmatrix / stmatrix / movmatrix
def _ldst_matrix_case(op: str, num: int, trans: bool, generic: bool = False) -> Case:
    """One warp; shared memory of 64 rows of 16 bytes; lane l gives the address of row perm[l]."""
    words = V.random_bits("u32", 256, salt=600 + num)
    perm = V.rng(601 + num + 10 * trans).permutation(64)[:32].astype(np.uint32)
    regs = V.random_bits("u32", 32 * num, salt=602 + num)
    bufs = [Buf("src", "uint32", 256, init=words), Buf("perm", "uint32", 32, init=perm)]
    if op == "stmatrix":
        bufs.append(Buf("regs", "uint32", 32 * num, init=regs))
        bufs.append(Buf("dst", "uint32", 256, output=True))
    else:
        bufs.append(Buf("dst", "uint32", 32 * num, output=True))
    code = ["    mov.u32 %t0, %tid.x;\n    cvt.u64.u32 %gl, %t0;\n    mov.u64 %w0, sm;\n",
            # fill shared: lane l copies words l, l+32, ...
            "    ld.param.u64 %ga, [p_src];\n    cvta.to.global.u64 %ga, %ga;\n    mad.lo.u64 %ga, %gl, 4, %ga;\n"
            "    mad.lo.u64 %w1, %gl, 4, %w0;\n"]
    for i in range(8):
        code.append(f"    ld.global.u32 %t1, [%ga+{128 * i}];\n    st.shared.u32 [%w1+{128 * i}], %t1;\n")
    code.append("    bar.sync 0;\n"
                "    ld.param.u64 %gb, [p_perm];\n    cvta.to.global.u64 %gb, %gb;\n    mad.lo.u64 %gb, %gl, 4, %gb;\n"
                "    ld.global.u32 %t2, [%gb];\n    mul.wide.u32 %w2, %t2, 16;\n    add.u64 %w3, %w0, %w2;\n")
    if generic:
        code.append("    cvta.shared.u64 %w3, %w3;\n")
    ss = "" if generic else ".shared"
    regs_v = "{" + ", ".join(f"%t{4 + i}" for i in range(num)) + "}"
    tr = ".trans" if trans else ""
    if op == "ldmatrix":
        code.append(f"    ldmatrix.sync.aligned.m8n8.x{num}{tr}{ss}.b16 {regs_v}, [%w3];\n"
                    "    ld.param.u64 %gb, [p_dst];\n    cvta.to.global.u64 %gb, %gb;\n"
                    f"    mad.lo.u64 %gb, %gl, {4 * num}, %gb;\n")
        code += [f"    st.global.u32 [%gb+{4 * i}], %t{4 + i};\n" for i in range(num)]
    else:
        code.append("    ld.param.u64 %gb, [p_regs];\n    cvta.to.global.u64 %gb, %gb;\n"
                    f"    mad.lo.u64 %gb, %gl, {4 * num}, %gb;\n")
        code += [f"    ld.global.u32 %t{4 + i}, [%gb+{4 * i}];\n" for i in range(num)]
        code.append(f"    stmatrix.sync.aligned.m8n8.x{num}{tr}{ss}.b16 [%w3], {regs_v};\n    bar.sync 0;\n"
                    "    ld.param.u64 %gb, [p_dst];\n    cvta.to.global.u64 %gb, %gb;\n    mad.lo.u64 %gb, %gl, 4, %gb;\n")
        for i in range(8):
            code.append(f"    ld.shared.u32 %t1, [%w1+{128 * i}];\n    st.global.u32 [%gb+{128 * i}], %t1;\n")
    code.append("    ret;")
    target = "sm_90" if op == "stmatrix" else "sm_80"
    ptx = kernel_text(bufs, "".join(code), target=target, module_decls=".shared .align 16 .b8 sm[1024];\n")
    name = f"{op}_x{num}{'_trans' if trans else ''}{'_generic' if generic else ''}"
    return Case(name, FAM, ptx, "k", (1, 1, 1), (32, 1, 1), tuple(bufs),
                note=f"{op} .x{num}{tr}: lane l addresses shared row perm[l] (16-byte rows)")


def _movmatrix_case() -> Case:
    vals = V.random_bits("u32", 128, salt=610)
    bufs = [Buf("a", "uint32", 128, init=vals), Buf("d", "uint32", 128, output=True)]
    code = ("    mov.u32 %t0, %tid.x;\n    cvt.u64.u32 %gl, %t0;\n"
            "    ld.param.u64 %ga, [p_a];\n    cvta.to.global.u64 %ga, %ga;\n    mad.lo.u64 %ga, %gl, 4, %ga;\n"
            "    ld.global.u32 %t1, [%ga];\n    movmatrix.sync.aligned.m8n8.trans.b16 %t2, %t1;\n"
            "    ld.param.u64 %gb, [p_d];\n    cvta.to.global.u64 %gb, %gb;\n    mad.lo.u64 %gb, %gl, 4, %gb;\n"
            "    st.global.u32 [%gb], %t2;\n    ret;")
    ptx = kernel_text(bufs, code, target="sm_80")
    return Case("movmatrix_trans", FAM, ptx, "k", (1, 1, 1), (128, 1, 1), tuple(bufs),
                note="movmatrix.m8n8.trans.b16 in four warps")


# ----------------------------------------------------------------------------- wmma cases
WMMA_WARPS = 8  # 2 blocks of 128 threads; each warp its own A, B, C, D


def _wmma_case(name: str, shape: str, atype: str, ctype: str, dtype: str, alay: str, blay: str, clay: str,
               dlay: str, kind: str, salt: int, pad: int = 0, shared: bool = False, sat: bool = False) -> Case:
    m, rest = shape[1:].split("n")
    n, k = (int(x) for x in rest.split("k"))
    m = int(m)
    esz = {"f16": 2, "bf16": 2, "tf32": 4, "f32": 4, "f64": 8, "s8": 1, "u8": 1, "s32": 4}
    load_t = {"tf32": "tf32"}.get(atype, atype)

    def extent(rows: int, cols: int, lay: str) -> tuple[int, int]:  # (leading dimension, elements per warp)
        ld = (cols if lay == "row" else rows) + pad
        return ld, (rows if lay == "row" else cols) * ld

    lda, sa = extent(m, k, alay)
    ldb, sb = extent(k, n, blay)
    ldc, sc = extent(m, n, clay)
    ldd, sd = extent(m, n, dlay)
    bufs: list[Buf] = []
    for nm, et, cnt, sl in (("a", atype, sa, salt), ("b", atype, sb, salt + 1), ("c", ctype, sc, salt + 2)):
        ck = "rand" if et in ("s8", "u8", "s32") else kind
        if sat and nm == "c":
            ck = "sat"
        e = _elements(et, ck, cnt * WMMA_WARPS, sl)
        dt = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}[esz[et]]
        bufs.append(Buf(nm, dt, cnt * WMMA_WARPS, init=e.astype(dt)))
    ddt = {2: "uint16", 4: "uint32", 8: "uint64"}[esz[dtype]]
    bufs.append(Buf("d", ddt, sd * WMMA_WARPS, output=True))
    nregs = _wmma_regs(shape, atype, ctype, dtype)
    rb = 64 if atype == "f64" else 32
    decls = "\n".join(f"    .reg .b{rb if x in 'ab' else (64 if ctype == 'f64' else 32)} %y{x}<{nregs[x]}>;"
                      for x in "abcd")
    code = ["    mov.u32 %t0, %tid.x;\n    mov.u32 %t1, %ctaid.x;\n    mov.u32 %t2, %ntid.x;\n",
            "    mad.lo.u32 %t3, %t1, %t2, %t0;\n    shr.u32 %t4, %t3, 5;\n    cvt.u64.u32 %w0, %t4;\n"]
    v = lambda r, cnt: "{" + ", ".join(f"%y{r}{i}" for i in range(cnt)) + "}"  # noqa: E731
    for frag, lay, size, ld, et in (("a", alay, sa, lda, atype), ("b", blay, sb, ldb, atype),
                                    ("c", clay, sc, ldc, ctype)):
        code.append(f"    ld.param.u64 %ga, [p_{frag}];\n    cvta.to.global.u64 %ga, %ga;\n"
                    f"    mad.lo.u64 %ga, %w0, {size * esz[et]}, %ga;\n    mov.u32 %t5, {ld};\n")
        ss = ".global"
        if shared and frag == "a":  # copy this warp's A to shared, then load it from there
            code.append(_copy_to_shared(size * esz[et]))
            ss = ".shared"
            code.append("    mov.u64 %ga, %w6;\n")
        t = load_t if frag != "c" else ctype
        code.append(f"    wmma.load.{frag}.sync.aligned.{lay}.{shape}{ss}.{t} {v(frag, nregs[frag])}, [%ga], %t5;\n")
    if atype in ("f16",):
        types = f"{dtype}.{ctype}"
    else:
        types = f"{dtype}.{atype}.{atype}.{ctype}"
    rnd = ""
    code.append(f"    wmma.mma.sync.aligned.{alay}.{blay}.{shape}{rnd}.{types}{'.satfinite' if sat else ''} "
                f"{v('d', nregs['d'])}, {v('a', nregs['a'])}, {v('b', nregs['b'])}, {v('c', nregs['c'])};\n")
    code.append(f"    ld.param.u64 %ga, [p_d];\n    cvta.to.global.u64 %ga, %ga;\n"
                f"    mad.lo.u64 %ga, %w0, {sd * esz[dtype]}, %ga;\n    mov.u32 %t5, {ldd};\n"
                f"    wmma.store.d.sync.aligned.{dlay}.{shape}.global.{dtype} [%ga], {v('d', nregs['d'])}, %t5;\n")
    code.append("    ret;")
    mdecl = ".shared .align 32 .b8 sm[8192];\n" if shared else ""
    target = "sm_80"
    ptx = kernel_text(bufs, "".join(code), target=target, decls=decls, module_decls=mdecl)
    return Case(name, FAM, ptx, "k", (WMMA_WARPS // 4, 1, 1), (128, 1, 1), tuple(bufs),
                note=f"wmma {shape} {atype}->{dtype}, A {alay} B {blay} C {clay} D {dlay}, leading dims +{pad}; "
                     f"{kind} inputs")


def _copy_to_shared(nbytes: int) -> str:
    """PTX: this warp's lanes copy nbytes (a multiple of 128) from %ga to shared sm + warp*2048 (-> %w6)."""
    return ("    and.b32 %t6, %t0, 31;\n    and.b32 %t7, %t0, 96;\n    cvt.u64.u32 %w4, %t7;\n"
            "    mov.u64 %w6, sm;\n    mad.lo.u64 %w6, %w4, 64, %w6;\n"  # warp-in-block * 2048
            "    cvt.u64.u32 %w5, %t6;\n    mad.lo.u64 %w7, %w5, 4, %ga;\n    mad.lo.u64 %w5, %w5, 4, %w6;\n"
            + "".join(f"    ld.global.u32 %t8, [%w7+{128 * i}];\n    st.shared.u32 [%w5+{128 * i}], %t8;\n"
                      for i in range(nbytes // 128))
            + "    bar.warp.sync 0xffffffff;\n")


def _wmma_regs(shape: str, atype: str, ctype: str, dtype: str) -> dict[str, int]:
    """Register counts of wmma fragments (PTX ISA, wmma.load/mma/store operand tables)."""
    m, rest = shape[1:].split("n")
    n, k = (int(x) for x in rest.split("k"))
    m = int(m)
    if atype == "f16":
        a = b = 8
    elif atype == "bf16":
        a, b = m * k // 64, k * n // 64
    elif atype == "tf32":
        a, b = 4, 4
    elif atype == "f64":
        a, b = 1, 1
    else:  # s8/u8
        a, b = m * k // 128, k * n // 128
    cn = lambda t: m * n // 32 // (2 if t == "f16" else 1)  # noqa: E731
    return {"a": a, "b": b, "c": cn(ctype), "d": cn(dtype)}


def _wmma_cases() -> list[Case]:
    out = []
    s = 700
    for alay in ("row", "col"):
        for blay in ("row", "col"):
            s += 10
            out.append(_wmma_case(f"wmma_m16n16k16_f32_f16_{alay}_{blay}", "m16n16k16", "f16", "f32", "f32",
                                  alay, blay, "row", "row", "uniform", s))
    specs = [
        ("wmma_m16n16k16_f32_f16_ints_colstore", "m16n16k16", "f16", "f32", "f32", "row", "col", "col", "col",
         "ints", 8, False),
        ("wmma_m16n16k16_f32_f16_wide_padded", "m16n16k16", "f16", "f32", "f32", "row", "col", "row", "row",
         "wide", 8, False),
        ("wmma_m16n16k16_f32_f16_shared_a", "m16n16k16", "f16", "f32", "f32", "row", "col", "row", "row",
         "uniform", 0, True),
        ("wmma_m16n16k16_f16_f16", "m16n16k16", "f16", "f16", "f16", "row", "col", "row", "row", "uniform", 0, False),
        ("wmma_m16n16k16_f32_bf16", "m16n16k16", "bf16", "f32", "f32", "row", "row", "row", "row", "uniform", 0,
         False),
        ("wmma_m32n8k16_f16", "m32n8k16", "f16", "f32", "f32", "col", "row", "row", "col", "uniform", 0, False),
        ("wmma_m8n32k16_f16", "m8n32k16", "f16", "f32", "f32", "row", "col", "row", "row", "uniform", 0, False),
        ("wmma_m16n16k8_tf32", "m16n16k8", "tf32", "f32", "f32", "row", "col", "row", "row", "uniform", 0, False),
        ("wmma_m8n8k4_f64", "m8n8k4", "f64", "f64", "f64", "row", "row", "row", "row", "uniform", 0, False),
        ("wmma_m16n16k16_s8", "m16n16k16", "s8", "s32", "s32", "row", "col", "row", "row", "rand", 0, False),
        ("wmma_m16n16k16_u8", "m16n16k16", "u8", "s32", "s32", "row", "col", "row", "row", "rand", 0, False),
    ]
    for name, shape, at, ct, dt, al, bl, cl, dl, kind, pad, shared in specs:
        s += 10
        out.append(_wmma_case(name, shape, at, ct, dt, al, bl, cl, dl, kind, s, pad=pad, shared=shared))
    out.append(_wmma_case("wmma_m16n16k16_s8_satfinite", "m16n16k16", "s8", "s32", "s32", "row", "col", "row",
                          "row", "rand", 900, sat=True))
    return out


def cases() -> list[Case]:
    lds = [_ldst_matrix_case("ldmatrix", n, tr) for n in (1, 2, 4) for tr in (False, True)]
    lds.append(_ldst_matrix_case("ldmatrix", 4, False, generic=True))
    sts = [_ldst_matrix_case("stmatrix", n, tr) for n in (1, 4) for tr in (False, True)]
    return _mma_cases() + lds + sts + [_movmatrix_case()] + _wmma_cases()
