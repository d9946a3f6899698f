"""Warp-level ops (full mask only, so results are fixed): shfl.sync, vote.sync, match.sync, redux.sync,
activemask; and block barriers: bar.sync exchange, bar.red.popc/and/or."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Buf, Case
from ..ptxgen import elementwise, kernel_text

FAM = "warp"
N = 128  # four warps in one block


def _warp_case(name: str, body: str, ins: list[tuple[str, str, np.ndarray]], outs: list[tuple[str, str]],
               target: str = "sm_80", note: str = "") -> Case:
    c = elementwise(name, FAM, body, ins, outs, target=target, note=note)
    assert c.block == (N, 1, 1) and c.grid == (1, 1, 1), "warp cases run as one block of 128 threads"
    return c


def _pred_patterns() -> np.ndarray:
    """Per-lane 0/1 predicates: warp 0 all set, warp 1 none, warp 2 mixed, warp 3 one lane."""
    p = np.zeros(N, dtype=np.uint32)
    p[0:32] = 1
    p[64:96] = (V.rng(3).random(32) < 0.5).astype(np.uint32)
    p[96 + 17] = 1
    return p


def _shfl_cases() -> list[Case]:
    out = []
    vals = V.random_bits("u32", N, salt=40)
    lane_sel = V.rng(41).integers(0, 40, N).astype(np.uint32)  # some beyond 31: wraps by the segment mask
    for width in (32, 16, 8):
        seg = (32 - width) << 8
        for mode, cval, bvals in (("idx", seg | 0x1F, lane_sel), ("up", seg | 0, np.full(N, 3, np.uint32)),
                                  ("down", seg | 0x1F, np.full(N, 5, np.uint32)),
                                  ("bfly", seg | 0x1F, np.resize(np.array([1, 2, 4, 7, 16], np.uint32), N))):
            body = (f"    shfl.sync.{mode}.b32 %d|%q0, %a, %b, {cval}, 0xffffffff;\n"
                    "    selp.u32 %e, 1, 0, %q0;")
            out.append(_warp_case(f"shfl_sync_{mode}_w{width}", body, [("a", "b32", vals), ("b", "u32", bvals)],
                                  [("d", "b32"), ("e", "u32")],
                                  note=f"c = 0x{cval:x} (segment width {width}); e = the valid predicate"))
    # A clamp value below the segment end: lanes past it read their own value and report invalid.
    body = "    shfl.sync.down.b32 %d|%q0, %a, 2, 0x0c, 0xffffffff;\n    selp.u32 %e, 1, 0, %q0;"
    out.append(_warp_case("shfl_sync_down_clamp12", body, [("a", "b32", vals)], [("d", "b32"), ("e", "u32")]))
    body = "    shfl.sync.up.b32 %d|%q0, %a, 33, 0, 0xffffffff;\n    selp.u32 %e, 1, 0, %q0;"
    out.append(_warp_case("shfl_sync_up_delta33", body, [("a", "b32", vals)], [("d", "b32"), ("e", "u32")]))
    body = "    shfl.sync.idx.b32 %d, %a, %b, 0x1f, 0xffffffff;\n    mov.u32 %e, 0;"
    out.append(_warp_case("shfl_sync_idx_no_pred", body, [("a", "b32", vals), ("b", "u32", lane_sel)],
                          [("d", "b32"), ("e", "u32")]))
    return out


def _vote_match_redux() -> list[Case]:
    out = []
    p = _pred_patterns()
    pre = "    setp.ne.u32 %q0, %a, 0;\n"
    for mode in ("all", "any", "uni"):
        body = pre + f"    vote.sync.{mode}.pred %q1, %q0, 0xffffffff;\n    selp.u32 %d, 1, 0, %q1;"
        out.append(_warp_case(f"vote_sync_{mode}", body, [("a", "u32", p)], [("d", "u32")]))
    body = pre + "    vote.sync.ballot.b32 %d, %q0, 0xffffffff;"
    out.append(_warp_case("vote_sync_ballot", body, [("a", "u32", p)], [("d", "u32")]))
    body = pre + "    vote.sync.any.pred %q1, !%q0, 0xffffffff;\n    selp.u32 %d, 1, 0, %q1;"
    out.append(_warp_case("vote_sync_any_negated", body, [("a", "u32", p)], [("d", "u32")]))
    mv = np.zeros(N, dtype=np.uint32)  # warp0 all equal, warp1 three classes, warp2 all distinct, warp3 pairs
    mv[32:64] = np.arange(32) % 3
    mv[64:96] = np.arange(32) * 7 + 1
    mv[96:128] = np.arange(32) // 2
    out.append(_warp_case("match_any_sync_b32", "    match.any.sync.b32 %d, %a, 0xffffffff;", [("a", "b32", mv)],
                          [("d", "b32")], target="sm_80"))
    body = "    match.all.sync.b32 %d|%q0, %a, 0xffffffff;\n    selp.u32 %e, 1, 0, %q0;"
    out.append(_warp_case("match_all_sync_b32", body, [("a", "b32", mv)], [("d", "b32"), ("e", "u32")]))
    mv64 = mv.astype(np.uint64) | (np.uint64(1) << np.uint64(40))
    mv64[40] ^= np.uint64(1) << np.uint64(63)  # differs only in the high word
    out.append(_warp_case("match_any_sync_b64", "    match.any.sync.b64 %d, %a, 0xffffffff;", [("a", "b64", mv64)],
                          [("d", "b32")]))
    rv = np.concatenate([V.edges("u32"), V.random_bits("u32", N - 21, salt=42)])
    for op, ty in (("add", "u32"), ("add", "s32"), ("min", "u32"), ("min", "s32"), ("max", "u32"), ("max", "s32"),
                   ("and", "b32"), ("or", "b32"), ("xor", "b32")):
        out.append(_warp_case(f"redux_sync_{op}_{ty}", f"    redux.sync.{op}.{ty} %d, %a, 0xffffffff;",
                              [("a", ty, rv)], [("d", ty)]))
    out.append(_warp_case("activemask_converged", "    activemask.b32 %d;\n    add.u32 %d, %d, %a;",
                          [("a", "u32", np.zeros(N, np.uint32))], [("d", "u32")]))
    return out


def _barriers() -> list[Case]:
    out = []
    n = 256
    vals = V.random_bits("u32", n, salt=43)
    src = Buf("src", "uint32", n, init=vals)
    dst = Buf("dst", "uint32", 4 * n, output=True)
    body = ("    mov.u32 %t0, %tid.x;\n    cvt.u64.u32 %gl, %t0;\n"
            "    ld.param.u64 %ga, [p_src];\n    cvta.to.global.u64 %ga, %ga;\n    mad.lo.u64 %ga, %gl, 4, %ga;\n"
            "    ld.global.u32 %t1, [%ga];\n    mov.u64 %w0, sm;\n    mad.lo.u64 %w1, %gl, 4, %w0;\n"
            "    st.shared.u32 [%w1], %t1;\n    bar.sync 0;\n"
            "    mov.u32 %t2, 255;\n    sub.u32 %t2, %t2, %t0;\n    mul.wide.u32 %w2, %t2, 4;\n    add.u64 %w3, %w0, %w2;\n"
            "    ld.shared.u32 %t3, [%w3];\n    barrier.sync.aligned 1;\n    st.shared.u32 [%w1], %t3;\n    bar.sync 0;\n"
            "    xor.b32 %t4, %t0, 37;\n    mul.wide.u32 %w4, %t4, 4;\n    add.u64 %w5, %w0, %w4;\n"
            "    ld.shared.u32 %t5, [%w5];\n"
            "    and.b32 %t6, %t1, 1;\n    setp.ne.u32 %q0, %t6, 0;\n"
            "    bar.red.popc.u32 %t7, 2, %q0;\n"
            "    bar.red.and.pred %q1, 3, %q0;\n    setp.lt.u32 %q4, %t0, 256;\n    bar.red.or.pred %q2, 4, %q4;\n"
            "    selp.u32 %t8, 1, 0, %q1;\n    selp.u32 %t9, 2, 0, %q2;\n    or.b32 %t8, %t8, %t9;\n"
            "    ld.param.u64 %gb, [p_dst];\n    cvta.to.global.u64 %gb, %gb;\n    mad.lo.u64 %gb, %gl, 16, %gb;\n"
            "    st.global.v4.u32 [%gb], {%t3, %t5, %t7, %t8};\n    ret;")
    ptx = kernel_text([src, dst], body, module_decls=".shared .align 4 .b32 sm[256];\n")
    out.append(Case("bar_sync_shared_exchange", FAM, ptx, "k", (1, 1, 1), (n, 1, 1), (src, dst),
                    note="per thread: reversed value, value of tid^37 after a second exchange, "
                         "bar.red.popc of (src&1), bar.red.and | bar.red.or<<1"))
    return out


def cases() -> list[Case]:
    return _shfl_cases() + _vote_match_redux() + _barriers()
