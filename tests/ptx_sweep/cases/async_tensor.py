"""Tensor (TMA) copies, tile mode: 1D-5D boxes, in-bounds, partly and fully out-of-bounds
(negative coordinates too), zero and NaN fill, element strides, every swizzle (32B/64B/128B, with
full and narrow inner boxes), tensor stores and a tensor reduction. The tensor map is made by the
driver's cuTensorMapEncodeTiled and read from global memory.

Loads dump 2048 bytes of shared memory (pre-filled with 0xCD) so the layout, the swizzle and any
byte written outside the box all show.
"""

from __future__ import annotations

import numpy as np

from ..case import Buf, Case, Im2colMapBuf, TensorMapBuf

FAM = "async_tensor"
HEAD = ".version 8.3\n.target sm_90\n.address_size 64\n"
DUMP = 2048
ESIZE = {0: 1, 2: 4, 3: 4, 6: 2, 7: 4, 8: 8, 9: 2}
NPDT = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def _wait() -> str:
    return """    mov.u32 %r40, 0;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p9, [bar], 0;
    @%p9 bra DONE;
    add.u32 %r40, %r40, 1;
    setp.lt.u32 %p8, %r40, 2097152;
    @%p8 bra WAIT;
DONE:
"""


def _coords(cs: tuple[int, ...]) -> tuple[str, str]:
    movs = "".join(f"    mov.b32 %r{20 + i}, {c};\n" for i, c in enumerate(cs))
    return movs, "{" + ", ".join(f"%r{20 + i}" for i in range(len(cs))) + "}"


