"""The sm_100 tensor-copy modes against references written from the PTX ISA text (5.5.3.4
tile::scatter4/gather4, 5.5.5 im2col::w and im2col::w::128, incl. its wHalo and wOffset examples, made
smaller): run by test_sm100_tensor_modes.py in one interpreter per engine (CUMETAL_CPU_ENGINE=numpy,
CUMETAL_BACKEND=cpu-jit, air-sim), since the driver picks its device once per process. No GPU of ours
runs these instructions (sm_100), so the references are the ISA's rules, computed here independently
of backends/cpu/tensorcopy.py and the legalizer's loops; the PTX is checked with ptxas by the caller."""

from __future__ import annotations

import ctypes
import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from cumetal import driver as cu

HEAD = ".version 8.8\n.target sm_100a\n.address_size 64\n"
SWIZZLE_SPAN = {0: 0, 1: 32, 2: 64, 3: 128}


def kernel(copy: str, dump: int, *, store: bool = False) -> str:
    """Thread 0 issues `copy` (a load into sbuf completing on bar, or a store from sbuf pre-filled with
    byte index & 0xFF); then every thread copies 16 bytes of the dump to out."""
    threads = dump // 16
    issue = (f"""    @!%p0 bra WAITING;
    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], %r9;
{copy}
WAITING:
    mov.u32 %r40, 0;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p9, [bar], 0;
    @%p9 bra DONE;
    add.u32 %r40, %r40, 1;
    setp.lt.u32 %p8, %r40, 2097152;
    @%p8 bra WAIT;
DONE:
""" if not store else f"""    @!%p0 bra STORED;
    fence.proxy.tensormap::generic.acquire.gpu [%rd31], 128;
{copy}
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
STORED:
    bar.sync 0;
""")
    if store:  # byte i of the dump holds i & 0xFF
        fill = """    and.b32 %r5, %r0, 15;
    mul.lo.u32 %r5, %r5, 0x10101010;
    add.u32 %r3, %r5, 0x03020100;
    add.u32 %r4, %r3, 0x04040404;
    add.u32 %r6, %r3, 0x08080808;
    add.u32 %r7, %r3, 0x0C0C0C0C;
"""
    else:  # 0xCD: bytes the copy does not write show
        fill = """    mov.u32 %r3, 0xCDCDCDCD;
    mov.u32 %r4, %r3;
    mov.u32 %r6, %r3;
    mov.u32 %r7, %r3;
"""
    return HEAD + f""".visible .entry k(.param .u64 p_out, .param .u64 p_tmap, .param .u32 p_nbytes)
{{
    .reg .pred %p<10>;
    .reg .b16 %rs<4>;
    .reg .b32 %r<48>;
    .reg .b64 %rd<40>;
    .shared .align 128 .b8 sbuf[{dump}];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd30, [p_out];
    ld.param.u64 %rd31, [p_tmap];
    ld.param.u32 %r9, [p_nbytes];
    mov.u32 %r0, %tid.x;
    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
    mov.u32 %r1, sbuf;
    mad.lo.u32 %r2, %r0, 16, %r1;
{fill}    st.shared.v4.u32 [%r2], {{%r3, %r4, %r6, %r7}};
    fence.proxy.async.shared::cta;
    bar.sync 0;
{issue}    ld.shared.v4.u32 {{%r4, %r5, %r6, %r7}}, [%r2];
    mul.wide.u32 %rd2, %r0, 16;
    add.u64 %rd3, %rd30, %rd2;
    st.global.v4.u32 [%rd3], {{%r4, %r5, %r6, %r7}};
    ret;
}}
""", threads


def coords_ptx(cs: tuple[int, ...], info: tuple[int, ...] = ()) -> tuple[str, str, str]:
    movs = "".join(f"    mov.b32 %r{20 + i}, {c};\n" for i, c in enumerate(cs))
    movs += "".join(f"    mov.b16 %rs{i}, {v};\n" for i, v in enumerate(info))
    vec = "{" + ", ".join(f"%r{20 + i}" for i in range(len(cs))) + "}"
    ivec = "{" + ", ".join(f"%rs{i}" for i in range(len(info))) + "}"
    return movs, vec, ivec


