"""Control flow, parallel synchronization and communication, and miscellaneous instructions
(PTX ISA manual §9.7.12–§9.7.13, §9.7.19)."""

from __future__ import annotations

from cumetal.ptx.isa.sets import I

_ATOM_TYPES = ("b16", "b32", "b64", "b128", "u32", "u64", "s32", "s64", "f32", "f64")
_ATOM_OPS = ("and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max")
_RED_OPS = ("and", "or", "xor", "add", "inc", "dec", "min", "max")
_HALF = ("f16", "f16x2", "bf16", "bf16x2")
_ATOM_SPACES = ("global", "shared", "shared::cta", "shared::cluster")
_MBAR_SPACES = ("shared", "shared::cta", "shared::cluster")

ENTRIES_CONTROL = [
    I("bra", "bra{.uni} tgt"),
    I("brx.idx", "brx.idx{.uni} index, tlist"),
    I("call",
      "call{.uni} (ret), func, (args){, proto}",
      "call{.uni} (ret), func{, proto}",
      "call{.uni} func, (args){, proto}",
      "call{.uni} func{, proto}"),
    I("ret", "ret{.uni}"),
    I("exit", "exit"),
]

ENTRIES_SYNC = [
    I("bar",
      "bar{.cta}.sync a{, b}",
      "bar{.cta}.arrive a, b",
      "bar{.cta}.red.popc.u32 d, a, b{, c}",
      "bar{.cta}.red.op.pred p, a, b{, c}",
      op=("and", "or")),
    I("barrier",
      "barrier{.cta}.sync{.aligned} a{, b}",
      "barrier{.cta}.arrive{.aligned} a, b",
      "barrier{.cta}.red.popc{.aligned}.u32 d, a, b{, c}",
      "barrier{.cta}.red.op{.aligned}.pred p, a, b{, c}",
      op=("and", "or")),
    I("bar.warp.sync", "bar.warp.sync membermask"),
    I("barrier.cluster", "barrier.cluster.arrive{.sem}{.aligned}", "barrier.cluster.wait{.acquire}{.aligned}",
      sem=("release", "relaxed")),
    I("membar", "membar.level", "membar.proxy.proxykind{.pspace}", level=("cta", "gl", "sys"),
      proxykind=("alias", "async"), pspace=("global", "shared::cta", "shared::cluster")),
    I("fence",
      "fence{.fsem}.scope",
      "fence.mbarrier_init.release.cluster",
      "fence.proxy.proxykind{.pspace}",
      "fence.proxy.tmproxy.release.scope",
      "fence.proxy.tmproxy.acquire.scope [addr], size",
      "fence.proxy.async::generic.psem.sync_restrict.cluster",
      "fence{.fsem}.sync_restrict.cluster",
      fsem=("sc", "acq_rel", "acquire", "release"), proxykind=("alias", "async"),
      pspace=("global", "shared::cta", "shared::cluster"), tmproxy=("tensormap::generic",),
      psem=("acquire", "release"), sync_restrict=("sync_restrict::shared::cluster",
                                                   "sync_restrict::shared::cta")),
    I("atom",
      "atom{.sem}{.scope}{.ss}.op{.cache_hint}.type d, [a], b{, c}{, cache_policy}",
      "atom{.sem}{.scope}{.ss}.op.noftz{.cache_hint}.htype d, [a], b{, cache_policy}",
      "atom{.sem}{.scope}{.ss}.op{.noftz}{.cache_hint}.vec.vtype d, [a], b{, cache_policy}",
      sem=("relaxed", "acquire", "release", "acq_rel"), ss=_ATOM_SPACES, op=_ATOM_OPS,
      type=_ATOM_TYPES, htype=_HALF, vtype=("f32",) + _HALF),
    I("red",
      "red{.sem}{.scope}{.ss}.op{.cache_hint}.type [a], b{, cache_policy}",
      "red{.sem}{.scope}{.ss}.op.noftz{.cache_hint}.htype [a], b{, cache_policy}",
      "red{.sem}{.scope}{.ss}.op{.noftz}{.cache_hint}.vec.vtype [a], b{, cache_policy}",
      sem=("relaxed", "release"), ss=_ATOM_SPACES, op=_RED_OPS,
      type=_ATOM_TYPES, htype=_HALF, vtype=("f32",) + _HALF),
    I("red.async",
      "red.async{.sem}{.scope}{.ss}{.completion}.op{.noftz}{.cache_hint}{.vec}.type [a], b{, [mbar]}",
      sem=("relaxed", "release"), ss=_ATOM_SPACES, op=_RED_OPS,
      type=("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64") + _HALF),
    I("vote",
      "vote.mode.pred d, a",
      "vote.ballot.b32 d, a",
      "vote.sync.mode.pred d, a, membermask",
      "vote.sync.ballot.b32 d, a, membermask",
      mode=("all", "any", "uni")),
    I("match", "match.any.sync.type d, a, membermask", "match.all.sync.type d{|p}, a, membermask",
      type=("b32", "b64")),
    I("activemask", "activemask.b32 d"),
    I("redux",
      "redux.sync.op.type d, a, membermask",
      "redux.sync.bop.b32 d, a, membermask",
      "redux.sync.fop{.abs}{.NaN}.f32 d, a, membermask",
      op=("add", "min", "max"), type=("u32", "s32"), bop=("and", "or", "xor"), fop=("min", "max")),
    I("griddepcontrol", "griddepcontrol.action", action=("launch_dependents", "wait")),
    I("elect", "elect.sync d{|p}, membermask"),
    I("mbarrier.init", "mbarrier.init{.ss}.b64 [addr], count", ss=_MBAR_SPACES),
    I("mbarrier.inval", "mbarrier.inval{.ss}.b64 [addr]", ss=_MBAR_SPACES),
    I("mbarrier.expect_tx", "mbarrier.expect_tx{.sem}{.scope}{.ss}.b64 [addr], tx_count",
      sem=("relaxed",), ss=_MBAR_SPACES),
    I("mbarrier.complete_tx", "mbarrier.complete_tx{.sem}{.scope}{.ss}.b64 [addr], tx_count",
      sem=("relaxed",), ss=_MBAR_SPACES),
    *(
        I(op,
          f"{op}{{.expect_tx}}{{.noComplete}}{{.sem}}{{.scope}}{{.ss}}.b64 state, [addr]{{, count}}",
          sem=("release", "relaxed"), ss=_MBAR_SPACES)
        for op in ("mbarrier.arrive", "mbarrier.arrive_drop")
    ),
    *(
        I(op, f"{op}{{.parity}}{{.sem}}{{.scope}}{{.ss}}.b64 waitcomplete, [addr], state{{, hint}}",
          sem=("acquire", "relaxed"), ss=_MBAR_SPACES)
        for op in ("mbarrier.test_wait", "mbarrier.try_wait")
    ),
    I("mbarrier.pending_count", "mbarrier.pending_count.b64 count, state"),
    I("nanosleep", "nanosleep.u32 t"),
    I("setmaxnreg", "setmaxnreg.action.sync.aligned.u32 n", action=("inc", "dec")),
    I("clusterlaunchcontrol.try_cancel",
      "clusterlaunchcontrol.try_cancel.async{.ss}.completion{.multicast_all}.b128 [addr], [mbar]",
      ss=("shared::cta",), multicast_all=("multicast::cluster::all",)),
    I("clusterlaunchcontrol.query_cancel",
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, handle",
      "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 d, handle",
      "clusterlaunchcontrol.query_cancel.dim.b32.b128 d, handle",
      dim=("get_first_ctaid::x", "get_first_ctaid::y", "get_first_ctaid::z")),
]

ENTRIES_MISC = [
    I("trap", "trap"),
    I("brkpt", "brkpt"),
    I("pmevent", "pmevent a", "pmevent.mask a"),
]
