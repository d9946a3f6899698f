"""Warp-level and warpgroup-level matrix instructions, and the tcgen05 family
(PTX ISA manual §9.7.14–§9.7.16)."""

from __future__ import annotations

from cumetal.ptx.isa.sets import NARROW_FP, I

_MMA_TYPES = ("f16", "f32", "f64", "bf16", "tf32", "s8", "u8", "s4", "u4", "b1", "s32") + NARROW_FP
_WMMA_SHAPES = ("m16n16k16", "m8n32k16", "m32n8k16", "m16n16k8", "m8n8k32", "m8n8k128", "m8n8k4")
_MMA_SHAPES = ("m8n8k4", "m8n8k16", "m8n8k32", "m8n8k128", "m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32",
               "m16n8k64", "m16n8k128", "m16n8k256")
_LAYOUT = ("row", "col")
_WGMMA_SHAPES = tuple(f"m64n{n}k{k}" for k in (8, 16, 32, 256) for n in range(8, 257, 8))
_KIND = ("kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8", "kind::mxf8f6f4", "kind::mxf4",
         "kind::mxf4nvf4")
_SCALE_VEC = ("scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32")

ENTRIES = [
    I("wmma.load", "wmma.load.frag.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}",
      frag=("a", "b", "c"), layout=_LAYOUT, shape=_WMMA_SHAPES,
      ss=("global", "shared", "shared::cta", "generic"), type=_MMA_TYPES),
    I("wmma.store", "wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}",
      layout=_LAYOUT, shape=_WMMA_SHAPES, ss=("global", "shared", "shared::cta", "generic"),
      type=("f16", "f32", "s32", "f64")),
    I("wmma.mma",
      "wmma.mma.sync.aligned.alayout.blayout.shape{.rnd}.dtype.ctype{.satfinite} d, a, b, c",
      "wmma.mma.sync.aligned.alayout.blayout.shape{.rnd}.dtype.atype.btype.ctype{.satfinite} d, a, b, c",
      ("wmma.mma.bop.popc.sync.aligned.alayout.blayout.shape.s32.b1.b1.s32 d, a, b, c",
       {"alayout": ("row",), "blayout": ("col",), "shape": ("m8n8k128",)}),
      alayout=_LAYOUT, blayout=_LAYOUT, shape=_WMMA_SHAPES, dtype=_MMA_TYPES, atype=_MMA_TYPES,
      btype=_MMA_TYPES, ctype=_MMA_TYPES, bop=("xor", "and")),
    I("mma",
      "mma.sync.aligned.shape{.alayout}{.blayout}{.kind}{.block_scale}{.scale_vec}{.satfinite}"
      "{.rnd}.dtype.atype.btype.ctype{.stype} d, a, b, c{, sa}{, ida}{, sb}{, idb}",
      ("mma.sync.aligned.shape.alayout.blayout.s32.b1.b1.s32.bop.popc d, a, b, c",
       {"alayout": ("row",), "blayout": ("col",)}),
      "mma.sp_kind.sync.aligned.shape.alayout.blayout{.kind}{.block_scale}{.scale_vec}{.satfinite}"
      ".dtype.atype.btype.ctype{.stype} d, a, b, c, e, f{, sa}{, ida}{, sb}{, idb}",
      shape=_MMA_SHAPES + ("m16n8k48",), alayout=_LAYOUT, blayout=_LAYOUT, kind=_KIND,
      block_scale=("block_scale",), scale_vec=_SCALE_VEC, dtype=_MMA_TYPES, atype=_MMA_TYPES,
      btype=_MMA_TYPES, ctype=_MMA_TYPES, stype=("ue8m0", "ue4m3"), bop=("xor", "and"),
      sp_kind=("sp", "sp::ordered_metadata")),
    I("wgmma.fence", "wgmma.fence.sync.aligned"),
    I("wgmma.commit_group", "wgmma.commit_group.sync.aligned"),
    I("wgmma.wait_group", "wgmma.wait_group.sync.aligned n"),
    I("wgmma.mma_async",
      "wgmma.mma_async.sync.aligned.shape{.satfinite}.dtype.atype.btype d, *a, b, scale_d"
      "{, imm_scale_a}{, imm_scale_b}{, imm_trans_a}{, imm_trans_b}",
      "wgmma.mma_async.sync.aligned.shape.s32.b1.b1.bop.popc d, *a, b, scale_d",
      shape=_WGMMA_SHAPES, dtype=("f16", "f32", "s32"), atype=_MMA_TYPES, btype=_MMA_TYPES,
      bop=("and",)),
    I("wgmma.mma_async.sp",
      "wgmma.mma_async.sp.sync.aligned.shape{.satfinite}.dtype.atype.btype d, *a, b, sp_meta, sp_sel, "
      "scale_d{, imm_scale_a}{, imm_scale_b}{, imm_trans_a}{, imm_trans_b}",
      shape=_WGMMA_SHAPES, dtype=("f16", "f32", "s32"), atype=_MMA_TYPES, btype=_MMA_TYPES),
    # tcgen05 (sm_100a): described broadly — operands are checked by kind and count only
    I("tcgen05.alloc", "tcgen05.alloc.cta_group.sync.aligned{.ss}.b32 [dst], ncols", ss=("shared::cta",)),
    I("tcgen05.dealloc", "tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, ncols"),
    I("tcgen05.relinquish_alloc_permit", "tcgen05.relinquish_alloc_permit.cta_group.sync.aligned"),
    I("tcgen05.ld",
      "tcgen05.ld.sync.aligned.shape.num{.pack}.b32 r, [taddr]{, imm_half_splitoff}",
      "tcgen05.ld.red.sync.aligned.shape.num.redop{.abs}{.NaN}.type r, redval, [taddr]"
      "{, imm_half_splitoff}",
      shape=("16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2"),
      num=tuple(f"x{n}" for n in (1, 2, 4, 8, 16, 32, 64, 128)), pack=("pack::16b",),
      redop=("min", "max"), type=("f32", "s32", "u32")),
    I("tcgen05.st",
      "tcgen05.st.sync.aligned.shape.num{.unpack}.b32 [taddr], r",
      "tcgen05.st.sync.aligned.shape.num{.unpack}.b32 [taddr], imm_half_splitoff, r",
      shape=("16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2"),
      num=tuple(f"x{n}" for n in (1, 2, 4, 8, 16, 32, 64, 128)), unpack=("unpack::16b",)),
    I("tcgen05.wait::ld", "tcgen05.wait::ld.sync.aligned"),
    I("tcgen05.wait::st", "tcgen05.wait::st.sync.aligned"),
    I("tcgen05.cp", "tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt}{.src_fmt} [taddr], s_desc",
      shape=("128x256b", "4x256b", "128x128b", "64x128b", "32x128b"),
      multicast=("warpx2::02_13", "warpx2::01_23", "warpx4"), dst_fmt=("b8x16",),
      src_fmt=("b6x16_p32", "b4x16_p64")),
    I("tcgen05.shift", "tcgen05.shift.cta_group.down [taddr]"),
    I("tcgen05.mma",
      "tcgen05.mma{.ws}{.sp}.cta_group.kind{.block_scale}{.scale_vec}{.collector}{.ashift} [d], *a, b, "
      "*c{, *e}{, *f}{, *g}{, *h}{, *i}{, *j}",
      ws=("ws",), sp=("sp",), kind=_KIND, block_scale=("block_scale",), scale_vec=_SCALE_VEC,
      collector=tuple(f"collector::{b}::{u}" for b in ("a", "b0", "b1", "b2", "b3")
                      for u in ("fill", "use", "lastuse", "discard")),
      ashift=("ashift",)),
    I("tcgen05.commit",
      "tcgen05.commit.cta_group.completion{.ss}{.multicast}.b64 [mbar]{, cta_mask}",
      completion=("mbarrier::arrive::one",), ss=("shared::cluster",), multicast=("multicast::cluster",)),
    I("tcgen05.fence::before_thread_sync", "tcgen05.fence::before_thread_sync"),
    I("tcgen05.fence::after_thread_sync", "tcgen05.fence::after_thread_sync"),
]