def place(rows: np.ndarray, dump: int, swizzle: int, fill: int = 0xCD) -> np.ndarray:
    """Shared memory after a box of `rows` (one row per pixel or tensor row, bytes) lands at offset 0:
    rows at a pitch of max(row bytes, swizzle span), then the 16-byte chunks of each 128-byte line
    permuted by the swizzle (chunk c of line l goes to c ^ (l & mask), PTX ISA 5.5.7)."""
    out = np.full(dump, fill, dtype=np.uint8)
    inner = rows.shape[1]
    pitch = max(inner, SWIZZLE_SPAN[swizzle])
    mask = (1 << swizzle) - 1 if swizzle else 0
    for r, row in enumerate(rows):
        for j, v in enumerate(row):
            off = r * pitch + j
            line, chunk = off // 128, (off // 16) % 8
            out[(off & ~0x70) | (((chunk ^ (line & mask)) & 7) << 4)] = v
    return out


def launch(ptx: str, threads: int, tmap: cu.CUtensorMap, nbytes: int, dump: int) -> np.ndarray:
    _keep(ptx)
    mod = check(cu.cuModuleLoadData(ptx.encode()))
    fn = check(cu.cuModuleGetFunction(mod, b"k"))
    out = check(cu.cuMemAlloc(dump))
    dmap = check(cu.cuMemAlloc(128))
    check(cu.cuMemcpyHtoD(dmap, bytes(tmap), 128))
    args = ((out, dmap, nbytes), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32))
    check(cu.cuLaunchKernel(fn, 1, 1, 1, threads, 1, 1, 0, None, args, None))
    check(cu.cuCtxSynchronize())
    host = np.zeros(dump, dtype=np.uint8)
    check(cu.cuMemcpyDtoH(host, out, dump))
    for p in (out, dmap):
        check(cu.cuMemFree(p))
    check(cu.cuModuleUnload(mod))
    return host


def _keep(ptx: str) -> None:
    """With SM100_PTX_DIR set, each kernel's PTX is written there (the caller assembles it with ptxas)."""
    where = os.environ.get("SM100_PTX_DIR")
    if where:
        name = hashlib.sha256(ptx.encode()).hexdigest()[:16]
        (Path(where) / f"{name}.ptx").write_text(ptx)


def check(result):
    err, *rest = result
    assert int(err) == 0, f"{cu.CUresult(err).name}: {cu.last_error_message()}"
    return rest[0] if len(rest) == 1 else tuple(rest) if rest else None


@pytest.fixture(autouse=True)
def ctx():
    check(cu.cuInit(0))
    c = check(cu.cuCtxCreate(None, 0, check(cu.cuDeviceGet(0))))
    yield c
    check(cu.cuCtxDestroy(c))


def _strides(dims: tuple[int, ...], esize: int) -> list[int]:
    out, acc = [], dims[0] * esize
    for d in dims[1:]:
        acc = (acc + 15) // 16 * 16
        out.append(acc)
        acc *= d
    return out


# ------------------------------------------------------------------ tile::gather4 / tile::scatter4
GATHER = [  # (name, dims (cols, rows), box cols, start col, rows, swizzle)
    ("inbounds", (40, 24), 16, 8, (2, 5, 0, 9), 0),  # the ISA's figure: rows 2, 5, 0, 9
    ("oob_rows_and_cols", (40, 24), 16, 32, (23, 24, -1, 7), 0),
    ("sw128", (64, 12), 32, 0, (11, 3, 3, 6), 3),
]


def _tensor_u32(dims: tuple[int, ...]) -> tuple[np.ndarray, list[int]]:
    strides = _strides(dims, 4)
    count = strides[-1] * dims[-1] // 4
    return np.arange(1, count + 1, dtype=np.uint32), strides


