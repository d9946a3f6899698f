"""Data movement and conversion instructions (PTX ISA manual §9.7.9), including the asynchronous
bulk / tensor copies, multimem and tensormap families."""

from __future__ import annotations

from cumetal.ptx.isa.sets import FLOATS, NARROW_FP, I

_LDST_TYPES = ("b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
               "f32", "f64", "f16", "f16x2", "bf16", "bf16x2")
_MOV_TYPES = ("pred", "b16", "b32", "b64", "b128", "u16", "u32", "u64", "s16", "s32", "s64", "f32",
              "f64", "f16", "f16x2", "bf16", "bf16x2")
_CVT_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bf16", "f16", "f32", "f64")
_CVTA_SPACES = ("const", "global", "local", "shared", "shared::cta", "shared::cluster", "param",
                "param::entry")
_F8X2 = ("e4m3x2", "e5m2x2")
_F6X2 = ("e2m3x2", "e3m2x2")
_F4X2 = ("e2m1x2",)
_LDSEM = {"lsem": ("relaxed", "acquire")}
_REDOPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")
_DIMS = ("1d", "2d", "3d", "4d", "5d")
_LOAD_MODE = ("tile", "tile::gather4", "tile::scatter4", "im2col", "im2col::w", "im2col::w::128",
              "im2col_no_offs")
_BULK_SPACES = ("global", "shared::cta", "shared::cluster", "shared")
_L2_EVICT = ("L2::evict_normal", "L2::evict_first", "L2::evict_last")
_MULTIMEM_TYPES = _LDST_TYPES + NARROW_FP + ("e4m3x2", "e5m2x2", "e4m3x4", "e5m2x4")

