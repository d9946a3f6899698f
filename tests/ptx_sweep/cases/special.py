"""Special registers: %tid/%ntid/%ctaid/%nctaid (3-D), %laneid, %lanemask_*, WARP_SZ, %warpid/%nwarpid."""

from __future__ import annotations

from ..case import Buf, Case, Scalar
from ..ptxgen import kernel_text

FAM = "special"
SREGS = ("%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
         "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%lanemask_eq", "%lanemask_lt", "%lanemask_le",
         "%lanemask_gt", "%lanemask_ge")

# Linear thread id over the whole grid, x fastest: ((cz*ncy + cy)*ncx + cx)*(nx*ny*nz) + (tz*ny + ty)*nx + tx.
_LINEAR = """\
    mov.u32 %t0, %ctaid.z;
    mov.u32 %t1, %nctaid.y;
    mov.u32 %t2, %ctaid.y;
    mad.lo.u32 %t0, %t0, %t1, %t2;
    mov.u32 %t1, %nctaid.x;
    mov.u32 %t2, %ctaid.x;
    mad.lo.u32 %t0, %t0, %t1, %t2;
    mov.u32 %t3, %ntid.x;
    mov.u32 %t4, %ntid.y;
    mov.u32 %t5, %ntid.z;
    mul.lo.u32 %t6, %t3, %t4;
    mul.lo.u32 %t6, %t6, %t5;
    mov.u32 %t7, %tid.z;
    mov.u32 %t8, %tid.y;
    mad.lo.u32 %t7, %t7, %t4, %t8;
    mov.u32 %t8, %tid.x;
    mad.lo.u32 %t7, %t7, %t3, %t8;
    mad.lo.u32 %gi, %t0, %t6, %t7;
"""


def _sreg_case(name: str, grid: tuple[int, int, int], block: tuple[int, int, int]) -> Case:
    n = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]
    k = len(SREGS) + 1
    out = Buf("out", "uint32", n * k, output=True)
    body = [_LINEAR, f"    mul.wide.u32 %gl, %gi, {4 * k};\n",
            "    ld.param.u64 %ga, [p_out];\n    cvta.to.global.u64 %ga, %ga;\n    add.u64 %ga, %ga, %gl;\n"]
    for i, reg in enumerate(SREGS):
        body.append(f"    mov.u32 %t9, {reg};\n    st.global.u32 [%ga+{4 * i}], %t9;\n")
    body.append(f"    mov.u32 %t9, WARP_SZ;\n    st.global.u32 [%ga+{4 * len(SREGS)}], %t9;\n    ret;")
    ptx = kernel_text([out], "".join(body))
    return Case(name, FAM, ptx, "k", grid, block, (out,),
                note="out[thread*19 + i] = i-th of " + ", ".join(SREGS) + ", WARP_SZ")


def _warpid_case() -> Case:
    """%warpid may change during execution and %nwarpid is implementation-defined: only the invariant
    warpid < nwarpid is checked, plus %laneid consistency with tid (1-D block)."""
    n = 3 * 160
    out = Buf("out", "uint32", n * 2, output=True)
    body = ("    mov.u32 %gi, %ctaid.x;\n    mov.u32 %gn, %ntid.x;\n    mov.u32 %t0, %tid.x;\n"
            "    mad.lo.u32 %gi, %gi, %gn, %t0;\n    mul.wide.u32 %gl, %gi, 8;\n"
            "    ld.param.u64 %ga, [p_out];\n    cvta.to.global.u64 %ga, %ga;\n    add.u64 %ga, %ga, %gl;\n"
            "    mov.u32 %t1, %warpid;\n    mov.u32 %t2, %nwarpid;\n    setp.lt.u32 %q0, %t1, %t2;\n"
            "    selp.u32 %t3, 1, 0, %q0;\n    st.global.u32 [%ga], %t3;\n"
            "    mov.u32 %t4, %laneid;\n    and.b32 %t5, %t0, 31;\n    setp.eq.u32 %q1, %t4, %t5;\n"
            "    selp.u32 %t6, 1, 0, %q1;\n    st.global.u32 [%ga+4], %t6;\n    ret;")
    ptx = kernel_text([out], body)
    return Case("sreg_warpid_invariants", FAM, ptx, "k", (3, 1, 1), (160, 1, 1), (out,),
                note="out[2i] = (%warpid < %nwarpid), out[2i+1] = (%laneid == tid.x % 32)")


def _grid_scalar_case() -> Case:
    """Scalar params of every width read with ld.param and written back."""
    params = (Buf("out", "uint64", 8, output=True), Scalar("a", "u32", 0xDEADBEEF), Scalar("b", "s32", -7),
              Scalar("c", "u64", 0x0123456789ABCDEF), Scalar("d", "f32", -1.5), Scalar("e", "f64", 2.0 ** -1074),
              Scalar("f", "s64", -(1 << 63)), Scalar("g", "u16", 0xFFFE))
    body = ("    ld.param.u64 %ga, [p_out];\n    cvta.to.global.u64 %ga, %ga;\n"
            "    ld.param.u32 %t0, [p_a];\n    cvt.u64.u32 %w0, %t0;\n    st.global.u64 [%ga], %w0;\n"
            "    ld.param.s32 %t1, [p_b];\n    cvt.s64.s32 %w1, %t1;\n    st.global.u64 [%ga+8], %w1;\n"
            "    ld.param.u64 %w2, [p_c];\n    st.global.u64 [%ga+16], %w2;\n"
            "    ld.param.f32 %t2, [p_d];\n    cvt.u64.u32 %w3, %t2;\n    st.global.u64 [%ga+24], %w3;\n"
            "    ld.param.f64 %w4, [p_e];\n    st.global.u64 [%ga+32], %w4;\n"
            "    ld.param.s64 %w5, [p_f];\n    st.global.u64 [%ga+40], %w5;\n"
            "    ld.param.u16 %h0, [p_g];\n    cvt.s64.s16 %w6, %h0;\n    st.global.u64 [%ga+48], %w6;\n"
            "    mov.u32 %t3, %nctaid.x;\n    cvt.u64.u32 %w7, %t3;\n    st.global.u64 [%ga+56], %w7;\n    ret;")
    ptx = kernel_text(list(params), body)
    return Case("param_scalars", FAM, ptx, "k", (1, 1, 1), (1, 1, 1), params,
                note="u32, s32 (sign-extended), u64, f32 bits, f64 denormal, s64 min, u16 (sign-extended), nctaid")


def cases() -> list[Case]:
    return [
        _sreg_case("sreg_3d_small", (2, 3, 2), (4, 3, 2)),
        _sreg_case("sreg_3d_partial_warps", (3, 1, 2), (5, 7, 3)),
        _sreg_case("sreg_1d_full_block", (2, 1, 1), (1024, 1, 1)),
        _sreg_case("sreg_2d_grid", (4, 5, 1), (33, 2, 1)),
        _warpid_case(),
        _grid_scalar_case(),
    ]
