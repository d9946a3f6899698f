"""Warpgroup matrix multiply (sm_90a): wgmma.mma_async with shared-memory matrix descriptors
(K-major and MN-major, no swizzle and 32/64/128-byte swizzle, start addresses inside a swizzle
atom as Triton advances them), A from registers, f16/bf16/tf32 -> f32/f16 and s8/u8 -> s32,
scale-d false, negated A, and two chained instructions; wgmma.fence / commit_group / wait_group.

One warpgroup (128 threads) copies the operand bytes into shared memory (every byte the
descriptors can reach is initialised), builds the descriptors, runs the instruction(s) and stores
its accumulator registers: register r of thread t at out[t * regs + r], so the golden records the
hardware's fragment layout, descriptor addressing and tensor-core accumulation at once.
"""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Buf, Case
from .matrix import _bf16_bits, _f16_bits, _f32_bits

FAM = "wgmma"
HEAD = ".version 8.4\n.target sm_90a\n.address_size 64\n"
SWZ = {"none": 0, "128": 1, "64": 2, "32": 3}
EBYTES = {"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "u8": 1, "e4m3": 1, "e5m2": 1}
KDIM = {"f16": 16, "bf16": 16, "tf32": 8, "s8": 32, "u8": 32, "e4m3": 32, "e5m2": 32}
SPECS: dict[str, dict] = {}  # case name -> the parameters it was built from (for reference models)


def _values(etype: str, kind: str, n: int, salt: int) -> np.ndarray:
    """n elements as raw little-endian bytes."""
    r = V.rng(salt)
    if etype in ("s8", "u8"):
        return r.integers(0, 256, n).astype(np.uint8)
    if etype in ("e4m3", "e5m2"):  # every finite byte (and, for 'specials', NaN/inf bytes too)
        b = r.integers(0, 256, n).astype(np.uint8)
        if kind != "specials":
            bad = (b & 0x7F) == 0x7F if etype == "e4m3" else (b & 0x7C) == 0x7C
            b = np.where(bad, b & 0xF3, b).astype(np.uint8)
        return b
    if kind == "specials":  # uniform values with a few NaN, inf, huge and subnormal ones
        x = r.uniform(-1, 1, n).astype(np.float32)
        pick = V.rng(salt + 7).random(n)
        sub = {"f16": 2.0**-20, "bf16": 2.0**-130, "tf32": 2.0**-130}[etype]
        big = {"f16": 60000.0, "bf16": 3.0e38, "tf32": 3.0e38}[etype]
        x = np.where(pick < 0.004, np.float32("inf"), x)
        x = np.where((pick >= 0.004) & (pick < 0.008), np.float32("-inf"), x)
        x = np.where((pick >= 0.008) & (pick < 0.01), np.float32("nan"), x)
        x = np.where((pick >= 0.01) & (pick < 0.06), np.float32(sub), x)
        x = np.where((pick >= 0.06) & (pick < 0.08), np.float32(big), x).astype(np.float32)
    elif kind == "wide":
        x = (r.choice([-1.0, 1.0], n) * np.exp2(r.integers(-12, 5, n)) * r.uniform(1, 2, n)).astype(np.float32)
    elif kind == "ints":
        x = r.integers(-4, 5, n).astype(np.float32)
    else:
        x = r.uniform(-1, 1, n).astype(np.float32)
    if etype == "f16":
        return _f16_bits(x).astype(np.uint16).view(np.uint8)
    if etype == "bf16":
        return _bf16_bits(x).astype(np.uint16).view(np.uint8)
    bits = _f32_bits(x) ^ r.integers(0, 1 << 13, n).astype(np.uint32)  # tf32: low bits are ignored
    return bits.view(np.uint8)


def _desc_const(lbo: int, sbo: int, swz: str) -> int:
    return ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 | SWZ[swz] << 62


def _case(name: str, n: int, dtype: str, atype: str, btype: str, *, a_swz: str = "none", b_swz: str = "none",
          a_lbo: int = 128, a_sbo: int = 256, b_lbo: int = 128, b_sbo: int = 256, a_regs: bool = False,
          trans_a: int = 0, trans_b: int = 0, scale_d: bool = True, neg_a: bool = False, kind: str = "uniform",
          chain: int = 1, a_step: int = 0, b_step: int = 0, salt: int = 0, a_bytes: int = 8192,
          b_bytes: int = 8192, a_off: int = 0, satfinite: bool = False, c_kind: str = "") -> Case:
    SPECS[f"wgmma_{name}"] = dict(n=n, dtype=dtype, atype=atype, btype=btype, a_swz=a_swz, b_swz=b_swz, a_lbo=a_lbo,
                                  a_sbo=a_sbo, b_lbo=b_lbo, b_sbo=b_sbo, a_regs=a_regs, trans_a=trans_a,
                                  trans_b=trans_b, scale_d=scale_d, neg_a=neg_a, chain=chain, a_step=a_step,
                                  b_step=b_step, a_bytes=a_bytes, a_off=a_off, satfinite=satfinite)
    k = KDIM[atype]
    shape = f"m64n{n}k{k}"
    acc_regs = n // 4 if dtype == "f16" else n // 2
    a_in_regs = 4  # 64 x k of A over 128 threads: 4 registers whichever type
    b_base = a_bytes
    smem = a_bytes + b_bytes
    a_vals = _values(atype, kind, a_bytes // EBYTES[atype], salt + 1)
    b_vals = _values(btype, kind, b_bytes // EBYTES[btype], salt + 2)
    operand = np.concatenate([a_vals, b_vals]).view(np.uint32)
    if dtype == "f32":
        c = _f32_bits(V.rng(salt + 3).uniform(-2, 2, 128 * acc_regs).astype(np.float32))
    elif dtype == "f16":
        c = _f16_bits(V.rng(salt + 3).uniform(-2, 2, 2 * 128 * acc_regs)).astype(np.uint16).view(np.uint32)
    elif c_kind == "sat":  # accumulators next to the s32 limits: .satfinite clamps the exact sum
        r3 = V.rng(salt + 3)
        c = (r3.choice([0x7FFFFF00, 0x80000100], 128 * acc_regs) + r3.integers(-0x8000, 0x8000, 128 * acc_regs)
             ).astype(np.uint32)
    else:
        c = V.rng(salt + 3).integers(-1000, 1000, 128 * acc_regs).astype(np.int32).view(np.uint32)
    areg_init = V.rng(salt + 4).integers(0, 2**32, 128 * a_in_regs, dtype=np.uint64).astype(np.uint32)
    if a_regs and atype in ("f16", "bf16"):
        areg_init = _values(atype, kind, 2 * 128 * a_in_regs, salt + 4).view(np.uint32)
    rt = "f32" if dtype == "f32" else "b32"
    body = [
        "    mov.u32 %r1, %tid.x;\n",
        # copy the operand words into shared memory
        "    ld.param.u64 %rd1, [opnd];\n    cvta.to.global.u64 %rd1, %rd1;\n    mov.u32 %r2, %r1;\n",
        "CP:\n    mul.wide.u32 %rd2, %r2, 4;\n    add.u64 %rd3, %rd1, %rd2;\n    ld.global.u32 %r3, [%rd3];\n",
        "    mov.u32 %r4, sm;\n    shl.b32 %r5, %r2, 2;\n    add.u32 %r4, %r4, %r5;\n    st.shared.u32 [%r4], %r3;\n",
        f"    add.u32 %r2, %r2, 128;\n    setp.lt.u32 %p1, %r2, {smem // 4};\n    @%p1 bra CP;\n",
        "    fence.proxy.async.shared::cta;\n    bar.sync 0;\n",
        # accumulator registers from c
        "    ld.param.u64 %rd4, [cin];\n    cvta.to.global.u64 %rd4, %rd4;\n",
        f"    mul.wide.u32 %rd5, %r1, {4 * acc_regs};\n    add.u64 %rd4, %rd4, %rd5;\n",
    ]
    body += [f"    ld.global.{'f32' if rt == 'f32' else 'b32'} %d{i}, [%rd4+{4 * i}];\n" for i in range(acc_regs)]
    if a_regs:
        body += ["    ld.param.u64 %rd6, [ain];\n    cvta.to.global.u64 %rd6, %rd6;\n",
                 f"    mul.wide.u32 %rd7, %r1, {4 * a_in_regs};\n    add.u64 %rd6, %rd6, %rd7;\n"]
        body += [f"    ld.global.b32 %a{i}, [%rd6+{4 * i}];\n" for i in range(a_in_regs)]
    body += ["    mov.u32 %r6, sm;\n    cvt.u64.u32 %rd8, %r6;\n"]
    for j in range(chain):
        for op, base, lbo, sbo, swz, step in (("a", a_off, a_lbo, a_sbo, a_swz, a_step),
                                              ("b", b_base, b_lbo, b_sbo, b_swz, b_step)):
            body.append(f"    add.u64 %rd9, %rd8, {base + j * step};\n    shr.u64 %rd9, %rd9, 4;\n"
                        f"    and.b64 %rd9, %rd9, 16383;\n    or.b64 %desc_{op}{j}, %rd9, {_desc_const(lbo, sbo, swz)};\n")
    body.append(f"    setp.ne.u32 %p2, {1 if scale_d else 0}, 0;\n")
    dlist = "{" + ", ".join(f"%d{i}" for i in range(acc_regs)) + "}"
    body.append("    wgmma.fence.sync.aligned;\n")
    for j in range(chain):
        a_op = "{" + ", ".join(f"%a{i}" for i in range(a_in_regs)) + "}" if a_regs else f"%desc_a{j}"
        if atype in ("s8", "u8", "e4m3", "e5m2"):
            imm = "" if atype in ("s8", "u8") else f", {-1 if neg_a else 1}, 1"
        elif atype == "tf32":
            imm = f", {-1 if neg_a else 1}, 1"
        elif a_regs:
            imm = f", {-1 if neg_a else 1}, 1, {trans_b}"
        else:
            imm = f", {-1 if neg_a else 1}, 1, {trans_a}, {trans_b}"
        pd = "%p2" if j == 0 else "1"
        sat = ".satfinite" if satfinite else ""
        body.append(f"    wgmma.mma_async.sync.aligned.{shape}{sat}.{dtype}.{atype}.{btype} {dlist}, {a_op}, %desc_b{j}, "
                    f"{pd}{imm};\n")
    body.append("    wgmma.commit_group.sync.aligned;\n    wgmma.wait_group.sync.aligned 0;\n")
    body.append("    ld.param.u64 %rd10, [out];\n    cvta.to.global.u64 %rd10, %rd10;\n"
                f"    mul.wide.u32 %rd11, %r1, {4 * acc_regs};\n    add.u64 %rd10, %rd10, %rd11;\n")
    body += [f"    st.global.{'f32' if rt == 'f32' else 'b32'} [%rd10+{4 * i}], %d{i};\n" for i in range(acc_regs)]
    descs = ", ".join(f"%desc_a{j}, %desc_b{j}" for j in range(chain))
    decls = (f"    .reg .pred %p<4>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<16>;\n    .reg .b64 {descs};\n"
             f"    .reg .{'f32' if rt == 'f32' else 'b32'} %d<{acc_regs}>;\n    .reg .b32 %a<{a_in_regs}>;\n")
    ptx = (f"{HEAD}\n.shared .align 1024 .b8 sm[{smem}];\n\n.visible .entry k(\n    .param .u64 out,\n"
           "    .param .u64 opnd,\n    .param .u64 cin,\n    .param .u64 ain\n)\n.reqntid 128, 1, 1\n{\n"
           f"{decls}{''.join(body)}    ret;\n}}\n")
    params = (Buf("out", "uint32", 128 * acc_regs, output=True), Buf("opnd", "uint32", len(operand), init=operand),
              Buf("cin", "uint32", len(c), init=c), Buf("ain", "uint32", len(areg_init), init=areg_init))
    return Case(f"wgmma_{name}", FAM, ptx, "k", (1, 1, 1), (128, 1, 1), params,
                note=f"{shape}.{dtype}.{atype}.{btype} A {'regs' if a_regs else a_swz} B {b_swz}")


def cases() -> list[Case]:
    sw = dict(a_lbo=16, b_lbo=16)
    return [
        _case("n8_f16_f32_noswz", 8, "f32", "f16", "f16", kind="ints", salt=10),
        _case("n8_f16_f32_wide", 8, "f32", "f16", "f16", kind="wide", salt=11),
        _case("n16_bf16_f32_sw128", 16, "f32", "bf16", "bf16", a_swz="128", b_swz="128", a_sbo=1024, b_sbo=1024,
              salt=12, **sw),
        _case("n32_f16_f16acc", 32, "f16", "f16", "f16", salt=13),
        _case("n64_f16_f32_sw64", 64, "f32", "f16", "f16", a_swz="64", b_swz="64", a_sbo=512, b_sbo=512,
              kind="wide", salt=14, **sw),
        _case("n128_f16_f32_sw32_nosc_neg", 128, "f32", "f16", "f16", a_swz="32", b_swz="32", a_sbo=256,
              b_sbo=256, scale_d=False, neg_a=True, salt=15, b_bytes=16384, **sw),
        _case("n256_f16_f32_sw128", 256, "f32", "f16", "f16", a_swz="128", b_swz="128", a_sbo=1024, b_sbo=1024,
              salt=16, b_bytes=32768, **sw),
        _case("n16_f16_aregs_sw128", 16, "f32", "f16", "f16", a_regs=True, b_swz="128", b_sbo=1024, b_lbo=16,
              salt=17),
        _case("n8_transb_noswz", 8, "f32", "f16", "f16", trans_b=1, kind="ints", salt=18),
        _case("n64_transab_sw128", 64, "f32", "bf16", "bf16", trans_a=1, trans_b=1, a_swz="128", b_swz="128",
              a_lbo=2048, a_sbo=1024, b_lbo=2048, b_sbo=1024, kind="ints", salt=19),
        _case("n16_tf32_noswz", 16, "f32", "tf32", "tf32", salt=20),
        _case("n32_tf32_sw128", 32, "f32", "tf32", "tf32", a_swz="128", b_swz="128", a_sbo=1024, b_sbo=1024,
              kind="wide", salt=21, **sw),
        _case("n16_s8_noswz", 16, "s32", "s8", "s8", salt=22),
        _case("n32_u8s8_sw128", 32, "s32", "u8", "s8", a_swz="128", b_swz="128", a_sbo=1024, b_sbo=1024,
              salt=23, **sw),
        _case("n64_chain_k32_sw128", 64, "f32", "f16", "f16", a_swz="128", b_swz="128", a_sbo=1024, b_sbo=1024,
              chain=2, a_step=32, b_step=32, kind="wide", salt=24, **sw),
        # second recording: special values, .satfinite, fp8 inputs
        _case("n16_f16_specials", 16, "f32", "f16", "f16", kind="specials", salt=30),
        _case("n16_bf16_specials_sw128", 16, "f32", "bf16", "bf16", a_swz="128", b_swz="128", a_sbo=1024,
              b_sbo=1024, kind="specials", salt=31, **sw),
        _case("n16_tf32_specials", 16, "f32", "tf32", "tf32", kind="specials", salt=32),
        _case("n16_f16acc_specials", 16, "f16", "f16", "f16", kind="specials", salt=33),
        _case("n16_s8_satfinite", 16, "s32", "s8", "s8", satfinite=True, c_kind="sat", salt=34),
        _case("n16_u8_wrap", 16, "s32", "u8", "u8", c_kind="sat", salt=35),
        _case("n16_e4m3_f32", 16, "f32", "e4m3", "e4m3", salt=36),
        _case("n16_e5m2_f32_sw128", 16, "f32", "e5m2", "e5m2", a_swz="128", b_swz="128", a_sbo=1024, b_sbo=1024,
              salt=37, **sw),
        _case("n16_e4m3e5m2_f16acc", 16, "f16", "e4m3", "e5m2", salt=38),
        _case("n16_e5m2_specials", 16, "f32", "e5m2", "e5m2", kind="specials", salt=39),
    ]