@pytest.mark.parametrize("case", GATHER, ids=lambda c: c[0])
def test_gather4_loads_four_rows(case) -> None:
    _name, dims, box, col, rows, swizzle = case
    data, strides = _tensor_u32(dims)
    t = check(cu.cuMemAlloc(data.nbytes))
    check(cu.cuMemcpyHtoD(t, data, data.nbytes))
    tmap = check(cu.cuTensorMapEncodeTiled(2, 2, int(t), list(dims), strides, [box, 1], [1, 1], 0, swizzle, 0, 0))
    movs, vec, _ = coords_ptx((col, *rows))
    copy = (f"{movs}    cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes "
            f"[sbuf], [%rd31, {vec}], [bar];")
    dump = 2048
    ptx, threads = kernel(copy, dump)
    got = launch(ptx, threads, tmap, 4 * box * 4, dump)
    pitch_words = strides[0] // 4
    want_rows = np.zeros((4, box), dtype=np.uint32)
    for k, r in enumerate(rows):
        for i in range(box):
            c = col + i
            if 0 <= r < dims[1] and 0 <= c < dims[0]:
                want_rows[k, i] = data[r * pitch_words + c]
    np.testing.assert_array_equal(got, place(want_rows.view(np.uint8).reshape(4, -1), dump, swizzle))
    check(cu.cuMemFree(t))


def test_scatter4_stores_four_rows() -> None:
    dims, box, col, rows = (40, 24), 8, 30, (4, 23, 30, 0)  # row 30 lies outside: not written
    data, strides = _tensor_u32(dims)
    t = check(cu.cuMemAlloc(data.nbytes))
    check(cu.cuMemcpyHtoD(t, data, data.nbytes))
    tmap = check(cu.cuTensorMapEncodeTiled(2, 2, int(t), list(dims), strides, [box, 1], [1, 1], 0, 0, 0, 0))
    movs, vec, _ = coords_ptx((col, *rows))
    copy = f"{movs}    cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd31, {vec}], [sbuf];"
    ptx, threads = kernel(copy, 256, store=True)
    launch(ptx, threads, tmap, 0, 256)
    got = np.zeros_like(data)
    check(cu.cuMemcpyDtoH(got, t, data.nbytes))
    want = data.copy()
    shared = np.arange(256, dtype=np.uint32).astype(np.uint8).view(np.uint32)  # byte i holds i & 0xFF
    pitch_words = strides[0] // 4
    for k, r in enumerate(rows):
        for i in range(box):
            if 0 <= r < dims[1] and col + i < dims[0]:
                want[r * pitch_words + col + i] = shared[k * box + i]
    np.testing.assert_array_equal(got, want)
    check(cu.cuMemFree(t))


# ------------------------------------------------------------------ im2col::w / im2col::w::128
def w_walk(dims, lower: int, upper: int, stride: int, w: int, n: int, count: int, woffset: int) -> list[tuple]:
    """The ISA's W-only walk: W from w + wOffset in steps of the traversal stride inside the bounding box
    [lower + wOffset, W - 1 + upper + wOffset], then the next image from the box's left edge."""
    lo, hi = lower + woffset, dims[1] - 1 + upper + woffset
    out, pos = [], w + woffset
    while len(out) < count:
        if pos > hi:
            n, pos = n + 1, lo
        out.append((pos, n))
        pos += stride
    return out


WIDE = [  # name, mode (0 W, 1 W128), dims (C, W, H, N), lower, upper, pixels, stride, coords, halo, woffset, swizzle
    # the ISA's wHalo example (C 128, W 9, H 7, N 64, 128 px at (7, 2, 3, 0), wHalo 2), made smaller
    ("whalo_example", 0, (8, 9, 3, 4), 0, 0, 16, 1, (0, 2, 1, 0), 2, 0, 1),
    # the ISA's wOffset example 1 (W 67, corners -1/0, traversal stride 2, w = -1): buffer 1 and buffer 2
    ("woffset_buffer1", 0, (8, 11, 2, 3), -1, 0, 12, 2, (0, -1, 1, 0), 1, 0, 1),
    ("woffset_buffer2", 0, (8, 11, 2, 3), -1, 0, 12, 2, (0, -1, 1, 0), 0, 1, 1),
    # wOffset example 2 (corners -1/-1, stride 3), buffer 3; channels from 4 on: 4 of them past C
    ("woffset_ex2_buffer3", 0, (8, 7, 2, 4), -1, -1, 9, 3, (4, -1, 0, 0), 0, 2, 1),
    ("w128_halo", 1, (4, 20, 2, 8), 0, 0, 0, 1, (0, 3, 1, 1), 2, 0, 1),
    ("w_3d_nwc_sw64", 0, (16, 10, 3), -2, 1, 10, 1, (0, -2, 0), 3, 1, 2),
]


