"""mbarrier phases over several rounds (token and parity waits), tx-counts completed by several bulk
copies, pending counts, arrive_drop, expect_tx/complete_tx, cp.async.mbarrier.arrive(.noinc),
bulk stores and reductions with bulk-group completion, and producer/consumer named barriers.

Every wait loop gives up after 2^21 tries (a bug must not hang the GPU that records goldens): the
flag outputs say whether each wait completed.
"""

from __future__ import annotations

import numpy as np

from ..case import Buf, Case

FAM = "async_mbarrier"
HEAD = ".version 8.3\n.target sm_90\n.address_size 64\n"
DECLS = """    .reg .pred %p<10>;
    .reg .b32 %r<48>;
    .reg .b64 %rd<48>;
"""
_label = [0]


def _wait(bar: str, phase: str, parity: bool, flag: str) -> str:
    """A bounded try_wait loop on `bar` (a symbol, or [reg]) for `phase` (parity register or token);
    sets `flag` (b32) to 1 when the phase completed."""
    _label[0] += 1
    n = _label[0]
    form = "try_wait.parity" if parity else "try_wait"
    return f"""    mov.u32 %r40, 0;
W{n}:
    mbarrier.{form}.shared::cta.b64 %p9, [{bar}], {phase};
    @%p9 bra D{n};
    add.u32 %r40, %r40, 1;
    setp.lt.u32 %p8, %r40, 2097152;
    @%p8 bra W{n};
D{n}:
    selp.u32 {flag}, 1, 0, %p9;
"""


def _kernel(params: list[str], body: str, shared: str) -> str:
    plist = ", ".join(f".param .u64 {p}" for p in params)
    loads = "".join(f"    ld.param.u64 %rd{30 + i}, [{p}];\n    cvta.to.global.u64 %rd{30 + i}, %rd{30 + i};\n"
                    for i, p in enumerate(params))
    return f"{HEAD}\n.visible .entry k({plist})\n{{\n{DECLS}{shared}    mov.u32 %r0, %tid.x;\n{loads}{body}    ret;\n}}\n"


def _rounds() -> Case:
    """128 threads x 2 CTAs, 6 rounds on one barrier of count 128; even rounds wait on the arrive's
    token, odd rounds on the parity; each thread reads a neighbour's value of the round."""
    rounds = 6
    body = f"""    mov.u32 %r1, %ctaid.x;
    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 128;
    bar.sync 0;
    mov.u32 %r2, 0;
ROUND:
    and.b32 %r3, %r2, 1;
    shl.b32 %r4, %r1, 20;
    shl.b32 %r5, %r2, 12;
    or.b32 %r4, %r4, %r5;
    or.b32 %r4, %r4, %r0;
    mad.lo.u32 %r6, %r3, 128, %r0;
    mov.u32 %r7, sbuf;
    mad.lo.u32 %r8, %r6, 4, %r7;
    st.shared.u32 [%r8], %r4;
    mbarrier.arrive.shared::cta.b64 %rd1, [bar];
    setp.eq.u32 %p1, %r3, 0;
    @!%p1 bra ODD;
{_wait("bar", "%rd1", False, "%r10")}    bra WAITED;
ODD:
{_wait("bar", "%r3", True, "%r10")}WAITED:
    add.u32 %r11, %r0, 1;
    add.u32 %r11, %r11, %r2;
    and.b32 %r11, %r11, 127;
    mad.lo.u32 %r12, %r3, 128, %r11;
    mad.lo.u32 %r12, %r12, 4, %r7;
    ld.shared.u32 %r13, [%r12];
    mad.lo.u32 %r14, %r1, {rounds}, %r2;
    mad.lo.u32 %r14, %r14, 128, %r0;
    mul.wide.u32 %rd2, %r14, 4;
    add.u64 %rd3, %rd30, %rd2;
    st.global.u32 [%rd3], %r13;
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], %r3;
    xor.b32 %r15, %r3, 1;
    mbarrier.test_wait.parity.shared::cta.b64 %p3, [bar], %r15;
    mbarrier.test_wait.shared::cta.b64 %p4, [bar], %rd1;
    selp.u32 %r16, 2, 0, %p2;
    selp.u32 %r17, 4, 0, %p3;
    selp.u32 %r18, 8, 0, %p4;
    or.b32 %r16, %r16, %r17;
    or.b32 %r16, %r16, %r18;
    or.b32 %r16, %r16, %r10;
    add.u64 %rd4, %rd31, %rd2;
    st.global.u32 [%rd4], %r16;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p5, %r2, {rounds};
    @%p5 bra ROUND;
"""
    shared = "    .shared .align 8 .b64 bar;\n    .shared .align 16 .b8 sbuf[1024];\n"
    n = 2 * rounds * 128
    return Case("mbar_rounds_token_parity", FAM, _kernel(["p_out", "p_flags"], body, shared), "k", (2, 1, 1),
                (128, 1, 1), (Buf("out", "uint32", n, output=True), Buf("flags", "uint32", n, output=True)),
                note="flags: bit0 wait done, bit1 test_wait.parity(phase) after it, bit2 test_wait.parity(next "
                     "phase), bit3 test_wait(token)")


def _tx_rounds() -> Case:
    """64 threads; 4 rounds; each round 3 bulk copies of 256 bytes complete one tx-count: round 0
    arrive.expect_tx before the copies, round 1 after them, round 2 expect_tx + plain arrive, round 3
    a barrier of count 64 where thread 0 also expects the bytes."""
    src = (np.arange(4 * 768 // 4, dtype=np.uint32) * 2654435761) & 0xFFFFFFFF
    copies = "".join(
        f"    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sbuf+{k * 256}], [%rd{10 + k}], "
        "256, [%rd9];\n" for k in range(3))
    body = f"""    setp.eq.u32 %p0, %r0, 0;
    mov.u64 %rd9, bar;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p0 mbarrier.init.shared::cta.b64 [bar64], 64;
    bar.sync 0;
    mov.u32 %r2, 0;
ROUND:
    and.b32 %r3, %r2, 1;
    mul.lo.u32 %r4, %r2, 768;
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd10, %rd31, %rd5;
    add.u64 %rd11, %rd10, 256;
    add.u64 %rd12, %rd10, 512;
    setp.eq.u32 %p1, %r2, 3;
    @%p1 bra R3;
    @!%p0 bra WAIT;
    setp.eq.u32 %p2, %r2, 0;
    @!%p2 bra R1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 768;
{copies}    bra WAIT;
R1:
    setp.eq.u32 %p2, %r2, 1;
    @!%p2 bra R2;
{copies}    mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd1, [bar], 768;
    bra WAIT;
R2:
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 768;
{copies}    mbarrier.arrive.shared::cta.b64 %rd1, [bar];
WAIT:
{_wait("bar", "%r3", True, "%r10")}    bra DONE;
R3:
    mov.u64 %rd9, bar64;
    @!%p0 bra ARR;
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar64], 768;
{copies}ARR:
    mbarrier.arrive.shared::cta.b64 %rd1, [bar64];
{_wait("bar64", "%rd1", False, "%r10")}DONE:
    mul.lo.u32 %r5, %r0, 12;
    mov.u32 %r6, sbuf;
    add.u32 %r6, %r6, %r5;
    mad.lo.u32 %r7, %r2, 192, 0;
    mad.lo.u32 %r7, %r0, 3, %r7;
    mul.wide.u32 %rd6, %r7, 4;
    add.u64 %rd7, %rd30, %rd6;
    ld.shared.u32 %r8, [%r6];
    st.global.u32 [%rd7], %r8;
    ld.shared.u32 %r8, [%r6+4];
    st.global.u32 [%rd7+4], %r8;
    ld.shared.u32 %r8, [%r6+8];
    st.global.u32 [%rd7+8], %r8;
    mad.lo.u32 %r9, %r2, 64, %r0;
    mul.wide.u32 %rd8, %r9, 4;
    add.u64 %rd8, %rd32, %rd8;
    st.global.u32 [%rd8], %r10;
    bar.sync 0;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p5, %r2, 4;
    @%p5 bra ROUND;
"""
    shared = "    .shared .align 8 .b64 bar;\n    .shared .align 8 .b64 bar64;\n    .shared .align 128 .b8 sbuf[768];\n"
    return Case("mbar_tx_bulk_rounds", FAM, _kernel(["p_out", "p_src", "p_flags"], body, shared), "k", (1, 1, 1),
                (64, 1, 1), (Buf("out", "uint32", 4 * 192, output=True), Buf("src", "uint32", len(src), init=src),
                             Buf("flags", "uint32", 4 * 64, output=True)),
                note="tx-count 768 from three 256-byte cp.async.bulk per round, four ways of arming it")


def _state_machine() -> Case:
    """One thread walks a barrier through pending counts, arrive_drop, noComplete, expect_tx /
    complete_tx and a negative tx-count, recording pending_count and test_wait results."""
    obs: list[str] = []

    def rec(reg: str) -> str:
        i = len(obs)
        obs.append(reg)
        return f"    st.global.u32 [%rd30+{4 * i}], {reg};\n"

    def test(kind: str, arg: str) -> str:
        form = "test_wait.parity" if kind == "parity" else "test_wait"
        return (f"    mbarrier.{form}.shared::cta.b64 %p1, [bar], {arg};\n    selp.u32 %r5, 1, 0, %p1;\n"
                + rec("%r5"))

    b = "    mbarrier.init.shared::cta.b64 [bar], 5;\n"
    b += "    mbarrier.arrive.noComplete.shared::cta.b64 %rd1, [bar], 2;\n"
    b += "    mbarrier.pending_count.b64 %r1, %rd1;\n" + rec("%r1")
    b += "    mbarrier.arrive.shared::cta.b64 %rd2, [bar];\n"
    b += "    mbarrier.pending_count.b64 %r1, %rd2;\n" + rec("%r1")
    b += test("token", "%rd2") + test("parity", "0")
    b += "    mbarrier.arrive.shared::cta.b64 %rd3, [bar], 2;\n"
    b += test("token", "%rd1") + test("token", "%rd3") + test("parity", "0") + test("parity", "1")
    b += "    mbarrier.pending_count.b64 %r1, %rd3;\n" + rec("%r1")
    b += "    mbarrier.arrive_drop.shared::cta.b64 %rd4, [bar], 1;\n"
    b += "    mbarrier.pending_count.b64 %r1, %rd4;\n" + rec("%r1")
    b += "    mbarrier.arrive.shared::cta.b64 %rd5, [bar], 4;\n" + test("parity", "1") + test("token", "%rd4")
    b += "    mbarrier.arrive.noComplete.shared::cta.b64 %rd6, [bar], 3;\n"
    b += "    mbarrier.pending_count.b64 %r1, %rd6;\n" + rec("%r1")
    b += "    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 32;\n"
    b += "    mbarrier.arrive.shared::cta.b64 %rd7, [bar];\n" + test("token", "%rd7")
    b += "    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 16;\n" + test("token", "%rd7")
    b += "    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 16;\n" + test("token", "%rd7")
    b += test("parity", "0")
    b += "    mbarrier.arrive.expect_tx.shared::cta.b64 %rd8, [bar], 48;\n"
    b += "    mbarrier.pending_count.b64 %r1, %rd8;\n" + rec("%r1")
    b += "    mbarrier.inval.shared::cta.b64 [bar];\n"
    # a negative tx-count: complete_tx before expect_tx
    b += "    mbarrier.init.shared::cta.b64 [bar], 1;\n"
    b += "    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 64;\n"
    b += "    mbarrier.arrive.shared::cta.b64 %rd9, [bar];\n" + test("token", "%rd9")
    b += "    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 64;\n" + test("token", "%rd9")
    b += "    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 0;\n" + test("token", "%rd9")
    b += "    mbarrier.inval.shared::cta.b64 [bar];\n"
    body = "    setp.ne.u32 %p0, %r0, 0;\n    @%p0 bra END;\n" + b + "END:\n"
    shared = "    .shared .align 8 .b64 bar;\n"
    return Case("mbar_state_machine", FAM, _kernel(["p_out"], body, shared), "k", (1, 1, 1), (32, 1, 1),
                (Buf("out", "uint32", 32, output=True),),
                note="pending_count of tokens, completion by count/drop/tx, a negative tx-count")


def _cp_async(noinc: bool) -> Case:
    """32 threads: cp.async 16 bytes each, then cp.async.mbarrier.arrive(.noinc); wait; read a neighbour's."""
    src = (np.arange(128, dtype=np.uint32) * 0x9E3779B1) & 0xFFFFFFFF
    count = 32
    arrive = ("    cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n" if noinc else
              "    cp.async.mbarrier.arrive.shared.b64 [bar];\n    mbarrier.arrive.shared.b64 %rd1, [bar];\n")
    body = f"""    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared.b64 [bar], {count};
    bar.sync 0;
    mul.wide.u32 %rd2, %r0, 16;
    add.u64 %rd3, %rd31, %rd2;
    mov.u32 %r1, sbuf;
    mad.lo.u32 %r2, %r0, 16, %r1;
    cp.async.ca.shared.global [%r2], [%rd3], 16;
{arrive}    mov.u32 %r3, 0;
{_wait("bar", "%r3", True, "%r10")}    add.u32 %r4, %r0, 5;
    and.b32 %r4, %r4, 31;
    mad.lo.u32 %r5, %r4, 16, %r1;
    ld.shared.v4.u32 {{%r20, %r21, %r22, %r23}}, [%r5];
    add.u64 %rd4, %rd30, %rd2;
    st.global.v4.u32 [%rd4], {{%r20, %r21, %r22, %r23}};
    mul.wide.u32 %rd5, %r0, 4;
    add.u64 %rd5, %rd32, %rd5;
    st.global.u32 [%rd5], %r10;
"""
    shared = "    .shared .align 8 .b64 bar;\n    .shared .align 16 .b8 sbuf[512];\n"
    name = "cp_async_mbarrier_arrive_noinc" if noinc else "cp_async_mbarrier_arrive_inc"
    return Case(name, FAM, _kernel(["p_out", "p_src", "p_flags"], body, shared), "k", (1, 1, 1), (32, 1, 1),
                (Buf("out", "uint32", 128, output=True), Buf("src", "uint32", 128, init=src),
                 Buf("flags", "uint32", 32, output=True)))


_REDUCTIONS = [("add", "u32"), ("add", "u64"), ("min", "s32"), ("max", "u32"), ("inc", "u32"), ("dec", "u32"),
               ("and", "b32"), ("or", "b64"), ("xor", "b32"), ("add", "f32"), ("min", "u64"), ("max", "s64")]


def _bulk_store(redop: str | None, t: str = "u32") -> Case:
    """Thread 0 loads 512 bytes with a bulk copy, then stores (or reduces) them into global memory
    with bulk-group completion (commit_group, wait_group.read, wait_group)."""
    rng = np.random.default_rng(77 if redop is None else 78 + _REDUCTIONS.index((redop, t)))
    src = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    dst = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    if t == "f32":
        src = np.frombuffer(rng.standard_normal(128).astype(np.float32).tobytes(), dtype=np.uint32).copy()
        dst = np.frombuffer(rng.standard_normal(128).astype(np.float32).tobytes(), dtype=np.uint32).copy()
    if redop in ("inc", "dec"):
        src = (src % 50).astype(np.uint32)
        dst = (dst % 64).astype(np.uint32)
        dst[:8] = 0
    op = (f"cp.reduce.async.bulk.global.shared::cta.bulk_group.{redop}.{t}" if redop else
          "cp.async.bulk.global.shared::cta.bulk_group")
    body = f"""    setp.ne.u32 %p0, %r0, 0;
    @%p0 bra END;
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 512;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sbuf], [%rd31], 512, [bar];
    mov.u32 %r3, 0;
{_wait("bar", "%r3", True, "%r10")}    {op} [%rd30], [sbuf], 512;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
    cp.async.bulk.wait_group 0;
    st.global.u32 [%rd32], %r10;
END:
"""
    shared = "    .shared .align 8 .b64 bar;\n    .shared .align 128 .b8 sbuf[512];\n"
    name = f"bulk_reduce_{redop}_{t}" if redop else "bulk_store_global"
    return Case(name, FAM, _kernel(["p_dst", "p_src", "p_flag"], body, shared), "k", (1, 1, 1), (32, 1, 1),
                (Buf("dst", "uint32", 128, init=dst, output=True), Buf("src", "uint32", 128, init=src),
                 Buf("flag", "uint32", 1, output=True)), note=op,
                )


def _named_barriers() -> Case:
    """Warps 0-1 produce, warps 2-3 consume, 5 rounds: bar.arrive 1,128 / bar.sync 1,128 hands a
    buffer over, bar.arrive 2,128 / barrier.sync 2,128 hands it back."""
    body = """    shr.u32 %r1, %r0, 6;
    and.b32 %r2, %r0, 63;
    mov.u32 %r3, sbuf;
    mad.lo.u32 %r4, %r2, 4, %r3;
    mov.u32 %r5, 0;
LOOP:
    setp.eq.u32 %p0, %r1, 0;
    @!%p0 bra CONSUMER;
    mad.lo.u32 %r6, %r5, 1000, %r2;
    st.shared.u32 [%r4], %r6;
    bar.arrive 1, 128;
    barrier.sync 2, 128;
    bra NEXT;
CONSUMER:
    bar.sync 1, 128;
    xor.b32 %r7, %r2, 17;
    mad.lo.u32 %r8, %r7, 4, %r3;
    ld.shared.u32 %r9, [%r8];
    mad.lo.u32 %r10, %r5, 64, %r2;
    mul.wide.u32 %rd1, %r10, 4;
    add.u64 %rd2, %rd30, %rd1;
    st.global.u32 [%rd2], %r9;
    barrier.arrive 2, 128;
NEXT:
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, 5;
    @%p1 bra LOOP;
"""
    shared = "    .shared .align 16 .b8 sbuf[256];\n"
    return Case("named_barrier_producer_consumer", FAM, _kernel(["p_out"], body, shared), "k", (2, 1, 1),
                (128, 1, 1), (Buf("out", "uint32", 5 * 64, output=True),))


def _named_reductions() -> Case:
    """bar.red over thread counts, 4 rounds, 256 threads x 2 CTAs: popc over warps 0-3 / 4-7 (ids 1
    and 2 from a register, count 128), .and over pairs of warps (ids 3-6, count 64 from a register;
    some pairs all true), .or of a negated predicate (barrier.cta.red.aligned), and count 32 on one id
    for every warp (each warp completes a phase alone). Per thread and round: popc, and | or << 1,
    the single-warp popc."""
    body = """    shr.u32 %r1, %r0, 5;
    shr.u32 %r2, %r1, 2;
    add.u32 %r3, %r2, 1;
    shr.u32 %r4, %r1, 1;
    add.u32 %r5, %r4, 3;
    mov.u32 %r6, 64;
    and.b32 %r7, %r0, 63;
    mov.u32 %r8, %ctaid.x;
    mov.u32 %r20, 0;
ROUND:
    add.u32 %r9, %r20, 3;
    add.u32 %r9, %r9, %r8;
    mul.lo.u32 %r10, %r0, %r9;
    shr.u32 %r10, %r10, 2;
    and.b32 %r10, %r10, 1;
    setp.ne.u32 %p0, %r10, 0;
    bar.red.popc.u32 %r11, %r3, 128, %p0;
    mad.lo.u32 %r12, %r20, 17, %r8;
    mad.lo.u32 %r12, %r4, 13, %r12;
    rem.u32 %r12, %r12, 80;
    setp.ne.u32 %p1, %r7, %r12;
    barrier.red.and.pred %p2, %r5, %r6, %p1;
    mad.lo.u32 %r13, %r20, 29, %r8;
    mad.lo.u32 %r13, %r4, 7, %r13;
    rem.u32 %r13, %r13, 96;
    setp.ne.u32 %p3, %r7, %r13;
    barrier.cta.red.or.aligned.pred %p4, %r5, 64, !%p3;
    xor.b32 %r14, %r0, %r20;
    and.b32 %r14, %r14, 3;
    setp.eq.u32 %p5, %r14, 0;
    bar.cta.red.popc.u32 %r15, 7, 32, %p5;
    selp.u32 %r16, 1, 0, %p2;
    selp.u32 %r17, 2, 0, %p4;
    or.b32 %r16, %r16, %r17;
    mad.lo.u32 %r18, %r8, 4, %r20;
    mad.lo.u32 %r18, %r18, 256, %r0;
    mul.wide.u32 %rd1, %r18, 12;
    add.u64 %rd2, %rd30, %rd1;
    st.global.u32 [%rd2], %r11;
    st.global.u32 [%rd2+4], %r16;
    st.global.u32 [%rd2+8], %r15;
    add.u32 %r20, %r20, 1;
    setp.lt.u32 %p6, %r20, 4;
    @%p6 bra ROUND;
"""
    return Case("named_barrier_reductions", FAM, _kernel(["p_out"], body, ""), "k", (2, 1, 1), (256, 1, 1),
                (Buf("out", "uint32", 2 * 4 * 256 * 3, output=True),),
                note="bar.red.popc/.and/.or over thread counts (ids 1-7, counts 32/64/128)")


def cases() -> list[Case]:
    _label[0] = 0
    out = [_rounds(), _tx_rounds(), _state_machine(), _cp_async(True), _cp_async(False), _bulk_store(None)]
    out += [_bulk_store(op, t) for op, t in _REDUCTIONS]
    out.append(_named_barriers())
    out.append(_named_reductions())
    return out
