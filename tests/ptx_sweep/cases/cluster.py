"""Thread-block clusters (sm_90): cluster special registers, barrier.cluster (split arrive/wait,
.relaxed/.release/.acquire, several rounds), distributed shared memory (mapa on shared::cluster and
generic addresses, ld/st/atom/red .shared::cluster, getctarank), elect.sync, griddepcontrol.

Cluster shapes come from .reqnctapercluster, so a plain cuLaunchKernel launches the clusters (as
`__cluster_dims__` does). Every output is fixed by the program (sums of atomics, not their order).
"""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Buf, Case

FAM = "cluster"
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _entry(name: str, params: list[str], body: str, directives: str = "", module: str = "") -> str:
    plist = ",\n    ".join(f".param .u64 {p}" for p in params)
    return (f"{HEAD}{module}\n.visible .entry {name}(\n    {plist}\n){directives}\n{{\n"
            "    .reg .pred %p<8>;\n    .reg .b32 %r<64>;\n    .reg .b64 %rd<32>;\n"
            f"{body}\n    ret;\n}}\n")


# linear thread id over the whole grid -> %r1; %rd1 = byte offset of word %r1 * per
def _gid(per: int) -> str:
    return ("    mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %ctaid.y;\n    mov.u32 %r3, %ctaid.z;\n"
            "    mov.u32 %r4, %nctaid.x;\n    mov.u32 %r5, %nctaid.y;\n"
            "    mad.lo.u32 %r3, %r3, %r5, %r2;\n    mad.lo.u32 %r1, %r3, %r4, %r1;\n"
            "    mov.u32 %r2, %ntid.x;\n    mov.u32 %r3, %ntid.y;\n    mul.lo.u32 %r2, %r2, %r3;\n"
            "    mov.u32 %r3, %tid.y;\n    mov.u32 %r4, %ntid.x;\n    mov.u32 %r5, %tid.x;\n"
            "    mad.lo.u32 %r3, %r3, %r4, %r5;\n    mad.lo.u32 %r1, %r1, %r2, %r3;\n"
            f"    mul.wide.u32 %rd1, %r1, {4 * per};\n"
            "    ld.param.u64 %rd2, [out];\n    cvta.to.global.u64 %rd2, %rd2;\n    add.u64 %rd2, %rd2, %rd1;\n")


_SREGS = ["%clusterid.x", "%clusterid.y", "%clusterid.z", "%nclusterid.x", "%nclusterid.y", "%nclusterid.z",
          "%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_ctaid.z", "%cluster_nctaid.x", "%cluster_nctaid.y",
          "%cluster_nctaid.z", "%cluster_ctarank", "%cluster_nctarank"]


def _sreg_case(name: str, grid, block, cluster) -> Case:
    per = len(_SREGS) + 1
    body = _gid(per)
    for i, s in enumerate(_SREGS):
        body += f"    mov.u32 %r10, {s};\n    st.global.u32 [%rd2+{4 * i}], %r10;\n"
    body += f"    mov.pred %p1, %is_explicit_cluster;\n    selp.u32 %r10, 1, 0, %p1;\n" \
            f"    st.global.u32 [%rd2+{4 * len(_SREGS)}], %r10;\n"
    directives = f"\n.reqnctapercluster {cluster[0]}, {cluster[1]}, {cluster[2]}" if cluster else ""
    threads = int(np.prod(grid)) * int(np.prod(block))
    ptx = _entry("k", ["out"], body, directives)
    return Case(f"cluster_{name}", FAM, ptx, "k", grid, block, (Buf("out", "uint32", threads * per, output=True),),
                note=f"cluster special registers, cluster {cluster}")


_SMEM = "\n.shared .align 16 .b8 sm[1024];\n"


def _ring_case(generic: bool) -> Case:
    """Each CTA fills its shared words, the cluster syncs, every thread reads a word of the CTA
    ranks+1 and ranks+3 away (shared::cluster or generic mapa), the cluster syncs again."""
    body = _gid(2) + (
        "    mov.u32 %r20, %tid.x;\n    mov.u32 %r21, %ctaid.x;\n    mov.u32 %r22, %cluster_ctarank;\n"
        "    mad.lo.u32 %r23, %r21, 1000, %r20;\n    mad.lo.u32 %r23, %r22, 100000, %r23;\n"
        "    shl.b32 %r24, %r20, 2;\n    mov.u32 %r25, sm;\n    add.u32 %r25, %r25, %r24;\n"
        "    st.shared.u32 [%r25], %r23;\n"
        "    barrier.cluster.arrive.release.aligned;\n    barrier.cluster.wait.acquire.aligned;\n"
        "    mov.u32 %r26, %cluster_nctarank;\n")
    for j, step in enumerate((1, 3)):
        body += (f"    add.u32 %r27, %r22, {step};\n    rem.u32 %r27, %r27, %r26;\n"
                 "    sub.u32 %r28, 63, %r20;\n    shl.b32 %r28, %r28, 2;\n    mov.u32 %r29, sm;\n"
                 "    add.u32 %r29, %r29, %r28;\n")
        if generic:
            body += ("    cvt.u64.u32 %rd5, %r29;\n    cvta.shared.u64 %rd5, %rd5;\n"
                     "    mapa.u64 %rd6, %rd5, %r27;\n    ld.u32 %r30, [%rd6];\n")
        else:
            body += "    mapa.shared::cluster.u32 %r31, %r29, %r27;\n    ld.shared::cluster.u32 %r30, [%r31];\n"
        body += f"    st.global.u32 [%rd2+{4 * j}], %r30;\n"
    body += "    barrier.cluster.arrive.aligned;\n    barrier.cluster.wait.aligned;\n"
    ptx = _entry("k", ["out"], body, "\n.reqnctapercluster 4, 1, 1", _SMEM)
    grid, block = (8, 1, 1), (64, 1, 1)
    return Case("cluster_dsmem_ring" + ("_generic" if generic else ""), FAM, ptx, "k", grid, block,
                (Buf("out", "uint32", 8 * 64 * 2, output=True),), note="DSMEM reads across a cluster of 4")


def _store_remote_case() -> Case:
    """st.shared::cluster into the next CTA's shared memory, then read back locally."""
    body = _gid(1) + (
        "    mov.u32 %r20, %tid.x;\n    mov.u32 %r22, %cluster_ctarank;\n    mov.u32 %r26, %cluster_nctarank;\n"
        "    mov.u32 %r21, %ctaid.x;\n    mad.lo.u32 %r23, %r21, 7919, %r20;\n"
        "    add.u32 %r27, %r22, 1;\n    rem.u32 %r27, %r27, %r26;\n"
        "    shl.b32 %r24, %r20, 2;\n    mov.u32 %r25, sm;\n    add.u32 %r25, %r25, %r24;\n"
        "    mapa.shared::cluster.u32 %r31, %r25, %r27;\n"
        "    st.shared::cluster.u32 [%r31], %r23;\n"
        "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n"
        "    ld.shared.u32 %r30, [%r25];\n    st.global.u32 [%rd2], %r30;\n"
        "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n")
    ptx = _entry("k", ["out"], body, "\n.reqnctapercluster 2, 1, 1", _SMEM)
    return Case("cluster_dsmem_store", FAM, ptx, "k", (6, 1, 1), (96, 1, 1),
                (Buf("out", "uint32", 6 * 96, output=True),), note="st.shared::cluster to rank+1")


def _atomic_case() -> Case:
    """Every thread of the cluster adds into counters of rank 0 (atom and red .shared::cluster),
    and takes a max; rank 0 writes the counters out after the cluster barrier."""
    vals = V.rng(71).integers(0, 1000, 4 * 2 * 128).astype(np.uint32)
    body = (
        "    mov.u32 %r20, %tid.x;\n    mov.u32 %r22, %cluster_ctarank;\n    mov.u32 %r21, %clusterid.x;\n"
        "    mov.u32 %r25, sm;\n"
        # rank 0 zeroes its 64 counters, everyone waits
        "    setp.ne.u32 %p1, %r22, 0;\n    setp.ge.u32 %p2, %r20, 64;\n    or.pred %p3, %p1, %p2;\n"
        "    shl.b32 %r24, %r20, 2;\n    add.u32 %r26, %r25, %r24;\n"
        "    @!%p3 st.shared.u32 [%r26], 0;\n"
        "    barrier.cluster.arrive.release;\n    barrier.cluster.wait.acquire;\n"
        # my value
        "    mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %ntid.x;\n    mad.lo.u32 %r1, %r1, %r2, %r20;\n"
        "    mul.wide.u32 %rd1, %r1, 4;\n    ld.param.u64 %rd3, [inp];\n    cvta.to.global.u64 %rd3, %rd3;\n"
        "    add.u64 %rd3, %rd3, %rd1;\n    ld.global.u32 %r30, [%rd3];\n"
        # counter index tid % 16 (add via atom), 16 + tid % 16 (add via red), 32 + tid % 8 (max)
        "    and.b32 %r31, %r20, 15;\n    shl.b32 %r31, %r31, 2;\n    add.u32 %r32, %r25, %r31;\n"
        "    mapa.shared::cluster.u32 %r33, %r32, 0;\n"
        "    atom.shared::cluster.add.u32 %r34, [%r33], %r30;\n"
        "    add.u32 %r35, %r33, 64;\n    red.shared::cluster.add.u32 [%r35], 1;\n"
        "    and.b32 %r36, %r20, 7;\n    shl.b32 %r36, %r36, 2;\n    add.u32 %r37, %r25, %r36;\n"
        "    add.u32 %r37, %r37, 128;\n    mapa.shared::cluster.u32 %r38, %r37, 0;\n"
        "    atom.shared::cluster.max.u32 %r39, [%r38], %r30;\n"
        "    barrier.cluster.arrive.release;\n    barrier.cluster.wait.acquire;\n"
        "    @%p3 bra DONE;\n"
        "    ld.shared.u32 %r40, [%r26];\n"
        "    mad.lo.u32 %r41, %r21, 64, %r20;\n    mul.wide.u32 %rd4, %r41, 4;\n"
        "    ld.param.u64 %rd5, [out];\n    cvta.to.global.u64 %rd5, %rd5;\n    add.u64 %rd5, %rd5, %rd4;\n"
        "    st.global.u32 [%rd5], %r40;\n"
        "DONE:\n"
        "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n")
    ptx = _entry("k", ["out", "inp"], body, "\n.reqnctapercluster 4, 1, 1", _SMEM)
    return Case("cluster_dsmem_atomics", FAM, ptx, "k", (8, 1, 1), (128, 1, 1),
                (Buf("out", "uint32", 2 * 64, output=True), Buf("inp", "uint32", len(vals), init=vals)),
                note="atom/red .shared::cluster into rank 0")


def _rounds_case() -> Case:
    """Three rounds of: write my round value, arrive (relaxed), unrelated work, wait, read all
    siblings' values and accumulate; a 2x2 cluster (y dimension too)."""
    body = _gid(1) + (
        "    mov.u32 %r20, %tid.x;\n    mov.u32 %r22, %cluster_ctarank;\n    mov.u32 %r26, %cluster_nctarank;\n"
        "    mov.u32 %r25, sm;\n    shl.b32 %r24, %r20, 2;\n    add.u32 %r27, %r25, %r24;\n"
        "    mov.u32 %r40, 0;\n    mov.u32 %r41, 0;\n"
        "LOOP:\n"
        "    mad.lo.u32 %r42, %r22, 17, %r41;\n    mad.lo.u32 %r42, %r20, 3, %r42;\n"
        "    st.shared.u32 [%r27], %r42;\n"
        "    barrier.cluster.arrive.release;\n"
        "    mul.lo.u32 %r43, %r40, 3;\n"
        "    barrier.cluster.wait.acquire;\n"
        "    mov.u32 %r44, 0;\n"
        "INNER:\n"
        "    mapa.shared::cluster.u32 %r45, %r27, %r44;\n    ld.shared::cluster.u32 %r46, [%r45];\n"
        "    mad.lo.u32 %r40, %r43, 1, %r40;\n    add.u32 %r40, %r40, %r46;\n"
        "    add.u32 %r44, %r44, 1;\n    setp.lt.u32 %p1, %r44, %r26;\n    @%p1 bra INNER;\n"
        "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n"
        "    add.u32 %r41, %r41, 1;\n    setp.lt.u32 %p2, %r41, 3;\n    @%p2 bra LOOP;\n"
        "    st.global.u32 [%rd2], %r40;\n")
    ptx = _entry("k", ["out"], body, "\n.reqnctapercluster 2, 2, 1", _SMEM)
    return Case("cluster_barrier_rounds", FAM, ptx, "k", (4, 2, 1), (32, 1, 1),
                (Buf("out", "uint32", 8 * 32, output=True),), note="barrier.cluster over three rounds")