@pytest.mark.parametrize("case", WIDE, ids=lambda c: c[0])
def test_im2col_w_loads_the_isas_pixels(case) -> None:
    _name, mode, dims, lower, upper, pixels, stride, coords, halo, woffset, swizzle = case
    rank = len(dims)
    data, strides = _tensor_u32(dims)
    t = check(cu.cuMemAlloc(data.nbytes))
    check(cu.cuMemcpyHtoD(t, data, data.nbytes))
    channels = dims[0]
    est = [1, stride] + [1] * (rank - 2)
    tmap = check(cu.cuTensorMapEncodeIm2colWide(2, rank, int(t), list(dims), strides, lower, upper, channels,
                                                 pixels or 1, est, 0, mode, swizzle, 0, 0))
    n_main = 128 if mode else pixels
    walk = w_walk(dims, lower, upper, stride, coords[1], coords[-1], n_main + (32 if mode else halo), woffset)
    order = walk[:pixels + halo] if not mode else [walk[g * 32 + k] for g in range(4) for k in range(32 + halo)]
    rows = np.zeros((len(order), channels), dtype=np.uint32)
    words = [1, *(s // 4 for s in strides)]
    fixed = coords[2:rank - 1]
    for p, (w, n) in enumerate(order):
        for i in range(channels):
            c = coords[0] + i
            inside = 0 <= c < dims[0] and 0 <= w < dims[1] and 0 <= n < dims[-1] and \
                all(0 <= h < dims[2 + k] for k, h in enumerate(fixed))
            if inside:
                rows[p, i] = data[c + w * words[1] + n * words[rank - 1] + sum(h * words[2 + k] for k, h in
                                                                               enumerate(fixed))]
    nbytes = rows.nbytes
    pitch = max(channels * 4, SWIZZLE_SPAN[swizzle])
    dump = max(2048, -(-len(order) * pitch // 2048) * 2048)
    movs, vec, ivec = coords_ptx(coords, (halo, woffset))
    wmode = "im2col::w::128" if mode else "im2col::w"
    copy = (f"{movs}    cp.async.bulk.tensor.{rank}d.shared::cta.global.{wmode}.mbarrier::complete_tx::bytes "
            f"[sbuf], [%rd31, {vec}], [bar], {ivec};")
    ptx, threads = kernel(copy, dump)
    got = launch(ptx, threads, tmap, nbytes, dump)
    np.testing.assert_array_equal(got, place(rows.view(np.uint8).reshape(len(order), -1), dump, swizzle))
    check(cu.cuMemFree(t))


def test_im2col_w_copy_with_a_tile_map_is_an_illegal_instruction() -> None:
    data, strides = _tensor_u32((8, 9, 3, 4))
    t = check(cu.cuMemAlloc(data.nbytes))
    tmap = check(cu.cuTensorMapEncodeTiled(2, 4, int(t), [8, 9, 3, 4], strides, [8, 4, 1, 1], [1] * 4, 0, 1, 0, 0))
    movs, vec, ivec = coords_ptx((0, 0, 0, 0), (0, 0))
    copy = (f"{movs}    cp.async.bulk.tensor.4d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes "
            f"[sbuf], [%rd31, {vec}], [bar], {ivec};")
    ptx, threads = kernel(copy, 2048)
    _keep(ptx)
    mod = check(cu.cuModuleLoadData(ptx.encode()))
    fn = check(cu.cuModuleGetFunction(mod, b"k"))
    out, dmap = check(cu.cuMemAlloc(2048)), check(cu.cuMemAlloc(128))
    check(cu.cuMemcpyHtoD(dmap, bytes(tmap), 128))
    args = ((out, dmap, 0), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32))
    err = cu.cuLaunchKernel(fn, 1, 1, 1, threads, 1, 1, 0, None, args, None)[0]
    if int(err) == 0:
        err = cu.cuCtxSynchronize()[0]
    assert err == cu.CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION
