"""Random straight-line programs (tests/ptx_sweep/randprog.py), ten per kernel, 32 lanes each.

Program p of a case reads in32[(2p, 2p+1) * 32 + lane] and in64[p * 32 + lane] and writes
out32[(2p, 2p+1) * 32 + lane], out64[p * 32 + lane], out16[p * 32 + lane]; every output is
compared bit for bit (a NaN may match another NaN: see RULE). The seed of program p of case k is SEED + 10 k + p.
"""

from __future__ import annotations

import numpy as np

from ..case import Buf, Case
from ..ptxgen import kernel_text
from ..randprog import LANES, PROGRAMS_PER_CASE, generate, inputs

FAM = "randprog"
# Bit-exact, except that a NaN may stand for another NaN: which NaN operand an instruction returns
# when several are NaN depends on how ptxas orders the operands (the same PTX gave a on one program
# and b in the sweep), so the PTX does not fix it.
RULE = "exact|nan"
SEED = 1_000_000
N_CASES = 60
LENGTH = 8
DECLS = ("    .reg .b32 %r<48>, %rjunk;\n    .reg .b64 %rd<48>;\n    .reg .b16 %rh<48>, %hjunk;\n"
         "    .reg .pred %p<48>;\n    .reg .b64 %ia, %ib, %oa, %ob, %oc, %ot, %tr, %sl;")


def _opaque(reg: str, kind: str) -> str:
    """Pass a result through a volatile shared-memory slot: ptxas must use the value as loaded, so
    each instruction is evaluated on concrete values. Without this, ptxas rewrote chains across
    instructions in ways the PTX semantics do not allow (measured on an H100: (a - b) - a under
    sub.sat.s32 became -b; a 64-bit shift by a register an f32 instruction defined shifted by its
    float value; cvt.rz.f32.s32 then cvt.rm.f16.f32 returned an integer)."""
    if kind == "pred":
        return (f"    selp.b32 %rjunk, 1, 0, {reg};\n    st.volatile.shared.b32 [%sl], %rjunk;\n"
                f"    ld.volatile.shared.b32 %rjunk, [%sl];\n    setp.ne.b32 {reg}, %rjunk, 0;\n")
    w = {"r16": 16, "r32": 32, "r64": 64}[kind]
    return f"    st.volatile.shared.b{w} [%sl], {reg};\n    ld.volatile.shared.b{w} {reg}, [%sl];\n"


def program_case(k: int, trace: bool = False) -> Case:
    """Case k; with trace, every instruction's result is also stored (buffer 'trace', u64 per
    program x step x lane) so a mismatch can be located (scripts/randprog_trace.py)."""
    progs = [generate(SEED + PROGRAMS_PER_CASE * k + p, LENGTH) for p in range(PROGRAMS_PER_CASE)]
    ins = [inputs(SEED + PROGRAMS_PER_CASE * k + p) for p in range(PROGRAMS_PER_CASE)]
    n = PROGRAMS_PER_CASE * LANES
    params = (Buf("in32", "uint32", 2 * n, init=np.concatenate([i[0] for i in ins])),
              Buf("in64", "uint64", n, init=np.concatenate([i[1] for i in ins])),
              Buf("out32", "uint32", 2 * n, output=True, rule=RULE, fmt="f32"),
              Buf("out64", "uint64", n, output=True, rule=RULE, fmt="f64"),
              Buf("out16", "uint16", n, output=True, rule=RULE, fmt="f16"))
    if trace:
        params += (Buf("trace", "uint64", n * LENGTH, output=True),)
    code = ["    mov.u32 %gi, %tid.x;\n    cvt.u64.u32 %gl, %gi;\n"]
    for name in ("in32", "in64", "out32", "out64", "out16", "trace")[: len(params)]:
        reg = {"in32": "%ia", "in64": "%ib", "out32": "%oa", "out64": "%ob", "out16": "%oc", "trace": "%ot"}[name]
        code.append(f"    ld.param.u64 {reg}, [p_{name}];\n    cvta.to.global.u64 {reg}, {reg};\n")
    code.append("    mad.lo.u64 %ia, %gl, 4, %ia;\n    mad.lo.u64 %oa, %gl, 4, %oa;\n"
                "    mad.lo.u64 %ib, %gl, 8, %ib;\n    mad.lo.u64 %ob, %gl, 8, %ob;\n    mad.lo.u64 %oc, %gl, 2, %oc;\n")
    if trace:
        code.append("    mad.lo.u64 %ot, %gl, 8, %ot;\n")
    code.append("    mov.u64 %sl, opaque;\n    mad.lo.u64 %sl, %gl, 8, %sl;\n")
    for p, prog in enumerate(progs):
        o32, o64, o16 = 8 * LANES * p, 8 * LANES * p, 2 * LANES * p
        code.append(f"    // program {p} (seed {SEED + PROGRAMS_PER_CASE * k + p})\n"
                    f"    ld.global.b32 %r0, [%ia+{o32}];\n    ld.global.b32 %r1, [%ia+{o32 + 4 * LANES}];\n"
                    f"    ld.global.b64 %rd0, [%ib+{o64}];\n")
        code.append(f"    {prog.body.splitlines()[0]}\n")
        for s, (dst, kind, text) in enumerate(prog.steps):
            code.append("".join(f"    {line}\n" for line in text.splitlines()))
            code.append(_opaque(dst, kind))
            if trace:
                off = 8 * LANES * (LENGTH * p + s)
                if kind == "pred":
                    code.append(f"    selp.b64 %tr, 1, 0, {dst};\n")
                else:
                    code.append(f"    cvt.u64.u{kind[1:]} %tr, {dst};\n" if kind != "r64" else f"    mov.b64 %tr, {dst};\n")
                code.append(f"    st.global.b64 [%ot+{off}], %tr;\n")
        code.append(f"    st.global.b32 [%oa+{o32}], {prog.out32[0]};\n"
                    f"    st.global.b32 [%oa+{o32 + 4 * LANES}], {prog.out32[1]};\n"
                    f"    st.global.b64 [%ob+{o64}], {prog.out64};\n    st.global.b16 [%oc+{o16}], {prog.out16};\n")
    code.append("    ret;")
    target = "sm_90" if any(p.target == "sm_90" for p in progs) else "sm_80"
    ptx = kernel_text(params, "".join(code), target=target, decls=DECLS,
                      module_decls=f".shared .align 8 .b8 opaque[{8 * LANES}];\n")
    return Case(f"randprog_{k:03d}" + ("_trace" if trace else ""), FAM, ptx, "k", (1, 1, 1), (LANES, 1, 1), params,
                note=f"programs seeded {SEED + PROGRAMS_PER_CASE * k}..{SEED + PROGRAMS_PER_CASE * k + 9}")


def cases() -> list[Case]:
    return [program_case(k) for k in range(N_CASES)]