ENTRIES = [
    I("mov", "mov{.vec}.type d, a", type=_MOV_TYPES, vec=("v2", "v4")),
    I(
        "ld",
        "ld{.weak}{.ss}{.cop}{.cache_hint}{.prefetch_size}{.vec}.type d, [a]{, cache_policy}",
        "ld{.weak}{.ss}{.evict}{.evict2}{.cache_hint}{.prefetch_size}{.vec}.type d, [a]{, cache_policy}",
        "ld.volatile{.ss}{.prefetch_size}{.vec}.type d, [a]",
        ("ld.lsem.scope{.ss}{.evict}{.evict2}{.cache_hint}{.prefetch_size}{.vec}.type d, [a]{, cache_policy}",
         _LDSEM),
        "ld.mmio.relaxed.sys{.global}.type d, [a]",
        "ld.global{.cop}.nc{.cache_hint}{.prefetch_size}{.vec}.type d, [a]{, cache_policy}",
        "ld.global.nc{.evict}{.evict2}{.cache_hint}{.prefetch_size}{.vec}.type d, [a]{, cache_policy}",
        cop=("ca", "cg", "cs", "lu", "cv"), type=_LDST_TYPES, evict2=_L2_EVICT,
    ),
    I("ldu", "ldu{.ss}{.vec}.type d, [a]", ss=("global",), type=_LDST_TYPES),
    I(
        "st",
        "st{.weak}{.ss}{.cop}{.cache_hint}{.vec}.type [a], b{, cache_policy}",
        "st{.weak}{.ss}{.evict}{.evict2}{.cache_hint}{.vec}.type [a], b{, cache_policy}",
        "st.volatile{.ss}{.vec}.type [a], b",
        ("st.ssem.scope{.ss}{.evict}{.evict2}{.cache_hint}{.vec}.type [a], b{, cache_policy}",
         {"ssem": ("relaxed", "release")}),
        "st.mmio.relaxed.sys{.global}.type [a], b",
        cop=("wb", "cg", "cs", "wt"), type=_LDST_TYPES, evict2=_L2_EVICT,
    ),
    I("st.async",
      "st.async{.sem}{.scope}{.ss}{.completion}{.vec}.type [a], b{, [mbar]}",
      sem=("weak", "release"), type=_LDST_TYPES),
    I("st.bulk", "st.bulk{.weak}{.ss} [a], size, initval", ss=("shared::cta",)),
    I("multimem.ld_reduce",
      "multimem.ld_reduce{.sem}{.scope}{.ss}.op{.acc_prec}{.vec}.type d, [a]",
      sem=("weak", "relaxed", "acquire"), ss=("global",), op=("min", "max", "add", "and", "or", "xor"),
      acc_prec=("acc::f32", "acc::f16"), type=_MULTIMEM_TYPES),
    I("multimem.st", "multimem.st{.sem}{.scope}{.ss}{.vec}.type [a], b",
      sem=("weak", "relaxed", "release"), ss=("global",), type=_MULTIMEM_TYPES),
    I("multimem.red", "multimem.red{.sem}{.scope}{.ss}.op{.vec}.type [a], b",
      sem=("relaxed", "release"), ss=("global",), op=_REDOPS, type=_LDST_TYPES),
    I("multimem.cp.async.bulk", "multimem.cp.async.bulk.dst.src.bulk_group{.cache_hint} "
      "[dst], [src], size{, cache_policy}", dst=("global",), src=("shared::cta",)),
    I("multimem.cp.reduce.async.bulk",
      "multimem.cp.reduce.async.bulk.dst.src.bulk_group.op.type [dst], [src], size",
      dst=("global",), src=("shared::cta",), op=_REDOPS, type=_LDST_TYPES),
    I("prefetch", "prefetch{.space}.level [a]", "prefetch.global.evict_level [a]",
      "prefetch{.tmspace}.tensormap [a]",
      space=("global", "local"), level=("L1", "L2"), evict_level=("L2::evict_last", "L2::evict_normal"),
      tmspace=("const", "param")),
    I("prefetchu", "prefetchu.L1 [a]"),
    I("applypriority", "applypriority{.global}.level::eviction_priority [a], size",
      **{"level::eviction_priority": ("L2::evict_normal",)}),
    I("discard", "discard{.global}.L2 [a], size"),
    I(
        "createpolicy",
        "createpolicy.fractional.primary{.secondary}.b64 policy{, fraction}",
        "createpolicy.range{.global}.primary{.secondary}.b64 policy, [a], primary_size, total_size",
        "createpolicy.cvt.L2.b64 d, a",
        primary=("L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged"),
        secondary=("L2::evict_first", "L2::evict_unchanged"),
    ),
    I("isspacep", "isspacep.space p, a", space=_CVTA_SPACES),
    I("cvta", "cvta{.to}.space.size d, a", space=_CVTA_SPACES, size=("u32", "u64")),
    I(
        "cvt",
        "cvt{.irnd}{.ftz}{.sat}.dtype.atype d, a",
        "cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a",
        ("cvt.frnd2{.relu}{.satfinite}.dtype.atype d, a",
         {"dtype": ("f16", "bf16", "tf32"), "atype": ("f32",)}),
        ("cvt.frnd2{.relu}{.satfinite}.dtype.atype d, a, b",
         {"dtype": ("f16x2", "bf16x2"), "atype": ("f32",)}),
        ("cvt.rs{.relu}{.satfinite}.dtype.atype d, a, b, rbits",
         {"dtype": ("f16x2", "bf16x2"), "atype": ("f32",)}),
        ("cvt.rna{.satfinite}.dtype.atype d, a", {"dtype": ("tf32",), "atype": ("f32",)}),
        ("cvt.rn.satfinite{.relu}.dtype.atype d, a, b",
         {"dtype": _F8X2 + _F6X2 + _F4X2, "atype": ("f32",)}),
        ("cvt.rn.satfinite{.relu}.dtype.atype d, a", {"dtype": _F8X2, "atype": ("f16x2",)}),
        ("cvt.rn{.relu}.dtype.atype d, a", {"dtype": ("f16x2",), "atype": _F8X2 + _F6X2 + _F4X2}),
        ("cvt.rs{.relu}.satfinite.dtype.atype d, a, rbits",
         {"dtype": ("e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"), "atype": ("f32",)}),
        ("cvt.frnd3{.satfinite}.dtype.atype d, a{, b}",
         {"dtype": ("ue8m0x2",), "atype": ("f32", "bf16x2")}),
        ("cvt.rn.dtype.atype d, a", {"dtype": ("bf16x2",), "atype": ("ue8m0x2",)}),
        ("cvt.rn.satfinite{.relu}.dtype.atype d, a", {"dtype": ("s2f6x2",), "atype": ("f32",)}),
        dtype=_CVT_TYPES, atype=_CVT_TYPES, frnd2=("rn", "rz"), frnd3=("rz", "rp"),
    ),
    I("cvt.pack", "cvt.pack.sat.ctype.abtype d, a, b", "cvt.pack.sat.ctype.abtype.cvtype d, a, b, c",
      ctype=("u16", "s16", "u2", "s2", "u4", "s4", "u8", "s8"), abtype=("s32",), cvtype=("b32",)),
    I("mapa", "mapa{.space}.type d, a, b", space=("shared::cluster",), type=("u32", "u64")),
    I("getctarank", "getctarank{.space}.type d, a", space=("shared::cluster",), type=("u32", "u64")),
    I("shfl", "shfl.sync.mode.b32 d{|p}, a, b, c, membermask", "shfl.mode.b32 d{|p}, a, b, c",
      mode=("up", "down", "bfly", "idx")),
    I("prmt", "prmt.b32{.mode} d, a, b, c", mode=("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")),
    I("cp.async",
      "cp.async.cop.dst.src{.cache_hint}{.prefetch_size} [dst], [src], size{, src_size}{, cache_policy}",
      cop=("ca", "cg"), dst=("shared", "shared::cta"), src=("global",)),
    I("cp.async.commit_group", "cp.async.commit_group"),
    I("cp.async.wait_group", "cp.async.wait_group n"),
    I("cp.async.wait_all", "cp.async.wait_all"),
    I("cp.async.mbarrier.arrive", "cp.async.mbarrier.arrive{.noinc}{.ss}.b64 [addr]",
      ss=("shared", "shared::cta")),
    I("cp.async.bulk",
      "cp.async.bulk.dst.src.completion{.multicast}{.cache_hint} [dst], [src], size, [mbar]"
      "{, cta_mask}{, cache_policy}",
      "cp.async.bulk.dst.src.bulk_group{.cache_hint}{.cp_mask} [dst], [src], size{, cache_policy}"
      "{, byte_mask}",
      dst=_BULK_SPACES, src=_BULK_SPACES, cp_mask=("cp_mask",)),
    I("cp.reduce.async.bulk",
      "cp.reduce.async.bulk.dst.src.completion.redop{.noftz}.type [dst], [src], size, [mbar]",
      "cp.reduce.async.bulk.dst.src.bulk_group{.cache_hint}.redop{.noftz}.type [dst], [src], size"
      "{, cache_policy}",
      dst=_BULK_SPACES, src=_BULK_SPACES, redop=_REDOPS,
      type=("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64", "f16", "bf16")),
    I("cp.async.bulk.tensor",
      "cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion{.cta_group}{.multicast}{.cache_hint} "
      "[dst], [tmap], [mbar]{, im2col_info}{, cta_mask}{, cache_policy}",
      "cp.async.bulk.tensor.dim.dst.src{.load_mode}.bulk_group{.cache_hint} [tmap], [src]"
      "{, cache_policy}",
      dim=_DIMS, dst=_BULK_SPACES, src=_BULK_SPACES, load_mode=_LOAD_MODE),
    I("cp.reduce.async.bulk.tensor",
      "cp.reduce.async.bulk.tensor.dim.dst.src.redop{.load_mode}.bulk_group{.cache_hint} "
      "[tmap], [src]{, cache_policy}",
      dim=_DIMS, dst=("global",), src=("shared::cta",), redop=_REDOPS, load_mode=_LOAD_MODE),
    I("cp.async.bulk.prefetch", "cp.async.bulk.prefetch.L2.src{.cache_hint} [src], size{, cache_policy}",
      src=("global",)),
    I("cp.async.bulk.prefetch.tensor",
      "cp.async.bulk.prefetch.tensor.dim.L2.src{.load_mode}{.cache_hint} [tmap]{, im2col_info}"
      "{, cache_policy}",
      dim=_DIMS, src=("global",), load_mode=_LOAD_MODE),
    I("cp.async.bulk.commit_group", "cp.async.bulk.commit_group"),
    I("cp.async.bulk.wait_group", "cp.async.bulk.wait_group{.read} n"),
    I("tensormap.replace",
      "tensormap.replace.mode.field{.ss}.objtype.type [addr], new_val",
      "tensormap.replace.mode.field{.ss}.objtype.type [addr], ord, new_val",
      mode=("tile",), ss=("global", "shared::cta"), objtype=("b1024",), type=("b32", "b64"),
      field=("global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
             "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode")),
    I("tensormap.cp_fenceproxy",
      "tensormap.cp_fenceproxy.dst.src.proxy.release.scope.sync.aligned [dst], [src], size",
      dst=("global",), src=("shared::cta",), proxy=("tensormap::generic",)),
    I("stmatrix", "stmatrix.sync.aligned.shape.num{.trans}{.ss}.type [p], r",
      shape=("m8n8", "m16n8"), num=("x1", "x2", "x4"), ss=("shared", "shared::cta"),
      type=("b16", "b8")),
    I("ldmatrix", "ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type{.src_fmt} r, [p]",
      shape=("m8n8", "m16n16", "m8n16"), num=("x1", "x2", "x4"), ss=("shared", "shared::cta"),
      type=("b16", "b8", "b8x16"), src_fmt=("b6x16_p32", "b4x16_p64")),
    I("movmatrix", "movmatrix.sync.aligned.m8n8.trans.b16 d, a"),
    I("alloca", "alloca{.local}.type ptr, size{, align}", type=("u32", "u64")),
    I("stacksave", "stacksave.type d", type=("u32", "u64")),
    I("stackrestore", "stackrestore.type a", type=("u32", "u64")),
]

__all__ = ["ENTRIES", "FLOATS"]