def _getctarank_case() -> Case:
    body = _gid(3) + (
        "    mov.u32 %r20, %tid.x;\n    mov.u32 %r26, %cluster_nctarank;\n"
        "    rem.u32 %r27, %r20, %r26;\n    mov.u32 %r25, sm;\n"
        "    mapa.shared::cluster.u32 %r31, %r25, %r27;\n    getctarank.shared::cluster.u32 %r32, %r31;\n"
        "    st.global.u32 [%rd2], %r32;\n"
        "    cvt.u64.u32 %rd5, %r25;\n    cvta.shared.u64 %rd5, %rd5;\n    mapa.u64 %rd6, %rd5, %r27;\n"
        "    getctarank.u64 %r33, %rd6;\n    st.global.u32 [%rd2+4], %r33;\n"
        "    getctarank.shared::cluster.u32 %r34, %r25;\n    st.global.u32 [%rd2+8], %r34;\n"
        "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n")
    ptx = _entry("k", ["out"], body, "\n.reqnctapercluster 4, 1, 1", _SMEM)
    return Case("cluster_getctarank", FAM, ptx, "k", (4, 1, 1), (32, 1, 1),
                (Buf("out", "uint32", 4 * 32 * 3, output=True),), note="getctarank of mapa'd addresses")


def _elect_case() -> Case:
    """elect.sync with the full mask, a partial mask, and in a divergent branch (odd lanes)."""
    body = _gid(6) + (
        "    elect.sync %r10|%p1, 0xffffffff;\n    selp.u32 %r11, 1, 0, %p1;\n"
        "    st.global.u32 [%rd2], %r10;\n    st.global.u32 [%rd2+4], %r11;\n"
        "    elect.sync %r12|%p2, 0xf0f0f0f0;\n    selp.u32 %r13, 1, 0, %p2;\n"
        "    st.global.u32 [%rd2+8], %r12;\n    st.global.u32 [%rd2+12], %r13;\n"
        "    mov.u32 %r20, %laneid;\n    and.b32 %r21, %r20, 1;\n    setp.eq.u32 %p3, %r21, 0;\n"
        "    mov.u32 %r14, 99;\n    mov.u32 %r15, 99;\n"
        "    @%p3 bra SKIP;\n"
        "    elect.sync %r14|%p4, 0xaaaaaaaa;\n    selp.u32 %r15, 1, 0, %p4;\n"
        "SKIP:\n"
        "    st.global.u32 [%rd2+16], %r14;\n    st.global.u32 [%rd2+20], %r15;\n")
    ptx = _entry("k", ["out"], body)
    return Case("cluster_elect_sync", FAM, ptx, "k", (1, 1, 1), (64, 1, 1),
                (Buf("out", "uint32", 64 * 6, output=True),), note="elect.sync leader lanes")


def _griddep_case() -> Case:
    body = _gid(1) + (
        "    griddepcontrol.wait;\n    mov.u32 %r10, %cluster_ctarank;\n    add.u32 %r10, %r10, %r1;\n"
        "    st.global.u32 [%rd2], %r10;\n    griddepcontrol.launch_dependents;\n")
    ptx = _entry("k", ["out"], body)
    return Case("cluster_griddepcontrol", FAM, ptx, "k", (2, 1, 1), (32, 1, 1),
                (Buf("out", "uint32", 64, output=True),), note="griddepcontrol accepted (stream order)")


def _vector_case() -> Case:
    """st.shared::cluster.v2 into the next rank, ld.shared::cluster.v4 from the previous one."""
    body = _gid(4) + (
        "    mov.u32 %r20, %tid.x;\n    mov.u32 %r22, %cluster_ctarank;\n    mov.u32 %r26, %cluster_nctarank;\n"
        "    mov.u32 %r21, %ctaid.x;\n    mad.lo.u32 %r23, %r21, 1000, %r20;\n    add.u32 %r24, %r23, 500;\n"
        "    add.u32 %r27, %r22, 1;\n    rem.u32 %r27, %r27, %r26;\n"
        "    shl.b32 %r28, %r20, 3;\n    mov.u32 %r25, sm;\n    add.u32 %r25, %r25, %r28;\n"
        "    mapa.shared::cluster.u32 %r31, %r25, %r27;\n    st.shared::cluster.v2.u32 [%r31], {%r23, %r24};\n"
        "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n"
        "    add.u32 %r32, %r22, %r26;\n    sub.u32 %r32, %r32, 1;\n    rem.u32 %r32, %r32, %r26;\n"
        "    and.b32 %r33, %r20, 30;\n    shl.b32 %r33, %r33, 3;\n    mov.u32 %r34, sm;\n    add.u32 %r34, %r34, %r33;\n"
        "    mapa.shared::cluster.u32 %r35, %r34, %r32;\n"
        "    ld.shared::cluster.v4.u32 {%r40, %r41, %r42, %r43}, [%r35];\n"
        "    st.global.v4.u32 [%rd2], {%r40, %r41, %r42, %r43};\n"
        "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n")
    ptx = _entry("k", ["out"], body, "\n.reqnctapercluster 4, 1, 1", _SMEM)
    return Case("cluster_dsmem_vector", FAM, ptx, "k", (8, 1, 1), (32, 1, 1),
                (Buf("out", "uint32", 8 * 32 * 4, output=True),), note="v2 stores / v4 loads across the cluster")


def _rank3d_case() -> Case:
    """A 2x2x2 cluster: every block publishes its ctaid, each thread reads rank tid % 8's."""
    body = _gid(2) + (
        "    mov.u32 %r20, %tid.x;\n    mov.u32 %r21, %ctaid.x;\n    mov.u32 %r22, %ctaid.y;\n    mov.u32 %r23, %ctaid.z;\n"
        "    mad.lo.u32 %r24, %r23, 100, %r22;\n    mad.lo.u32 %r24, %r24, 100, %r21;\n"
        "    mov.u32 %r25, sm;\n    setp.eq.u32 %p1, %r20, 0;\n    @%p1 st.shared.u32 [%r25], %r24;\n"
        "    barrier.cluster.arrive.release.aligned;\n    barrier.cluster.wait.acquire.aligned;\n"
        "    and.b32 %r27, %r20, 7;\n    mapa.shared::cluster.u32 %r31, %r25, %r27;\n"
        "    ld.shared::cluster.u32 %r30, [%r31];\n    st.global.u32 [%rd2], %r30;\n"
        "    mov.u32 %r32, %cluster_ctarank;\n    st.global.u32 [%rd2+4], %r32;\n"
        "    barrier.cluster.arrive.release.aligned;\n    barrier.cluster.wait.acquire.aligned;\n")
    ptx = _entry("k", ["out"], body, "\n.reqnctapercluster 2, 2, 2", _SMEM)
    return Case("cluster_dsmem_rank3d", FAM, ptx, "k", (4, 2, 4), (32, 1, 1),
                (Buf("out", "uint32", 32 * 32 * 2, output=True),), note="rank order of a 2x2x2 cluster")


def cases() -> list[Case]:
    return [
        _sreg_case("sregs_2x1x2", (4, 2, 2), (32, 2, 1), (2, 1, 2)),
        _sreg_case("sregs_8", (8, 2, 1), (64, 1, 1), (8, 1, 1)),
        _sreg_case("sregs_none", (3, 2, 1), (32, 1, 1), None),
        _ring_case(False), _ring_case(True), _store_remote_case(), _atomic_case(), _rounds_case(),
        _getctarank_case(), _elect_case(), _griddep_case(), _vector_case(), _rank3d_case(),
    ]