def _tensor_data(count: int, esize: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if esize == 1:
        return rng.integers(1, 255, count, dtype=np.uint8)
    return rng.integers(1, 2 ** (8 * esize) - 1, count, dtype=np.uint64).astype(NPDT[esize])


def _load_case(name: str, dtype: int, dims, box, coords, *, estr=None, swizzle=0, oob=0, seed=0) -> Case:
    esize = ESIZE[dtype]
    rank = len(dims)
    estr = estr or (1,) * rank
    strides, acc = [], dims[0] * esize
    for d in dims[1:]:
        acc = (acc + 15) // 16 * 16
        strides.append(acc)
        acc *= d
    count = (strides[-1] * dims[-1] if rank > 1 else dims[0] * esize) // esize
    data = _tensor_data(count, esize, seed)
    if dtype == 7 and seed % 2:  # some float tensors hold NaNs and infinities too
        data[:4] = np.array([0x7FC00001, 0xFF800000, 0x00000001, 0x80000000], dtype=np.uint32)
    nbytes = int(np.prod([-(-b // e) for b, e in zip(box, estr, strict=True)])) * esize
    movs, vec = _coords(coords)
    body = f"""    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
    mov.u32 %r1, sbuf;
    mad.lo.u32 %r2, %r0, 16, %r1;
    mov.u32 %r3, 0xCDCDCDCD;
    st.shared.v4.u32 [%r2], {{%r3, %r3, %r3, %r3}};
    fence.proxy.async.shared::cta;
    bar.sync 0;
    @!%p0 bra WAITING;
    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], {nbytes};
{movs}    cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sbuf], [%rd31, {vec}], [bar];
WAITING:
{_wait()}    ld.shared.v4.u32 {{%r4, %r5, %r6, %r7}}, [%r2];
    mul.wide.u32 %rd2, %r0, 16;
    add.u64 %rd3, %rd30, %rd2;
    st.global.v4.u32 [%rd3], {{%r4, %r5, %r6, %r7}};
    selp.u32 %r8, 1, 0, %p9;
    mul.wide.u32 %rd4, %r0, 4;
    add.u64 %rd4, %rd32, %rd4;
    st.global.u32 [%rd4], %r8;
"""
    ptx = _kernel(["p_out", "p_tmap", "p_flags", "p_tensor"], body)
    tm = TensorMapBuf("tmap", "tensor", dtype, tuple(dims), tuple(strides), tuple(box), tuple(estr), swizzle, oob)
    return Case(name, FAM, ptx, "k", (1, 1, 1), (DUMP // 16, 1, 1),
                (Buf("out", "uint32", DUMP // 4, output=True), tm, Buf("flags", "uint32", DUMP // 16, output=True),
                 Buf("tensor", NPDT[esize], count, init=data)),
                note=f"dtype {dtype} dims {dims} box {box} estr {estr} swizzle {swizzle} oob {oob} at {coords}")


def _kernel(params: list[str], body: str) -> str:
    plist = ", ".join(f".param .u64 {p}" for p in params)
    loads = "".join(f"    ld.param.u64 %rd{30 + i}, [{p}];\n" + (
        f"    cvta.to.global.u64 %rd{30 + i}, %rd{30 + i};\n" if p != "p_tmap" else "")
        for i, p in enumerate(params))
    return (f"{HEAD}\n.visible .entry k({plist})\n{{\n    .reg .pred %p<10>;\n    .reg .b32 %r<48>;\n"
            f"    .reg .b64 %rd<48>;\n    .shared .align 1024 .b8 sbuf[{DUMP}];\n    .shared .align 8 .b64 bar;\n"
            f"    mov.u32 %r0, %tid.x;\n{loads}{body}    ret;\n}}\n")


def _store_case(name: str, dtype: int, dims, box, coords, *, swizzle=0, redop: str | None = None, seed=0) -> Case:
    """Shared memory (a pattern written by the threads) -> tensor, bulk-group completion."""
    esize = ESIZE[dtype]
    strides = [dims[0] * esize]
    count = dims[0] * dims[1]
    data = _tensor_data(count, esize, seed)
    movs, vec = _coords(coords)
    op = (f"cp.reduce.async.bulk.tensor.2d.global.shared::cta.{redop}.tile.bulk_group" if redop else
          "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group")
    body = f"""    mov.u32 %r1, sbuf;
    mad.lo.u32 %r2, %r0, 4, %r1;
    mad.lo.u32 %r3, %r0, 0x01010101, 0x10203;
    st.shared.u32 [%r2], %r3;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.ne.u32 %p0, %r0, 0;
    @%p0 bra END;
    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;
{movs}    {op} [%rd31, {vec}], [sbuf];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
END:
"""
    ptx = _kernel(["p_tensor", "p_tmap"], body)
    tm = TensorMapBuf("tmap", "tensor", dtype, tuple(dims), tuple(strides), tuple(box), (1, 1), swizzle)
    return Case(name, FAM, ptx, "k", (1, 1, 1), (DUMP // 4, 1, 1),
                (Buf("tensor", NPDT[esize], count, init=data, output=True), tm), note=op)


def _im2col_case(name: str, dtype: int, dims, lower, upper, channels: int, pixels: int, coords, offsets, *,
                 swizzle: int = 0, oob: int = 0, seed: int = 0) -> Case:
    """cp.async.bulk.tensor .im2col: `pixels` pixels of `channels` channels each from a (C, W, [H, [D,]] N)
    tensor (channels innermost), starting at `coords`, walking the map's bounding box (lower/upper
    corners) W first, each pixel read at its position + `offsets` (the filter tap). The tensor holds
    index + 1 in every element (u32) or random floats with a few NaN/inf (f32), so every byte of the
    2048-byte shared dump tells where it came from."""
    esize = ESIZE[dtype]
    rank = len(dims)
    strides, acc = [], dims[0] * esize
    for d in dims[1:]:
        acc = (acc + 15) // 16 * 16
        strides.append(acc)
        acc *= d
    count = strides[-1] * dims[-1] // esize
    if dtype == 2:
        data = np.arange(1, count + 1, dtype=np.uint32)
    else:
        data = _tensor_data(count, esize, seed)
        data[:4] = np.array([0x7FC00001, 0xFF800000, 0x00000001, 0x80000000], dtype=np.uint32)
    nbytes = channels * pixels * esize
    movs, vec = _coords(coords)
    offs = "".join(f"    mov.b16 %rs{i}, {o};\n" for i, o in enumerate(offsets))
    ovec = "{" + ", ".join(f"%rs{i}" for i in range(len(offsets))) + "}"
    body = f"""    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
    mov.u32 %r1, sbuf;
    mad.lo.u32 %r2, %r0, 16, %r1;
    mov.u32 %r3, 0xCDCDCDCD;
    st.shared.v4.u32 [%r2], {{%r3, %r3, %r3, %r3}};
    fence.proxy.async.shared::cta;
    bar.sync 0;
    @!%p0 bra WAITING;
    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], {nbytes};
{movs}{offs}    cp.async.bulk.tensor.{rank}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [sbuf], [%rd31, {vec}], [bar], {ovec};
WAITING:
{_wait()}    ld.shared.v4.u32 {{%r4, %r5, %r6, %r7}}, [%r2];
    mul.wide.u32 %rd2, %r0, 16;
    add.u64 %rd3, %rd30, %rd2;
    st.global.v4.u32 [%rd3], {{%r4, %r5, %r6, %r7}};
    selp.u32 %r8, 1, 0, %p9;
    mul.wide.u32 %rd4, %r0, 4;
    add.u64 %rd4, %rd32, %rd4;
    st.global.u32 [%rd4], %r8;
"""
    ptx = _kernel(["p_out", "p_tmap", "p_flags", "p_tensor"], body).replace(
        "    .reg .b64 %rd<48>;\n", "    .reg .b64 %rd<48>;\n    .reg .b16 %rs<4>;\n")
    tm = Im2colMapBuf("tmap", "tensor", dtype, tuple(dims), tuple(strides), (channels, pixels) + (1,) * (rank - 2),
                      (1,) * rank, swizzle, oob, lower=tuple(lower), upper=tuple(upper), channels=channels,
                      pixels=pixels)
    return Case(name, FAM, ptx, "k", (1, 1, 1), (DUMP // 16, 1, 1),
                (Buf("out", "uint32", DUMP // 4, output=True), tm, Buf("flags", "uint32", DUMP // 16, output=True),
                 Buf("tensor", NPDT[esize], count, init=data)),
                note=f"im2col dtype {dtype} dims {dims} corners {lower}/{upper} {channels}ch x {pixels}px at {coords} "
                     f"offsets {offsets} swizzle {swizzle} oob {oob}")


def _im2col_store_case(name: str, dims, lower, upper, channels: int, pixels: int, coords, *,
                       redop: str | None = None) -> Case:
    """cp.async.bulk.tensor .im2col_no_offs (shared -> global, bulk group) and its reduction: the
    shared words (0xA0000000 + index) go to the pixels an im2col load with zero offsets would read
    (tensorcopy.py); the u32 tensor holds index + 1, so every word tells whether it was written."""
    rank = len(dims)
    strides, acc = [], dims[0] * 4
    for d in dims[1:]:
        acc = (acc + 15) // 16 * 16
        strides.append(acc)
        acc *= d
    count = strides[-1] * dims[-1] // 4
    movs, vec = _coords(coords)
    op = (f"cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.{redop}.im2col_no_offs.bulk_group" if redop else
          f"cp.async.bulk.tensor.{rank}d.global.shared::cta.im2col_no_offs.bulk_group")
    body = f"""    mov.u32 %r1, sbuf;
    mad.lo.u32 %r2, %r0, 16, %r1;
    mad.lo.u32 %r3, %r0, 4, 0xA0000000;
    add.u32 %r4, %r3, 1;
    add.u32 %r5, %r3, 2;
    add.u32 %r6, %r3, 3;
    st.shared.v4.u32 [%r2], {{%r3, %r4, %r5, %r6}};
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.ne.u32 %p0, %r0, 0;
    @%p0 bra END;
    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;
{movs}    {op} [%rd31, {vec}], [sbuf];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
END:
"""
    ptx = _kernel(["p_tensor", "p_tmap"], body)
    tm = Im2colMapBuf("tmap", "tensor", 2, tuple(dims), tuple(strides), (channels, pixels) + (1,) * (rank - 2),
                      (1,) * rank, 0, 0, lower=tuple(lower), upper=tuple(upper), channels=channels, pixels=pixels)
    return Case(name, FAM, ptx, "k", (1, 1, 1), (DUMP // 16, 1, 1),
                (Buf("tensor", "uint32", count, init=np.arange(1, count + 1, dtype=np.uint32), output=True), tm),
                note=f"{op} dims {dims} corners {lower}/{upper} {channels}ch x {pixels}px at {coords}")


IM2COL_STORE = [
    dict(name="im2col_store4d_u32_wrap", dims=(8, 6, 5, 2), lower=(0, 0), upper=(-2, -2), channels=4, pixels=16,
         coords=(4, 1, 1, 0)),
    dict(name="im2col_red4d_u32_add", dims=(8, 6, 5, 2), lower=(0, 0), upper=(0, 0), channels=8, pixels=16,
         coords=(0, 2, 1, 0), redop="add"),
]
# Recorded on an H100 and refused there (sticky CUDA_ERROR_ILLEGAL_INSTRUCTION at the store, 24 Nov
# 2026): im2col stores starting at negative coordinates (inside the padding). CuMetal refuses them
# the same way (tests/async_ops/test_barrier_reductions_and_masks.py).
IM2COL_STORE_REFUSED = [
    dict(name="im2col_store4d_u32_pad", dims=(8, 6, 5, 2), lower=(-1, -1), upper=(-1, -1), channels=8, pixels=32,
         coords=(0, -1, -1, 0)),
    dict(name="im2col_store3d_u32_rows", dims=(4, 20, 3), lower=(-2,), upper=(0,), channels=4, pixels=64,
         coords=(0, -2, 0)),
]


# cp.reduce.async.bulk.tensor: map data type -> (numpy storage, value maker)
REDUCE_TYPES = {2: "uint32", 3: "int32", 4: "uint64", 5: "int64", 6: "float16", 7: "float32", 8: "float64",
                9: "bf16"}


def _reduce_values(dtype: int, count: int, rng: np.random.Generator, redop: str) -> np.ndarray:
    """Operands without NaNs (their payload rules are the bulk family's business), floats of
    moderate range (so the exact sum of two fits in a double: the numpy model rounds once),
    integers that wrap and, for inc/dec, cross the bound both ways."""
    if dtype in (6, 7, 8, 9):
        v = rng.uniform(-8, 8, count) * np.exp2(rng.integers(-6, 7, count))
        v[::7] = -v[::7]
        if dtype == 8:
            return v.view(np.uint64)
        if dtype == 6:
            return v.astype(np.float16).view(np.uint16)
        if dtype == 7:
            return v.astype(np.float32).view(np.uint32)
        return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # bf16 by truncation
    bits = 32 if dtype in (2, 3) else 64
    if redop in ("inc", "dec"):
        return rng.integers(0, 24, count).astype(f"u{bits // 8}")
    return rng.integers(0, 2 ** bits - 1, count, dtype=np.uint64, endpoint=True).astype(f"u{bits // 8}")


def reduce_case(name: str, dtype: int, redop: str, dims=(24, 10), box=(8, 4), coords=(18, 6), *, seed=0,
                tile: bool = True) -> Case:
    """Shared memory (copied from `src` by the threads) reduced into a 2D tensor with
    cp.reduce.async.bulk.tensor .redop (box partly out of bounds with the default coords)."""
    storage = REDUCE_TYPES[dtype]
    esize = 2 if storage == "bf16" else np.dtype(storage).itemsize
    rng = np.random.default_rng(seed)
    count = dims[0] * dims[1]
    nbox = box[0] * box[1]
    tensor = _reduce_values(dtype, count, rng, redop)
    src = _reduce_values(dtype, nbox, rng, redop)
    words = nbox * esize // 4
    movs, vec = _coords(coords)
    mode = ".tile" if tile else ""
    body = f"""    mov.u32 %r1, sbuf;
    setp.lt.u32 %p1, %r0, {words};
    @!%p1 bra STAGED;
    mul.wide.u32 %rd2, %r0, 4;
    add.u64 %rd3, %rd32, %rd2;
    ld.global.u32 %r3, [%rd3];
    mad.lo.u32 %r2, %r0, 4, %r1;
    st.shared.u32 [%r2], %r3;
STAGED:
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.ne.u32 %p0, %r0, 0;
    @%p0 bra END;
    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;
{movs}    cp.reduce.async.bulk.tensor.2d.global.shared::cta.{redop}{mode}.bulk_group [%rd31, {vec}], [sbuf];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
END:
"""
    ptx = _kernel(["p_tensor", "p_tmap", "p_src"], body)
    stride = -(-dims[0] * esize // 16) * 16
    if stride != dims[0] * esize:
        raise ValueError("reduce_case: rows must be multiples of 16 bytes")
    npdt = "uint16" if storage == "bf16" else storage
    tm = TensorMapBuf("tmap", "tensor", dtype, tuple(dims), (stride,), tuple(box), (1, 1))
    return Case(name, FAM, ptx, "k", (1, 1, 1), (128, 1, 1),
                (Buf("tensor", npdt, count, init=tensor.view(npdt), output=True), tm,
                 Buf("src", npdt, nbox, init=src.view(npdt))),
                note=f"cp.reduce.async.bulk.tensor .{redop} dtype {dtype} dims {dims} box {box} at {coords}")


# Tensor reductions recorded on NVIDIA hardware by scripts/make_async_goldens.py --candidates: the ones
# the hardware ran become sweep cases (REDUCE below); see the comment after IM2COL for the earlier refusal.
REDUCE_CANDIDATES = [
    dict(name="tred_add_f32", dtype=7, redop="add", seed=40),
    dict(name="tred_add_f32_notile", dtype=7, redop="add", seed=41, tile=False),
    dict(name="tred_add_u32", dtype=2, redop="add", coords=(8, 3), seed=42),
    dict(name="tred_add_s32_notile", dtype=3, redop="add", seed=43, tile=False),
    dict(name="tred_min_s32", dtype=3, redop="min", seed=44),
    dict(name="tred_max_u32", dtype=2, redop="max", seed=45),
    dict(name="tred_add_f16", dtype=6, redop="add", dims=(32, 10), box=(16, 4), coords=(20, 6), seed=46),
    dict(name="tred_max_bf16", dtype=9, redop="max", dims=(32, 10), box=(16, 4), coords=(-4, 2), seed=47),
    dict(name="tred_inc_u32", dtype=2, redop="inc", seed=48),
    dict(name="tred_dec_u32", dtype=2, redop="dec", seed=49),
    dict(name="tred_xor_u64", dtype=4, redop="xor", dims=(12, 10), box=(4, 4), coords=(9, 7), seed=50),
    dict(name="tred_add_u64", dtype=4, redop="add", dims=(12, 10), box=(4, 4), coords=(2, 3), seed=51),
]
# the same reductions with the box inside the tensor, and add.u32 partly outside it
REDUCE_CANDIDATES += [dict(kw, name=kw["name"] + "_inb", coords=(2, 3)) for kw in REDUCE_CANDIDATES
                      if kw["name"] not in ("tred_add_u32", "tred_add_u64")]
REDUCE_CANDIDATES += [dict(name="tred_add_u32_oob", dtype=2, redop="add", seed=52),
                      dict(name="tred_add_u32_oob_neg", dtype=2, redop="add", coords=(-2, -1), seed=53)]
# 16-byte aligned starts (dimension 0), inside and partly outside the tensor
_ALIGNED = {"tred_add_f32": (4, 3), "tred_add_s32_notile": (20, 6), "tred_min_s32": (-4, -1), "tred_max_u32": (12, 7),
            "tred_add_f16": (24, 6), "tred_max_bf16": (-8, 2), "tred_inc_u32": (4, 7), "tred_dec_u32": (20, -2),
            "tred_xor_u64": (10, 8), "tred_add_u64": (-2, 3), "tred_add_f32_notile": (16, 1)}
REDUCE_CANDIDATES += [dict(kw, name=kw["name"] + "_al", coords=_ALIGNED[kw["name"]]) for kw in REDUCE_CANDIDATES
                      if kw["name"] in _ALIGNED]
# What an H100 answered (tests/async_ops/tensor_reduce_h100.json): a reduction box must start at
# coordinates >= 0 with its dimension-0 start 16-byte aligned, else CUDA_ERROR_ILLEGAL_INSTRUCTION
# (backends/cpu/tensorcopy.reduce_start_ok); reaching past the upper bounds is fine. The accepted ones:
_ACCEPTED = ("tred_add_u32", "tred_add_u64", "tred_xor_u64_inb", "tred_add_f32_al", "tred_add_f32_notile_al",
             "tred_add_s32_notile_al", "tred_max_u32_al", "tred_add_f16_al", "tred_inc_u32_al", "tred_xor_u64_al")
REDUCE: list[dict] = [kw for kw in REDUCE_CANDIDATES if kw["name"] in _ACCEPTED]


def replace_elemtype_case(name: str, code: int) -> Case:
    """An f32 map (40x24, NaN fill) whose elemtype field a thread rewrites in global memory with
    tensormap.replace to PTX code `code` before an 8x8 load partly out of bounds; the expect_tx stays
    the f32 box's 256 bytes, so the dump (how many bytes landed, which fill) and the completion flag
    tell which element size and type the hardware read the code as (PTX and CUDA number 8-10
    differently)."""
    from dataclasses import replace

    case = _load_case(name, dtype=7, dims=(40, 24), box=(8, 8), coords=(36, 20), oob=1, seed=5)
    ptx = case.ptx.replace(
        "    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;",
        f"    tensormap.replace.tile.elemtype.global.b1024.b32 [%rd31], {code};\n"
        "    fence.proxy.tensormap::generic.release.gpu;\n"
        "    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;")
    ptx = ptx.replace(".target sm_90\n", ".target sm_90a\n")  # tensormap.replace is sm_90a
    return replace(case, ptx=ptx, note=case.note + f" elemtype replaced by PTX code {code}")


REPLACE_CANDIDATES = {"tmap_replace_elemtype7": 7, "tmap_replace_elemtype8": 8, "tmap_replace_elemtype9": 9,
                      "tmap_replace_elemtype10": 10}
REPLACE: list[str] = ["tmap_replace_elemtype7", "tmap_replace_elemtype8"]  # 9: an inconsistent map; 10: refused


def candidates() -> list[Case]:
    """Cases without goldens yet, for scripts/make_async_goldens.py --candidates."""
    return ([reduce_case(**kw) for kw in REDUCE_CANDIDATES]
            + [replace_elemtype_case(n, c) for n, c in REPLACE_CANDIDATES.items()])


IM2COL = [
    dict(name="im2col4d_u32_tap11", dtype=2, dims=(8, 6, 5, 2), lower=(-1, -1), upper=(-1, -1), channels=8, pixels=32,
         coords=(0, -1, -1, 0), offsets=(1, 1)),
    dict(name="im2col4d_u32_tap00_pad", dtype=2, dims=(8, 6, 5, 2), lower=(-1, -1), upper=(-1, -1), channels=8,
         pixels=32, coords=(0, -1, -1, 0), offsets=(0, 0)),
    dict(name="im2col4d_u32_chan4_tap21", dtype=2, dims=(8, 6, 5, 2), lower=(0, 0), upper=(-2, -2), channels=4,
         pixels=16, coords=(4, 0, 0, 0), offsets=(2, 1)),
    dict(name="im2col4d_u32_midstart", dtype=2, dims=(8, 6, 5, 2), lower=(-1, -1), upper=(-1, -1), channels=8,
         pixels=40, coords=(0, 3, 2, 0), offsets=(1, 1)),
    dict(name="im2col3d_u32_rows", dtype=2, dims=(4, 20, 3), lower=(-2,), upper=(0,), channels=4, pixels=64,
         coords=(0, -2, 0), offsets=(1,)),
    dict(name="im2col5d_u32", dtype=2, dims=(4, 4, 3, 3, 2), lower=(0, 0, 0), upper=(-1, -1, -1), channels=4,
         pixels=32, coords=(0, 0, 0, 0, 0), offsets=(1, 1, 1)),
    dict(name="im2col4d_f32_nanfill", dtype=7, dims=(8, 6, 5, 2), lower=(-1, -1), upper=(-1, -1), channels=8,
         pixels=32, coords=(0, -1, -1, 0), offsets=(0, 0), oob=1, seed=31),
    dict(name="im2col4d_u32_sw128", dtype=2, dims=(32, 4, 3, 1), lower=(0, 0), upper=(0, 0), channels=32, pixels=12,
         coords=(0, 0, 0, 0), offsets=(0, 0), swizzle=3),
]


# Recorded on an H100 but rejected there (sticky CUDA_ERROR_ILLEGAL_INSTRUCTION at the copy; cause not
# yet found), so not in the catalogue: 3D f16 / 4D f64 / 5D u32 boxes, element strides (2, 3), the
# 32B/64B swizzles with a 16-byte inner box, and cp.reduce.async.bulk.tensor .add.u32 (its box started at a
# start the hardware refuses for reductions: REDUCE above). A 1D .u8 map
# of 200 elements is refused by NVIDIA's cuTensorMapEncodeTiled (CUDA_ERROR_INVALID_VALUE). CuMetal
# runs the 3D-5D and element-stride boxes: tests/async_ops checks them against numpy.


def cases() -> list[Case]:
    f32 = dict(dtype=7, dims=(40, 24))
    out = [
        _load_case("tma2d_f32_inbounds", box=(8, 8), coords=(8, 4), seed=1, **f32),
        _load_case("tma2d_f32_oob_right_bottom", box=(8, 8), coords=(36, 20), seed=2, **f32),
        _load_case("tma2d_f32_oob_negative", box=(8, 8), coords=(-4, -3), seed=3, **f32),
        _load_case("tma2d_f32_oob_all", box=(8, 8), coords=(100, -50), seed=4, **f32),
        _load_case("tma2d_f32_nanfill", box=(8, 8), coords=(36, -3), oob=1, seed=5, **f32),
        _load_case("tma2d_f32_sw32", box=(8, 8), coords=(4, 2), swizzle=1, seed=7, **f32),
        _load_case("tma2d_f32_sw64", box=(16, 8), coords=(4, 2), swizzle=2, seed=8, **f32),
        _load_case("tma2d_f32_sw128", box=(32, 8), coords=(4, 10), swizzle=3, seed=9, **f32),
        _load_case("tma2d_f32_sw128_oob", box=(32, 8), coords=(20, 20), swizzle=3, seed=10, **f32),
        _load_case("tma2d_f32_sw128_tall", box=(32, 16), coords=(0, 3), swizzle=3, seed=11, **f32),
        _load_case("tma2d_f32_sw128_narrow", box=(8, 16), coords=(0, 0), swizzle=3, seed=12, **f32),
        _load_case("tma2d_bf16_sw128", dtype=9, dims=(64, 16), box=(64, 8), coords=(0, 4), swizzle=3, seed=19),
        _load_case("tma2d_f16_sw64_nanfill", dtype=6, dims=(40, 10), box=(32, 4), coords=(16, 8), swizzle=2,
                   oob=1, seed=20),
        _load_case("tma2d_f64_nanfill", dtype=8, dims=(6, 5), box=(4, 4), coords=(4, 3), oob=1, seed=24),
        _load_case("tma2d_bf16_nanfill", dtype=9, dims=(24, 5), box=(16, 4), coords=(16, 3), oob=1, seed=25),
        _store_case("tma_store2d_f32_oob", 7, (40, 24), (8, 8), (36, 20), seed=21),
        _store_case("tma_store2d_f32_sw128", 7, (40, 24), (32, 8), (4, 2), swizzle=3, seed=22),
    ]
    out += [_im2col_case(**kw) for kw in IM2COL]
    out += [_im2col_store_case(**kw) for kw in IM2COL_STORE]
    out += [reduce_case(**kw) for kw in REDUCE]
    out += [replace_elemtype_case(n, REPLACE_CANDIDATES[n]) for n in REPLACE]
    return out
